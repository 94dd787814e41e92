"""The Hypothesis budget of this suite's fuzz tests (profiles registered in conftest.py)."""

from __future__ import annotations

import os

from hypothesis import settings


def fuzz_budget() -> settings:
    """The profile named by HYPOTHESIS_PROFILE (``fuzz`` in ``make fuzz``), else the fixed
    ``reliability`` budget of ``make test``."""
    return settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "reliability"))
