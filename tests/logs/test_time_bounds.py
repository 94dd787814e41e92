"""Issue 30 (6): a time the contract's form allows but the warehouse cannot hold (its zone or
gaming day would fall outside the years 1..9999) is refused at the contract, with a reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.contract.codec import Rejection, decode_line, decode_many
from events.logs.sqlite import SqliteLog
from pipeline.cli import main
from tests.logs.factory import encode, event

EDGES = ["0000-01-01T00:00:00Z", "0001-01-01T03:00:00Z", "0001-06-01T12:00:00.000Z",
         "9999-12-31T23:00:00Z", "9999-01-01T00:00:00+00:00", "9999-03-01T10:00:00.5Z"]


def _chips(seq: int, at: str) -> bytes:
    e = event("ChipsPurchased", "T1", seq, {"seat": 1, "amount": 1500, "method": "cash"})
    return encode({**e, "occurred_at": at})


@pytest.mark.parametrize("at", EDGES)
def test_an_unholdable_year_is_refused_with_its_reason(at: str) -> None:
    got = decode_line(_chips(1, at), 1)
    assert isinstance(got, Rejection)
    assert "outside the years 0002 to 9998" in got.reason and at in got.reason
    # the same in a batch of the common form (the vectorized check) and alone
    batch = decode_many([_chips(s, "2026-11-29T21:00:00.000Z") for s in range(3)]
                        + [_chips(3, at)])
    assert [type(x) is Rejection for x in batch] == [False, False, False, True]


@pytest.mark.parametrize("at", ["0002-01-01T00:00:00Z", "9998-12-31T23:59:59.999Z"])
def test_the_years_either_side_are_kept(at: str) -> None:
    assert not isinstance(decode_line(_chips(1, at), 1), Rejection)


def test_ingest_dead_letters_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    opened = encode(event("TableOpened", "T1", 0, {
        "ruleset": "charlevoix-2011", "min_bet": 500, "max_bet": 50000, "seats": 7,
        "currency": "CAD"}))
    src.write_bytes(b"\n".join([opened, *(_chips(i + 1, at) for i, at in enumerate(EDGES))])
                    + b"\n")
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    assert main(["ingest", "--source", str(src), "--sink", sink, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["written"], report["rejected"]) == (1, len(EDGES))
    with SqliteLog(sink) as log:
        assert all("outside the years" in str(d["reason"]) for d in log.dead_letters())
