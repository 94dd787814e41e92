"""Every simulated event is valid and every hand is consistent: sequence, cards, bets,
decisions and payouts, checked by an independent reading of the stream."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from events.contract.schemas import (
    BetPlaced,
    CardsDealt,
    ChipsPurchased,
    CommunityRevealed,
    DealerRevealed,
    DisputeOpened,
    DisputeResolved,
    HandEnded,
    HandStarted,
    HandVoided,
    PayoutRecorded,
    TableClosed,
    TableOpened,
    decode_event,
    encode_event,
)
from events.game.rules import SeatState, decide, place_bet
from events.game.rulesets import TableLimits
from events.sim.simulation import Floor
from tests.sim.conftest import FLOOR
from tests.sim.handkit import Hand, Stream


def test_every_line_is_a_valid_event_in_canonical_json(floor_lines: list[bytes]) -> None:
    for line in floor_lines:
        assert encode_event(decode_event(line)) == line


def test_every_table_opens_counts_seq_from_zero_and_closes(floor: Stream) -> None:
    assert len(floor.tables) == FLOOR.tables
    for events in floor.tables.values():
        assert [e.seq for e in events] == list(range(len(events)))
        assert isinstance(events[0], TableOpened)
        assert isinstance(events[-1], TableClosed)
        assert not any(isinstance(e, TableOpened | TableClosed) for e in events[1:-1])
        times = [e.occurred_at for e in events]
        assert times == sorted(times)
    assert len({e.event_id for e in floor.events}) == len(floor.events)


def test_hands_are_written_whole_in_the_order_they_start(floor: Stream) -> None:
    """The fast path writes each hand (with the events just before it) in one piece,
    hands of all tables in order of their first event."""
    starts = [e.occurred_at for prev, e in zip([None, *floor.events], floor.events,
                                               strict=False)
              if prev is None or prev.table_id != e.table_id]
    assert starts == sorted(starts)
    assert len(starts) > len(floor.hands) // 2  # tables do interleave


def test_a_paced_floor_writes_every_event_in_time_order(floor_lines: list[bytes]) -> None:
    paced = [line for chunk in Floor(FLOOR, by_event=True).chunks() for line in chunk.lines()]
    times = [decode_event(line).occurred_at for line in paced]
    assert times == sorted(times)
    assert sorted(paced) == sorted(floor_lines)  # the same events


def test_hands_per_table(floor: Stream) -> None:
    per_table = Counter(h.table_id for h in floor.hands.values())
    assert per_table == {t: FLOOR.hands for t in floor.tables}


def _check_cards(hand: Hand) -> None:
    seats = hand.started.payload.seats
    deals = hand.of(CardsDealt)
    assert [d.payload.target for d in deals].count("community") == 1
    assert sorted(d.payload.seat for d in deals if d.payload.target == "seat") == seats
    cards = hand.community + hand.dealer + [c for s in seats for c in hand.hole(s)]
    assert len(cards) == 5 + 2 + 2 * len(seats) == len(set(cards))
    for reveal in hand.of(CommunityRevealed):
        want = hand.community[:3] if reveal.payload.street == "flop" else hand.community[3:]
        assert reveal.payload.cards == want
    for reveal in hand.of(DealerRevealed):
        assert reveal.payload.cards == hand.dealer


def test_each_hand_follows_the_contract_order(floor: Stream) -> None:
    orders = Counter()
    for hand in floor.hands.values():
        ev = hand.events
        assert isinstance(ev[0], HandStarted)
        assert isinstance(ev[-1], HandVoided if hand.voided else HandEnded)
        kinds = [type(e) for e in ev]
        first_card = kinds.index(CardsDealt)
        assert all(k is BetPlaced for k in kinds[1:first_card])
        assert BetPlaced not in kinds[first_card:]
        deals = [e for e in ev if isinstance(e, CardsDealt)]
        assert kinds[first_card:first_card + len(deals)] == [CardsDealt] * len(deals)
        orders[deals[0].payload.target == "community"] += 1
        payouts = [i for i, k in enumerate(kinds) if k is PayoutRecorded]
        assert payouts == list(range(len(ev) - 1 - len(payouts), len(ev) - 1))
        if not hand.voided:
            assert DealerRevealed in kinds and kinds.index(DealerRevealed) < payouts[0]
            assert [r.payload.street for r in hand.of(CommunityRevealed)] == ["flop",
                                                                             "turn_river"]
        else:
            assert DealerRevealed not in kinds
        _check_cards(hand)
    assert orders[True] > 0 and orders[False] > 0  # both dealing orders of the seeds


def test_bets_are_equal_ante_and_blind_within_the_table_limits(floor: Stream) -> None:
    trips_seen = Counter()
    for hand in floor.hands.values():
        p = floor.opened[hand.table_id].payload
        limits = TableLimits(p.min_bet, p.max_bet, p.max_trips)
        bets = hand.bets()
        assert sorted(bets) == hand.started.payload.seats
        for seat, spots in bets.items():
            state = SeatState(seat=seat)
            for e in hand.of(BetPlaced):
                if e.payload.seat == seat:
                    state = place_bet(state, e.payload.spot, e.payload.amount, limits)
            assert state.ante == state.blind
            trips_seen["trips" in spots] += 1
    assert trips_seen[True] > 0 and trips_seen[False] > 0  # trips is optional


def test_decisions_are_legal_and_auto_only_checks_or_folds_online(floor: Stream) -> None:
    autos = Counter()
    for hand in floor.hands.values():
        ruleset = floor.ruleset(hand.table_id)
        online = ruleset.max_seats is None
        for seat, spots in hand.bets().items():
            state = SeatState(seat=seat, ante=spots["ante"], blind=spots["blind"])
            for d in hand.decisions(seat):
                p = d.payload
                state = decide(state, p.street, p.action, p.multiple, p.amount,
                               ruleset=ruleset)
                if p.auto:
                    assert online and p.action == ("fold" if p.street == "river" else "check")
                    autos[p.street] += 1
            if not hand.voided:
                assert state.play or state.folded  # every seat raised or folded
    assert autos["preflop"] and autos["river"]  # timeouts happen online


def test_payouts_are_one_per_wager_and_exactly_the_settlement(floor: Stream) -> None:
    for hand in floor.hands.values():
        correct = hand.correct(floor.ruleset(hand.table_id))
        recorded = {k: (e.payload.outcome, e.payload.amount)
                    for k, e in hand.payouts().items()}
        assert len(hand.of(PayoutRecorded)) == len(recorded)
        assert recorded == correct, hand.hand_id


def test_voided_hands_return_every_wager_at_the_void_rate(floor: Stream) -> None:
    voided = [h for h in floor.hands.values() if h.voided]
    for hand in voided:
        assert {e.payload.outcome for e in hand.of(PayoutRecorded)} == {"push"}
        assert len(hand.of(HandVoided)) == 1 and not hand.of(HandEnded)
    n = len(floor.hands)
    expected = n * FLOOR.void_rate
    sd = (n * FLOOR.void_rate * (1 - FLOOR.void_rate)) ** 0.5
    assert abs(len(voided) - expected) < 4.5 * sd


def test_disputes_are_resolved_later_for_settled_hands_at_the_rate(floor: Stream) -> None:
    position = {e.event_id: i for i, e in enumerate(floor.events)}
    disputed = [h for h in floor.hands.values() if h.disputes]
    for hand in disputed:
        opened = [e for e in hand.disputes if isinstance(e, DisputeOpened)]
        resolved = [e for e in hand.disputes if isinstance(e, DisputeResolved)]
        assert len(opened) == len(resolved) == 1 and not hand.voided
        assert opened[0].payload.seat == resolved[0].payload.seat
        assert opened[0].payload.seat in hand.started.payload.seats
        assert position[hand.events[-1].event_id] < position[opened[0].event_id] \
            < position[resolved[0].event_id]
        assert resolved[0].occurred_at > opened[0].occurred_at > hand.events[-1].occurred_at
        assert resolved[0].payload.adjustment == 0  # no mispays on this floor
    settled = sum(not h.voided for h in floor.hands.values())
    expected = settled * FLOOR.dispute_rate
    sd = (expected * (1 - FLOOR.dispute_rate)) ** 0.5
    assert abs(len(disputed) - expected) < 4.5 * sd


def test_buy_ins_cover_every_stake(floor: Stream) -> None:
    """A seat buys chips when a player sits down and whenever the stack could not cover
    the hand's largest loss (ante + blind + 4x play + trips)."""
    for table_id, events in floor.tables.items():
        stack: dict[int, int] = {}
        present: set[int] = set()
        for e in events:
            if isinstance(e, ChipsPurchased):
                stack[e.payload.seat] = stack.get(e.payload.seat, 0) + e.payload.amount
            elif isinstance(e, HandStarted):
                seats = set(e.payload.seats)
                for gone in present - seats:
                    stack.pop(gone, None)  # the player left with the chips
                present = seats
            elif isinstance(e, BetPlaced) and e.payload.spot == "ante":
                hand = floor.hands[e.hand_id or ""]
                spots = hand.bets()[e.payload.seat]
                need = 6 * spots["ante"] + spots.get("trips", 0)
                assert stack.get(e.payload.seat, 0) >= need, (table_id, e.hand_id)
            elif isinstance(e, PayoutRecorded):
                stack[e.payload.seat] += e.payload.amount
                assert stack[e.payload.seat] >= 0


