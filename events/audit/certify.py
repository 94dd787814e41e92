"""Plain hands certified from columns: the fast path for a batch of hands whose events
are typed columns (an archive's), in array operations, with no event built.

:func:`certify` answers, per hand, one of two things: "certified plain, here are its
rows" (the seat rows :func:`events.audit.judge.judge` gives, for the rows of
:mod:`events.audit.columns`) or "ask the reference" (the caller audits the hand by the
auditor, which plans it, folds it, words its findings). It certifies only what
:func:`events.audit.plan.fast_plan` and the judge certify, and fewer: a hand in the common
course, event kinds in the order a table deals them (the bets, the cards, the preflop
decisions, the flop, the flop decisions, the turn and river, the river decisions, the
dealer's cards, the payouts, the end), each seat's bets and decisions legal by the
predicates of :mod:`events.game.rules` (``bet_ok``, ``decision_ok``, ``in_hand_ok``, asked
once per distinct set of arguments), no card twice, every payout the judge's
(:func:`events.audit.judge.judge_packed`, the same settlement). Voided hands, disputes,
anything out of that course go to the reference. The tests hold it to the auditor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from events.audit.intake import MAX_HAND_EVENTS
from events.audit.judge import judge_packed
from events.game.rules import ACTIONS, BET_SPOTS, bet_ok, decision_ok, in_hand_ok, multiples
from events.game.settlement import OUTCOME_CODES, SPOTS
from events.replay.state import TableContext

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

# the vocabularies of the coded columns (a value's code is its index; -1: none or other)
KINDS = ("HandStarted", "BetPlaced", "CardsDealt", "PlayerDecision", "CommunityRevealed",
         "DealerRevealed", "PayoutRecorded", "HandEnded")
TARGETS = ("seat", "community", "dealer")
STREET_NAMES = ("preflop", "flop", "river", "turn_river")  # decisions', then reveals'
OUTCOMES = tuple(OUTCOME_CODES)
HS, BET, DEAL, DECIDE, REVEAL, DEALER, PAY, END = range(len(KINDS))
SEAT, COMMUNITY, DEALER_CARDS = range(len(TARGETS))
DEALING_ORDERS = ("players_first", "community_first")


@dataclass(frozen=True)
class EventColumns:
    """The events of a batch of hands, one value per event in each array, grouped by hand
    (``hand``: 0, 1, ...) and in ``seq`` order within a hand. Coded columns hold an index
    into their vocabulary (``kind``: :data:`KINDS`, ``spot``: ``settlement.SPOTS``,
    ``action``: ``rules.ACTIONS``, ``street``: :data:`STREET_NAMES`, ``target``:
    :data:`TARGETS`, ``outcome``: :data:`OUTCOMES`), -1 for none or another value;
    ``seat`` -1 for none, ``multiple`` 0 for none; ``cards`` five card indices a row
    (``events.game.cards.DECK``), -1 past ``n_cards`` or for a card not in the deck;
    ``started_hand``/``started_seat``: the seats in play of each ``HandStarted``."""

    hand: Ints
    kind: Ints
    seat: Ints
    spot: Ints
    amount: Ints
    has_amount: Bools
    action: Ints
    street: Ints
    multiple: Ints
    target: Ints
    cards: npt.NDArray[np.int16]
    n_cards: Ints
    outcome: Ints
    started_hand: Ints
    started_seat: Ints


@dataclass(frozen=True)
class Certified:
    """Per hand, ``ok`` (certified) and its dealing order (:data:`DEALING_ORDERS` code);
    the seat rows of the certified hands (``seat_hand``: each row's hand; ``rows``: the
    judge's ``seat, ante, play, trips, folded`` then (outcome code, amount) of ante,
    blind, play and trips; ``categories``: the seat's hand category), by hand then seat."""

    ok: Bools
    dealing_order: Ints
    seat_hand: Ints
    rows: Ints
    categories: Ints


def certify(ev: EventColumns, n_hands: int,
            tables: Sequence[TableContext | None]) -> Certified:
    """Which of ``n_hands`` hands are plain and right (``tables``: each hand's table
    context, the ``TableOpened`` in force), and the certified ones' seat rows."""
    h, kind, n = ev.hand, ev.kind, len(ev.hand)
    bad = np.zeros(n_hands, dtype=bool)
    starts = np.searchsorted(h, np.arange(n_hands))
    ends = np.searchsorted(h, np.arange(n_hands), side="right")
    counts = ends - starts
    bad |= (counts < 2) | (counts >= MAX_HAND_EVENTS)
    bad |= np.array([t is None or t.ruleset is None or t.limits is None for t in tables],
                    dtype=bool).reshape(n_hands)
    if n == 0 or bad.all():
        return _none(n_hands)
    last = np.maximum(ends - 1, 0)

    # the course of a hand: each event's stage, never lower than the one before
    stage = np.full(n, 99, np.int64)
    for k, s in ((HS, 0), (BET, 1), (DEAL, 2), (DEALER, 8), (PAY, 9), (END, 10)):
        stage[kind == k] = s
    decided = (kind == DECIDE) & (ev.street >= 0) & (ev.street <= 2)
    stage[decided] = 3 + 2 * ev.street[decided]  # preflop 3, flop 5, river 7
    stage[(kind == REVEAL) & (ev.street == 1)] = 4  # the flop
    stage[(kind == REVEAL) & (ev.street == 3)] = 6  # the turn and river
    _mark(bad, h, stage == 99)
    same = h[1:] == h[:-1]
    _mark(bad, h[1:], same & (stage[1:] < stage[:-1]))
    bad |= (kind[starts.clip(0, n - 1)] != HS) | (kind[last] != END)
    deal_target = np.where(kind == DEAL, ev.target, -1)
    for one in (kind == HS, kind == END, kind == DEALER, stage == 4, stage == 6,
                deal_target == COMMUNITY, deal_target == DEALER_CARDS):
        bad |= np.bincount(h[one], minlength=n_hands) != 1
    # how many cards each carries (a seat's and the dealer's two, the board's five)
    want = np.full(n, -1, np.int64)
    want[deal_target == SEAT] = 2
    want[deal_target == DEALER_CARDS] = 2
    want[deal_target == COMMUNITY] = 5
    want[stage == 4] = 3
    want[stage == 6] = 2
    want[kind == DEALER] = 2
    carrying = want >= 0
    _mark(bad, h, carrying & (ev.n_cards != want))
    cards = ev.cards.astype(np.int64)
    shown = np.arange(5) < np.where(carrying, ev.n_cards, 0)[:, None]
    _mark(bad, h, (shown & (cards < 0)).any(axis=1))
    # no card dealt twice in a hand
    dealt = (kind == DEAL)[:, None] & shown & (cards >= 0)
    keys = np.sort((h[:, None] * 64 + cards)[dealt])
    _mark(bad, keys[1:] // 64, keys[1:] == keys[:-1])
    board = _by_hand(n_hands, h, deal_target == COMMUNITY, cards)
    dealer = _by_hand(n_hands, h, deal_target == DEALER_CARDS, cards)
    for where, have, first, upto in ((stage == 4, board, 0, 3), (stage == 6, board, 3, 5),
                                     (kind == DEALER, dealer, 0, 2)):
        at = np.flatnonzero(where)
        differs = np.asarray(cards[at, :upto - first] != have[h[at], first:upto], bool)
        _mark(bad, h[at], differs.any(axis=1))

    # the seats: in play (HandStarted), a limit on the seat numbers
    width = int(max(ev.seat.max(initial=0), ev.started_seat.max(initial=0))) + 1
    in_play = np.unique(ev.started_hand * width + ev.started_seat)
    top = np.zeros(n_hands, np.int64)
    np.maximum.at(top, ev.started_hand, ev.started_seat)
    limit = np.array([t.limits.seats if t is not None and t.limits is not None
                      and t.limits.seats is not None else 1 << 30 for t in tables], np.int64)
    bad |= top > limit.reshape(n_hands)
    seat_key = np.where(ev.seat >= 0, h * width + ev.seat, -1)
    bets = np.flatnonzero(kind == BET)
    _mark(bad, h[bets], ~np.isin(seat_key[bets], in_play) | (ev.seat[bets] < 0))
    slots, slot_of_bet = np.unique(seat_key[bets], return_inverse=True)
    stake = np.zeros((len(slots), 4), np.int64)  # ante, blind, play (unused), trips
    placed_at = np.full((len(slots), 4), n, np.int64)
    spot = ev.spot[bets]
    spot_ok = np.isin(spot, [SPOTS.index(s) for s in BET_SPOTS])
    _mark(bad, h[bets], ~spot_ok)
    twice = np.unique(slot_of_bet * 4 + spot, return_counts=True)
    _mark(bad, slots[twice[0][twice[1] > 1] // 4] // width, np.ones(int((twice[1] > 1)
                                                                          .sum()), bool))
    stake[slot_of_bet[spot_ok], spot[spot_ok]] = ev.amount[bets][spot_ok]
    placed_at[slot_of_bet[spot_ok], spot[spot_ok]] = bets[spot_ok]
    before = placed_at[slot_of_bet] < bets[:, None]  # each bet: the spots placed before it
    prior = np.where(before, stake[slot_of_bet], 0)
    table_of, contexts = _table_codes(tables)
    args = np.stack([prior[:, 0], prior[:, 1], prior[:, 3], np.maximum(spot, 0),
                     ev.amount[bets], table_of[h[bets]]], axis=1)
    _mark(bad, h[bets], ~_asked(args, lambda a, b, t, s, amount, c: _bet_ok(
        contexts[c], a, b, t, SPOTS[s], amount)))
    slot_hand = slots // width
    # a seat dealt: in play, once, its ante and blind placed and equal
    _mark(bad, h, (kind == DEAL) & (ev.target < 0))
    _mark(bad, h, (deal_target == SEAT) & (ev.seat < 0))
    to_seat = np.flatnonzero((deal_target == SEAT) & (ev.seat >= 0))
    _mark(bad, h[to_seat], ~np.isin(seat_key[to_seat], slots))
    holes, hole_at, hole_count = np.unique(seat_key[to_seat], return_index=True,
                                           return_counts=True)
    _mark(bad, holes[hole_count > 1] // width, np.ones(int((hole_count > 1).sum()), bool))
    ante, blind = stake[:, 0], stake[:, 1]
    in_hand = _asked(np.stack([ante, blind], axis=1), in_hand_ok)
    # every seat with a bet was dealt and may be (the closing check of the plan)
    has_hole = np.isin(slots, holes)
    _mark(bad, slot_hand, ~has_hole | ~in_hand | (ante != blind))

    # the decisions: each against the seat's state before it
    decs = np.flatnonzero(kind == DECIDE)
    found = np.searchsorted(slots, seat_key[decs]).clip(0, max(len(slots) - 1, 0))
    known = (slots[found] == seat_key[decs]) if len(slots) else np.zeros(len(decs), bool)
    _mark(bad, h[decs], ~known | ~np.isin(seat_key[decs], holes))
    # a decision of a seat without bets: a group of its own (its hand is refused)
    dec_slot = np.where(known, found, len(slots) + np.arange(len(decs)))
    seat_ante = np.append(ante, np.zeros(len(decs), np.int64))
    order = np.argsort(dec_slot, kind="stable")  # each seat's decisions, in event order
    group_start = np.searchsorted(dec_slot[order], dec_slot[order])
    rank = np.empty(len(decs), np.int64)
    rank[order] = np.arange(len(decs)) - group_start
    raise_amount = np.where(ev.action[decs] == ACTIONS.index("raise"),
                            np.where(ev.has_amount[decs], ev.amount[decs], 1), 0)
    folds = (ev.action[decs] == ACTIONS.index("fold")).astype(np.int64)
    play_before = np.empty(len(decs), np.int64)
    fold_before = np.empty(len(decs), np.int64)
    for before_, values in ((play_before, raise_amount), (fold_before, folds)):
        run = np.cumsum(values[order]) - values[order]
        before_[order] = run - run[group_start]
    street = ev.street[decs]
    args = np.stack([seat_ante[dec_slot], play_before, fold_before, rank, street.clip(0, 2),
                     ev.action[decs].clip(0), ev.multiple[decs],
                     ev.has_amount[decs].astype(np.int64), ev.amount[decs],
                     table_of[h[decs]]], axis=1)
    _mark(bad, h[decs], (ev.action[decs] < 0) | (street < 0) | (street > 2)
          | ~_asked(args, lambda *a: _decision_ok(contexts, *a)))
    # every seat with a bet raised or folded
    play = np.zeros(len(slots), np.int64)
    folded = np.zeros(len(slots), bool)
    np.add.at(play, found[known], raise_amount[known])
    folded[found[known & (folds == 1)]] = True
    _mark(bad, slot_hand, (play == 0) & ~folded)
    return _judged(ev, n_hands, bad, slots, slot_hand, width, stake, play, holes, hole_at,
                   to_seat, board, dealer, tables, deal_target)


def _judged(ev: EventColumns, n_hands: int, bad: Bools, slots: Ints, slot_hand: Ints,
            width: int, stake: Ints, play: Ints, holes: Ints, hole_at: Ints, to_seat: Ints,
            board: Ints, dealer: Ints, tables: Sequence[TableContext | None],
            deal_target: Ints) -> Certified:
    """The plans of the hands not refused yet, packed, through the judge."""
    h = ev.hand
    deals = np.flatnonzero(deal_target >= 0)
    first_deal = np.full(n_hands, -1, np.int64)
    firsts, at = np.unique(h[deals], return_index=True)
    first_deal[firsts] = deal_target[deals][at]
    dealing = (first_deal == COMMUNITY).astype(np.int64)
    live = np.flatnonzero(~bad)
    keep = ~bad[slot_hand]
    seats = slots[keep] % width
    hands_of_rows = slot_hand[keep]
    n_seats = np.bincount(np.searchsorted(live, hands_of_rows), minlength=len(live))
    p = stake[keep]
    table = np.stack([seats, p[:, 0], play[keep], p[:, 3],
                      (play[keep] == 0).astype(np.int64)], axis=1)
    hole = ev.cards[to_seat[hole_at[np.searchsorted(holes, slots[keep])]], :2].astype(np.int64)
    seat_cards = np.concatenate([hole, board[hands_of_rows]], axis=1)
    dealer_cards = np.concatenate([dealer[live, :2], board[live]], axis=1)
    # each plan's rows: its dealer's, then its seats' (the judge's layout)
    row_hand = np.concatenate([live, hands_of_rows])
    row_kind = np.concatenate([np.zeros(len(live), np.int64), np.ones(len(seats), np.int64)])
    layout = np.lexsort((row_kind, row_hand))
    cards = np.concatenate([dealer_cards, seat_cards])[layout].astype(np.int16)
    pays = np.flatnonzero((ev.kind == PAY) & ~bad[h])
    pay_rows = np.stack([ev.seat[pays], ev.spot[pays],
                         _OUTCOME_CODE[ev.outcome[pays] + 1], ev.amount[pays]], axis=1)
    n_pays = np.bincount(np.searchsorted(live, h[pays]), minlength=len(live))
    odd_pay = (ev.spot[pays] < 0) | (ev.outcome[pays] < 0) | ~ev.has_amount[pays]
    rulesets = [tables[i].ruleset for i in live.tolist()]  # type: ignore[union-attr]
    refused, code, amount, cats = judge_packed(n_seats, n_pays, table, pay_rows, cards,
                                               rulesets)
    refused = refused.copy()
    refused[np.searchsorted(live, h[pays][odd_pay])] = True
    bad = bad.copy()
    bad[live[refused]] = True
    ok_rows = ~bad[hands_of_rows]
    rows = np.concatenate([table, np.stack([code, amount], axis=2).reshape(-1, 8)],
                          axis=1)[ok_rows] if len(table) else np.zeros((0, 13), np.int64)
    return Certified(~bad, dealing, hands_of_rows[ok_rows], rows,
                     cats[ok_rows] if len(table) else np.zeros(0, np.int64))


_OUTCOME_CODE = np.array([-9, *OUTCOME_CODES.values()], np.int64)  # by outcome code + 1


def _none(n_hands: int) -> Certified:
    return Certified(np.zeros(n_hands, bool), np.zeros(n_hands, np.int64),
                     np.zeros(0, np.int64), np.zeros((0, 13), np.int64),
                     np.zeros(0, np.int64))


def _mark(bad: Bools, hands: Ints, where: npt.ArrayLike) -> None:
    """Refuse the hands of the events (or rows) where ``where`` holds."""
    bad[hands[np.asarray(where, bool)]] = True


def _by_hand(n_hands: int, h: Ints, where: Bools, cards: Ints) -> Ints:
    """Each hand's cards of the one event where ``where`` holds (-1 where none)."""
    out = np.full((n_hands, 5), -1, np.int64)
    out[h[where]] = cards[where]
    return out


def _table_codes(tables: Sequence[TableContext | None]
                 ) -> tuple[Ints, list[TableContext | None]]:
    """Each hand's table context as a small number (the same context, the same number),
    and the contexts by number (those of refused hands too: never asked about)."""
    seen: dict[int, int] = {}
    contexts: list[TableContext | None] = []
    codes = []
    for t in tables:
        code = seen.get(id(t))
        if code is None:
            code = seen[id(t)] = len(contexts)
            contexts.append(t)
        codes.append(code)
    return np.array(codes, np.int64), contexts


def _bet_ok(context: TableContext | None, ante: int, blind: int, trips: int, spot: str,
            amount: int) -> bool:
    return context is not None and context.limits is not None and bet_ok(
        ante, blind, trips, spot, amount, context.limits)


def _decision_ok(contexts: Sequence[TableContext | None], ante: int, play: int, folded: int,
                 decided: int, street: int, action: int, multiple: int, has_amount: int,
                 amount: int, table: int) -> bool:
    context = contexts[table]
    if context is None:
        return False
    name = STREET_NAMES[street]
    return decision_ok(ante, play, bool(folded), decided, name, ACTIONS[action],
                       multiple or None, amount if has_amount else None,
                       multiples(name, context.ruleset), name)


def _asked(args: Ints, predicate: Callable[..., bool]) -> Bools:
    """``predicate`` of each row of ``args``, asked once per distinct row (the rows sorted,
    a distinct row where any column changes)."""
    if not len(args):
        return np.zeros(0, bool)
    order = np.lexsort(args.T[::-1])
    rows = args[order]
    new = np.empty(len(rows), bool)
    new[0] = True
    new[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    answers = np.array([bool(predicate(*map(int, row))) for row in rows[new].tolist()], bool)
    out = np.empty(len(rows), bool)
    out[order] = answers[np.cumsum(new) - 1]
    return out
