"""The bad-input corpus through the decoder and the auditor: each bad line rejected or each bad
hand flagged, with a reason; nothing raises; the valid events around it all come through."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from events.contract.codec import MAX_EVENT_BYTES, Rejection, decode_line, decode_many
from events.contract.schemas import EVENT_TYPES, decode_event
from tests.reliability import corpus

MANIFEST: dict[str, Any] = json.loads((corpus.CORPUS_DIR / corpus.MANIFEST).read_text())
CODEC = [c for c in MANIFEST["classes"] if c["stage"] == "codec"]
AUDIT = [c for c in MANIFEST["classes"] if c["stage"] == "audit"]
BY_NAME = {c["class"]: c for c in MANIFEST["classes"]}


def lines_of(entry: dict[str, Any]) -> list[bytes]:
    return (corpus.CORPUS_DIR / entry["file"]).read_bytes().split(b"\n")[:-1]


def test_committed_corpus_is_what_the_generator_makes() -> None:
    built = corpus.build()
    on_disk = {p.name for p in corpus.CORPUS_DIR.glob("*.jsonl")}
    assert on_disk == set(built["files"]), "run: .venv/bin/python -m tests.reliability.corpus"
    for name, data in built["files"].items():
        assert (corpus.CORPUS_DIR / name).read_bytes() == data, name
    assert json.loads(json.dumps(built["manifest"])) == MANIFEST


def test_corpus_covers_every_class_the_issue_names() -> None:
    names = set(BY_NAME)
    for required in (
        "truncated-json", "wrong-type", "unknown-event-type", "missing-envelope-field",
        "missing-payload-field", "not-a-card", "card-dealt-twice", "bet-over-limit",
        "bet-under-minimum", "ante-not-blind", "raise-after-raise", "fold-on-the-flop",
        "payout-for-wager-never-placed", "huge-payload", "non-utf8",
    ):
        assert required in names
    huge = lines_of(BY_NAME["huge-payload"])[BY_NAME["huge-payload"]["bad_lines"][0] - 1]
    assert len(huge) > MAX_EVENT_BYTES
    bad = lines_of(BY_NAME["non-utf8"])[BY_NAME["non-utf8"]["bad_lines"][0] - 1]
    with pytest.raises(UnicodeDecodeError):
        bad.decode("utf-8")


@pytest.mark.parametrize("entry", CODEC, ids=lambda c: c["class"])
def test_codec_rejects_the_bad_line_and_keeps_the_rest(entry: dict[str, Any], ledger) -> None:
    lines = lines_of(entry)
    assert len(lines) == entry["lines"]
    out = decode_many(lines)
    assert len(out) == len(lines)
    bad = set(entry["bad_lines"])
    rejected = [(n, r) for n, r in enumerate(out, 1) if isinstance(r, Rejection)]
    assert [n for n, _ in rejected] == sorted(bad)
    for n, r in rejected:
        assert r.code == entry["code"], r
        assert entry["reason_contains"] in r.reason, r.reason
        assert str(r).startswith(f"line {n}: ")
        assert len(r.raw) <= 4096
        # one line at a time says the same as the batch
        again = decode_line(lines[n - 1], n)
        assert isinstance(again, Rejection) and again.reason == r.reason
    valid = [(n, e) for n, e in enumerate(out, 1) if n not in bad]
    for n, ev in valid:
        assert type(ev).__name__ in EVENT_TYPES, (n, ev)
        assert ev == decode_event(lines[n - 1])
    seqs = [ev.seq for _, ev in valid]
    assert seqs == list(range(entry["valid_events"]))  # every valid event, gap-free, in order
    ledger.record("bad-input", entry["class"], sent=len(lines), processed=len(valid),
                  rejected=len(rejected))
    assert len(lines) - len(valid) - len(rejected) == 0


@pytest.mark.parametrize("entry", AUDIT, ids=lambda c: c["class"])
def test_codec_accepts_well_formed_rule_breaking_events(entry: dict[str, Any]) -> None:
    out = decode_many(lines_of(entry))
    assert not [r for r in out if isinstance(r, Rejection)]
    assert [e.seq for e in out] == list(range(entry["lines"]))


# ------------------------------------------------------------------- through the auditor

def _audit() -> Any:
    return pytest.importorskip("events.audit.auditor",
                               reason="events.audit.auditor (helper audit) not built")


def _kinds(findings: Any) -> list[str]:
    return sorted(f.kind for f in findings)


@pytest.mark.parametrize("entry", CODEC, ids=lambda c: c["class"])
def test_auditor_reports_the_rejection_and_audits_the_rest_cleanly(
    entry: dict[str, Any], ledger: Any
) -> None:
    audit = _audit()
    lines = lines_of(entry)
    report = audit.audit(decode_many(lines))
    assert [f for f in report.findings if f.kind != "rejected"] == []
    assert len(report.rejected) == len(entry["bad_lines"])
    assert all(isinstance(r, Rejection) and r.reason for r in report.rejected)
    assert report.summary["events"] == entry["valid_events"]
    assert report.summary["rejected_events"] == len(entry["bad_lines"])
    assert report.summary["hands"] == entry["hands"]
    assert sorted(h.status for h in report.hands) == ["settled"] * 3


@pytest.mark.parametrize("entry", AUDIT, ids=lambda c: c["class"])
def test_auditor_flags_the_bad_hand_only(entry: dict[str, Any], ledger: Any) -> None:
    audit = _audit()
    lines = lines_of(entry)
    report = audit.audit(decode_many(lines))
    flagged = entry["flagged_hand"]
    others = [f for f in report.findings if f.hand_id != flagged]
    assert others == [], others
    mine = [f for f in report.findings if f.hand_id == flagged]
    assert any(f.kind in entry["finding_kinds"] for f in mine), _kinds(mine)
    assert all(f.detail for f in mine)
    assert report.summary["events"] == entry["valid_events"]
    assert report.summary["rejected_events"] == 0
    ledger.record("bad-input", entry["class"], sent=len(lines),
                  processed=report.summary["events"], flagged=len(mine))


def test_auditor_over_the_whole_corpus_at_once(ledger: Any) -> None:
    """Every class in one stream (19 tables interleaved): the same verdicts as one by one."""
    audit = _audit()
    per_file = [lines_of(c) for c in MANIFEST["classes"]]
    mixed: list[bytes] = []
    for i in range(max(map(len, per_file))):
        mixed += [f[i] for f in per_file if i < len(f)]
    report = audit.audit(decode_many(mixed))
    assert len(report.rejected) == sum(len(c["bad_lines"]) for c in CODEC)
    assert report.summary["events"] == sum(c["valid_events"] for c in MANIFEST["classes"])
    flagged = {f.hand_id for f in report.findings}
    assert flagged == {c["flagged_hand"] for c in AUDIT}


def test_decoding_the_corpus_never_raises_on_any_prefix_or_split() -> None:
    """Each file cut at arbitrary byte offsets (a torn read) still decodes line by line."""
    for entry in MANIFEST["classes"][:6]:
        data = (corpus.CORPUS_DIR / entry["file"]).read_bytes()
        for cut in range(0, len(data), 997):
            for n, line in enumerate(data[:cut].split(b"\n"), 1):
                out = decode_line(line, n)
                assert isinstance(out, Rejection) or type(out).__name__ in EVENT_TYPES



def test_ingest_dead_letters_every_bad_line_and_stores_the_rest(
    tmp_path: Path, ledger: Any
) -> None:
    """The whole corpus through ``uth ingest`` into the SQLite log: each bad line in the
    dead-letter store with its reason, every valid event stored once, exit 0."""
    from events.logs import open_log
    from tests.reliability.helpers import uth

    lines: list[bytes] = []
    for entry in MANIFEST["classes"]:
        lines += lines_of(entry)
    source = tmp_path / "corpus.jsonl"
    source.write_bytes(b"".join(line + b"\n" for line in lines))
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    done = uth("ingest", "--source", str(source), "--sink", sink, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    codes: dict[str, int] = {}
    for c in CODEC:
        codes[c["code"]] = codes.get(c["code"], 0) + len(c["bad_lines"])
    assert report["rejected_by_reason"] == codes
    valid = sum(c["valid_events"] for c in MANIFEST["classes"])
    assert report["written"] == valid and report["accounted"]
    with open_log(sink) as log:
        stored = [r.value for b in log.read() for r in b]
        dead = log.dead_letters()
    assert len(stored) == valid
    assert not [d for d in decode_many(stored) if isinstance(d, Rejection)]
    assert sorted(d["code"] for d in dead) == sorted(c["code"] for c in CODEC)
    assert all(d["reason"] for d in dead)
    ledger.record("bad-input", "all classes at once [uth ingest]", sent=len(lines),
                  processed=report["written"], rejected=report["rejected"])
