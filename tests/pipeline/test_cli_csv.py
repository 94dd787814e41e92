"""`uth audit --csv` and `uth hands --csv` give money as a spreadsheet sums it (issue 36):
numbers in currency units, never cents, beside a ``currency`` column, so that a sum by
dealer does not mix dollars and euros; cells that would start a formula neutralised."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from pipeline.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_audit_csv_money_is_in_currency_units(two_currencies: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    source = str(two_currencies)
    found = [json.loads(line) for line in run(
        capsys, "audit", "--source", source, "--json").splitlines()][:-1]
    table = rows(run(capsys, "audit", "--source", source, "--csv"))
    assert len(table) == len(found) and {r["currency"] for r in table} == {"USD", "EUR"}
    by_id = {f["finding_id"]: f for f in found}
    for row in table:
        cents = by_id[row["finding_id"]]
        assert row["currency"] == ("EUR" if row["table_id"] == "T5" else "USD")
        for key in ("expected", "recorded"):
            if cents[key] is None:
                assert row[key] == ""
            else:  # a number with its two decimals, a hundredth of the cents
                assert Decimal(row[key]) * 100 == cents[key], (key, row, cents)
                assert row[key].lstrip("-").replace(".", "").isdigit()
                assert row[key].split(".")[1:] and len(row[key].split(".")[1]) == 2
    euro = [r for r in table if r["table_id"] == "T5"]
    assert euro and all(r["dealer_id"] == "'@SUM(A1)" for r in euro)


def test_hands_csv_money_is_in_currency_units(two_currencies: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    source = str(two_currencies)
    hands = {h["hand_id"]: h for h in map(json.loads, run(
        capsys, "hands", "--source", source, "--json").splitlines())}
    table = rows(run(capsys, "hands", "--source", source, "--csv"))
    assert {r["hand_id"] for r in table} == set(hands)
    for row in table:
        nets = hands[row["hand_id"]]["nets"]
        assert row["currency"] == ("EUR" if row["table_id"] == "T5" else "USD")
        assert Decimal(row["net"]) * 100 == sum(nets.values())
        assert row["nets"] == " ".join(
            f"{seat}:{Decimal(cents).scaleb(-2)}" for seat, cents in nets.items())
    assert rows(run(capsys, "hands", "--source", source, "--csv", "--table", "T5"))[0][
        "dealer_id"] == "'@SUM(A1)"
