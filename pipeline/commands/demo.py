"""``uth demo``: the whole system on a small simulated floor, start to finish.

Simulate several tables into the embedded SQLite log (or a local Kafka-protocol broker with
``--kafka``), audit the log, load the warehouse (``uth load``: the Dagster graph's steps),
and print a short floor report with the mispays found and where to look next.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="simulate a floor, audit it, load the warehouse, report",
                       description="The whole system on a small simulated floor: simulate "
                                   "it into an event log, audit it, load the warehouse, print "
                                   "a floor report (what `make demo` runs).",
                       epilog="example: uth demo --dir demo-data --tables 6 --hands 600")
    p.add_argument("--dir", type=Path, default=Path("demo-data"), help="where the demo writes")
    p.add_argument("--tables", type=int, default=6, help="tables on the floor (default 6)")
    p.add_argument("--hands", type=int, default=600, help="hands per table (default 600)")
    p.add_argument("--seed", type=int, default=2026,
                   help="the simulator's seed: the same seed gives the same floor")
    p.add_argument("--mispay-rate", type=float, default=0.002,
                   help="share of payouts the dealers get wrong (default 0.002)")
    p.add_argument("--void-rate", type=float, default=0.002,
                   help="share of hands voided (default 0.002)")
    p.add_argument("--dispute-rate", type=float, default=0.01,
                   help="share of hands a player disputes (default 0.01: every dashboard "
                        "page, Disputes included, has data)")
    p.add_argument(
        "--kafka", action="store_true",
        help="go through Kafka: KAFKA_BOOTSTRAP_SERVERS when set, else a local broker",
    )
    p.set_defaults(func=run)


def _step(title: str) -> None:
    print(f"\n=== {title}", flush=True)


@contextlib.contextmanager
def _event_log(args: argparse.Namespace) -> Iterator[str]:
    if not args.kafka:
        yield f"sqlite:///{(args.dir / 'events.db').resolve()}"
        return
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if bootstrap:
        yield f"kafka://{bootstrap}/uth.demo-events-{args.seed}"
        return
    from pipeline.local_broker import local_broker

    with local_broker(log_path=args.dir / "broker.log") as local:
        print(f"local Kafka-protocol broker on {local}", flush=True)
        yield f"kafka://{local}/uth.table-events"


def _money(cents: int | None, currency: str = "") -> str:
    from events.money import money

    return money(cents, currency)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def _report(warehouse: Path) -> dict[str, Any]:
    from pipeline.warehouse import query

    tables = query(warehouse, """
        SELECT table_id, any_value(ruleset), any_value(currency), sum(hands), sum("drop"),
               sum(handle), sum(house_win)
        FROM table_hold_daily GROUP BY table_id ORDER BY table_id""")
    trips = query(warehouse, """
        SELECT ruleset, sum(trips_wagers), sum(trips_handle), sum(trips_win),
               any_value(theoretical_hold_pct)
        FROM trips_performance GROUP BY ruleset ORDER BY ruleset""")
    mispays = query(warehouse, """
        SELECT hand_id, table_id, dealer_id, seat, spot, expected, recorded, detail
        FROM audit_findings WHERE kind = 'mispay' ORDER BY table_id, hand_id, seat, spot""")
    kinds = query(warehouse, """
        SELECT kind, count(*) FROM audit_findings GROUP BY kind ORDER BY count(*) DESC""")
    print(f"\n{'table':<10}{'ruleset':<18}{'hands':>7}{'drop':>16}{'handle':>16}"
          f"{'house win':>16}{'hold':>9}")
    for table_id, ruleset, currency, hands, drop, handle, win in tables:
        hold = win / drop if drop else None
        print(f"{table_id:<10}{ruleset:<18}{hands:>7,}{_money(drop, currency):>16}"
              f"{_money(handle, currency):>16}{_money(win, currency):>16}{_pct(hold):>9}")
    print(f"\n{'trips by ruleset':<18}{'bets':>7}{'handle':>14}{'win':>14}{'hold':>9}"
          f"{'theory':>9}")
    for ruleset, bets, handle, win, theory in trips:
        hold = win / handle if handle else None
        print(f"{ruleset:<18}{bets:>7,}{_money(handle):>14}{_money(win):>14}{_pct(hold):>9}"
              f"{_pct(theory):>9}")
    print("\nfindings by kind: " + (", ".join(f"{k} {n}" for k, n in kinds) or "none"))
    print(f"mispays found: {len(mispays)}")
    for hand_id, table_id, dealer_id, seat, spot, expected, recorded, detail in mispays[:20]:
        print(f"  {hand_id} table {table_id} dealer {dealer_id} seat {seat} {spot}: "
              f"expected {_money(expected)}, recorded {_money(recorded)}  {detail}")
    return {"tables": len(tables), "mispays": [m[0] for m in mispays]}


def run(args: argparse.Namespace) -> int:
    from pipeline.cli import main as uth

    started = time.monotonic()
    if args.dir.exists():
        shutil.rmtree(args.dir)
    args.dir.mkdir(parents=True)
    warehouse = args.dir / "warehouse.duckdb"
    truth = args.dir / "injected-mispays.jsonl"
    with _event_log(args) as log_url:
        _step(f"1/4 simulate {args.tables} tables x {args.hands} hands into {log_url}")
        code = uth([
            "simulate", "--tables", str(args.tables), "--hands", str(args.hands),
            "--seed", str(args.seed), "--ruleset", "mixed", "--mispay-rate",
            str(args.mispay_rate), "--void-rate", str(args.void_rate),
            "--dispute-rate", str(args.dispute_rate), "--fast",
            "--truth", str(truth), "--sink", log_url,
        ])
        if code:
            return code
        _step("2/4 audit every hand")
        findings_path = args.dir / "findings.jsonl"
        with open(findings_path, "w") as out, contextlib.redirect_stdout(out):
            code = uth(["audit", "--source", log_url, "--json"])
        if code:
            return code
        summary = json.loads(findings_path.read_text().splitlines()[-1])["summary"]
        print("  " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in summary.items()))
        print(f"  findings written to {findings_path}")
        _step(f"3/4 load the warehouse {warehouse} (the Dagster graph's steps)")
        code = uth(["load", "--source", log_url, "--warehouse", str(warehouse)])
        if code:
            return code
        _step("4/4 floor report")
        report = _report(warehouse)
        injected = [json.loads(line) for line in truth.read_text().splitlines() if line]
        print(f"dealer errors injected by the simulator: {len(injected)} "
              f"(ground truth in {truth})")
        stopping = args.kafka and not os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
        if stopping:  # the local broker keeps nothing: the commands below need a log
            kept = f"sqlite:///{(args.dir / 'events.db').resolve()}"
            _step(f"copy the broker's events to {kept} (the broker stops with the demo)")
            code = uth(["ingest", "--source", log_url, "--sink", kept, "--quiet"])
            if code:
                return code
            log_url = kept
    hand = report["mispays"][0] if report["mispays"] else "<HAND_ID>"
    print(f"\nDone in {time.monotonic() - started:.0f}s. Next:")
    if stopping:
        print(f"  (the local broker stopped with the demo; its events are kept in {log_url}, "
              "which the commands below read)")
    print(f"  dashboards:   .venv/bin/uth dashboards --warehouse {warehouse}")
    print(f"  Dagster UI:   UTH_SOURCE={log_url} UTH_WAREHOUSE={warehouse} "
          ".venv/bin/dg dev")
    print(f"  hand replay:  .venv/bin/uth replay {hand} --source {log_url}")
    return 0
