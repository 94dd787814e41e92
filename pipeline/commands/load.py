"""``uth load --source URL --warehouse PATH``: the asset graph's steps, in-process.

Loads the log's new records into the DuckDB warehouse, audits the hands they touch,
updates the rollups and the Parquet archive, runs the asset checks, and prints what it did:
the steps of the Dagster graph as plain functions on one write connection
(:mod:`pipeline.load_steps`), without a Dagster run. Run again with nothing new in the log
(no record after the position the warehouse stored, no work waiting, no new seal:
:mod:`pipeline.ingest.up_to_date`), it changes nothing: it runs the checks and prints them.

A warehouse file changed since the last load (cut short, a block overwritten) has every
block's checksum checked first (:mod:`pipeline.warehouse_file`); a damaged one is refused.

Exit status: 0 loaded (or nothing new) and every check passed; 1 a step or a check failed;
2 bad settings, an archive that cannot be restored, or a damaged warehouse file; 130 a step
interrupted (SIGINT or SIGTERM while the load ran).
"""

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

INTERRUPTED = 130  # a step stopped by SIGINT or SIGTERM
TABLES = ("events", "hands", "wagers", "audit_findings", "table_hold_daily",
          "trips_performance", "trips_hits", "dealer_performance", "player_ratings",
          "player_alerts", "dealer_alerts", "dead_letters")


def register(sub: Any) -> None:
    p = sub.add_parser("load", help="load events from a log into the DuckDB warehouse "
                                    "(the asset graph's steps, in-process)",
                       description="Load a log's new events into the DuckDB warehouse (the "
                                   "asset graph's steps, in-process), exactly once: audit "
                                   "the hands they touch, rebuild the rollups, archive them.",
                       epilog="example: uth load --source sqlite:///demo-data/events.db "
                              "--warehouse demo-data/warehouse.duckdb")
    p.add_argument("--source", required=True,
                   help="event log URL: sqlite:///log.db, kafka://host:port[/topic], x.jsonl")
    p.add_argument("--warehouse", required=True,
                   help="DuckDB file (created when missing, in a folder that exists)")
    p.add_argument("--gaming-day-start", default=None, metavar="HH:MM",
                   help="when a gaming day starts, local time in UTH_TIMEZONE (default "
                        "UTH_GAMING_DAY_START, else 06:00)")
    p.add_argument("--archive", default="",
                   help="Parquet archive directory (default: <warehouse stem>_archive)")
    p.add_argument("--batch-size", type=int, default=100_000,
                   help="log records per transaction (default 100000)")
    p.add_argument("--hands-per-chunk", type=int, default=5_000,
                   help="hands audited per transaction (default 5000)")
    p.add_argument("--audit-workers", type=int, default=0,
                   help="processes auditing hands (default 0: one per core for big loads)")
    p.add_argument("--from-archive", default="", metavar="DIR",
                   help="first restore the events of this Parquet archive (rebuilding a lost "
                        "warehouse), then load as usual")
    p.add_argument("--seal-key", default="", metavar="PREFIX",
                   help="after the load, seal the log with this private key (uth keygen) "
                        "and copy the seal into the warehouse")
    p.add_argument("--seal-past-gaps", action="store_true",
                   help="with --seal-key: seal each table past the seqs it lacks, declaring "
                        "them lost (as uth seal --past-gaps)")
    p.add_argument("--rebuild-rollups", action="store_true",
                   help="rebuild every rollup key, not only those touched")
    p.add_argument("--follow", action="store_true",
                   help="keep the warehouse current: a small bounded load every --interval "
                        "seconds until interrupted (Ctrl-C, SIGTERM), a freshness line each")
    p.add_argument("--interval", type=float, default=5.0,
                   help="with --follow: seconds between loads (default 5)")
    p.add_argument("--archive-every", type=float, default=60.0, metavar="SECONDS",
                   help="with --follow: append to the Parquet archive and copy the log's "
                        "seals at most this often (default 60; the events wait queued in "
                        "the warehouse meanwhile)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.add_argument("--dagster-logs", action="store_true", help="show Dagster's own log")
    p.set_defaults(func=run)


def _progress(quiet: bool) -> None:
    logger = logging.getLogger("uth.load")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    logger.handlers.clear()
    if not quiet:
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter("  %(message)s"))
        logger.addHandler(handler)


