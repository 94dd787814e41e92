"""`uth verify` on a store it cannot read says in words what failed (issue 36): which store
(the warehouse, the archive, the log) and why, never an internal class name
(``IOException``, ``ArrowInvalid``, ``LogUnavailable``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.cli import main

CLASS_NAME = re.compile(r"\b(?:[A-Z][a-z]+){1,}(?:Error|Exception|Invalid|Unavailable)\b")


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    prefix = tmp_path_factory.mktemp("key") / "k"
    assert main(["keygen", "--out", str(prefix)]) == 0
    return Path(f"{prefix}.pub")


def said(capsys: pytest.CaptureFixture[str], key: Path, *where: str) -> str:
    capsys.readouterr()
    assert main(["verify", *where, "--public-key", str(key)]) == 2
    return capsys.readouterr().err


def test_a_store_that_cannot_be_read_is_said_in_words(
        tmp_path: Path, key: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.duckdb"
    junk.write_text("junk\n")
    archive = tmp_path / "archive" / "table_id=T1"
    archive.mkdir(parents=True)
    (archive / "part.parquet").write_text("junk\n")
    cases = [(("--warehouse", str(junk)), f"cannot read the warehouse {junk}"),
             (("--warehouse", str(tmp_path / "none.duckdb")), "cannot read the warehouse"),
             (("--archive", str(archive.parent)), f"cannot read the archive {archive.parent}"),
             (("--source", f"sqlite:///{tmp_path}/none.db"), "cannot read the log sqlite:///"),
             (("--source", str(junk)), f"cannot read the log {junk}")]
    for where, words in cases:
        err = said(capsys, key, *where)
        assert err.startswith(f"uth verify: {words}"), (where, err)
        assert not CLASS_NAME.search(err), (where, err)
