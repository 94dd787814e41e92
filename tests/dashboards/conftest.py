"""Warehouses for the dashboard tests: hand-made rows (figures known), an empty schema, a
blank DuckDB file, and one built from simulated events by ``uth simulate`` + ``uth load``
when those commands exist."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboards import warehouse_data

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboards" / "streamlit_app.py"
PAGES = ("floor", "trips", "hand_audit", "findings", "dealers", "players", "disputes",
         "hold", "live")


@pytest.fixture(scope="session")
def handmade_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return warehouse_data.build(tmp_path_factory.mktemp("handmade") / "warehouse.duckdb")


@pytest.fixture(scope="session")
def empty_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every table of the interface, no rows."""
    return warehouse_data.build(tmp_path_factory.mktemp("empty") / "warehouse.duckdb",
                                rows=False)


@pytest.fixture(scope="session")
def blank_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB file without any table (a load that never ran)."""
    path = tmp_path_factory.mktemp("blank") / "warehouse.duckdb"
    duckdb.connect(str(path)).close()
    return path


def _has_command(name: str) -> bool:
    return (ROOT / "pipeline" / "commands" / f"{name}.py").is_file()


@pytest.fixture(scope="session")
def simulated_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real warehouse: ``uth simulate`` events loaded by ``uth load``."""
    if not (_has_command("simulate") and _has_command("load")):
        pytest.skip("`uth simulate` and `uth load` are not in this checkout yet")
    work = tmp_path_factory.mktemp("simulated")
    log, warehouse = work / "events.jsonl", work / "warehouse.duckdb"
    uth = [sys.executable, "-m", "pipeline.cli"]
    for argv in (
        [*uth, "simulate", "--sink", str(log), "--tables", "3", "--hands", "300", "--seed", "7",
         "--mispay-rate", "0.03", "--void-rate", "0.01", "--dispute-rate", "0.01", "--quiet"],
        [*uth, "load", "--source", str(log), "--warehouse", str(warehouse), "--quiet"],
    ):
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{' '.join(argv[3:])} failed:\n{done.stderr[-3000:]}"
    return warehouse


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., AppTest]]:
    """``app(warehouse, page, **query_params)``: the app run on one page."""

    def make(warehouse: Path | None, page: str = "floor", **query: str) -> AppTest:
        if warehouse is None:
            monkeypatch.delenv("UTH_WAREHOUSE", raising=False)
        else:
            monkeypatch.setenv("UTH_WAREHOUSE", str(warehouse))
        at = AppTest.from_file(str(APP), default_timeout=120)
        for key, value in query.items():
            at.query_params[key] = value
        if page != "floor":
            at.switch_page(f"app_pages/{page}.py")
        return at.run()

    yield make


def no_failure(at: AppTest) -> None:
    """No exception and no error element on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``uth dashboards`` running as a child process on a free loopback port."""

    def __init__(self, warehouse: Path, log: Path, *extra: str, port: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._out = log.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pipeline.cli", "dashboards", "--warehouse", str(warehouse),
             "--port", str(self.port), *extra], cwd=ROOT, stdout=self._out,
            stderr=subprocess.STDOUT, env=env)

    def wait_ready(self, deadline_s: float = 180.0) -> None:
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=5) as r:
                    if r.read().strip() == b"ok":
                        return
            except OSError:
                time.sleep(0.3)
        raise AssertionError(f"uth dashboards not ready:\n{self.log.read_text()}")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._out.close()


@pytest.fixture(scope="module")
def server(handmade_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(handmade_warehouse, tmp_path_factory.mktemp("server") / "dashboards.log")
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()
