"""The printable evidence sheet: ``uth replay HAND --html FILE`` writes the evidence
document as one self-contained HTML page (cards, verdict per wager, every event with its
log position and SHA-256), every event text escaped."""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path

import pytest

from events.audit.evidence_html import digest_matches, render_html
from events.contract.schemas import decode_event, encode_event
from pipeline.cli import main
from tests.disputes import floor


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return floor.write(tmp_path_factory.mktemp("sheet") / "floor.jsonl")


def sheet(log: Path, tmp_path: Path, hand_id: str, capsys: pytest.CaptureFixture[str]) -> str:
    out = tmp_path / f"{hand_id}.html"
    assert main(["replay", hand_id, "--source", str(log), "--html", str(out)]) == 0
    capsys.readouterr()
    return out.read_text(encoding="utf-8")


def hand_lines(log: Path, hand_id: str) -> list[tuple[int, bytes]]:
    """(line number, line) of the hand's events."""
    return [(n, line) for n, line in enumerate(log.read_bytes().splitlines(), 1)
            if json.loads(line)["hand_id"] == hand_id]


def test_every_event_with_its_position_and_digest(log: Path, tmp_path: Path, capsys) -> None:
    page = sheet(log, tmp_path, "T1-A", capsys)
    lines = hand_lines(log, "T1-A")
    rows = re.findall(r"<tr><td>(\d+)</td><td>(\d+)</td><td>([^<]*)</td>", page)
    assert len(rows) == len(lines)
    canonical = []
    for (n, line), (_step, seq, position) in zip(lines, rows, strict=True):
        ev = json.loads(line)
        assert (int(seq), position) == (ev["seq"], str(n))
        one = encode_event(decode_event(line))
        canonical.append(one)
        assert hashlib.sha256(one).hexdigest() in page
        assert ev["event_id"] in page
    assert hashlib.sha256(b"\n".join(canonical)).hexdigest() in page
    assert "it matches" in page


def test_cards_and_verdict_per_wager(log: Path, tmp_path: Path, capsys) -> None:
    page = sheet(log, tmp_path, "T1-A", capsys)
    spec = next(s for s in floor.specs() if s.hand_id == "T1-A")
    for card in (*spec.board, *spec.dealer, *spec.seats[0].hole):
        assert card in page
    assert page.count('<tr class="bad">') == 1  # the one short pay
    assert page.count('<tr class="ok">') == len(spec.payouts) - 1
    assert "underpaid 5.00" in page


def test_event_text_is_escaped_and_nothing_is_fetched(log: Path, tmp_path: Path,
                                                      capsys) -> None:
    page = sheet(log, tmp_path, "T1-A", capsys)
    assert floor.CLAIM["T1-A"] not in page
    assert html.escape(floor.CLAIM["T1-A"]) in page
    for outside in ("http:", "https:", "<script", "<link", "@import", "url(", "src="):
        assert outside not in page.lower(), outside


def test_a_tampered_document_is_told() -> None:
    from events.audit.evidence import evidence

    events = [decode_event(json.dumps(e)) for e in floor.events()
              if e["hand_id"] in (None, "T1-C") and e["type"] != "TableClosed"]
    doc = evidence(events)
    assert digest_matches(doc)
    doc["events"][1]["payload"]["amount"] += 100
    assert not digest_matches(doc)
    assert "does NOT match" in render_html(doc)


def test_times_on_the_casino_clock(log: Path, tmp_path: Path, capsys,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_TIMEZONE", "America/Toronto")
    page = sheet(log, tmp_path, "T1-A", capsys)
    assert "Time (America/Toronto; UTC below)" in page
    first = json.loads(hand_lines(log, "T1-A")[0][1])["occurred_at"]
    assert first == "2026-11-29T21:00:01.000Z"
    assert f"2026-11-29 16:00:01.000<br><small>{first}</small>" in page
