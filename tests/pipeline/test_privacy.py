"""Players reach the warehouse only as pseudonyms: ``uth load`` scrubs ``player_ref`` like
``uth ingest`` (events.contract.privacy.scrub; dropped when no key is set)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from events.contract.privacy import KEY_ENV, pseudonymize
from pipeline.ingest.steps import load_events
from pipeline.warehouse import reading
from tests.pipeline import streams
from tests.pipeline.conftest import write_log

CLEAR = "loyalty-4242-1234-5678"
KEY = "test-key-not-a-real-secret-0123456789"


def _log_with_ref(path: Path) -> tuple[Path, str]:
    """The hand-made floor with a clear ``player_ref`` on its first bet; (log, event_id)."""
    lines = streams.floor_lines()
    for i, line in enumerate(lines):
        try:
            ev = msgspec.json.decode(line)
        except msgspec.DecodeError:
            continue
        if isinstance(ev, dict) and ev.get("type") == "BetPlaced":
            ev["payload"]["player_ref"] = CLEAR
            lines[i] = msgspec.json.encode(ev)
            return write_log(path / "floor.jsonl", lines), ev["event_id"]
    raise AssertionError("no BetPlaced in the floor")


def _stored(warehouse: Path, event_id: str) -> tuple[dict[str, object], str]:
    with reading(warehouse) as con:
        payload = con.execute("SELECT payload FROM events WHERE event_id = ?",
                              [event_id]).fetchall()[0][0]
        everything = con.execute(
            "SELECT string_agg(payload, '') FROM events").fetchall()[0][0]
    return json.loads(payload), everything


def test_player_ref_stored_as_pseudonym(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    log, event_id = _log_with_ref(tmp_path)
    stats = load_events(str(log), tmp_path / "wh.duckdb")
    assert stats.rejected == 1  # the floor's one line that is not JSON
    payload, everything = _stored(tmp_path / "wh.duckdb", event_id)
    expected = pseudonymize(CLEAR, {KEY_ENV: KEY})
    assert payload["player_ref"] == expected
    assert expected.startswith("pr1_") and len(expected) == 36
    assert CLEAR not in everything


def test_player_ref_dropped_without_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    log, event_id = _log_with_ref(tmp_path)
    load_events(str(log), tmp_path / "wh.duckdb")
    payload, everything = _stored(tmp_path / "wh.duckdb", event_id)
    assert "player_ref" not in payload
    assert payload["seat"] == 1 and payload["spot"] == "ante"
    assert CLEAR not in everything
