"""No port of the stack reaches beyond the host unless it asks who is calling: every port a
compose file publishes is bound to loopback (the Dagster UI and the dashboards are reached
through the casino's authenticating reverse proxy), except the brokers' EXTERNAL listener,
which the tables' forwarders reach from their own machines and which refuses any client
without its SCRAM login."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.infra import infra_files as f
from tests.infra.test_compose import BROKERS, broker_properties, listeners, protocols

LOOPBACK = ("127.0.0.1", "[::1]", "::1")
# a published port given by its container port: [HOST_IP:][HOST_PORT:]CONTAINER[/PROTO]
SHORT = re.compile(r"^(?:(?P<ip>\[[^\]]*\]|\d+\.\d+\.\d+\.\d+):)?"
                   r"(?:(?P<host>\$\{[^}]*\}|[0-9-]+):)?(?P<target>[0-9-]+)(?:/\w+)?$")


def published(doc: dict[str, Any]) -> list[tuple[str, str | None, int]]:
    """(service, host address as written or None for every interface, container port) of
    every published port; a port whose syntax this test does not know fails it."""
    out = []
    for name, service in doc.get("services", {}).items():
        for port in service.get("ports", []):
            if isinstance(port, dict):  # the long syntax
                out.append((name, port.get("host_ip"), int(port["target"])))
                continue
            m = SHORT.match(str(port))
            assert m, f"{name}: port {port!r} in a form this test does not read"
            out.append((name, m["ip"], int(m["target"].split("-")[0])))
    return out


def authenticated_external(service: str, target: int, overlay: bool) -> bool:
    """A broker's EXTERNAL listener, which answers only a client with a SASL login."""
    if service not in BROKERS:
        return False
    props = broker_properties(service, overlay)
    external = listeners(props).get("EXTERNAL")
    return target == external and protocols(props)["EXTERNAL"].startswith("SASL_")


@pytest.mark.parametrize("overlay", [False, True], ids=["compose.yaml", "compose.tls.yaml"])
def test_every_published_port_is_bound_to_loopback(overlay: bool) -> None:
    doc = f.compose_tls() if overlay else f.compose()
    ports = published(doc)
    assert overlay or ports, "compose.yaml publishes no port at all?"
    open_ports = [(name, ip, target) for name, ip, target in ports
                  if ip not in LOOPBACK and not authenticated_external(name, target, overlay)]
    assert open_ports == [], ("published on every interface (bind to 127.0.0.1 and put the "
                              f"casino's authenticating proxy in front): {open_ports}")


def test_the_uis_are_published_on_loopback() -> None:
    ports = {name: ip for name, ip, _ in published(f.compose())}
    assert ports["dagster-webserver"] == "127.0.0.1"
    assert ports["dashboards"] == "127.0.0.1"


@pytest.mark.parametrize(("port", "ip"), [
    ("3000:3000", None), ("3000", None), ("127.0.0.1:3000:3000", "127.0.0.1"),
    ("${DAGSTER_PORT:-3000}:3000", None), ("0.0.0.0:${P:-1}:3000", "0.0.0.0"),
    ("[::1]:8501:8501/tcp", "[::1]")])
def test_the_port_forms_are_read(port: str, ip: str | None) -> None:
    assert published({"services": {"s": {"ports": [port]}}}) == [("s", ip, 3000 if "3000"
                                                                   in port else 8501)]


def test_the_runbook_sends_the_uis_through_the_proxy() -> None:
    text = (f.INFRA / "RUNBOOK.md").read_text()
    assert not re.search(r"http://HOST:(3000|8501)", text)
    assert "reverse proxy" in text and "127.0.0.1:3000" in text
