"""``uth schema``: write the contract's JSON Schema."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("schema", help="write the event contract as JSON Schema",
                       description="Write the table event contract v1 as JSON Schema, for "
                                   "a table system's developers and their validators.",
                       epilog="example: uth schema --out event-contract.schema.json")
    p.add_argument("--out", type=Path, help="file to write (default: standard output)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from events.contract.schemas import json_schema

    text = json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
    if args.out:
        try:
            args.out.write_text(text)
        except OSError as exc:
            print(f"uth schema: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
            return 2
        print(f"uth schema: wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
