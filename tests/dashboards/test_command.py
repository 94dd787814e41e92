"""``uth dashboards``: serves the app headless on the given port and stops on SIGTERM."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

from pipeline.cli import build_parser
from tests.dashboards.conftest import Server


def test_arguments() -> None:
    args = build_parser().parse_args(["dashboards", "--warehouse", "w.duckdb", "--port", "9001"])
    assert args.warehouse == Path("w.duckdb") and args.port == 9001
    assert args.address == "127.0.0.1"
    from pipeline.commands.dashboards import command

    argv = command(args)
    assert "--server.headless=true" in argv and "--server.port=9001" in argv


def test_serves_and_stops_on_sigterm(handmade_warehouse: Path, tmp_path: Path) -> None:
    srv = Server(handmade_warehouse, tmp_path / "dashboards.log")
    try:
        srv.wait_ready()
        with urllib.request.urlopen(f"{srv.url}/", timeout=30) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
    finally:
        code = srv.stop()
    assert code == 0, srv.log.read_text()
    assert "uth dashboards: stopped\n" in srv.log.read_text()  # the server exited 0


def test_a_busy_port_is_said_before_anything_is_served(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from pipeline.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["dashboards", "--warehouse", str(tmp_path / "w.duckdb"),
                     "--port", str(port)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"port {port} on 127.0.0.1 is not free" in err and "serving" not in err
