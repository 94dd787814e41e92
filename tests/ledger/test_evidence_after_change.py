"""A hand replayed from a log changed after its seal: ``uth replay`` checks the proof it
prints and says plainly that it fails (``--json``, ``--html`` and the text replay), and
``uth verify --evidence`` on that document names the altered event only, as the store
check does (issue 30, item 15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.ledger.keys import generate, load_private
from events.ledger.logs import seal_log
from events.logs import open_log
from pipeline.cli import main
from tests.ledger.conftest import verify
from tests.pipeline import streams


def _changed_after_seal(root: Path) -> tuple[Path, Path, int]:
    """A sealed JSON Lines floor whose H1 seat 2 blind payout was then lowered in place."""
    private, public = generate(root / "seal")
    log = root / "floor.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in streams.floor_lines()))
    with open_log(str(log)) as opened:
        seal_log(opened, load_private(private))
    lines = log.read_bytes().splitlines()
    for i, line in enumerate(lines):
        if b'"PayoutRecorded"' in line and b'"H1"' in line and b'"blind"' in line \
                and b'"seat":2' in line:
            event = json.loads(line)
            event["payload"]["amount"] = 0
            event["payload"]["outcome"] = "push"
            lines[i] = json.dumps(event, separators=(",", ":")).encode()
            seq = int(event["seq"])
            break
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    return log, public, seq


def test_replay_says_its_proof_fails_and_verify_names_the_one_event(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log, public, seq = _changed_after_seal(tmp_path)
    status, out = verify(capsys, "--source", str(log), "--public-key", str(public))
    assert status == 1 and f"T1 seq {seq}: altered" in out
    capsys.readouterr()
    assert main(["replay", "H1", "--source", str(log)]) == 0
    err = capsys.readouterr().err
    assert "inclusion proof FAILS" in err and f"seq {seq}: altered" in err
    sheet = tmp_path / "h1.html"
    assert main(["replay", "H1", "--source", str(log), "--json", "--html", str(sheet)]) == 0
    captured = capsys.readouterr()
    assert "inclusion proof FAILS" in captured.err
    text = sheet.read_text()
    assert "The inclusion proof FAILS" in text and "Every event above is proved" not in text
    doc = json.loads(captured.out)
    path = tmp_path / "h1.json"
    path.write_text(json.dumps(doc))
    for document in (path, sheet):
        status, out = verify(capsys, "--evidence", str(document), "--public-key", str(public))
        assert status == 1 and "NOT intact" in out
        altered = [line for line in out.splitlines() if "does not prove against" in line]
        assert altered == [f"seq {seq}: altered: the event does not prove against the signed "
                           "root of seal 1"], out
        assert f"hand H1: {len(doc['inclusion_proof']['events']) - 1} events proved" in out


@pytest.mark.parametrize("log", ["jsonl", "sqlite"])
def test_a_log_never_sealed_is_called_unsealed(tmp_path: Path, log: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Not "0 seals ... intact" with exit 0: unsealed, exit 3 (nothing is proved)."""
    from pipeline.commands.verify import UNSEALED

    _, public = generate(tmp_path / "seal")
    path = tmp_path / "floor.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in streams.floor_lines()))
    source = str(path)
    if log == "sqlite":
        source = f"sqlite:///{tmp_path / 'log.db'}"
        with open_log(source) as opened:
            opened.append([("T1", line) for line in streams.floor_lines()])
    status, out = verify(capsys, "--source", source, "--public-key", str(public))
    assert status == UNSEALED == 3, out
    assert "UNSEALED: no seal is stored beside its events" in out and "intact" not in out
    capsys.readouterr()
    assert main(["verify", "--source", source, "--public-key", str(public), "--json"]) == 3
    assert json.loads(capsys.readouterr().out)["unsealed"] is True
