"""The examples in the engine modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["events.money", "events.describe", "events.game.rulesets", "events.game.settlement",
           "events.game.rules", "events.game.strategy", "events.game.theory"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
