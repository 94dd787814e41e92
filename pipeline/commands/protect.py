"""``uth protect``: game protection, one line per player assessed.

    uth protect --source floor.jsonl
    uth protect --source sqlite:///floor.db --json --min-hands 100

Every decision (preflop 4x/3x or check, flop 2x or check, river 1x or fold) is valued with
the dealer's actual hole cards and against dealer cards the player could not tell apart:
honest play gains nothing from the hidden cards on average, whatever its skill, so each
player's standardized gain is about N(0, 1); a hole-carder's keeps growing
(docs/game-protection.md). A player is the pseudonym of ``player_ref`` or a seat session.

``--json``: one object per player (``player``, ``table_id``, ``seats``, ``hands``,
``decisions``, ``score``, ``flagged``, ``pattern``: ``hole-card-both``, ``hole-card-one``
or null, ``evidence``: the strongest hands' ids, ``only_with_dealer``: the dealer whose hands
alone carry the evidence (a dealer who flashes) or null, ``dealers``: the player's hands,
hidden-card gain and score with each dealer). The text form ends with the dealers the
flagged players' gains concentrate on.

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
                   help="assess players with at least N hands (default 50)")
    p.set_defaults(func=run)


def protect_source(source: str, min_hands: int | None = None) -> Any:
    """The ``ProtectionReport`` of everything in ``source``."""
    from events.contract.codec import decode_records
    from events.protection.assess import MIN_HANDS
    from events.protection.report import protect
    from pipeline.commands.audit import read_batches

    batches = (decode_records(chunk) for chunk in read_batches(source))
    return protect(batches, MIN_HANDS if min_hands is None else min_hands)


def run(args: argparse.Namespace) -> int:
    from events.logs import LogError

    if args.min_hands is not None and args.min_hands < 1:
        print("uth protect: --min-hands must be at least 1", file=sys.stderr)
        return 2
    try:
        report = protect_source(args.source, args.min_hands)
    except (LogError, OSError) as exc:
        print(f"uth protect: {exc}", file=sys.stderr)
        return 2
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
    if report.dealers:
        out.write("\nDealers the flagged players' gains concentrate on:\n")
        for d in report.dealers:
            out.write(f"  {_shown(d.dealer_id):<10} {d.flagged_players} flagged player(s), "
                      f"{d.hands:,} hands, {d.gain:+.1f} antes ({d.gain_share:.0%} of the "
                      f"gain, {d.hand_share:.0%} of the hands), best score {d.max_z:.1f}\n")
