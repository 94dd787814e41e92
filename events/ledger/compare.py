"""A store's events against its seals: what is intact, what was tampered with, what is
not yet sealed.

The store gives each table's events as it holds them (:class:`StoredEvent`, the first copy
of each ``event_id``, in ``seq`` order); the seals give the signed trees. The latest seal
whose signature verifies is the reference: its leaves (stored with the seals) are trusted
once they rebuild its signed roots, and each table's sealed events (``seq`` up to the
table's sealed head) are compared with them, leaf by leaf. What differs is named:

- ``altered``: the event is there, its contents differ;
- ``deleted``: a sealed event is gone;
- ``inserted``: an event the seal does not hold, at a sealed ``seq`` (a sequence conflict
  with the sealed event there: a late copy under another ``event_id``, or a forgery);
- ``forged``: another event stands where a sealed one was, or a seal's signature fails;
- ``moved``: a sealed event found at another ``seq``.

A seal taken past gaps (``uth seal --past-gaps``) lists the seqs its tables lacked: each
such range is a *note* (expected, not tampering); an event found at one is ``inserted``.

Events after a table's sealed head are *not yet sealed* (arrived after the seal, or beyond
a gap the seal stopped at): reported as such, never as tampered.
"""

from __future__ import annotations

import bisect
import operator
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby
from operator import attrgetter

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events.ledger.keys import signature_valid
from events.ledger.merkle import tree_root
from events.ledger.seal import (
    FORMAT,
    READABLE,
    LeafRow,
    SealBody,
    SealRecord,
    leaves_digest,
    meta_digest,
)
from events.ledger.stored import StoredEvent, TableEvents, columns

_LEAF = attrgetter("leaf")
_TABLE, _INDEX = attrgetter("table_id"), attrgetter("tree_index")
KINDS = ("altered", "deleted", "inserted", "forged", "moved")
_DETAIL = {
    "altered": "contents differ from the sealed event",
    "deleted": "sealed event missing",
    "inserted": "event the seal does not hold, at a sealed seq (a sequence conflict with "
                "the sealed event there)",
    "forged": "another event stands in place of the sealed one",
    "moved": "sealed event found at another seq",
}
_AT_DECLARED = ("event at a seq the seal declared missing (lost when it was sealed past it): "
                "it arrived, or was put there, afterwards")
_UNNAMED_TABLE = "event of a table the seal does not name, among the log's sealed records"


@dataclass(frozen=True)
class Finding:
    table_id: str | None  # None: about a seal, not a table's events
    first_seq: int | None
    last_seq: int | None
    kind: str
    detail: str
    count: int = 0

    def line(self) -> str:
        if self.table_id is None:
            return f"{self.kind}: {self.detail}"
        span = (f"seq {self.first_seq}" if self.first_seq == self.last_seq
                else f"seq {self.first_seq}..{self.last_seq}")
        many = f" ({self.count} events)" if self.count > 1 else ""
        return f"{shown(self.table_id)} {span}: {self.kind}{many}: {self.detail}"


@dataclass(frozen=True)
class Unsealed:
    table_id: str
    first_seq: int
    last_seq: int
    count: int
    # the seqs the table's run waits for (none received), when a gap holds the seal back
    missing_from: int | None = None
    missing_to: int | None = None

    def line(self) -> str:
        wait = ""
        if self.missing_from is not None:
            span = (f"seq {self.missing_from}" if self.missing_from == self.missing_to
                    else f"seq {self.missing_from}..{self.missing_to}")
            wait = f" (after a gap: {span} not received)"
        return (f"{shown(self.table_id)} seq {self.first_seq}..{self.last_seq}: "
                f"{self.count} events not yet sealed{wait}")


@dataclass(frozen=True)
class DeclaredMissing:
    """A range of seqs a seal declared lost when it sealed past it: a note, not a finding."""

    table_id: str
    first_seq: int
    last_seq: int

    def line(self) -> str:
        span = (f"seq {self.first_seq}" if self.first_seq == self.last_seq
                else f"seq {self.first_seq}..{self.last_seq}")
        return (f"note: {shown(self.table_id)} {span}: declared missing by the seal "
                "(lost, sealed past; not tampering)")


