"""``uth verify``: are the stored events the ones that were sealed?

    uth verify --source sqlite:///floor.db --public-key keys/floor-seal.pub
    uth verify --warehouse floor.duckdb --public-key keys/floor-seal.pub
    uth verify --archive floor_archive --public-key keys/floor-seal.pub
    uth verify --evidence hand.json --public-key keys/floor-seal.pub
    uth verify --source sqlite:///floor.db --public-key keys/floor-seal.pub --witness FILE

Rebuilds each table's Merkle tree from the store's events (each one's exact stored bytes,
in ``seq`` order) and compares it with the seals stored beside them, whose signatures it
checks with the public key alone. One line per finding names the table, the ``seq`` range
and what happened: ``altered``, ``deleted``, ``inserted`` (another event at a sealed
``seq``: a sequence conflict), ``forged`` (another event in a sealed one's place, or a seal
whose signature fails) or ``moved`` (a sealed event at another ``seq``). In a warehouse or
an archive the columns are also checked against the stored bytes. Events after a table's
sealed head (arrived after the seal, or beyond a gap) are listed as not yet sealed; they
are not findings.

``--witness FILE`` (the checkpoints ``uth seal --witness FILE`` kept apart from the store)
also names each checkpoint the witness saw that the store no longer holds (rolled back:
the tables and ``seq`` ranges lost) or holds in another form (forged). A warehouse is held
to the checkpoints its load has read past.

``--evidence`` checks a hand's evidence document (``uth replay HAND --json``) with nothing
but the key: the seal's signature, each event's inclusion proof, that the events shown are
the proved ones, and that they give the document's verdict.

Exit status: 0 every sealed event intact (for ``--evidence``: every event of the document
proved); 1 a finding (or, for ``--evidence``, events not proved); 2 the store or key cannot
be read; 3 the store holds no seal at all (unsealed: nothing is proved).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

UNSEALED = 3  # the exit status of a store with no seal: nothing to verify against


def register(sub: Any) -> None:
    p = sub.add_parser("verify", help="check stored events against their signed seals",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--source", help="sqlite:///log.db, file.jsonl or kafka://host:port/topic")
    where.add_argument("--warehouse", help="the DuckDB warehouse")
    where.add_argument("--archive", help="the Parquet archive directory")
    where.add_argument("--evidence", metavar="FILE",
                       help="a hand's evidence document (JSON, or the printed HTML sheet)")
    p.add_argument("--public-key", required=True, metavar="FILE", help="PREFIX.pub of uth keygen")
    p.add_argument("--witness", metavar="FILE",
                   help="the checkpoints of uth seal --witness, kept apart from the store")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from events.ledger.keys import LedgerKeyError, load_public

    try:
        public = load_public(args.public_key)
    except LedgerKeyError as exc:
        print(f"uth verify: {exc}", file=sys.stderr)
        return 2
    if args.evidence:
        return _evidence(args, public)
    try:
        reports = _reports(args, public)
    except Exception as exc:  # the store cannot be read: say which and why, exit 2
        print(f"uth verify: {_unreadable(args, exc)}", file=sys.stderr)
        return 2
    intact = all(r.intact for r in reports)
    unsealed = not reports or any(r.seals == 0 for r in reports)
    if args.json:
        print(json.dumps({"intact": intact and not unsealed, "unsealed": unsealed,
                          "stores": [{
            "source": r.source, "seals": r.seals, "tables": r.tables,
            "sealed_events": r.sealed_events,
            "findings": [f.__dict__ for f in r.findings],
            "declared_missing": [n.__dict__ for n in r.notes],
            "not_yet_sealed": [u.__dict__ for u in r.unsealed]} for r in reports]}))
        return _status(intact, unsealed)
    from events.ledger.compare import shown

    for report in reports:
        for line in report.lines():
            print(line)
        where = _checked(args, shown(report.source or "(no source)", 200))
        if report.seals == 0 and report.intact:
            print(f"{where}: UNSEALED: no seal is stored "
                  f"beside its events ({report.tables} tables), so nothing is proved "
                  "(seal it with uth seal)")
            continue
        state = "intact" if report.intact else f"{len(report.findings)} findings"
        print(f"{where}: {report.seals} seals, "
              f"{report.sealed_events:,} sealed events in {report.tables} tables: {state}")
    if not reports:
        print("the store holds no events of any source and no seal: UNSEALED")
    return _status(intact, unsealed)


def _checked(args: argparse.Namespace, source: str) -> str:
    """What was checked: the log itself, or the warehouse or archive holding its events."""
    from events.ledger.compare import shown

    if args.warehouse:
        return f"warehouse {shown(str(args.warehouse), 200)} (events from {source})"
    if args.archive:
        return f"archive {shown(str(args.archive), 200)} (events from {source})"
    return source


def _unreadable(args: argparse.Namespace, exc: BaseException) -> str:
    """Which store could not be read, and why, in words (the error's own message, not its
    class: ``IOException``, ``ArrowInvalid`` name nothing a reader knows)."""
    from events.ledger.compare import shown

    path = args.warehouse or args.archive or args.source
    store = "the warehouse" if args.warehouse else "the archive" if args.archive else "the log"
    why = str(exc).strip() or "it could not be read"
    why = why.removeprefix(f"{path}: ")  # the path is said once
    return shown(f"cannot read {store} {path}: {why}", 400)


def _status(intact: bool, unsealed: bool) -> int:
    """1 a finding; 3 nothing sealed (no finding, nothing proved); 0 intact."""
    if not intact:
        return 1
    return UNSEALED if unsealed else 0


def _reports(args: argparse.Namespace, public: Any) -> list[Any]:
    from events.ledger.seal import read_seal_lines

    witnessed = read_seal_lines(args.witness) if args.witness else None
    if args.source:
        from events.ledger.compare import verify_store
        from events.ledger.logs import read_seals, scan
        from events.ledger.witness import witness_findings
        from events.logs import open_log

        with open_log(args.source, create=False) as log:
            seals = read_seals(log)
            report = verify_store(log.describe(), seals, public, scan(log).tables)
        if witnessed is not None:
            sources = {report.source, *(s.parsed().source for s in seals if _readable(s))}
            report.findings += witness_findings(seals, witnessed, public, sources)
        return [report]
    from pipeline.ledger.store import verify_archive, verify_warehouse

    if args.warehouse:
        return verify_warehouse(args.warehouse, public, witnessed)
    return verify_archive(args.archive, public, witnessed)


def _readable(seal: Any) -> bool:
    try:
        seal.parsed()
    except ValueError:
        return False
    return True


def _evidence(args: argparse.Namespace, public: Any) -> int:
    from events.audit.evidence_check import verify_evidence
    from events.audit.evidence_html import embedded, render_html
    from events.ledger.compare import shown

    sheet_changed = False
    try:
        with open(args.evidence, "rb") as f:
            data = f.read()
        if data.lstrip().lower().startswith((b"<!doctype html", b"<html")):
            # a printed sheet: the document it carries, and the sheet rendered from it again
            text = data.decode("utf-8")
            carried = embedded(text)
            if carried is None:
                raise ValueError("the sheet carries no evidence document")
            doc, positions, zone = carried
            sheet_changed = render_html(doc, positions, zone) != text
        else:
            doc = json.loads(data)
    except (OSError, ValueError) as exc:
        print(f"uth verify: {args.evidence}: cannot read the document ({exc})", file=sys.stderr)
        return 2
    if not isinstance(doc, dict):
        print(f"uth verify: {args.evidence}: not an evidence document", file=sys.stderr)
        return 2
    note = ""
    if isinstance(doc.get("auditor"), dict) and "warehouse" in doc:
        # the Hand audit page's download: the auditor's document is the one proved; the
        # warehouse rows beside it are what the warehouse held, not part of the proof
        doc = doc["auditor"]
        note = ("note: only the download's auditor document is checked; the warehouse rows "
                "beside it are not proved")
    check = verify_evidence(doc, public)
    if sheet_changed:
        check.problems.append("the printed sheet was changed: it is not the rendering of the "
                              "evidence document it carries")
    hand = shown(str(doc.get("hand_id")))
    if args.json:
        print(json.dumps({"hand_id": doc.get("hand_id"), "proven": check.proven,
                          "proved_events": check.proved, "problems": check.problems,
                          "not_yet_sealed": check.unsealed, "seal": check.seal_number}))
        return 0 if check.proven else 1
    if note:
        print(note)
    for problem in check.problems:
        print(shown(problem, 300))
    for event_id in check.unsealed:
        print(f"not yet sealed: {shown(event_id, 300)}")
    if check.proven:
        print(f"hand {hand}: {check.proved} events proved against seal {check.seal_number} "
              f"(key {check.key}): intact")
        return 0
    state = "NOT intact" if check.problems else "not proved (events not yet sealed)"
    print(f"hand {hand}: {check.proved} events proved: {state}")
    return 1
