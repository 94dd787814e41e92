"""The auditor modules' docstring examples run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["events.audit.auditor", "events.findings", "events.audit.sequence",
           "events.replay.fold", "events.replay.state", "events.replay.apply",
           "events.audit.disputes", "events.localtime"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
