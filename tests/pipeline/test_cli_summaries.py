"""What `uth load` says when it is done counts things truly (issue 36): hands are counted
once however many times they were audited, and a line of one hand says "1 hand"; money is
summed per currency, never over dollars and euros together; a stored position reads as
words, not as the JSON the warehouse keeps it in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.cli import main


def first_dispute(log: Path) -> int:
    """The number of lines before the first dispute: T1's four hands, whole."""
    return next(i for i, line in enumerate(log.read_text().splitlines())
                if '"DisputeOpened"' in line)


def load(capsys: pytest.CaptureFixture[str], log: Path, warehouse: Path, *extra: str) -> str:
    main(["load", "--source", str(log), "--warehouse", str(warehouse), *extra])
    return capsys.readouterr().out


def test_the_load_counts_each_hand_once(two_currencies: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """T1's hands are audited as they are loaded (the first batch), and again when their
    disputes arrive (the second batch, with T5's hand): 5 hands, not 9."""
    out = load(capsys, two_currencies, tmp_path / "wh.duckdb",
               "--batch-size", str(first_dispute(two_currencies)), "--hands-per-chunk", "1")
    assert re.search(r"^audited 5 hands \(4 of them again, after a later event of theirs",
                     out, re.M), out
    # a chunk of one hand is "1 hand", and the line says what the hands step does
    assert not re.search(r"\b1 hands\b|\b1 findings\b|\b1 events\b", out), out
    assert re.search(r"hands: committed 1 hand audited again \(\d+ events, \d+ findings?\)",
                     out), out


def test_sums_are_per_currency(two_currencies: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    out = load(capsys, two_currencies, tmp_path / "wh.duckdb")
    line = next(x for x in out.splitlines() if x.startswith("check recorded_payouts_balance"))
    assert "all currencies" not in line
    assert re.search(r"sum_recorded_results=-?[\d,]+\.\d\d EUR, -?[\d,]+\.\d\d USD", line), line
    assert re.search(r"sum_house_win=-?[\d,]+\.\d\d EUR, -?[\d,]+\.\d\d USD", line), line


def test_a_stored_position_reads_as_words(two_currencies: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    warehouse = tmp_path / "wh.duckdb"
    load(capsys, two_currencies, warehouse)
    lines = len(two_currencies.read_text().splitlines())
    again = load(capsys, two_currencies, warehouse)
    assert "nothing new" in again and '{"' not in again, again
    assert f"line {lines:,}" in again, again
