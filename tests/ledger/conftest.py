"""Fixtures of the ledger tests: the hand-made floor (one redelivered event, one line that
is not JSON, a lost event of T2) as a SQLite log and a JSON Lines log, both sealed, and a
warehouse (with its archive) loaded from the JSON Lines log after its seal.

A seal covers each table's gapless run from seq 0: all of T1 (seq 0..49), T2 up to its lost
event (seq 0..18); T2's seq 20..34 wait for seq 19, not yet sealed."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from events.ledger.keys import generate, load_private
from events.ledger.logs import seal_log
from events.logs import open_log
from tests.pipeline import streams
from tests.pipeline.conftest import materialize

SEALED = "69 sealed events in 2 tables: intact"
T2_WAITS = "T2 seq 20..34: 15 events not yet sealed (after a gap: seq 19 not received)"


def waiting(out: str) -> list[str]:
    """The lines of ``uth verify``'s output that list events not yet sealed."""
    return [line for line in out.splitlines() if "not yet sealed" in line]


def table_of(line: bytes) -> str:
    import json

    try:
        return str(json.loads(line).get("table_id", ""))
    except ValueError:
        return ""


@dataclass
class Floor:
    root: Path
    key: Path  # the private key (its public key is key.pub)

    @property
    def public(self) -> Path:
        return Path(f"{self.key}.pub")

    @property
    def db(self) -> Path:
        return self.root / "log.db"

    @property
    def jsonl(self) -> Path:
        return self.root / "floor.jsonl"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse.duckdb"

    @property
    def archive(self) -> Path:
        return self.root / "warehouse_archive"

    def store_args(self, store: str) -> list[str]:
        return {"sqlite": ["--source", f"sqlite:///{self.db}"],
                "jsonl": ["--source", str(self.jsonl)],
                "warehouse": ["--warehouse", str(self.warehouse)],
                "archive": ["--archive", str(self.archive)]}[store]


def build_floor(root: Path) -> Floor:
    root.mkdir(parents=True, exist_ok=True)
    private, _ = generate(root / "keys" / "seal")
    floor = Floor(root, private)
    lines = streams.floor_lines()
    floor.jsonl.write_bytes(b"".join(line + b"\n" for line in lines))
    with open_log(f"sqlite:///{floor.db}") as log:
        log.append([(table_of(line), line) for line in lines])
        seal_log(log, load_private(private))
    with open_log(str(floor.jsonl)) as log:
        seal_log(log, load_private(private))
    materialize(floor.jsonl, floor.warehouse)
    return floor


@pytest.fixture(scope="module")
def sealed_floor_master(tmp_path_factory: pytest.TempPathFactory) -> Floor:
    return build_floor(tmp_path_factory.mktemp("sealed") / "floor")


@pytest.fixture
def sealed_floor(sealed_floor_master: Floor, tmp_path: Path) -> Floor:
    """A fresh copy of the sealed floor for one test to tamper with."""
    root = tmp_path / "floor"
    shutil.copytree(sealed_floor_master.root, root)
    return Floor(root, root / "keys" / "seal")


def verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``uth verify ARGS``: (exit status, what it printed)."""
    from pipeline.cli import main

    capsys.readouterr()
    status = main(["verify", *args])
    out = capsys.readouterr()
    return status, out.out + out.err