@dataclass
class VerifyReport:
    source: str
    findings: list[Finding] = field(default_factory=list)
    unsealed: list[Unsealed] = field(default_factory=list)
    notes: list[DeclaredMissing] = field(default_factory=list)
    seals: int = 0
    sealed_events: int = 0
    tables: int = 0

    @property
    def intact(self) -> bool:
        return not self.findings

    def lines(self) -> list[str]:
        return ([f.line() for f in self.findings] + [n.line() for n in self.notes]
                + [u.line() for u in self.unsealed])


def shown(text: str, limit: int = 64) -> str:
    """Text from an event made safe for a terminal: control and other unprintable
    characters escaped, long text cut."""
    out = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256
                  else f"\\u{ord(c):04x}" for c in text[:limit])
    return out + ("..." if len(text) > limit else "")


def verify_store(source: str, seals: Sequence[SealRecord], public: Ed25519PublicKey,
                 store: Mapping[str, Sequence[StoredEvent]]) -> VerifyReport:
    """Compare ``store`` (each table's events, first copies, in ``seq`` order) with
    ``seals``, the seals of the log ``source`` names (whatever its URL was when they were
    taken: a log moved elsewhere keeps its seals)."""
    report = VerifyReport(source)
    valid = _valid_seals(seals, public, report)
    report.seals = len(valid)
    latest = valid[-1][1] if valid else None
    heads = {h.table_id: h for h in latest.tables} if latest is not None else {}
    leaves = _leaf_rows(valid)
    through = latest.through_cursor() if latest is not None else {}
    report.tables = len(set(store) | set(heads))
    for table_id in sorted(set(store) | set(heads)):
        events = store.get(table_id, ())
        head = heads.get(table_id)
        if head is None:
            # a table the seal does not name (a seal names every table it saw): its events
            # that lay before the seal's end were put into the sealed log afterwards
            early = [e for e in events if e.offset < through.get(e.partition, 0)]
            found = ranges(table_id, (("inserted", e.seq) for e in early))
            report.findings += [replace(f, detail=_UNNAMED_TABLE) for f in found]
            report.unsealed += _unsealed(table_id, [
                e for e in events if e.offset >= through.get(e.partition, 0)], None)
            continue
        report.sealed_events += head.size
        report.notes += [DeclaredMissing(table_id, lo, hi) for lo, hi in head.missing]
        sealed = leaves.get(table_id, [])[:head.size]
        if head.leaves_meta_sha256 and meta_digest(
                [r.seq for r in sealed], [r.event_id for r in sealed]) != head.leaves_meta_sha256:
            report.findings.append(Finding(
                table_id, 0, head.last_seq, "altered", "the seq and event ids stored with its "
                "seals' leaves are not the ones the seal signs", head.size))
        cut = bisect.bisect_right(_seqs(events), head.last_seq)
        # (no copy of a table that is all sealed: the common case)
        part, after = (events, ()) if cut == len(events) else (events[:cut], events[cut:])
        hashes = columns(part)[2]
        if (len(hashes) == head.size and leaves_digest(hashes) == head.leaves_sha256
                and list(map(_LEAF, sealed)) == list(hashes)):
            # the common case: the events up to the sealed head are the sealed ones
            report.unsealed += _unsealed(table_id, after, head.last_seq)
            continue
        stored = [r.leaf for r in sealed]
        if (len(sealed) != head.size or tree_root(stored).hex() != head.root
                or leaves_digest(stored) != head.leaves_sha256):
            report.findings += _unlocalized(table_id, head.root, head.size, part)
            report.unsealed += _unsealed(table_id, after, head.last_seq)
            continue
        # the sealed part: the events up to the head, and the sealed events wherever they
        # are now (one given a later seq is moved, not new)
        ids = {r.event_id for r in sealed}
        moved = [e for e in after if e.event_id in ids]
        report.findings += compare_table(table_id, sealed, [*part, *moved], head.declared())
        report.unsealed += _unsealed(table_id, [e for e in after if e.event_id not in ids],
                                     head.last_seq)
    return report


def _seqs(events: Sequence[StoredEvent]) -> Sequence[int]:
    return events.seqs if isinstance(events, TableEvents) else [e.seq for e in events]


