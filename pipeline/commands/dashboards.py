"""``uth dashboards``: serve the floor dashboards (Streamlit, headless) over a warehouse.

The server runs as a child process with ``UTH_WAREHOUSE`` set; SIGTERM or SIGINT to this
command stops it cleanly and the command exits 0.

Sign-in (``--access FILE``, ``UTH_ACCESS_CONFIG`` or the ``UTH_OIDC_*`` variables, see
``dashboards/access.py``) is handed to Streamlit's ``st.login`` as a secrets file written
for the child alone (mode 0600 in a private folder, removed when it stops). With no sign-in
configured the server answers on loopback only: any other address is refused.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from dashboards import access

# Streamlit with the download guard in front (dashboards/server.py, over streamlit_app.py)
APP = Path(__file__).resolve().parents[2] / "dashboards" / "server.py"


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
                   help="address to listen on (default 127.0.0.1; another address needs "
                        "sign-in configured)")
    p.add_argument("--access", type=Path, default=None,
                   help="sign-in and roles file (TOML; default: UTH_ACCESS_CONFIG, the "
                        "UTH_OIDC_* variables)")
    p.set_defaults(func=run)


def command(args: argparse.Namespace, secrets: Path | None = None) -> list[str]:
    """The Streamlit server's command line (``secrets``: the sign-in file for st.login)."""
    return [
        sys.executable, "-m", "streamlit", "run", str(APP),
        "--server.headless=true", f"--server.port={int(args.port)}",
        f"--server.address={args.address}", "--server.fileWatcherType=none",
        "--server.runOnSave=false", "--browser.gatherUsageStats=false",
        "--global.developmentMode=false", "--client.toolbarMode=viewer",
        # signed in, the only downloads are the buttons a role is given, each logged: the
        # grids' own CSV export (of rows already shown) is hidden
        *([f"--secrets.files={secrets}", "--client.disableDataExport=true"]
          if secrets is not None else []),
    ]


def access_problem(args: argparse.Namespace) -> tuple[access.Settings | None, str | None]:
    """The sign-in settings, and why the dashboards must not start (None when they may)."""
    try:
        settings = access.load(os.environ, args.access)
    except access.AccessConfigError as exc:
        return None, f"the access settings are wrong: {exc}"
    if settings is None and not access.is_loopback(args.address):
        return None, (f"refusing to serve on {args.address} with no sign-in configured: "
                      "anyone reaching that address would see every page (rating slips, "
                      "game-protection evidence, disputes). Configure sign-in (--access "
                      f"FILE or {access.ENV_FILE}; docs/floor-operations.md) or serve on "
                      "127.0.0.1 for one person's use")
    return settings, None


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
    settings, refused = access_problem(args)
    if refused is not None:
        print(f"uth dashboards: {refused}", file=sys.stderr)
        return 2
    busy = port_problem(args.address, int(args.port))
    if busy is not None:
        print(f"uth dashboards: {busy}; choose another with --port", file=sys.stderr)
        return 2
    env = dict(os.environ, UTH_WAREHOUSE=str(warehouse))
    if args.access is not None:
        env[access.ENV_FILE] = str(args.access.expanduser().resolve())
    with tempfile.TemporaryDirectory(prefix="uth-dashboards-") as private:  # mode 0700
        secrets = None
        if settings is not None:
            secrets = Path(private) / "secrets.toml"
            fd = os.open(secrets, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(access.secrets_toml(settings))
        who = (f"sign-in required, roles from the {settings.role_claim!r} claim"
               if settings is not None else "no sign-in: one person's use on loopback")
        print(f"uth dashboards: serving {warehouse} on http://{args.address}:{args.port}/ "
              f"({who})", file=sys.stderr, flush=True)
        return _serve(command(args, secrets), env)


def _serve(argv: list[str], env: dict[str, str]) -> int:
    child = subprocess.Popen(argv, env=env)
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
    if stopping:  # said here: the server under its ASGI runner says nothing when it stops;
        # that runner (uvicorn) shuts down, then re-raises the signal it caught: -SIGTERM
        clean = code in (0, -signal.SIGTERM)
        print("uth dashboards: stopped" + ("" if clean else f" (the server exited {code})"),
              file=sys.stderr, flush=True)
        return 0
    return code
