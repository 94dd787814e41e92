"""``uth theory``: a ruleset's exact trips house edge and the base game's house edge."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "theory",
        help="exact trips house edge and hit rates; base-game house edge by Monte Carlo",
        description="Trips figures are exact (all 133,784,560 seven-card hands, enumerated by "
        "the project's evaluator and cached). The base game under the practical basic "
        "strategy is a vectorized Monte Carlo estimate with a 95% confidence interval.",
    )
    p.add_argument("--ruleset", required=True, help="ruleset name or path of a .toml file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--hands", type=int, default=1_000_000,
                   help="Monte Carlo deals for the base game (default 1,000,000; 0 skips it)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--rulesets-dir", type=Path, action="append", default=None,
                   help="extra directory of ruleset files (repeatable)")
    p.set_defaults(func=run)


def _pct(x: float, digits: int = 4) -> str:
    return f"{100 * x:.{digits}f}%"


def _text(r: dict[str, Any]) -> str:
    lines = [f"Ruleset {r['ruleset']}: {r['title']}", "",
             f"Trips (exact over all {r['trips_hands_enumerated']:,} seven-card hands)",
             f"  {'hand':<17}{'pays':>7}{'hands':>14}{'probability':>14}{'return':>11}"]
    for key, row in r["trips_table"].items():
        lines.append(f"  {key.replace('_', ' '):<17}{str(row['pays_to_1']) + ':1':>7}"
                     f"{row['hands']:>14,}{row['probability']:>14.8f}{row['return']:>11.6f}")
    lines += [
        f"  hit rate {_pct(r['trips_hit_rate'])}   return {_pct(r['trips_return'])}   "
        f"house edge {_pct(r['trips_house_edge'])} ({r['trips_house_edge']:.10f})",
        f"  standard deviation per unit staked {r['trips_sd_per_unit']:.4f}",
    ]
    base = r.get("base_game")
    if base:
        lo, hi = base["ci95_per_ante"]
        tlo, thi = base["ci95_per_total_wager"]
        rates = base["decision_rates"]
        lines += [
            "",
            f"Base game, {base['strategy']}: Monte Carlo, {base['deals']:,} deals x "
            f"{base['dealer_hands_per_deal']} dealer hands, seed {base['seed']}",
            f"  house edge per ante          {_pct(base['house_edge_per_ante'], 3)}"
            f"  (95% CI {_pct(lo, 3)} .. {_pct(hi, 3)})",
            f"  house edge per total wager   {_pct(base['house_edge_per_total_wager'], 3)}"
            f"  (95% CI {_pct(tlo, 3)} .. {_pct(thi, 3)}; average wager "
            f"{base['average_total_wager_in_antes']:.3f} antes)",
            f"  decisions: 4x preflop {_pct(rates['raise_4x_preflop'], 1)}, 2x flop "
            f"{_pct(rates['raise_2x_flop'], 1)}, 1x river {_pct(rates['raise_1x_river'], 1)}, "
            f"fold {_pct(rates['fold_river'], 1)}",
            _published(r["published"]),
        ]
    return "\n".join(lines) + "\n"


def _published(published: dict[str, Any]) -> str:
    """The published figures, only for the blind table and multiples they are for."""
    if published.get("base_house_edge_per_ante_exact") is None:
        return ("  published per ante: none for this blind table and play multiples (the "
                "published figures are for the shipped rulesets' table)")
    return (f"  published per ante: {_pct(published['base_house_edge_per_ante_exact'], 3)}"
            f" optimal play (exact), about "
            f"{_pct(published['base_house_edge_per_ante_practical'], 2)} practical strategy")


def run(args: argparse.Namespace) -> int:
    from events.game.rulesets import RulesetError, load_ruleset_arg
    from events.game.theory import theory_report

    try:
        ruleset = load_ruleset_arg(args.ruleset, extra_dirs=args.rulesets_dir)
    except RulesetError as exc:
        print(f"uth theory: {exc}", file=sys.stderr)
        return 2
    if args.hands < 0 or 0 < args.hands < 100:
        print("uth theory: --hands must be 0 (skip the base game) or at least 100",
              file=sys.stderr)
        return 2
    from pipeline.terminal import StatusLine

    shown = StatusLine("uth theory")

    def bar(done: int, total: int) -> None:
        """The base game's Monte Carlo deals so far, as a bar."""
        filled = int(30 * done / max(total, 1))
        shown(f"base game: [{'#' * filled:<30}] {done:,}/{total:,} deals", now=done >= total)

    shown(f"Trips over all {math.comb(52, 7):,} seven-card hands (cached after the first "
          "run), exact base edge", now=True)
    report = theory_report(ruleset, deals=args.hands, seed=args.seed,
                           progress=bar if shown.on else None)
    shown.clear()
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        sys.stdout.write(_text(report))
    return 0