def _unsealed(table_id: str, events: Sequence[StoredEvent],
              head: int | None) -> list[Unsealed]:
    """The table's events after its sealed ``head``; when the first of them is not the
    next seq, the seal stopped at a gap (or the seal is older than them: the gap names the
    seqs that a new seal waits for)."""
    if not events:
        return []
    seqs = [e.seq for e in events]
    first = min(seqs)
    if head is not None and first > head + 1:
        return [Unsealed(table_id, first, max(seqs), len(events), head + 1, first - 1)]
    return [Unsealed(table_id, first, max(seqs), len(events))]


def _valid_seals(seals: Sequence[SealRecord], public: Ed25519PublicKey,
                 report: VerifyReport) -> list[tuple[SealRecord, SealBody]]:
    """The seals whose signature verifies, in order of number; a failed signature or a
    broken chain of seals is a finding."""
    valid: list[tuple[SealRecord, SealBody]] = []
    for position, record in enumerate(seals, 1):
        try:
            body = record.parsed()
        except (msgspec.ValidationError, msgspec.DecodeError):
            report.findings.append(Finding(None, None, None, "forged",
                                           f"stored seal {position} is not a seal"))
            continue
        if body.format not in READABLE:
            report.findings.append(Finding(
                None, None, None, "unreadable",
                f"seal {body.number}: format {shown(body.format)} is not {FORMAT} (seal the "
                "log again with this version: its leaves are the events' stored bytes in "
                "seq order)"))
            continue
        if not signature_valid(public, record.signature, record.body):
            report.findings.append(Finding(
                None, None, None, "forged",
                f"seal {body.number}: its signature does not verify with this public key"))
            continue
        valid.append((record, body))
    valid.sort(key=lambda pair: pair[1].number)
    chain: list[tuple[SealRecord, SealBody]] = []
    digests: dict[int, str] = {}
    named: set[int] = set()  # seal numbers already named missing
    expected, previous = 1, None
    for record, body in valid:
        if body.number in digests:  # a number seen already: a copy, or a second seal N
            if record.digest() == digests[body.number]:
                report.findings.append(Finding(
                    None, None, None, "deleted",
                    f"seal {expected}: missing; the store holds a copy of seal {body.number} "
                    "in its place"))
                named.add(expected)
            else:
                report.findings.append(Finding(
                    None, None, None, "forged",
                    f"seal {body.number}: stored twice, with different contents"))
            continue
        if (body.number != expected or body.previous != previous) and \
                body.number - 1 not in named:
            report.findings.append(Finding(
                None, None, None, "deleted",
                f"seal {body.number}: the seal before it (number {body.number - 1}) is "
                "missing or was replaced"))
        digests[body.number] = record.digest()
        chain.append((record, body))
        expected, previous = body.number + 1, record.digest()
    return chain


def _leaf_rows(valid: Iterable[tuple[SealRecord, SealBody]]) -> dict[str, list[LeafRow]]:
    """Each table's leaves stored with the seals, in tree order (a run of leaves out of
    place ends the table's list there: the signed root then names it altered). A seal's
    rows come grouped by table, the tables in order: each table's run is found by bisection
    and checked by its first and last index (its leaves are held to the signed digest or
    root afterwards, which a row out of order fails)."""
    rows: dict[str, list[LeafRow]] = defaultdict(list)
    broken: set[str] = set()
    for record, _ in valid:
        leaves = record.leaves
        tables = list(map(_TABLE, leaves))
        if all(map(operator.le, tables, tables[1:])):
            runs = [(t, leaves[bisect.bisect_left(tables, t):bisect.bisect_right(tables, t)])
                    for t in sorted(set(tables))]
        else:
            runs = [(t, list(run)) for t, run in groupby(leaves, key=_TABLE)]
        for table_id, items in runs:
            table = rows[table_id]
            if table_id in broken:
                continue
            if (items[0].tree_index == len(table)
                    and items[-1].tree_index == len(table) + len(items) - 1):
                table.extend(items)
            else:
                broken.add(table_id)
    return rows


