"""The examples in the docstrings of the codec and log modules run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["events.contract.codec", "events.contract.upcasting", "events.logs", "events.logs.base",
           "events.logs.sequence", "events.logs.kafka_config", "events.logs.file_identity",
           "events.contract.schemas", "events.logs.kafka_errors"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
