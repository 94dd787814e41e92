"""Tamper evidence: hashing (every event's stored bytes into its leaf), sealing and
verifying a log, each beside the plain read of the same log, measured in the same run.

The floor is simulated into a SQLite log. Each figure is CPU time of this process, the best
of ``repeat`` interleaved runs (the machine is shared: wall time would measure the
neighbours):

- plain read: ``SqliteLog.read`` of every record (the reference);
- hash: the ledger's scan of the log (read, pseudonym check, contract decode, SHA-256 leaf
  of each event's stored bytes, grouped by table, each table in seq order): target >= 0.5
  of the plain read;
- seal: the scan, every table's Merkle root and the Ed25519 signature;
- verify: the scan and the comparison with the seal (signature checked, each table's
  leaves rebuilt into the signed root and compared with the stored ones): target >= 0.5;
- for context, the hash rate beside the read and contract decode of the same log.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.contract.codec import decode_records
from events.ledger.compare import verify_store
from events.ledger.logs import scan
from events.ledger.seal import make_seal
from events.logs.sqlite import SqliteLog
from events.sim.config import SimConfig
from events.sim.output import simulate


def _row(name: str, value: float, reference: str, ref_value: float,
         target_ratio: float | None) -> dict[str, Any]:
    ratio = value / ref_value if ref_value else float("nan")
    return {"name": name, "value": value, "unit": "events/s", "reference": reference,
            "reference_value": ref_value, "ratio": ratio,
            "target": f">= {target_ratio} of the plain read" if target_ratio else "reported",
            "ok": ratio >= target_ratio if target_ratio else None}


def run(quick: bool = False) -> list[dict[str, Any]]:
    tables, hands = (4, 300) if quick else (6, 3000)
    repeat = 2 if quick else 3
    key = Ed25519PrivateKey.generate()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'floor.db'}"
        simulate(SimConfig(tables=tables, hands=hands, seed=24, ruleset="mixed",
                           mispay_rate=0.01), url)
        log = SqliteLog(url)
        events = log.count()
        ledger = scan(log)
        seal = make_seal(log.describe(), ledger.tables, ledger.end, None, key,
                         "2026-12-01T00:00:00Z")

        def plain() -> None:
            n = sum(len(batch) for batch in log.read(max_batch=20_000))
            assert n == events

        def decoding() -> None:  # what any reader of the log's events pays (context)
            n = 0
            for batch in log.read(max_batch=20_000):
                n += len(decode_records([(r.offset, r.value) for r in batch]))
            assert n == events

        def hashing() -> None:
            assert sum(map(len, scan(log).tables.values())) == events

        def sealing() -> None:
            found = scan(log)
            make_seal(log.describe(), found.tables, found.end, None, key,
                      "2026-12-01T00:00:00Z")

        def verifying() -> None:
            report = verify_store(log.describe(), [seal], key.public_key(), scan(log).tables)
            assert report.intact and report.sealed_events == events

        steps: dict[str, Callable[[], None]] = {
            "plain": plain, "decode": decoding, "hash": hashing, "seal": sealing,
            "verify": verifying}
        best = dict.fromkeys(steps, float("inf"))
        for _ in range(repeat):
            for name, step in steps.items():
                start = time.process_time()
                step()
                best[name] = min(best[name], time.process_time() - start)
        log.close()
    rate = {name: events / seconds for name, seconds in best.items()}
    reference = f"plain read of the same SQLite log ({events:,} events)"
    return [
        _row("ledger: hash every event (stored bytes, leaf, seq order)", rate["hash"], reference,
             rate["plain"], 0.5),
        _row("ledger: hash every event, beside read + decode", rate["hash"],
             "read + contract decode of the same log", rate["decode"], None),
        _row("ledger: seal the log (hash, trees, signature)", rate["seal"], reference,
             rate["plain"], None),
        _row("ledger: verify the log against its seal", rate["verify"], reference,
             rate["plain"], 0.5),
    ]
