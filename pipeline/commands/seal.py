"""``uth seal --source URL --key PREFIX``: a signed checkpoint of every table's events.

    uth seal --source sqlite:///floor.db --key keys/floor-seal
    uth seal --source sqlite:///floor.db --key keys/floor-seal --witness /mnt/audit/floor.witness

Reads the log, builds each table's Merkle tree over its events (each event's exact stored
bytes, in ``seq`` order, up to the head of the table's gapless run from seq 0; see
docs/tamper-evidence.md), signs the heads (size, last ``seq``, root) with the Ed25519
private key and stores the seal beside the events: tables ``seals`` and ``seal_leaves`` of
a SQLite log, ``<name>.seals.jsonl`` beside a JSON Lines log, the topic ``uth.seals``
beside a Kafka topic. ``uth load`` copies it into the warehouse.

``--past-gaps`` seals each table up to its highest ``seq`` even where a ``seq`` never
arrived: the seal lists those seqs (as ranges) as declared missing, and ``uth verify``
notes them instead of waiting; an event that later appears at one is named inserted, and
the log is not sealed again over it. Later seals, with or without it, keep the declared
gaps. Without it, a seal stops at a table's first gap (events after it wait).

``--witness FILE`` also appends the signed checkpoint (the seal's body and signature) to
FILE, kept where the store's writers cannot reach it: ``uth verify --witness FILE`` then
names a store rolled back to an earlier seal.

A log whose sealed events no longer match its last seal is not sealed again (a new seal
must never bless an altered record): run ``uth verify``.

Exit status: 0 sealed; 1 refused (sealed events changed); 2 the log or key cannot be used.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("seal", help="sign a checkpoint of every table's events (tamper evidence)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", required=True,
                   help="sqlite:///log.db, file.jsonl or kafka://host:port[/topic]")
    p.add_argument("--key", required=True, metavar="PREFIX",
                   help="the private key written by uth keygen")
    p.add_argument("--witness", metavar="FILE",
                   help="append the signed checkpoint to FILE, kept apart from the store")
    p.add_argument("--past-gaps", action="store_true",
                   help="seal each table up to its highest seq, declaring the seqs it lacks "
                        "lost (listed in the signed checkpoint)")
    p.add_argument("--json", action="store_true", help="print the seal's body as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from events.ledger.compare import shown
    from events.ledger.keys import LedgerKeyError, load_private
    from events.ledger.logs import seal_log
    from events.ledger.seal import SealRefused
    from events.logs import LogError, open_log

    try:
        key = load_private(args.key)
    except LedgerKeyError as exc:
        print(f"uth seal: {exc}", file=sys.stderr)
        return 2
    try:
        with open_log(args.source, create=False) as log:
            seal = seal_log(log, key, past_gaps=args.past_gaps)
    except SealRefused as exc:
        print(f"uth seal: {exc}", file=sys.stderr)
        return 1
    except LogError as exc:
        print(f"uth seal: {exc}", file=sys.stderr)
        return 2
    if args.witness:
        from events.ledger.witness import append_witness

        try:
            append_witness(args.witness, seal)
        except OSError as exc:
            print(f"uth seal: the seal is stored, but not witnessed: {shown(str(exc), 300)}",
                  file=sys.stderr)
            return 2
    body = seal.parsed()
    if args.json:
        print(json.dumps(json.loads(seal.body), sort_keys=True))
        return 0
    events = sum(h.size for h in body.tables)
    print(f"seal {body.number} of {shown(body.source, 200)}: {len(body.tables)} tables, "
          f"{events:,} events ({len(seal.leaves):,} new), key {body.key_id}")
    for head in body.tables:
        lost = sum(hi - lo + 1 for lo, hi in head.missing)
        print(f"  {shown(head.table_id)}  {head.size:>9,} events  last seq {head.last_seq}  "
              f"root {head.root[:16]}" + (f"  {lost:,} seqs declared missing" if lost else ""))
    return 0
