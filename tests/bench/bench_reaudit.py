"""``uth reaudit --archive`` (the DuckDB engine) beside msgspec decoding the same events
from JSON Lines, line by line, in the same run (issue 32's reference; target: the re-audit
at least 2x that rate).

The floor is simulated and loaded by ``uth load`` once; then the re-audit runs as
:func:`pipeline.reaudit.local.reaudit_duckdb` runs it, each stage timed by the code itself
(``stages``): the archive read, the sequence findings, the hands certified from columns
(:mod:`events.audit.certify`), the other hands by the load's audit step, the rollups, the
outputs written. Beside it, the way it went before in the same run
(:func:`~pipeline.reaudit.local.reaudit_restored`: the archive restored into a warehouse,
every hand audited by the audit step). Wall time, best of ``repeat`` runs.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.floors import archived_floor

REFERENCE = "msgspec decoding the same JSON Lines into the contract's Structs, line by line"
TARGET = 2.0  # times the reference's rate


def _decode_lines(log: Path) -> float:
    """Seconds for msgspec to decode every line of ``log`` into the contract's Structs,
    one line at a time (the file read first, not timed)."""
    import msgspec

    from events.contract.schemas import Event

    decode = msgspec.json.Decoder(Event).decode
    lines = log.read_bytes().splitlines()
    start = time.perf_counter()
    for line in lines:
        decode(line)
    return time.perf_counter() - start


def _reaudit(archive: Path, out: Path) -> dict[str, float]:
    """Seconds of each stage of the DuckDB engine's re-audit of ``archive``."""
    from pipeline.reaudit.local import reaudit_duckdb

    stages: dict[str, float] = {}
    reaudit_duckdb(archive, out, 360, stages=stages)
    return stages


def _restored(archive: Path, out: Path) -> float:
    """Seconds of the re-audit by a restored warehouse (the way before)."""
    from pipeline.reaudit.local import reaudit_restored

    start = time.perf_counter()
    reaudit_restored(archive, out, 360)
    return time.perf_counter() - start


def run(quick: bool = False) -> list[dict[str, Any]]:
    tables, hands = (4, 200) if quick else (8, 1000)
    repeat = 2
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        log, archive = archived_floor(d, tables, hands)
        events = sum(1 for _ in log.open("rb"))
        _reaudit(archive, d / "warm")
        runs = [_reaudit(archive, d / f"out{i}") for i in range(repeat)]
        best = min(runs, key=lambda r: sum(r.values()))
        decode = min(_decode_lines(log) for _ in range(repeat))
        restored = min(_restored(archive, d / f"old{i}") for i in range(repeat))
    reference = events / decode
    whole = events / sum(best.values())
    note = f"{tables * hands:,} simulated hands, {events:,} events"
    rows: list[dict[str, Any]] = [
        {"name": "reaudit --archive, duckdb engine (whole)", "value": whole,
         "unit": "events/s", "reference": REFERENCE, "reference_value": reference,
         "ratio": whole / reference, "target": f">= {TARGET:g}x the reference",
         "ok": whole >= TARGET * reference, "note": note},
        {"name": "  before: the archive restored into a warehouse, every hand by the "
                 "audit step", "value": events / restored, "unit": "events/s",
         "reference": REFERENCE, "reference_value": reference,
         "ratio": events / restored / reference, "target": "", "ok": None},
        {"name": "msgspec decode of the JSON Lines, line by line (reference)",
         "value": reference, "unit": "events/s", "reference": REFERENCE,
         "reference_value": reference, "ratio": 1.0, "target": "", "ok": None},
    ]
    for stage, seconds in best.items():
        rows.append({"name": f"  reaudit stage: {stage}", "value": events / seconds,
                     "unit": "events/s", "reference": REFERENCE,
                     "reference_value": reference, "ratio": events / seconds / reference,
                     "target": "", "ok": None,
                     "note": f"{seconds / events * 1e6:.2f} us an event"})
    return rows


if __name__ == "__main__":  # pragma: no cover
    for r in run(quick=True):
        print(f"{r['name'][:62]:<62} {r['value']:>12,.0f} {r['unit']}  ratio {r['ratio']:.3f}"
              f"  {r.get('note', '')}")
