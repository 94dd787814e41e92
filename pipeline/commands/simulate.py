"""``uth simulate``: a casino floor of N tables dealing Ultimate Texas Hold'em, written as the
contract's event stream to a JSON Lines file, the SQLite log or Kafka."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from datetime import UTC, datetime
from types import FrameType
from typing import Any


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a probability between 0 and 1")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return value


def _pace(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} must be a positive number of hands per hour")
    return value


def register(sub: Any) -> None:
    p = sub.add_parser(
        "simulate", help="simulate a floor of UTH tables into an event log",
        description="Deal Ultimate Texas Hold'em at N tables and write the events. The same "
                    "arguments and seed give the same events, byte for byte.")
    p.add_argument("--tables", type=_positive, default=1, help="number of tables (default 1)")
    p.add_argument("--hands", type=int, required=True, help="hands dealt at each table")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--ruleset", default="mixed",
                   help="a ruleset name or .toml path, or 'mixed' for every known ruleset in "
                        "turn (default mixed)")
    p.add_argument("--mispay-rate", type=_rate, default=0.0, metavar="P",
                   help="chance that a wager settled where a dealer can err is mispaid")
    p.add_argument("--void-rate", type=_rate, default=0.0, metavar="P",
                   help="chance that a hand is voided by a malfunction")
    p.add_argument("--dispute-rate", type=_rate, default=0.0, metavar="P",
                   help="chance that a settled hand is disputed (and resolved minutes later)")
    speed = p.add_mutually_exclusive_group()
    speed.add_argument("--pace", type=_pace, metavar="HANDS_PER_HOUR",
                       help="deal this many hands an hour per table and write each event when "
                            "its time comes (SIGTERM or Ctrl-C finishes the hands in progress)")
    speed.add_argument("--fast", action="store_true",
                       help="write as fast as the sink takes it (the default)")
    p.add_argument("--start", metavar="ISO",
                   help="simulated time the floor opens (default 2026-11-29T18:00:00Z; with "
                        "--pace, now)")
    p.add_argument("--truth", metavar="PATH",
                   help="write the ground truth here (JSON Lines): the injected mispays "
                        "(hand_id, seat, spot, kind, expected, recorded, ...) and, with "
                        "--roster, each player (record player: table_id, seat, profile, "
                        "hole_carder, sees, only_with_dealer)")
    p.add_argument("--roster", metavar="SPEC",
                   help="players seated for the whole run instead of coming and going: "
                        "profile*count,... (profiles: basic, loose, weak, hole_card, "
                        "always_raise, never_raise, random, hole_card_both, hole_card_one; "
                        "hole_card_both@N, hole_card_one@N: only when the table's Nth "
                        "dealer deals), "
                        "dealt to the tables in turn; listed in --truth")
    p.add_argument("--sink", required=True, metavar="URL",
                   help="a .jsonl file (rewritten), sqlite:///log.db or kafka://host:port[/topic]")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(func=run)


def parse_roster(spec: str) -> tuple[str, ...]:
    """``basic*3,hole_card_both`` as ('basic', 'basic', 'basic', 'hole_card_both')."""
    out: list[str] = []
    for part in spec.split(","):
        name, _, count = part.strip().partition("*")
        if not count.strip().isdigit() and count:
            raise ValueError(f"roster entry {part!r} is not profile*count")
        out += [name.strip()] * (int(count) if count else 1)
    return tuple(out)


class _Progress:
    """A one-line progress bar on a terminal."""

    def __init__(self, total: int, paced: bool = False) -> None:
        self.total = max(total, 1)
        self.started = time.monotonic()
        self.shown = -1.0
        self.paced = paced
        self.waiting = False

    def __call__(self, hands: int) -> None:
        now = time.monotonic()
        if self.paced:  # a line every few seconds (a paced run lasts minutes or hours)
            if hands >= self.total and not self.waiting:
                self.waiting = True  # the run goes on in real time: say for what
                sys.stderr.write(
                    f"{hands:,}/{self.total:,} hands dealt; still sending, each at its time, "
                    "what comes after the hands (disputes opened and resolved later, the "
                    "tables closing); Ctrl-C stops now\n")
            elif now - self.shown >= 5 and hands < self.total:
                self.shown = now
                sys.stderr.write(f"{hands:,}/{self.total:,} hands dealt\n")
            sys.stderr.flush()
            return
        if now - self.shown < 0.2 and hands < self.total:
            return
        self.shown = now
        frac = min(hands / self.total, 1.0)
        rate = hands / max(now - self.started, 1e-9)
        bar = "#" * int(frac * 30)
        sys.stderr.write(f"\r[{bar:<30}] {hands:,}/{self.total:,} hands  {rate:,.0f}/s ")
        sys.stderr.flush()

    def done(self) -> None:
        if not self.paced:
            sys.stderr.write("\n")


def run(args: argparse.Namespace) -> int:
    from events.game.rulesets import RulesetError
    from events.logs import LogError
    from events.sim.simulation import DEFAULT_START, SimConfig, simulate

    if args.hands < 0:
        print("uth simulate: --hands must not be negative", file=sys.stderr)
        return 2
    start = args.start
    if start is None:
        start = (datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
                 if args.pace else DEFAULT_START)
    try:
        config = SimConfig(
            tables=args.tables, hands=args.hands, seed=args.seed, ruleset=args.ruleset,
            mispay_rate=args.mispay_rate, void_rate=args.void_rate,
            dispute_rate=args.dispute_rate, pace=args.pace, start=start,
            roster=parse_roster(args.roster) if args.roster else None)
    except (ValueError, RulesetError) as exc:
        print(f"uth simulate: {exc}", file=sys.stderr)
        return 2

    scheme = args.sink.split("://", 1)[0].lower() if "://" in args.sink else None
    if scheme is not None and scheme not in ("sqlite", "kafka"):  # never a file named so
        print(f"uth simulate: {scheme}:// is not a log this command writes: give "
              "sqlite:///path/log.db, kafka://host:port[/topic] or a path.jsonl",
              file=sys.stderr)
        return 2
    stopping = {"flag": False}

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping["flag"] = True

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    progress = None
    if args.pace and not args.quiet:
        progress = _Progress(args.tables * args.hands, paced=True)
    elif not args.quiet and sys.stderr.isatty():
        progress = _Progress(args.tables * args.hands)
    try:
        summary = simulate(config, args.sink, args.truth, realtime=args.pace is not None,
                           stop=lambda: stopping["flag"], progress=progress)
    except (RulesetError, ValueError) as exc:
        print(f"uth simulate: {exc}", file=sys.stderr)
        return 2
    except (LogError, OSError) as exc:
        print(f"uth simulate: cannot write to {args.sink}: {exc}", file=sys.stderr)
        return 1
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if progress is not None:
            progress.done()
    if not args.quiet:
        rate = summary.hands / max(summary.seconds, 1e-9)
        how = "stopped early: " if summary.stopped else ""
        print(f"{how}{summary.hands:,} hands at {summary.tables} tables, {summary.events:,} "
              f"events into {args.sink} in {summary.seconds:.1f}s ({rate:,.0f} hands/s); "
              f"{summary.mispays} mispays injected"
              + (f", listed in {args.truth}" if args.truth else ""), file=sys.stderr)
    return 0
