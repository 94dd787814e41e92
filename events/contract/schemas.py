"""The table event contract v1 as frozen, tagged msgspec Structs.

One Struct per event type; the envelope's ``type`` field is the tag, so one decoder
reads any event and hands back the right class. Unknown extra fields are ignored
(the contract may grow); every named field is validated on decode.

>>> ev = decode_event(b'{"event_id":"e1","type":"TableClosed","schema_version":1,'
...     b'"table_id":"T1","hand_id":null,"seq":7,"occurred_at":"2026-11-29T21:03:11.123Z",'
...     b'"payload":{}}')
>>> type(ev).__name__, ev.seq
('TableClosed', 7)
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
import numpy as np

from events.contract.identifiers import envelope_problem, identifier_problem
from events.game.cards import DECK
from events.money import MAX_AMOUNT

SCHEMA_VERSION = 1
MAX_SEAT = 1000  # live-online tables have "unlimited" seats; a bound keeps payloads small

TIME_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|\+00:00)$"

if TYPE_CHECKING:
    Card = str
else:
    # The 52 cards as an enum: msgspec checks it with one hash lookup, where a regex
    # pattern costs about a microsecond per card (events.contract.codec's throughput target).
    Card = Annotated[Literal[DECK], msgspec.Meta(description="rank then suit, e.g. As")]
Seat = Annotated[int, msgspec.Meta(ge=1, le=MAX_SEAT, description="seat number, from 1")]
PositiveCents = Annotated[int, msgspec.Meta(gt=0, le=MAX_AMOUNT, description="cents, > 0")]
SignedCents = Annotated[
    int, msgspec.Meta(ge=-MAX_AMOUNT, le=MAX_AMOUNT, description="cents, signed")
]
ShortText = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
LongText = Annotated[str, msgspec.Meta(max_length=4000)]
PlayerRef = Annotated[str, msgspec.Meta(
    min_length=1, max_length=200,
    description="the player, if the table knows who sits there; stored pseudonymized "
    "(events.contract.privacy)")]
Timestamp = Annotated[
    str,
    msgspec.Meta(  # the pattern is checked by decode_event / events.contract.codec (time_problem)
        extra_json_schema={"pattern": TIME_PATTERN},
        description="RFC 3339 UTC time",
    ),
]

Spot = Literal["ante", "blind", "trips"]
PayoutSpot = Literal["ante", "blind", "play", "trips"]
Outcome = Literal["win", "lose", "push"]
Street = Literal["preflop", "flop", "river"]
Action = Literal["check", "raise", "fold"]

# Form and ranges (ASCII digits; month 01-12, day 01-31, hour < 24, minute < 60, second
# < 60) at once; the day of the month is checked after it (:func:`_calendar_problem`).
_TIME_BODY = (r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):"
              r"[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?(?:Z|\+00:00)")
_REAL_TIME = re.compile(_TIME_BODY).fullmatch
_REAL_TIMES = re.compile(f"(?:{_TIME_BODY}\n)*").fullmatch
_MONTH_DAYS = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
# a day either side of a time's year is still a real year (zones, gaming days)
FIRST_YEAR, LAST_YEAR = 2, 9998


def time_problem(text: str) -> str | None:
    """Why ``text`` is not an ``occurred_at`` of the contract, or None when it is one.

    A time the warehouse could not store is refused here, with its reason, so that it goes
    to the dead letters rather than stopping every load at its batch: a day the month does
    not have (``2026-02-31``), and a leap second (second 60, which RFC 3339 allows but
    timestamps here do not hold; table clocks are expected to smear it).

    >>> time_problem("2026-11-29T21:03:11.123Z") is None
    True
    >>> time_problem("2027-02-29T10:00:00Z")
    "'2027-02-29T10:00:00Z' is not a real time (2027-02 has no day 29)"
    >>> time_problem("2026-12-31T23:59:60Z")
    "'2026-12-31T23:59:60Z' is a leap second (second 60), which is not recorded"

    A year outside 0002..9998 is refused too: in the casino's zone, or as a gaming day
    that started the evening before, such a time could fall outside the years 1..9999
    the warehouse holds.

    >>> time_problem("9999-12-31T23:00:00Z")[23:]
    'is outside the years 0002 to 9998 that every zone and gaming day can hold'
    """
    if _REAL_TIME(text) is not None:
        return _calendar_problem(text)
    if re.fullmatch(TIME_PATTERN, text, flags=re.ASCII):
        if text[17:19] == "60" and _REAL_TIME(text[:17] + "59" + text[19:]) is not None:
            return f"{text!r} is a leap second (second 60), which is not recorded"
        return f"{text!r} is not a real time"
    return f"{text[:40]!r} is not an RFC 3339 UTC time such as 2026-11-29T21:03:11.123Z"


def _calendar_problem(text: str) -> str | None:
    """For a time of the right form and ranges: a year out of bounds, or a day its month
    does not have."""
    if not FIRST_YEAR <= int(text[0:4]) <= LAST_YEAR:
        return (f"{text!r} is outside the years {FIRST_YEAR:04d} to {LAST_YEAR} that every "
                "zone and gaming day can hold")
    day = int(text[8:10])
    if day < 29:
        return None
    year, month = int(text[0:4]), int(text[5:7])
    if day > _MONTH_DAYS[month] or (month == 2 and day == 29 and not calendar.isleap(year)):
        return f"{text!r} is not a real time ({text[:7]} has no day {day})"
    return None


def times_valid(events: Sequence[Event]) -> bool:
    """True when every event's ``occurred_at`` is a contract time: in one NumPy pass when
    all have the common form ``2026-11-29T21:03:11.123Z`` (any one number of fraction
    digits, 1 to 9, for the whole batch), else by one regex call and the calendar."""
    times = [e.occurred_at for e in events]
    joined = "\n".join(times) + "\n"
    if _common_form(joined, len(events)):
        return True
    return (joined.count("\n") == len(events) and _REAL_TIMES(joined) is not None
            and not any(map(_calendar_problem, times)))


# the common form, ``YYYY-MM-DDTHH:MM:SS.`` then the fraction digits, ``Z`` and a newline:
# where the date and time digits and the separators are
_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
_SEPARATORS = {4: ord("-"), 7: ord("-"), 10: ord("T"), 13: ord(":"), 16: ord(":"),
               19: ord(".")}


def _common_form(joined: str, n: int) -> bool:
    """True when ``joined`` is ``n`` real times of the form ``YYYY-MM-DDTHH:MM:SS.fffZ``
    (the same number of fraction digits in all, 1 to 9), each followed by a newline (what
    the regex accepts, checked column by column; any other form, valid or not, is left to
    the regex)."""
    if n == 0 or not joined.isascii():
        return False
    width = joined.find("\n") + 1  # of one time and its newline
    fraction = width - 22
    if not 1 <= fraction <= 9 or len(joined) != width * n:
        return False
    rows = np.frombuffer(joined.encode("ascii"), dtype=np.uint8).reshape(n, width)
    separators = {**_SEPARATORS, width - 2: ord("Z"), width - 1: ord("\n")}
    for col, char in separators.items():
        if not (rows[:, col] == char).all():
            return False
    digits = rows[:, _DIGITS + list(range(20, 20 + fraction))].astype(np.int16) - ord("0")
    if not ((digits >= 0) & (digits <= 9)).all():
        return False
    month = digits[:, 4] * 10 + digits[:, 5]
    day = digits[:, 6] * 10 + digits[:, 7]
    hour = digits[:, 8] * 10 + digits[:, 9]
    minute = digits[:, 10] * 10 + digits[:, 11]
    second = digits[:, 12] * 10 + digits[:, 13]
    if not ((month >= 1) & (month <= 12) & (day >= 1) & (hour <= 23) & (minute <= 59)
            & (second <= 59)).all():
        return False
    year = digits[:, 0] * 1000 + digits[:, 1] * 100 + digits[:, 2] * 10 + digits[:, 3]
    if not ((year >= FIRST_YEAR) & (year <= LAST_YEAR)).all():
        return False
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    last = np.asarray(_MONTH_DAYS, dtype=np.int16)[month] - ((month == 2) & ~leap)
    return bool((day <= last).all())


class _Payload(
    msgspec.Struct, frozen=True, forbid_unknown_fields=False, omit_defaults=True, gc=False
):
    pass


class TableOpenedPayload(_Payload, frozen=True):
    ruleset: ShortText
    min_bet: PositiveCents
    max_bet: PositiveCents
    seats: Annotated[int, msgspec.Meta(ge=1, le=MAX_SEAT)]
    currency: Annotated[str, msgspec.Meta(pattern=r"^[A-Z]{3}$")]
    max_trips: PositiveCents | None = None

    def __post_init__(self) -> None:
        if self.min_bet > self.max_bet:
            raise ValueError(f"min_bet {self.min_bet} is above max_bet {self.max_bet}")


class EmptyPayload(_Payload, frozen=True):
    pass


class ChipsPurchasedPayload(_Payload, frozen=True):
    seat: Seat
    amount: PositiveCents
    method: Literal["cash", "marker", "chips"]


class HandStartedPayload(_Payload, frozen=True):
    dealer_id: ShortText
    seats: Annotated[list[Seat], msgspec.Meta(min_length=1, max_length=MAX_SEAT)]
    shoe_id: ShortText | None = None
    player_refs: Annotated[dict[Seat, PlayerRef], msgspec.Meta(max_length=MAX_SEAT)] | None = None

    def __post_init__(self) -> None:
        for name, value in (("dealer_id", self.dealer_id), ("shoe_id", self.shoe_id)):
            problem = identifier_problem(value) if value is not None else None
            if problem is not None:
                raise ValueError(f"{name} {problem}")
        if self.player_refs and not set(self.player_refs) <= set(self.seats):
            raise ValueError("player_refs names a seat that is not in play")
        if len(set(self.seats)) != len(self.seats):
            raise ValueError("a seat is listed twice")


class BetPlacedPayload(_Payload, frozen=True):
    seat: Seat
    spot: Spot
    amount: PositiveCents
    player_ref: PlayerRef | None = None


class CardsDealtPayload(_Payload, frozen=True):
    target: Literal["community", "seat", "dealer"]
    cards: Annotated[list[Card], msgspec.Meta(min_length=2, max_length=5)]
    seat: Seat | None = None

    def __post_init__(self) -> None:
        want = 5 if self.target == "community" else 2
        if len(self.cards) != want:
            raise ValueError(f"{self.target} gets {want} cards, not {len(self.cards)}")
        if (self.target == "seat") != (self.seat is not None):
            raise ValueError("seat is required when target is seat, and only then")
        if len(set(self.cards)) != len(self.cards):
            raise ValueError("the same card is listed twice")


class CommunityRevealedPayload(_Payload, frozen=True):
    street: Literal["flop", "turn_river"]
    cards: Annotated[list[Card], msgspec.Meta(min_length=2, max_length=3)]

    def __post_init__(self) -> None:
        want = 3 if self.street == "flop" else 2
        if len(self.cards) != want:
            raise ValueError(f"the {self.street} reveals {want} cards, not {len(self.cards)}")


class PlayerDecisionPayload(_Payload, frozen=True):
    seat: Seat
    street: Street
    action: Action
    multiple: Annotated[int, msgspec.Meta(ge=1, le=4)] | None = None
    amount: PositiveCents | None = None
    auto: bool = False

    def __post_init__(self) -> None:
        if self.action == "raise":
            if self.multiple is None or self.amount is None:
                raise ValueError("a raise carries multiple and amount")
        elif self.multiple is not None or self.amount is not None:
            raise ValueError(f"a {self.action} carries no multiple or amount")


class DealerRevealedPayload(_Payload, frozen=True):
    cards: Annotated[list[Card], msgspec.Meta(min_length=2, max_length=2)]


class PayoutRecordedPayload(_Payload, frozen=True):
    seat: Seat
    spot: PayoutSpot
    outcome: Outcome
    amount: SignedCents

    def __post_init__(self) -> None:
        if self.outcome == "push" and self.amount != 0:
            raise ValueError("a push carries amount 0")
        if self.outcome == "win" and self.amount < 0:
            raise ValueError("a win carries a non-negative amount")
        if self.outcome == "lose" and self.amount >= 0:
            raise ValueError("a loss carries a negative amount (minus the stake)")


class HandVoidedPayload(_Payload, frozen=True):
    reason: LongText


class DisputeOpenedPayload(_Payload, frozen=True):
    seat: Seat
    claim: LongText


class DisputeResolvedPayload(_Payload, frozen=True):
    seat: Seat
    resolution: LongText
    adjustment: SignedCents


class _Envelope(
    msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=False,
    omit_defaults=False, gc=False,
):
    event_id: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    schema_version: Annotated[int, msgspec.Meta(ge=1, le=SCHEMA_VERSION)]
    table_id: ShortText
    hand_id: ShortText | None
    seq: Annotated[int, msgspec.Meta(ge=0, le=2**62)]
    occurred_at: Timestamp


class _HandEvent(_Envelope, frozen=True):
    hand_id: ShortText  # the events of a hand carry it: not null


class _TableEvent(_Envelope, frozen=True):
    # the table's rules (for every hand after) and its drop: not one hand's events (a
    # hand_id would route them into a hand, even one already settled)
    hand_id: None


class TableOpened(_TableEvent, frozen=True, tag="TableOpened"):
    payload: TableOpenedPayload


class TableClosed(_TableEvent, frozen=True, tag="TableClosed"):
    payload: EmptyPayload


class ChipsPurchased(_TableEvent, frozen=True, tag="ChipsPurchased"):
    payload: ChipsPurchasedPayload


class HandStarted(_HandEvent, frozen=True, tag="HandStarted"):
    payload: HandStartedPayload


class BetPlaced(_HandEvent, frozen=True, tag="BetPlaced"):
    payload: BetPlacedPayload


class CardsDealt(_HandEvent, frozen=True, tag="CardsDealt"):
    payload: CardsDealtPayload


class CommunityRevealed(_HandEvent, frozen=True, tag="CommunityRevealed"):
    payload: CommunityRevealedPayload


class PlayerDecision(_HandEvent, frozen=True, tag="PlayerDecision"):
    payload: PlayerDecisionPayload


class DealerRevealed(_HandEvent, frozen=True, tag="DealerRevealed"):
    payload: DealerRevealedPayload


class PayoutRecorded(_HandEvent, frozen=True, tag="PayoutRecorded"):
    payload: PayoutRecordedPayload


class HandEnded(_HandEvent, frozen=True, tag="HandEnded"):
    payload: EmptyPayload


class HandVoided(_HandEvent, frozen=True, tag="HandVoided"):
    payload: HandVoidedPayload


class DisputeOpened(_HandEvent, frozen=True, tag="DisputeOpened"):
    payload: DisputeOpenedPayload


class DisputeResolved(_HandEvent, frozen=True, tag="DisputeResolved"):
    payload: DisputeResolvedPayload


Event = (
    TableOpened | TableClosed | ChipsPurchased | HandStarted | BetPlaced | CardsDealt
    | CommunityRevealed | PlayerDecision | DealerRevealed | PayoutRecorded | HandEnded
    | HandVoided | DisputeOpened | DisputeResolved
)
EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        TableOpened, TableClosed, ChipsPurchased, HandStarted, BetPlaced, CardsDealt,
        CommunityRevealed, PlayerDecision, DealerRevealed, PayoutRecorded, HandEnded,
        HandVoided, DisputeOpened, DisputeResolved,
    )
}

# the table-level types: their hand_id must be null
TABLE_EVENT_TYPES = frozenset(
    name for name, cls in EVENT_TYPES.items() if issubclass(cls, _TableEvent))

_decoder: msgspec.json.Decoder[Event] = msgspec.json.Decoder(Event)
_encoder = msgspec.json.Encoder()


def decode_event(data: bytes | str) -> Event:
    """Decode and validate one v1 event; raises ``msgspec.ValidationError`` or ``DecodeError``.

    ``occurred_at`` and the envelope's identifiers (:mod:`events.contract.identifiers`) are
    checked here rather than in the Struct (one regex call per event
    in ``__post_init__`` cost a third of the decode time); ``events.contract.codec`` checks a whole
    batch's times in one call with :func:`times_valid`.

    ``events.contract.codec`` wraps this with upcasting and readable rejections; use that for input
    from outside the process.
    """
    event = _decoder.decode(data)
    problem = time_problem(event.occurred_at)
    if problem is not None:
        raise msgspec.ValidationError(f"{problem} - at `$.occurred_at`")
    bad_id = envelope_problem(event)
    if bad_id is not None:
        raise msgspec.ValidationError(f"{bad_id[1]} - at `$.{bad_id[0]}`")
    return event


def encode_event(event: Event) -> bytes:
    """The event as compact JSON bytes (payload fields that are absent stay absent)."""
    return _encoder.encode(event)


def json_schema() -> dict[str, Any]:
    """The contract as JSON Schema (draft 2020-12), for table vendors to validate against."""
    schema: dict[str, Any] = msgspec.json.schema(Event)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "UTH table event, contract v1"
    return schema