@pytest.mark.parametrize("online", [False, True])
def test_seats_occupied(floor: Stream, online: bool) -> None:
    counts = Counter()
    for hand in floor.hands.values():
        if (floor.ruleset(hand.table_id).max_seats is None) == online:
            counts[len(hand.started.payload.seats)] += 1
    assert min(counts) >= 1
    if online:
        assert max(counts) > 7  # "an unlimited number of players"
    else:
        assert max(counts) <= 7 and len(counts) >= 5


def test_dealers_change_every_40_to_60_minutes_of_table_time(floor: Stream) -> None:
    from datetime import datetime

    def t(e: object) -> datetime:
        return datetime.fromisoformat(e.occurred_at.replace("Z", "+00:00"))  # type: ignore[attr-defined]

    for events in floor.tables.values():
        starts = [e for e in events if isinstance(e, HandStarted)]
        changes = [starts[0]] + [b for a, b in itertools.pairwise(starts)
                                 if a.payload.dealer_id != b.payload.dealer_id]
        assert len(changes) >= 3
        first = t(events[0])
        for a, b in zip([events[0], *changes[1:]], changes[1:], strict=False):
            minutes = (t(b) - t(a)).total_seconds() / 60
            assert 40 <= minutes <= 66, minutes  # a shift ends at the first hand after it
        assert (t(changes[1]) - first).total_seconds() >= 40 * 60


def test_two_alternating_decks_alternate_their_shoe_id(floor: Stream) -> None:
    for events in floor.tables.values():
        shoes = [e.payload.shoe_id for e in events if isinstance(e, HandStarted)]
        if len(set(shoes)) == 2:
            assert all(a != b for a, b in itertools.pairwise(shoes))
            return
        assert len(set(shoes)) == 1
    pytest.fail("no table dealt from two alternating decks")


def test_live_tables_deal_30_to_60_hands_an_hour(floor: Stream) -> None:
    from datetime import datetime

    rates = []
    for table_id, events in floor.tables.items():
        if floor.ruleset(table_id).max_seats is None:
            continue
        starts = [datetime.fromisoformat(e.occurred_at.replace("Z", "+00:00"))
                  for e in events if isinstance(e, HandStarted)]
        rates.append((len(starts) - 1) / ((starts[-1] - starts[0]).total_seconds() / 3600))
    assert all(25 <= r <= 70 for r in rates), rates
    assert 30 <= sum(rates) / len(rates) <= 60