def run(args: argparse.Namespace) -> int:
    from events.localtime import zone_name
    from pipeline.warehouse import parse_day_start

    try:  # before the Dagster definitions, whose schedule runs in the zone
        if args.gaming_day_start is None:
            args.gaming_day_start = os.environ.get("UTH_GAMING_DAY_START", "").strip() or "06:00"
        parse_day_start(args.gaming_day_start)
        zone_name()  # UTH_TIMEZONE: the zone the gaming days are counted in
    except ValueError as exc:
        print(f"uth load: {exc}", file=sys.stderr)
        return 2

    folder = Path(args.warehouse).parent
    if not folder.is_dir():  # a mistyped folder would start a second warehouse
        print(f"uth load: the folder {folder} does not exist: create it first (mkdir -p), "
              "or correct the warehouse path", file=sys.stderr)
        return 2
    from pipeline.warehouse_file import damaged

    archive = args.archive or str(Path(args.warehouse).with_name(
        f"{Path(args.warehouse).stem}_archive"))
    why = damaged(args.warehouse, archive)
    if why is not None:
        print(f"uth load: {why}", file=sys.stderr)
        return 2
    if args.follow:
        return follow(args)
    _progress(args.quiet)
    return load_once(args)


def follow(args: argparse.Namespace) -> int:
    """Bounded loads at a steady cadence until SIGINT or SIGTERM (the load under way ends
    first), each followed by one line of how current the warehouse is."""
    import io
    import signal
    import threading
    import time

    from pipeline.freshness import freshness_line
    from pipeline.ingest.steps import Kept

    stop = threading.Event()
    args.kept = Kept()  # what a load knows of the stored events, for the next one
    args.on_signal = stop.set  # a SIGTERM during a load (see _sigterm_interrupts)

    def stopping(_sig: int, _frame: Any) -> None:
        stop.set()

    previous = {s: signal.signal(s, stopping) for s in (signal.SIGINT, signal.SIGTERM)}
    _progress(True)
    print(f"uth load --follow: {args.source} -> {args.warehouse}, every {args.interval:g} s "
          "(Ctrl-C stops)", flush=True)
    loads = failed = 0
    try:
        while not stop.is_set():
            began = time.monotonic()
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                code = load_once(args)
            loads += 1
            if code == INTERRUPTED:  # the signal came during a load
                stop.set()
            args.from_archive, args.rebuild_rollups = "", False  # the first load's only
            if code:
                failed += code != INTERRUPTED  # a stop asked for, not a failure
                # why: a step's error or a failed check (not the load's header line)
                header = f"uth load: {args.source} -> {args.warehouse}"
                lines = [x for x in out.getvalue().splitlines()
                         if ("uth load:" in x and x != header) or ": FAILED (" in x]
                print("\n".join(lines) or f"load {loads} failed (exit {code})",
                      file=sys.stderr, flush=True)
            print(freshness_line(args.warehouse, args.source, time.monotonic() - began),
                  flush=True)
            stop.wait(max(0.0, args.interval - (time.monotonic() - began)))
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    print(f"uth load --follow stopped after {loads:,} loads ({failed:,} failed)", flush=True)
    return 0


def load_once(args: argparse.Namespace) -> int:
    """One bounded load (or, with nothing new, only the checks); the exit status."""
    from pipeline.warehouse import parse_day_start

    # a follow's loads go straight to the steps: with nothing new they are cheap, and the
    # quick path's own look at the log (its end, every seal beside it) cost more than that
    if not (args.from_archive or args.seal_key or args.rebuild_rollups or args.follow):
        from events.logs import LogError
        from pipeline.ingest.up_to_date import up_to_date

        try:
            position = up_to_date(args.source, args.warehouse,
                                  parse_day_start(args.gaming_day_start))
        except (LogError, OSError):
            position = None  # the load says what is wrong with the source
        if position is not None:
            from pipeline.warehouse import WarehouseBusy

            print(f"uth load: {args.source} -> {args.warehouse}", flush=True)
            try:
                return report_unchanged(args.warehouse, position, args.source)
            except WarehouseBusy as exc:  # another load began writing meanwhile
                print(f"uth load: {exc}", file=sys.stderr)
                return 1

    from pipeline.load_steps import LoadSettings, run_load

    if not args.dagster_logs:
        logging.getLogger("dagster").setLevel(logging.CRITICAL)
    if args.from_archive:
        from pipeline.ingest.steps import restore_archive

        try:
            restored = restore_archive(args.from_archive, args.warehouse,
                                       day_start_minutes=parse_day_start(args.gaming_day_start))
        except (FileNotFoundError, ValueError) as exc:
            print(f"uth load: {exc}", file=sys.stderr)
            return 2
        print(f"uth load: restored {restored:,} events from the archive {args.from_archive}",
              flush=True)
    print(f"uth load: {args.source} -> {args.warehouse}", flush=True)
    settings = LoadSettings(
        source=args.source, warehouse=args.warehouse,
        day_start_minutes=parse_day_start(args.gaming_day_start), archive=args.archive,
        batch_size=args.batch_size, hands_per_chunk=args.hands_per_chunk,
        audit_workers=args.audit_workers, seal_key=args.seal_key,
        seal_past_gaps=args.seal_past_gaps, full_rebuild=args.rebuild_rollups,
        archive_after=args.archive_every if args.follow else 0.0, kept=getattr(args, "kept", None))
    with _sigterm_interrupts(getattr(args, "on_signal", None)):
        try:
            result = run_load(settings, logging.getLogger("uth.load").info)
        except KeyboardInterrupt:  # before the first step (waiting for the load lock)
            print(f"uth load: {_said(None, interrupted=True)}", file=sys.stderr)
            return INTERRUPTED
    return report(result, args.warehouse)


