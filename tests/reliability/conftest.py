"""Fixtures of the reliability suite: Hypothesis budgets and the end-of-suite ledger.

Hypothesis profiles: ``reliability`` (the default here: a fixed, derandomized budget that
fits ``make test``) and ``fuzz`` (``HYPOTHESIS_PROFILE=fuzz``, what ``make fuzz`` sets: many
more examples, random, no deadline). The fuzz tests take theirs from
``tests.reliability.budget.fuzz_budget()``.

The ledger: each fault or bad-input test records what it sent and what came out through the
``ledger`` fixture; at the end of the run ``pytest_terminal_summary`` prints one line per
fault and per bad-input class with the counts sent, processed, rejected, ignored, flagged
and lost. ``processed``: distinct valid events that came through; ``rejected``: inputs
refused with a reason (dead-lettered, or a conflicting copy); ``ignored``: redelivered
copies counted once; ``flagged``: findings or reports about them. ``lost`` is
``sent - processed - rejected - ignored`` (an input that vanished) and must be 0; the tests
assert it themselves, the summary shows it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "reliability", max_examples=200, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "fuzz", max_examples=5_000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: The profile this suite's fuzz tests run under (``@settings(fuzz_budget())``). Loaded
#: globally only for `make fuzz`, so other suites keep their own defaults otherwise.
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "reliability")
if PROFILE == "fuzz":
    settings.load_profile(PROFILE)


@dataclass
class Tally:
    """Counts of one fault or bad-input class (summed over the tests that record it)."""

    kind: str  # "fault" | "bad-input"
    name: str
    sent: int = 0
    processed: int = 0
    rejected: int = 0
    ignored: int = 0
    flagged: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def lost(self) -> int:
        return self.sent - self.processed - self.rejected - self.ignored


@dataclass
class Ledger:
    tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)

    def record(
        self, kind: str, name: str, *, sent: int, processed: int, rejected: int = 0,
        ignored: int = 0, flagged: int = 0, note: str = "",
    ) -> Tally:
        """Add one test's counts to the ``(kind, name)`` line; returns the line's tally.

        Fails the calling test when these counts lose an input (lost must be 0)."""
        if kind not in ("fault", "bad-input"):
            raise ValueError(f"kind is fault or bad-input, not {kind!r}")
        lost = sent - processed - rejected - ignored
        assert lost == 0, (f"{name}: {lost} of {sent} inputs lost (processed {processed}, "
                           f"rejected {rejected}, ignored {ignored})")
        tally = self.tallies.setdefault((kind, name), Tally(kind, name))
        tally.sent += sent
        tally.processed += processed
        tally.rejected += rejected
        tally.ignored += ignored
        tally.flagged += flagged
        if note:
            tally.notes.append(note)
        return tally

    def lines(self) -> list[str]:
        out = []
        width = max((len(t.name) for t in self.tallies.values()), default=10)
        for (kind, _), t in sorted(self.tallies.items(), key=lambda kv: (kv[0][0] != "fault",
                                                                          kv[0][1])):
            mark = "ok  " if t.lost == 0 else "LOST"
            note = f"  ({'; '.join(t.notes)})" if t.notes else ""
            out.append(
                f"{mark} {kind:9} {t.name:{width}}  sent {t.sent:6}  processed {t.processed:6}"
                f"  rejected {t.rejected:4}  ignored {t.ignored:4}  flagged {t.flagged:4}"
                f"  lost {t.lost}{note}"
            )
        return out


_LEDGER_KEY = pytest.StashKey[Ledger]()


def _ledger(config: pytest.Config) -> Ledger:
    if _LEDGER_KEY not in config.stash:
        config.stash[_LEDGER_KEY] = Ledger()
    return config.stash[_LEDGER_KEY]


@pytest.fixture(scope="session")
def ledger(pytestconfig: pytest.Config) -> Iterator[Ledger]:
    yield _ledger(pytestconfig)


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    if _LEDGER_KEY not in config.stash or not config.stash[_LEDGER_KEY].tallies:
        return
    terminalreporter.section("reliability: faults and bad input (lost must be 0)")
    for line in config.stash[_LEDGER_KEY].lines():
        terminalreporter.write_line(line)
