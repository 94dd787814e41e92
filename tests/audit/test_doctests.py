"""The auditor modules' docstring examples run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["events.audit", "events.audit_findings", "events.audit_sequence", "events.replay",
           "events.replay_state", "events.replay_apply", "events.disputes",
           "events.localtime"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
