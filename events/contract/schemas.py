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

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from events.contract.identifiers import envelope_problem, identifier_problem
from events.contract.times import TIME_PATTERN, time_problem
from events.game.cards import DECK
from events.money import MAX_AMOUNT

SCHEMA_VERSION = 1
MAX_SEAT = 1000  # live-online tables have "unlimited" seats; a bound keeps payloads small

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
