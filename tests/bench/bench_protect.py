"""Game protection's throughput: hands analysed per second by ``uth protect``'s own path
(read, decode, fold into seat-hands, value every decision with the dealer's cards and
against null holdings, assess) beside the audit's rate on the same file in the same run.

The floor is the issue's: 40 players seated at 8 tables (5 a table), 400 hands each, 4 of
them hole-carders. Target: at least 2,000 hands analysed per second. CPU time of this
process, best of interleaved rounds (the machine is shared).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_HANDS_PER_S = 2000.0
ROSTER = (("basic",) * 10 + ("loose",) * 5 + ("weak",) * 5 + ("always_raise",) * 4
          + ("never_raise",) * 4 + ("random",) * 8
          + ("hole_card_both",) * 2 + ("hole_card_one",) * 2)


def run(quick: bool = False) -> list[dict[str, Any]]:
    from events.sim.simulation import SimConfig, simulate
    from pipeline.commands.audit import audit_source
    from pipeline.commands.protect import protect_source

    hands = 100 if quick else 400
    rounds = 2 if quick else 5
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "floor.jsonl"
        simulate(SimConfig(tables=8, hands=hands, seed=22, ruleset="charlevoix-2011",
                           roster=ROSTER), str(path))
        source = str(path)
        best_audit = best_protect = float("inf")
        n_hands = seat_hands = flagged = 0
        for k in range(rounds):
            for which in ("audit", "protect") if k % 2 == 0 else ("protect", "audit"):
                start = time.process_time()
                if which == "audit":
                    audited = audit_source(source).summary["hands"]
                    best_audit = min(best_audit, time.process_time() - start)
                else:
                    report = protect_source(source, min_hands=1)
                    best_protect = min(best_protect, time.process_time() - start)
                    n_hands, seat_hands = report.hands, report.seat_hands
                    flagged = sum(a.flagged for a in report.assessments)
    rate, ref = n_hands / best_protect, audited / best_audit
    return [
        {"name": f"hands analysed/s by uth protect ({n_hands:,} hands, {seat_hands:,} "
                 f"seat-hands: {seat_hands / best_protect:,.0f}/s; {flagged} flagged)",
         "value": rate, "unit": "hands/s", "reference": "hands audited/s, same file",
         "reference_value": ref, "ratio": rate / ref, "target": ">= 2,000 hands/s",
         "ok": rate >= TARGET_HANDS_PER_S},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
