"""The auditor under faults, through its command line (``uth audit``):

- the whole bad-input corpus in one file: ``--json`` reports every rejected line with its
  reason and position, every rule-breaking hand, and a summary that accounts for all lines;
- ``uth audit --follow`` on Kafka killed with SIGKILL in the middle of a batch and started
  again: every finding on ``uth.audit-findings``, none lost; a finding published again
  after the crash has the same ``finding_id`` (so it counts once); then SIGTERM: exit 0.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from events.audit.auditor import audit
from events.contract.codec import decode_many
from events.logs import open_log
from tests.reliability import corpus
from tests.reliability.helpers import floor, terminate, uth, uth_process, wait_until

FINDINGS_TOPIC = "uth.audit-findings"
MANIFEST: dict[str, Any] = json.loads((corpus.CORPUS_DIR / corpus.MANIFEST).read_text())


@cache
def _has_audit_command() -> bool:
    return uth("audit", "--help").returncode == 0


def _needs_audit() -> None:
    if not _has_audit_command():
        pytest.skip("`uth audit` is not there yet (helper audit)")


def _corpus_lines(audit_first: bool = False) -> list[bytes]:
    out: list[bytes] = []
    classes = MANIFEST["classes"]
    if audit_first:  # the rule-breaking hands (findings) before the rejected lines
        classes = sorted(classes, key=lambda c: c["stage"] != "audit")
    for entry in classes:
        out += (corpus.CORPUS_DIR / entry["file"]).read_bytes().split(b"\n")[:-1]
    return out


def test_audit_json_over_the_whole_corpus(tmp_path: Path, ledger: Any) -> None:
    _needs_audit()
    lines = _corpus_lines()
    source = tmp_path / "corpus.jsonl"
    source.write_bytes(b"".join(line + b"\n" for line in lines))
    done = uth("audit", "--source", str(source), "--json", timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    objects = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    summary = objects[-1]["summary"]
    rejected = [o for o in objects[:-1] if o.get("kind") == "rejected"]
    findings = [o for o in objects[:-1] if o.get("kind") != "rejected"]
    bad = sum(len(c["bad_lines"]) for c in MANIFEST["classes"])
    valid = sum(c["valid_events"] for c in MANIFEST["classes"])
    assert len(rejected) == summary["rejected_events"] == bad
    assert all(o.get("reason") for o in rejected)
    assert summary["events"] == valid
    assert summary["events"] + summary["rejected_events"] + summary["duplicates_ignored"] == \
        len(lines)
    for f in findings:
        assert set(f) >= {"kind", "hand_id", "table_id", "dealer_id", "seat", "spot",
                          "expected", "recorded", "detail"}
    flagged = {f["hand_id"] for f in findings}
    assert flagged == {c["flagged_hand"] for c in MANIFEST["classes"] if c["stage"] == "audit"}
    expected = audit(decode_many(lines))
    assert Counter(f["kind"] for f in findings) == Counter(f.kind for f in expected.findings)
    ledger.record("bad-input", "all classes at once [uth audit --json]", sent=len(lines),
                  processed=summary["events"], rejected=summary["rejected_events"],
                  flagged=len(findings))


def _published(bootstrap: str, tables: set[str]) -> list[dict[str, Any]]:
    """Findings on the findings topic that belong to ``tables`` (the broker is shared)."""
    try:
        with open_log(f"kafka://{bootstrap}/{FINDINGS_TOPIC}") as log:
            values = [r.value for b in log.read() for r in b]
    except Exception:
        return []
    out = []
    for v in values:
        try:
            obj = json.loads(v)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("table_id") in tables:
            out.append(obj)
    return out


def _caught_up(log: Any) -> bool:
    checkpoint = log.committed("uth-auditor")
    end = {p: o for p, o in log.end().items() if o}
    return checkpoint is not None and all(checkpoint.cursor.get(p, 0) >= o
                                          for p, o in end.items())


def _identity(f: dict[str, Any]) -> tuple[Any, ...]:
    return (f.get("kind"), f.get("hand_id"), f.get("table_id"), f.get("seat"), f.get("spot"),
            f.get("expected"), f.get("recorded"), f.get("detail"))


@pytest.mark.kafka
def test_fault_sigkill_audit_follow_then_restart(
    tmp_path: Path, kafka_broker: str, ledger: Any
) -> None:
    _needs_audit()
    tag = f"af{int(time.time() * 1000) % 10**8}"
    clean = [corpus.encode(e) for e in floor(40, tag)]
    broken = [line.replace(b'"T-', b'"T-' + tag.encode() + b"-")
              for line in _corpus_lines(audit_first=True)]
    # rule-breaking hands (findings) on both sides of the kill: four of them with the first
    # half, the rest after 2,000 more events, so the kill comes before they are audited
    first = 4 * 65
    lines = clean[:520] + broken[:first] + clean[520:] + broken[first:]
    half = 520 + first
    expected = audit(decode_many(lines))
    tables = {f.table_id for f in expected.findings} | {f"T-{tag}{i}" for i in range(40)}
    want = sorted(map(_identity, (f.to_json() for f in expected.findings)), key=repr)
    assert len(want) >= 8
    topic = f"kafka://{kafka_broker}/reliability.{tag}"
    with open_log(topic) as log:
        log.append([("", v) for v in lines[:half]])
        killed = False
        with uth_process("audit", "--follow", "--source", topic, stdout=tmp_path / "a.out",
                         stderr=tmp_path / "a.err") as proc:
            wait_until(lambda: _published(kafka_broker, tables), 120,
                       "the first findings published", step=0.5, proc=proc)
            log.append([("", v) for v in lines[half:]])
            time.sleep(0.1)  # mid-way through the second half
            if proc.poll() is None:
                proc.kill()
                proc.wait()
                killed = True
        at_kill = len(_published(kafka_broker, tables))
        assert killed
        with uth_process("audit", "--follow", "--source", topic, stdout=tmp_path / "b.out",
                         stderr=tmp_path / "b.err") as proc:
            wait_until(lambda: len(_published(kafka_broker, tables)) >= len(want), 180,
                       "every finding published after the restart", step=0.5, proc=proc)
            # running, caught up and committed: now SIGTERM must stop it cleanly
            wait_until(lambda: _caught_up(log), 120, "the auditor to commit the end of the "
                       "topic", step=0.5, proc=proc)
            assert terminate(proc) == 0, (tmp_path / "b.err").read_text()[-2000:]
    published = _published(kafka_broker, tables)
    by_id: dict[str, set[tuple[Any, ...]]] = {}
    for f in published:
        by_id.setdefault(f["finding_id"], set()).add(_identity(f))
    # a finding published again after the crash (published, then killed before the commit)
    # carries the same finding_id and the same content: consumers count it once
    assert all(len(v) == 1 for v in by_id.values()), "one finding_id, two findings"
    got = sorted((next(iter(v)) for v in by_id.values()), key=repr)
    assert got == want, "findings lost (or changed) across the crash"
    repeats = len(published) - len(by_id)
    # the restarted auditor reads back the findings topic before it publishes: no repeats
    assert repeats == 0, f"{repeats} findings published twice across the crash"
    ledger.record("fault", "SIGKILL uth audit --follow, restart", sent=len(lines),
                  processed=expected.summary["events"],
                  rejected=expected.summary["rejected_events"], flagged=len(got),
                  note=f"{at_kill} of {len(want)} findings out when killed, "
                       "none republished")
