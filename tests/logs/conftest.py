"""Fixtures for the log tests: one URL per backend, fresh per test."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

BACKENDS = ["sqlite", "jsonl", pytest.param("kafka", marks=pytest.mark.kafka)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def log_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'log.db'}"
    if backend == "jsonl":
        return str(tmp_path / "log.jsonl")
    broker = request.getfixturevalue("kafka_broker")
    topic = f"test.{uuid.uuid4().hex[:12]}"
    return f"kafka://{broker}/{topic}?partitions=3&dead_letter={topic}.dead"


def pytest_configure(config: pytest.Config) -> None:
    # kafka-python 3 loads its protocol schemas with a deprecated importlib API
    config.addinivalue_line(
        "filterwarnings", "ignore:.*is deprecated. Use files:DeprecationWarning")
