"""``uth keygen --out PREFIX``: a new Ed25519 key pair for sealing event logs.

    uth keygen --out keys/floor-seal

writes ``keys/floor-seal`` (the private key, PEM, mode 0600: keep it with whoever seals,
never beside the log) and ``keys/floor-seal.pub`` (the public key: give it to anyone who
verifies, a regulator or a court). An existing key is never replaced unless ``--force``.

Exit status: 0 when written, 2 when not.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("keygen", help="a new Ed25519 key pair to seal event logs",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, metavar="PREFIX",
                   help="writes PREFIX (private, mode 0600) and PREFIX.pub (public)")
    p.add_argument("--force", action="store_true", help="replace an existing key pair")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from events.ledger.keys import LedgerKeyError, generate, key_id, load_public

    try:
        private, public = generate(args.out, overwrite=args.force)
    except (LedgerKeyError, OSError) as exc:
        print(f"uth keygen: {exc}", file=sys.stderr)
        return 2
    print(f"private key {private} (mode 0600; keep it secret)")
    print(f"public key  {public} (key id {key_id(load_public(public))})")
    return 0
