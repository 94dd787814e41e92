"""``uth dashboards``: serve the floor dashboards (Streamlit, headless) over a warehouse.

The server runs as a child process with ``UTH_WAREHOUSE`` set; SIGTERM or SIGINT to this
command stops it cleanly and the command exits 0.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

APP = Path(__file__).resolve().parents[2] / "dashboards" / "streamlit_app.py"


def register(sub: Any) -> None:
    p = sub.add_parser("dashboards", help="serve the floor dashboards over a DuckDB warehouse",
                       description="Serve the Streamlit floor dashboards (Floor, Trips, Hand "
                                   "audit, Live, Findings, Disputes, Hold report, Dealers, "
                                   "Players) over a warehouse, read-only, offline.",
                       epilog="example: uth dashboards --warehouse demo-data/warehouse.duckdb"
                              " --port 8501, then open http://127.0.0.1:8501")
    p.add_argument("--warehouse", type=Path, required=True, help="the DuckDB warehouse file")
    p.add_argument("--port", type=int, default=8501, help="port to listen on (default 8501)")
    p.add_argument("--address", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    p.set_defaults(func=run)


def command(args: argparse.Namespace) -> list[str]:
    return [
        sys.executable, "-m", "streamlit", "run", str(APP),
        "--server.headless=true", f"--server.port={int(args.port)}",
        f"--server.address={args.address}", "--server.fileWatcherType=none",
        "--server.runOnSave=false", "--browser.gatherUsageStats=false",
        "--global.developmentMode=false", "--client.toolbarMode=viewer",
    ]


def port_problem(address: str, port: int) -> str | None:
    """Why the server could not listen on ``address:port`` (in use, not allowed), or None:
    asked before it starts, so that the command says so instead of announcing a server
    that then fails."""
    try:
        infos = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"cannot listen on {address}: {exc.strerror}"
    family, kind, proto, _, where = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        try:
            probe.bind(where)
        except OSError as exc:
            return f"port {port} on {address} is not free ({exc.strerror})"
    return None


def run(args: argparse.Namespace) -> int:
    warehouse = args.warehouse.expanduser().resolve()
    if not warehouse.is_file():
        print(f"uth dashboards: no warehouse at {warehouse} yet; the pages will say so until "
              "`uth load` creates it", file=sys.stderr)
    busy = port_problem(args.address, int(args.port))
    if busy is not None:
        print(f"uth dashboards: {busy}; choose another with --port", file=sys.stderr)
        return 2
    env = dict(os.environ, UTH_WAREHOUSE=str(warehouse))
    print(f"uth dashboards: serving {warehouse} on http://{args.address}:{args.port}/",
          file=sys.stderr, flush=True)
    child = subprocess.Popen(command(args), env=env)
    stopping = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        while True:
            try:
                code = child.wait(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                continue
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if child.poll() is None:
            child.kill()
            child.wait()
    if stopping:
        return 0
    return code