def _unlocalized(table_id: str, root: str, size: int,
                 events: Sequence[StoredEvent]) -> list[Finding]:
    """The leaves stored with the seals do not rebuild the signed root: they were altered.
    The events are then checked against the root alone (intact or not, not which one)."""
    found = [Finding(table_id, None, None, "altered",
                     "the leaves stored with its seals do not rebuild the signed root "
                     "(the seal record was altered)")]
    seqs = [e.seq for e in events] or [0]
    if len(events) != size or tree_root([e.leaf for e in events]).hex() != root:
        found.append(Finding(table_id, min(seqs), max(seqs), "altered",
                             "the sealed events differ from the signed root (which ones "
                             "cannot be told: the seal record was altered too)", len(events)))
    return [Finding(f.table_id, f.first_seq if f.first_seq is not None else min(seqs),
                    f.last_seq if f.last_seq is not None else max(seqs), f.kind, f.detail,
                    f.count) for f in found]


def compare_table(table_id: str, sealed: Sequence[LeafRow], events: Sequence[StoredEvent],
                  declared: Mapping[int, int] | None = None) -> list[Finding]:
    """Findings for one table: its trusted sealed leaves against the store's sealed part
    (both in ``seq`` order; a leaf holds its event's ``seq``, so a matched leaf is in its
    place). ``declared``: the seqs the seal declared missing (first -> last), where an
    event is inserted after the seal."""
    if len(sealed) == len(events) and all(
            s.leaf == e.leaf for s, e in zip(sealed, events, strict=True)):
        return []
    index_of = {s.leaf: i for i, s in enumerate(sealed)}
    matched_sealed = {index_of[e.leaf] for e in events if e.leaf in index_of}
    left = {j: e for j, e in enumerate(events) if e.leaf not in index_of}
    kinds: list[tuple[str, int]] = []
    by_id = {e.event_id: j for j, e in left.items()}
    by_seq: dict[int, list[int]] = defaultdict(list)
    for j, e in left.items():
        by_seq[e.seq].append(j)
    for i, s in enumerate(sealed):
        if i in matched_sealed:
            continue
        found = by_id.pop(s.event_id) if s.event_id in by_id else None
        if found is not None:
            e = left.pop(found)
            by_seq[e.seq].remove(found)
            kinds.append(("altered" if e.seq == s.seq else "moved", s.seq))
            continue
        others = [k for k in by_seq.get(s.seq, []) if k in left]
        if others:
            e = left.pop(others[0])
            by_seq[s.seq].remove(others[0])
            if by_id.get(e.event_id) == others[0]:
                del by_id[e.event_id]
            kinds.append(("forged", s.seq))
        else:
            kinds.append(("deleted", s.seq))
    spans = sorted((declared or {}).items())
    late = [e.seq for e in left.values() if _within(spans, e.seq)]
    kinds += [("inserted", e.seq) for e in left.values() if not _within(spans, e.seq)]
    out = ranges(table_id, kinds) + [replace(f, detail=_AT_DECLARED) for f in ranges(
        table_id, (("inserted", seq) for seq in late))]
    out.sort(key=lambda f: (f.first_seq or 0, KINDS.index(f.kind)))
    return out


def _within(spans: Sequence[tuple[int, int]], seq: int) -> bool:
    """Whether ``seq`` lies in one of ``spans`` ([first, last] ranges in order)."""
    at = bisect.bisect_right(spans, seq, key=operator.itemgetter(0)) - 1
    return at >= 0 and spans[at][0] <= seq <= spans[at][1]


def ranges(table_id: str, kinds: Iterable[tuple[str, int]]) -> list[Finding]:
    """One finding per kind and run of consecutive ``seq``."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    for kind, seq in kinds:
        by_kind[kind].append(seq)
    out: list[Finding] = []
    for kind in KINDS:
        seqs = sorted(by_kind.get(kind, []))
        start = 0
        for k in range(1, len(seqs) + 1):
            if k == len(seqs) or seqs[k] > seqs[k - 1] + 1:
                out.append(Finding(table_id, seqs[start], seqs[k - 1], kind, _DETAIL[kind],
                                   k - start))
                start = k
    out.sort(key=lambda f: (f.first_seq or 0, KINDS.index(f.kind)))
    return out
