"""Upcasters: read events written under an older ``schema_version`` as the current contract.

The contract grows by adding fields and event types; a change that would break a reader
gets a new ``schema_version`` and, here, a function that turns the old shape into the new
one. ``events.contract.codec`` applies them to the generic decoded dict *before* validation, and
only when ``schema_version`` is below the current one, so current events never pay for it.

An upcaster takes the event as a plain dict at version ``v`` and returns it at ``v + 1``
(``schema_version`` is set for it). Chains run one step at a time until the current
version is reached.

Contract v1 is the first published version: **no real version-0 events exist**, so the
default registry :data:`UPCASTERS` is empty. The tests register a made-up v0 shape (a
``CardsDealt`` whose ``cards`` is one string ``"AsKd"``) on a private registry to prove the
mechanism; that v0 shape is hypothetical and not part of any contract.

>>> reg = UpcasterRegistry()
>>> @reg.register("TableClosed", 0)
... def _rename(event: dict[str, Any]) -> dict[str, Any]:
...     return {**event, "table_id": event.pop("table")}
>>> reg.upcast({"type": "TableClosed", "schema_version": 0, "table": "T1"})["table_id"]
'T1'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from events.contract.schemas import SCHEMA_VERSION

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class UpcastError(ValueError):
    """An old event that no registered upcaster can bring to the current version."""


class UpcasterRegistry:
    """Upcasters keyed by (event type, version they read)."""

    def __init__(self) -> None:
        self._steps: dict[tuple[str, int], Upcaster] = {}

    def register(self, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Decorator: ``fn`` reads ``event_type`` at ``from_version`` and returns ``+1``."""
        if not 0 <= from_version < SCHEMA_VERSION:
            raise ValueError(
                f"an upcaster reads a version below {SCHEMA_VERSION}, not {from_version}"
            )

        def add(fn: Upcaster) -> Upcaster:
            key = (event_type, from_version)
            if key in self._steps:
                raise ValueError(f"{event_type} v{from_version} already has an upcaster")
            self._steps[key] = fn
            return fn

        return add

    def __contains__(self, key: object) -> bool:
        return key in self._steps

    def __len__(self) -> int:
        return len(self._steps)

    def upcast(self, event: dict[str, Any]) -> dict[str, Any]:
        """The event brought to :data:`SCHEMA_VERSION`; raises :class:`UpcastError`."""
        version = event.get("schema_version")
        event_type = event.get("type")
        if not isinstance(version, int) or isinstance(version, bool):
            raise UpcastError(f"schema_version must be a whole number, got {version!r}")
        while version < SCHEMA_VERSION:
            step = self._steps.get((str(event_type), version))
            if step is None:
                raise UpcastError(
                    f"version {version} cannot be read: no upcaster for {event_type} "
                    f"version {version} (this reader knows version {SCHEMA_VERSION})"
                )
            try:
                event = dict(step(dict(event)))
            except UpcastError:
                raise
            except Exception as exc:  # an upcaster failing on odd input is a rejection
                raise UpcastError(
                    f"upcasting {event_type} from version {version} failed: {exc}"
                ) from exc
            version += 1
            event["schema_version"] = version
            event_type = event.get("type", event_type)
        return event


#: The registry ``events.contract.codec`` uses by default. Empty: v1 is the first contract version.
UPCASTERS = UpcasterRegistry()
