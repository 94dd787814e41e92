"""A load holds one write connection for all its steps (pipeline.write_session), and yet a
reader in another process gets in at the load's next transaction: it asks (the
``<warehouse>.wait`` marker) and the load lets the file go."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from pipeline.warehouse import query, writing
from pipeline.write_session import held

ROOT = Path(__file__).resolve().parents[2]


def test_a_reader_gets_in_between_the_transactions_of_a_held_load(tmp_path: Path) -> None:
    wh = tmp_path / "w.duckdb"
    with writing(wh) as con:
        con.execute("INSERT INTO load_positions VALUES ('s', '{}', 0, now())")
    script = ("from pipeline.warehouse import query; import sys; "
              f"print(query({str(wh)!r}, 'SELECT count(*) FROM load_positions', timeout=8.0))")
    with held(wh) as session:
        with writing(wh) as con:  # the load holds the file: a reader is refused by DuckDB
            con.execute("INSERT INTO load_positions VALUES ('t', '{}', 0, now())")
        reader = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while reader.poll() is None and time.monotonic() < deadline:
            with writing(wh) as con:  # the load's transactions go on, one after another
                con.execute("UPDATE load_positions SET events_loaded = events_loaded + 1")
            time.sleep(0.05)
        out, err = reader.communicate(timeout=30)
        assert reader.returncode == 0, err
        assert out.strip() == "[(2,)]"
        assert session.yields >= 1  # it let the reader in, and took the file back
        with writing(wh) as con:
            con.execute("INSERT INTO load_positions VALUES ('u', '{}', 0, now())")
    assert query(wh, "SELECT count(*) FROM load_positions") == [(3,)]
