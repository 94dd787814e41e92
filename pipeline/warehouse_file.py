"""Is the warehouse file whole? A file cut short (a full disk, a copy that stopped) or with
a block overwritten must not be loaded into as if it were sound.

DuckDB keeps a checksum of every block and checks it when the block is read; a load reads
only what it needs, so a damaged block that no step reads goes unnoticed (and a load with
nothing new reads almost nothing). :func:`damaged` reads every table whole, so that every
used block is read and checked, and words what failed, naming ``--from-archive``. It runs
only when the file is not as the last successful load left it: that load writes a stamp
beside the file (``<file>.loaded``: its size, its modification time and the SHA-256 of its
first 12 KiB, DuckDB's headers, and of its last 256 KiB), and a file that still matches its
stamp is not read again. A file written by anything else (a Dagster run of the graph, a
copy, a restore) is read whole once by the next ``uth load``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import duckdb

HEAD, TAIL = 12 * 1024, 256 * 1024


def stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".loaded")


def _fingerprint(path: Path) -> dict[str, object]:
    stat = path.stat()
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        digest.update(f.read(HEAD))
        f.seek(max(0, stat.st_size - TAIL))
        digest.update(f.read(TAIL))
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest.hexdigest()}


def write_stamp(warehouse: str | Path) -> None:
    """After a successful load: the file as it left it (a stamp that cannot be written
    costs only a whole read at the next load)."""
    path = Path(warehouse)
    try:
        tmp = stamp_path(path).with_suffix(".tmp")
        tmp.write_text(json.dumps(_fingerprint(path)))
        os.replace(tmp, stamp_path(path))
    except OSError:
        return


def unchanged(path: Path) -> bool:
    """True when the file is as the last successful load left it."""
    try:
        return bool(json.loads(stamp_path(path).read_text()) == _fingerprint(path))
    except (OSError, ValueError):
        return False


def damaged(warehouse: str | Path, archive: str | Path) -> str | None:
    """Why the warehouse file cannot be used (with how to rebuild it from ``archive``), or
    None when it reads whole (or is not there yet, or matches its stamp)."""
    from pipeline.warehouse import WarehouseBusy, reading

    path = Path(warehouse)
    if not path.is_file() or unchanged(path):
        return None
    try:
        with reading(path, timeout=1.0) as con:
            tables = con.execute(
                "SELECT table_schema, table_name FROM information_schema.tables "
                "WHERE table_type = 'BASE TABLE'").fetchall()
            for schema, table in tables:
                for _ in con.sql(f'SELECT * FROM "{schema}"."{table}"').to_arrow_reader(
                        100_000):
                    pass
    except WarehouseBusy:
        return None  # a load is writing it: that load reads what it needs itself
    except (duckdb.Error, OSError) as exc:  # Arrow wraps DuckDB's error as an OSError
        why = str(exc).splitlines()[0][:300]
        return (f"{path}: the warehouse file is damaged ({why}). Do not load into it: move "
                f"it aside, then rebuild it from its Parquet archive with `uth load --source "
                f"URL --warehouse {path} --from-archive {archive}`")
    return None
