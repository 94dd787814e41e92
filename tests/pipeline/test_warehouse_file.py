"""A damaged warehouse file (issue 30, item 18): cut short, it is refused with a message
that names ``--from-archive``; with a block overwritten, ``uth load`` with nothing new does
not say "nothing new" and exit 0: the file, changed since the last load left it, is read
whole (DuckDB's block checksums) and refused. A file the last load left unchanged is not
read again."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.warehouse_file import damaged, stamp_path
from tests.pipeline import streams

BLOCK = 262_144  # DuckDB's block size


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("loaded")
    log = root / "floor.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in streams.floor_lines()))
    warehouse = root / "warehouse.duckdb"
    assert main(["load", "--source", str(log), "--warehouse", str(warehouse), "-q"]) == 0
    assert stamp_path(warehouse).is_file()
    return log, warehouse


def _copy(warehouse: Path, to: Path) -> Path:
    to.mkdir(parents=True, exist_ok=True)
    copy = to / warehouse.name
    shutil.copy2(warehouse, copy)
    shutil.copy2(stamp_path(warehouse), stamp_path(copy))
    return copy


def _load(log: Path, warehouse: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["load", "--source", str(log), "--warehouse", str(warehouse), "-q"])
    out = capsys.readouterr()
    return status, out.out + out.err


def test_a_truncated_warehouse_names_from_archive(loaded: tuple[Path, Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    log, warehouse = loaded
    copy = _copy(warehouse, tmp_path)
    os.truncate(copy, copy.stat().st_size // 2)
    status, out = _load(log, copy, capsys)
    assert status == 2, out
    assert "the warehouse file is damaged" in out and "--from-archive" in out
    assert "Traceback" not in out


def test_an_overwritten_block_is_not_loaded_as_nothing_new(
        loaded: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each block of the file in turn overwritten: the load either refuses the file, or the
    block was one no table uses (the file reads whole). Never "nothing new" over a damaged
    table."""
    log, warehouse = loaded
    blocks = warehouse.stat().st_size // BLOCK
    refused = 0
    for block in range(1, blocks):
        copy = _copy(warehouse, tmp_path / str(block))
        with open(copy, "r+b") as f:
            f.seek(block * BLOCK + 4096 + 8)
            f.write(os.urandom(BLOCK // 2))
        status, out = _load(log, copy, capsys)
        if status == 2:
            assert "the warehouse file is damaged" in out and "--from-archive" in out, out
            refused += 1
        else:
            assert "nothing new" in out and status == 0
            assert damaged(copy, "archive") is None  # an unused block: the file is whole
        shutil.rmtree(tmp_path / str(block))
    assert refused >= blocks // 2


def test_a_file_the_last_load_left_unchanged_is_not_read_again(
        loaded: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, warehouse = loaded
    copy = _copy(warehouse, tmp_path)

    def no_read(*_: object, **__: object) -> None:
        raise AssertionError("the whole file was read")

    monkeypatch.setattr("pipeline.warehouse.reading", no_read)
    assert damaged(copy, "archive") is None
    os.utime(copy)  # touched since: read whole again
    with pytest.raises(AssertionError, match="the whole file was read"):
        damaged(copy, "archive")
