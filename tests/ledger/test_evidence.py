"""A hand's evidence document carries an inclusion proof that ``uth verify --evidence``
checks with the public key alone; any change to the document or its proof is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from events.ledger.keys import generate
from pipeline.cli import main
from tests.ledger.conftest import Floor, verify


def _document(floor: Floor, capsys: pytest.CaptureFixture[str], hand: str = "H1",
              source: str | None = None) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["replay", hand, "--source", source or f"sqlite:///{floor.db}", "--json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def _check(doc: dict[str, Any], path: Path, public: Path,
           capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path.write_text(json.dumps(doc))
    return verify(capsys, "--evidence", str(path), "--public-key", str(public))


@pytest.mark.parametrize("log", ["sqlite", "jsonl"])
def test_the_document_proves_its_hand(sealed_floor: Floor, log: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    source = f"sqlite:///{sealed_floor.db}" if log == "sqlite" else str(sealed_floor.jsonl)
    doc = _document(sealed_floor, capsys, source=source)
    proof = doc["inclusion_proof"]
    assert proof["table_id"] == "T1" and proof["tree_size"] == 50
    # the hand's 25 events and the TableOpened its rules come from
    assert len(proof["events"]) == 26 and proof["not_sealed"] == []
    status, out = _check(doc, tmp_path / "h1.json", sealed_floor.public, capsys)
    assert status == 0, out
    assert out.startswith("hand H1: 26 events proved against seal 1")


def _raise_payout(doc: dict[str, Any]) -> None:
    event = next(e for e in doc["events"] if e["type"] == "PayoutRecorded")
    event["payload"]["amount"] += 10_000


def _raise_proved_payout(doc: dict[str, Any]) -> None:
    """Both the document's event and the proof's bytes changed: the path no longer holds."""
    _raise_payout(doc)
    entry = next(e for e in doc["inclusion_proof"]["events"] if '"PayoutRecorded"' in
                 e["stored"])
    data = json.loads(entry["stored"])
    data["payload"]["amount"] += 10_000
    entry["stored"] = json.dumps(data, separators=(",", ":"))


def _drop_event(doc: dict[str, Any]) -> None:
    doc["events"].pop(3)


def _new_verdict(doc: dict[str, Any]) -> None:
    doc["verdict"] = "every wager settled correctly"


def _other_path(doc: dict[str, Any]) -> None:
    doc["inclusion_proof"]["events"][2]["path"][0] = "00" * 32


def _unsealed_claim(doc: dict[str, Any]) -> None:
    entry = doc["inclusion_proof"]["events"].pop(4)
    doc["inclusion_proof"]["not_sealed"].append(entry["event_id"])


CHANGES = {
    _raise_payout: "altered: the document's event differs from the proved one",
    _raise_proved_payout: "altered: the event does not prove against the signed root",
    _new_verdict: "altered: the document's verdict is not what its events give",
    _other_path: "altered: the event does not prove against the signed root",
    _unsealed_claim: "not yet sealed",
}


@pytest.mark.parametrize("change", list(CHANGES), ids=lambda f: f.__name__)
def test_a_changed_document_is_named(sealed_floor: Floor, change: Any, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    doc = _document(sealed_floor, capsys)
    change(doc)
    status, out = _check(doc, tmp_path / "h1.json", sealed_floor.public, capsys)
    assert status == 1, out
    assert CHANGES[change] in out


def test_a_dropped_event_changes_the_verdict(sealed_floor: Floor, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    doc = _document(sealed_floor, capsys)
    _drop_event(doc)
    status, out = _check(doc, tmp_path / "h1.json", sealed_floor.public, capsys)
    assert status == 1
    assert "is not what its events give" in out


def test_another_key_or_no_seal(sealed_floor: Floor, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    doc = _document(sealed_floor, capsys)
    _, other = generate(tmp_path / "other")
    status, out = _check(doc, tmp_path / "h1.json", other, capsys)
    assert status == 1 and "forged: the seal's signature does not verify" in out
    unsealed = tmp_path / "unsealed.jsonl"
    unsealed.write_bytes(sealed_floor.jsonl.read_bytes())
    doc = _document(sealed_floor, capsys, source=str(unsealed))
    assert doc["inclusion_proof"] is None and "no seal yet" in doc["inclusion_proof_missing"]
    status, out = _check(doc, tmp_path / "h1.json", sealed_floor.public, capsys)
    assert status == 1 and "not proved (events not yet sealed)" in out


def test_a_hand_with_players_is_proved_under_their_pseudonyms(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A log written with a player's identifier in clear (before any ingest): the proof and
    the document both hold the pseudonym, as the ingest would store it, and agree."""
    from events.ledger.keys import load_private
    from events.ledger.logs import seal_log
    from events.logs import open_log
    from tests.pipeline import streams

    monkeypatch.setenv("UTH_PSEUDONYM_KEY", "a-long-test-secret-of-the-casino")
    private, public = generate(tmp_path / "k")
    lines = []
    for line in streams.floor_lines():
        if b'"hand_id":"H1","seq":3,' in line or (b'"H1"' in line and b"HandStarted" in line):
            event = json.loads(line)
            event["payload"]["player_refs"] = {"1": "loyalty-card-0042"}
            line = json.dumps(event).encode()
        lines.append(line)
    log_path = tmp_path / "raw.jsonl"
    log_path.write_bytes(b"".join(line + b"\n" for line in lines))
    assert b"loyalty-card-0042" in log_path.read_bytes()
    with open_log(str(log_path)) as log:
        seal_log(log, load_private(private))
    capsys.readouterr()
    assert main(["replay", "H1", "--source", str(log_path), "--json"]) == 0
    text = capsys.readouterr().out
    assert "loyalty-card-0042" not in text and "pr1_" in text
    status, out = _check(json.loads(text), tmp_path / "h1.json", public, capsys)
    assert status == 0, out


def test_the_printed_sheet_carries_the_proof_and_is_checked_alone(
        sealed_floor: Floor, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``uth replay --html``'s sheet shows the seal it is proved against and carries the
    document: ``uth verify --evidence SHEET.html`` proves it, and names a sheet whose printed
    part or carried document was changed."""
    sheet = tmp_path / "h1.html"
    assert main(["replay", "H1", "--source", f"sqlite:///{sealed_floor.db}",
                 "--html", str(sheet)]) == 0
    text = sheet.read_text()
    assert "<h2>Tamper evidence</h2>" in text and "tree of 50 events" in text
    args = ("--evidence", str(sheet), "--public-key", str(sealed_floor.public))
    status, out = verify(capsys, *args)
    assert status == 0, out
    assert out.startswith("hand H1: 26 events proved against seal 1")
    printed = text.replace("<h2>Settlement per wager", "<h2>Settlement per wager (corrected)")
    sheet.write_text(printed)
    status, out = verify(capsys, *args)
    assert status == 1 and "the printed sheet was changed" in out
    from events.audit.evidence_html import embedded, render_html

    carried = embedded(text)
    assert carried is not None
    doc, positions, zone = carried
    _raise_payout(doc)  # the carried document changed, and the sheet printed from it
    sheet.write_text(render_html(doc, positions, zone))
    status, out = verify(capsys, *args)
    assert status == 1 and "NOT intact" in out
