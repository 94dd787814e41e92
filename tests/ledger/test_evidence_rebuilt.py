"""``uth verify --evidence`` rebuilds everything an evidence document states from its
proved events and refuses every field that disagrees, in the JSON document and in the
printed sheet alike (issue 30, item 14)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from events.audit.evidence import evidence
from events.audit.evidence_html import embedded, render_html
from events.contract.codec import decode_line
from events.ledger.keys import generate, load_private
from events.ledger.logs import seal_log
from events.logs import open_log
from pipeline.cli import main
from tests.ledger.conftest import verify
from tests.pipeline import streams


@pytest.fixture(scope="module")
def disputed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The floor with a dispute on H1 weeks later, as a sealed JSON Lines log."""
    root = tmp_path_factory.mktemp("disputed")
    private, public = generate(root / "seal")
    t1, _ = streams.floor()
    lines = [*streams.floor_lines(), *streams.lines(streams.dispute(t1))]
    log = root / "floor.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    with open_log(str(log)) as opened:
        seal_log(opened, load_private(private))
    return log, public


def _document(log: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["replay", "H1", "--source", str(log), "--json", *extra]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = doc
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    change.__name__ = f"{path}={value!r}"[:40]
    return change


def _without_mispaid_payout(doc: dict[str, Any]) -> None:
    """Seat 2's blind, overpaid, left out of the events and of the proof, and every other
    field recomputed from what is left: the forger's best document."""
    proof = doc["inclusion_proof"]
    mispaid = next(e for e in doc["events"] if e["type"] == "PayoutRecorded"
                   and e["payload"]["seat"] == 2 and e["payload"]["spot"] == "blind")
    proof["events"] = [e for e in proof["events"] if e["event_id"] != mispaid["event_id"]]
    kept = [decode_line(e["stored"].encode(), "x") for e in proof["events"]]
    again = json.loads(json.dumps(evidence(kept)))
    assert again["verdict"] != doc["verdict"]
    doc.clear()
    doc.update(again, inclusion_proof=proof)


TAMPERED: dict[str, Callable[[dict[str, Any]], None]] = {
    "relabelled hand": _set("hand_id", "H2"),
    "relabelled dealer": _set("dealer_id", "D9"),
    "voided": _set("status", "voided"),
    "dispute edited": _set("disputes.0.claim", "the player withdrew the claim"),
    "dispute removed": _set("disputes", []),
    "another currency": _set("rules.currency", "USD"),
    "step text": _set("steps.4.text", "Seat 1 bets nothing"),
    "event count": _set("event_count", 20),
    "events digest": _set("events_sha256", "0" * 64),
    "shortened at": _set("at", 10),
    "a field added": _set("approved_by", "the shift manager"),
    "mispaid payout left out": _without_mispaid_payout,
}


@pytest.mark.parametrize("form", ["json", "html"])
@pytest.mark.parametrize("kind", list(TAMPERED))
def test_a_tampered_document_is_refused(disputed: tuple[Path, Path], kind: str, form: str,
                                        tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    log, public = disputed
    doc = _document(log, capsys)
    assert doc["disputes"] and doc["findings"]
    path = tmp_path / f"h1.{form}"
    path.write_text(json.dumps(doc) if form == "json" else render_html(doc, {}))
    assert verify(capsys, "--evidence", str(path), "--public-key", str(public))[0] == 0
    TAMPERED[kind](doc)
    # the sheet printed again from the changed document: it matches what it carries
    path.write_text(json.dumps(doc) if form == "json" else render_html(doc, {}))
    if form == "html":
        carried = embedded(path.read_text())
        assert carried is not None and carried[0] == doc
    status, out = verify(capsys, "--evidence", str(path), "--public-key", str(public))
    assert status == 1, out
    assert "NOT intact" in out and "intact\n" not in out.replace("NOT intact", "")


def test_a_moment_of_a_hand_is_not_proved_as_its_evidence(
        disputed: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``uth replay --at 10 --json`` is consistent in itself, but states less than the
    proved events give: refused, naming why."""
    log, public = disputed
    doc = _document(log, capsys, "--at", "10")
    path = tmp_path / "h1.json"
    path.write_text(json.dumps(doc))
    status, out = verify(capsys, "--evidence", str(path), "--public-key", str(public))
    assert status == 1
    assert "the document stops at event 10 of 27" in out


def test_a_left_out_payout_is_named_deleted(disputed: tuple[Path, Path], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    log, public = disputed
    doc = _document(log, capsys)
    _without_mispaid_payout(doc)
    path = tmp_path / "h1.json"
    path.write_text(json.dumps(doc))
    status, out = verify(capsys, "--evidence", str(path), "--public-key", str(public))
    assert status == 1
    assert "deleted: 1 of the table's events between the hand's first and closing event" in out