@contextlib.contextmanager
def _sigterm_interrupts(on_signal: Callable[[], None] | None = None) -> Iterator[None]:
    """SIGTERM stops a load as Ctrl-C does (a KeyboardInterrupt in the step under way: its
    transaction rolled back, the load told as interrupted), not by ending the process
    where it stands; the handler in force before comes back after. ``on_signal`` is told
    first: ``--follow`` stops after the load even if a library swallowed the interrupt."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_sig: int, _frame: Any) -> None:
        if on_signal is not None:
            on_signal()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _shown(key: str, value: Any) -> str:
    """A check's metadata value as a person reads it: counts with separators, sums of
    money one figure per currency (``-1,234.00 USD, 56.00 EUR``)."""
    from events.money import money
    from pipeline.audit.checks import CENTS_KEYS

    if key in CENTS_KEYS and isinstance(value, dict):
        return ", ".join(money(int(c), cur) for cur, c in value.items()) or "0.00"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


INTERRUPT_ERROR = "DagsterExecutionInterruptedError"
# a step's error chain when a signal stopped it: Dagster's error, or a DuckDB query it
# interrupted (an InterruptException, or here a RuntimeError saying only "Query interrupted")
INTERRUPTS = {INTERRUPT_ERROR, "InterruptException", "KeyboardInterrupt"}
QUERY_INTERRUPTED = "Query interrupted"


def _said(err: Any, interrupted: bool = False) -> str:
    """A failed step's error as a person reads it: the message without the class's module
    path (``events.logs.base.LogUnavailable: ...``), and an interrupt as one."""
    if interrupted:
        return "interrupted (Ctrl-C or SIGTERM); the next load goes on from the last commit"
    if err is None:
        return "unknown error"
    name = str(getattr(err, "cls_name", "") or "")
    if name == INTERRUPT_ERROR:
        return "interrupted (Ctrl-C or SIGTERM); the next load goes on from the last commit"
    text = str(err.message).strip()
    head, sep, rest = text.partition(": ")
    if sep and name and head.rsplit(".", 1)[-1] == name:
        text = rest.strip()
    return text


def _exception_said(exc: BaseException) -> str:
    """A step's exception as a person reads it: its (root cause's) message."""
    while exc.__cause__ is not None and not str(exc).strip():
        exc = exc.__cause__
    return str(exc).strip() or type(exc).__name__


def _interrupt(exc: BaseException | None) -> bool:
    """Whether SIGINT or SIGTERM stopped the step (or a DuckDB query it interrupted)."""
    while exc is not None:
        if type(exc).__name__ in INTERRUPTS or str(exc).strip() == QUERY_INTERRUPTED:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def report(result: Any, warehouse: str) -> int:
    """What a load (``load_steps.LoadResult``) did, its checks, the counts; the exit status."""
    from events.logs.kafka_errors import step_said
    from pipeline.terminal import counted

    if result.failed:
        if _interrupt(result.error):
            print(f"uth load: step {result.failed} failed: {_said(None, interrupted=True)}",
                  file=sys.stderr)
            return INTERRUPTED
        error = result.error
        text = ("unknown error" if error is None
                else step_said(error) or _exception_said(error))
        print(f"uth load: step {result.failed} failed: {text}", file=sys.stderr)
        if "Could not read enough bytes" in text or "Corrupt database" in text:
            print(f"uth load: {warehouse}: the warehouse file is damaged; move it "
                  "aside and rebuild it with `uth load ... --from-archive DIR`",
                  file=sys.stderr)
        return 1
    meta = result.meta
    ev, hands = meta.get("events", {}), meta.get("hands", {})
    if ev.get("source_note"):  # the source file was rotated or replaced since the last load
        print(f"uth load: note: {ev['source_note']}", file=sys.stderr)
    findings = meta.get("audit_findings", {})
    print(f"loaded {counted(ev.get('new_events', 0), 'new event')} from "
          f"{counted(ev.get('records_read', 0), 'record')} "
          f"({counted(ev.get('duplicates', 0), 'duplicate')} ignored, "
          f"{ev.get('rejected', 0):,} rejected to dead_letters)")
    # hands audited as their events were loaded (new hands), then by the audit step: a
    # hand the warehouse held already (a dispute, a late payout came) is counted once
    again = hands.get("hands_audited_again", 0)
    audited = ev.get("hands_audited", 0) + hands.get("hands_audited", 0) - again
    found = ev.get("hand_findings", 0) + findings.get("hand_findings", 0)
    twice = (f"{again:,} of them again, after a later event of theirs arrived; "
             if again else "")
    print(f"audited {counted(audited, 'hand')} ({twice}{counted(found, 'finding')}, "
          f"{counted(findings.get('sequence_findings', 0), 'sequence finding')} in "
          f"{counted(findings.get('tables_sequence_checked', 0), 'table')})")
    rollups = {k: meta.get(k, {}).get("keys_rebuilt", 0)
               for k in ("table_hold_daily", "trips_performance", "dealer_performance")}
    print("rollups updated: " + ", ".join(f"{k} {v:,} keys" for k, v in rollups.items()))
    print(f"archive: {meta.get('events_archive', {}).get('partitions_written', 0):,} "
          f"partitions written under {meta.get('events_archive', {}).get('path', '?')}")
    outcomes = [(o.name, o.passed, o.warn_only, o.metadata) for o in result.checks]
    return _checks_and_counts(outcomes, warehouse)


def report_unchanged(warehouse: str, position: str, source: str) -> int:
    """What a load with nothing to do prints: that nothing changed (after which record,
    in words), the checks (run here, the same queries as the Dagster run's) and the
    warehouse's counts."""
    from pipeline.checks import evaluate
    from pipeline.warehouse import cursor_words, parse_cursor

    print(f"nothing new: the log has no record after the last one loaded "
          f"({cursor_words(parse_cursor(position), source)}); the warehouse is unchanged "
          "(no Dagster run was needed)")
    outcomes = [(o.name, o.passed, o.warn_only, o.metadata) for o in evaluate(warehouse)]
    return _checks_and_counts(outcomes, warehouse)


def _checks_and_counts(outcomes: list[tuple[str, bool, bool, dict[str, Any]]],
                       warehouse: str) -> int:
    """Each check's line (name, passed, a failure only warns, metadata), the warehouse's
    counts, and the warnings a person must not miss said again at the end; the exit
    status (1 when a check that is not a warning failed)."""
    from pipeline.warehouse import query

    failed_error = False
    loud: list[str] = []
    for name, passed, warn_only, meta in outcomes:
        state = "ok" if passed else ("WARN" if warn_only else "FAILED")
        failed_error |= not passed and not warn_only
        detail = ", ".join(f"{k}={_shown(k, v)}" for k, v in meta.items()
                           if not isinstance(v, str) or "\n" not in v)
        print(f"check {name}: {state} ({detail})")
        if name == "no_sequence_conflicts" and not passed:
            loud.append(
                f"WARNING: {meta['conflicts']:,} events reuse a sequence number another "
                f"event of their table already has, at {meta['tables_with_conflicts']:,} "
                "tables. Were two different floors (or table systems) loaded into this "
                "warehouse? The first event of each number counts; the others stay in "
                "events, but no hand, rollup or replay uses them (audit_findings, kind "
                "sequence_conflict).")
    counts = query(warehouse, " UNION ALL ".join(
        f"SELECT '{t}', count(*) FROM {t}" for t in TABLES))
    print("warehouse: " + ", ".join(f"{t} {n:,}" for t, n in counts))
    for text in loud:
        print(f"\n{text}\n", file=sys.stderr)
    from pipeline.warehouse_file import write_stamp

    write_stamp(warehouse)  # the file as this load left it: the next one need not read it
    return 1 if failed_error else 0
