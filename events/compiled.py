"""The auditor's compiled passes (``events/_walk_*.c``), configured for this contract.

``compiled`` is the extension module, ready to use, or ``None`` where it is not built (an
install without a C compiler): its callers then do the same work in Python, only slower.
Each compiled function answers only the common case and returns ``NotImplemented`` for
anything else, which the Python code decides (``events.replay_fast``,
``events.audit_intake``); tests hold the two equal.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any


def _load() -> ModuleType | None:
    try:
        from events import _walk_c
    except ImportError:
        return None
    from events import schemas
    from events.cards import CARD_INDEX
    from events.codec import Rejection
    from events.rules import DEFAULT_MULTIPLES, STREETS
    from events.settlement import OUTCOME_CODES, SPOT_CODES

    kinds = ("HandStarted", "BetPlaced", "PlayerDecision", "CardsDealt", "CommunityRevealed",
             "DealerRevealed", "HandVoided", "PayoutRecorded")
    names: dict[str, Any] = {
        name: getattr(schemas, name) for name in (
            *kinds, "HandEnded", "DisputeOpened", "DisputeResolved",
            *(f"{kind}Payload" for kind in kinds))}
    _walk_c.configure({
        **names, "STREETS": STREETS, "DEFAULT_MULTIPLES": DEFAULT_MULTIPLES,
        "CARD_INDEX": CARD_INDEX, "EVENTS": tuple(schemas.EVENT_TYPES.values()),
        "Rejection": Rejection, "SPOT_CODES": SPOT_CODES, "OUTCOME_CODES": OUTCOME_CODES})
    return _walk_c


compiled = _load()
