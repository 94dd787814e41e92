"""``uth protect``: game protection, one line per player assessed.

    uth protect --source floor.jsonl
    uth protect --source sqlite:///floor.db --json --min-hands 100
    uth protect --source floor.jsonl --dealers      # one line per dealer assessed
    uth protect --source floor.jsonl --ratings      # rating slips per player and day

Every decision (preflop 4x/3x or check, flop 2x or check, river 1x or fold) is valued with
the dealer's actual hole cards and against dealer cards the player could not tell apart:
honest play gains nothing from the hidden cards on average, whatever its skill, so each
player's standardized gain is about N(0, 1); a hole-carder's keeps growing
(docs/game-protection.md). A player is the pseudonym of ``player_ref`` or a seat session.

``--json``: one object per player (``player``, ``table_id``, ``seats``, ``hands``,
``decisions``, ``score``, ``flagged``, ``pattern``: ``hole-card-both``, ``hole-card-one``
or null, ``evidence``: the strongest hands' ids, ``only_with_dealer``: the dealer whose hands
alone carry the evidence (a dealer who flashes) or null, ``dealers``: the player's hands,
hidden-card gain and score with each dealer, ``test``: the test that scored highest
(``value`` or ``sign <street>``), ``streets``: the streets whose sign test of informative
decisions reaches 2, ``z_sign``: the largest sign test, ``crossed_on``: the gaming day the
sequential test over the player's history crossed the line, or null). The text form ends
with the dealers the flagged players' gains concentrate on, and the dealers flagged on
their own statistic.

``--dealers``: one line (object) per dealer with at least N hands: ``dealer_id``,
``tables``, ``hands``, ``score``, ``flagged`` (the informed decisions of the players at his
tables concentrate on his hands, against the same players' decisions with other dealers;
false alarms at most 1 in 10,000 dealers who do not flash), ``pattern`` (``flashes`` or
null), ``evidence``, ``hosts_score`` and ``note`` (``hosts-hole-carders``: hole-card play
at his hands, whoever deals: where to look, not a flag).

``--ratings``: one line (object) per player and gaming day (``UTH_GAMING_DAY_START`` in
``UTH_TIMEZONE``): hands, handle, theo in two parts (``theo_base``: the antes x the base
game's exact edge, unknown for a ruleset whose blind table or multiples have none;
``theo_trips``), the decisions' cost against basic strategy, resolved disputes'
adjustments, actual win; an unknown figure is ``unknown`` (null in JSON), never a guess.

Exit status: 0 when the assessment ran (whatever it found), 2 when the source cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any


def register(sub: Any) -> None:
    p = sub.add_parser("protect", help="game protection: hole-card play, player by player",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", required=True,
                   help="file.jsonl, sqlite:///log.db or kafka://host:port[/topic]")
    p.add_argument("--json", action="store_true", help="JSON Lines, one object per player")
    p.add_argument("--min-hands", type=int, default=None, metavar="N",
                   help="assess players (and dealers) with at least N hands (default 50)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--dealers", action="store_true",
                      help="one line per dealer assessed instead of per player")
    what.add_argument("--ratings", action="store_true",
                      help="rating slips per player and gaming day instead")
    p.set_defaults(func=run)


def protect_source(source: str, min_hands: int | None = None,
                   ratings: tuple[int, str] | None = None,
                   days: tuple[int, str] | None = None, progress: Any = None) -> Any:
    """The ``ProtectionReport`` of everything in ``source`` (``ratings=(day_start_minutes,
    zone)``: with the rating slips). The source is read twice: first for the resolved
    disputes' adjustments, so that the seat-hands are scored a slice at a time as their
    hands end (memory bounded by the slice, not by the log). ``progress``: a
    :class:`pipeline.terminal.StatusLine` told how far each pass is."""
    from pipeline.terminal import StatusLine

    shown = progress if progress is not None else StatusLine("uth protect", on=False)
    from events.contract.codec import decode_records
    from events.protection.assess import MIN_HANDS
    from events.protection.hands import Adjustments
    from events.protection.report import protect
    from pipeline.commands.audit import decoded_batches

    adjustments = Adjustments()
    for chunk in shown.counting(_dispute_lines(source), "pass 1 of 2 (disputes)", "record"):
        wanted = [(p, v) for p, v in chunk if v is not None]
        if wanted:
            adjustments.feed(decode_records(wanted))
    report = protect(_then(shown.counting(decoded_batches(source, scrub=False),
                                          "pass 2 of 2 (decisions)", "event"),
                           lambda: shown("scoring the players and dealers", now=True)),
                     MIN_HANDS if min_hands is None else min_hands,
                     adjustments=adjustments, ratings=ratings, days=days)
    shown.clear()
    return report


def _dispute_lines(source: str) -> Any:
    """The source's records batch by batch (:func:`~pipeline.commands.audit.read_batches`),
    as ``(position, raw bytes)`` for a record that may hold a ``DisputeResolved`` (the
    type's name as it is, or escaped) and ``(None, None)`` for the others: a batch none of
    whose lines may hold one is searched once, whole, rather than line by line."""
    from pipeline.commands.audit import read_batches

    def maybe(value: bytes) -> bool:
        return b"DisputeResolved" in value or b"\\" in value

    for chunk in read_batches(source):
        if not maybe(b"".join([v for _, v in chunk])):
            yield [(None, None)] * len(chunk)
        else:
            yield [(p, v) if maybe(v) else (None, None) for p, v in chunk]


def _then(batches: Any, after: Any) -> Any:
    """``batches``, then ``after()`` once they are all read."""
    yield from batches
    after()


def run(args: argparse.Namespace) -> int:
    from events.localtime import day_start, zone_name
    from events.logs import LogError
    from pipeline.terminal import StatusLine

    if args.min_hands is not None and args.min_hands < 1:
        print("uth protect: --min-hands must be at least 1", file=sys.stderr)
        return 2
    try:
        where = (day_start(), zone_name())
    except ValueError as exc:
        print(f"uth protect: {exc}", file=sys.stderr)
        return 2
    progress = StatusLine("uth protect")
    try:
        ratings = where if getattr(args, "ratings", False) else None
        report = protect_source(args.source, args.min_hands, ratings, where, progress)
    except (LogError, OSError) as exc:
        progress.clear()
        print(f"uth protect: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "ratings", False):
        write_ratings(report, sys.stdout, args.json)
    elif getattr(args, "dealers", False):
        write_dealers(report, sys.stdout, args.json)
    else:
        (write_json if args.json else write_text)(report, sys.stdout)
    return 0


def write_json(report: Any, out: IO[str]) -> None:
    for a in report.assessments:
        out.write(json.dumps(a.to_json()) + "\n")


def _shown(text: str) -> str:
    """Text from events as a terminal may show it: control characters escaped."""
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def write_text(report: Any, out: IO[str]) -> None:
    from events.protection.assess import THRESHOLD, false_alarm_bound

    flagged = [a for a in report.assessments if a.flagged]
    out.write(f"Assessed {len(report.assessments):,} players over {report.hands:,} hands: "
              f"{len(flagged):,} flagged (score >= {THRESHOLD:.2f}, false-alarm rate at most "
              f"{false_alarm_bound():.0e} per honest player).\n")
    for a in report.assessments:
        mark = "FLAGGED" if a.flagged else "-"
        seats = ",".join(str(s) for s in a.seats)
        line = (f"{mark:<7} {_shown(a.player):<40} table {_shown(a.table_id):<8} "
                f"seats {seats:<5} hands {a.hands:>5} decisions {a.decisions:>5} "
                f"score {a.score:>6.2f}")
        if a.flagged:
            top = a.dealers[0].dealer_id if a.dealers else "-"
            where = (f"only with dealer {_shown(a.only_with_dealer)}" if a.only_with_dealer
                     else f"most with dealer {_shown(top)}")
            line += (f"  {a.pattern}, gain {a.gain:+.1f} antes, {where}; evidence "
                     f"{', '.join(_shown(h) for h in a.evidence)}")
        out.write(line + "\n")
    _dealers_summary(report, out)
    if report.dealers:
        out.write("\nDealers the flagged players' gains concentrate on:\n")
        for d in report.dealers:
            out.write(f"  {_shown(d.dealer_id):<10} {d.flagged_players} flagged player(s), "
                      f"{d.hands:,} hands, {d.gain:+.1f} antes ({d.gain_share:.0%} of the "
                      f"gain, {d.hand_share:.0%} of the hands), best score {d.max_z:.1f}\n")


def _dealers_summary(report: Any, out: IO[str]) -> None:
    from events.protection.assess import THRESHOLD

    flagged = [d for d in report.dealer_alerts if d.flagged]
    out.write(f"\nDealers assessed on their own: {len(report.dealer_alerts):,}, "
              f"{len(flagged):,} flagged (score >= {THRESHOLD:.2f}; false-alarm rate at most "
              f"1e-04 per dealer who does not flash).\n")
    for d in flagged:  # the heading says they are flagged: no mark (players' lines have it)
        out.write("  " + _dealer_line(d, marked=False) + "\n")


def _dealer_line(d: Any, marked: bool = True) -> str:
    mark = f"{'FLAGGED' if d.flagged else '-':<7} " if marked else ""
    line = (f"{mark}{_shown(d.dealer_id):<10} tables {_shown(','.join(d.tables)):<12} "
            f"hands {d.hands:>5} score {d.score:>6.2f}")
    if d.flagged:
        who = ", ".join(f"{_shown(p)} {g:+.1f}" for p, g in d.players)
        line += (f"  {d.pattern} (against the others {d.contrast:+.1f}), gain {d.gain:+.1f} "
                 f"antes; players {who}; evidence {', '.join(_shown(h) for h in d.evidence)}")
    elif d.note:  # not a flag: where hole-card play happened, whoever dealt
        line += f"  note: {d.note} (score {d.hosts_score:.2f}, not a flag)"
    return line


def write_dealers(report: Any, out: IO[str], as_json: bool) -> None:
    for d in report.dealer_alerts:
        out.write((json.dumps(d.to_json()) if as_json else _dealer_line(d)) + "\n")


def _cents(value: int | None) -> str:
    return "unknown" if value is None else f"{value / 100:,.2f}"


def write_ratings(report: Any, out: IO[str], as_json: bool) -> None:
    for s in report.slips:
        if as_json:
            out.write(json.dumps({
                "player": s.player, "gaming_day": s.gaming_day, "table_id": s.table_id,
                "hands": s.hands, "hours": round(s.seconds / 3600, 3),
                "avg_ante": round(s.avg_ante), "avg_wager": round(s.avg_wager),
                "handle": s.handle, "theo_base": s.theo_base, "theo_trips": s.theo_trips,
                "theo_win": s.theo_win, "decision_cost": s.decision_cost,
                "dispute_adjustment": s.dispute_adjustment, "actual_win": s.actual_win,
                "win_minus_theo": s.win_minus_theo}) + "\n")
            continue
        out.write(f"{_shown(s.player):<40} {s.gaming_day} hands {s.hands:>5} "
                  f"handle {_cents(s.handle):>12} theo {_cents(s.theo_win):>10} "
                  f"(base {_cents(s.theo_base)}, trips {_cents(s.theo_trips)}) "
                  f"decisions' cost {_cents(s.decision_cost)} disputes "
                  f"{_cents(s.dispute_adjustment)} actual {_cents(s.actual_win)} "
                  f"actual-theo {_cents(s.win_minus_theo)}\n")
