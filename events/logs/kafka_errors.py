"""Kafka client errors as a person reads them: what happened and what to do, never
kafka-python's class name (``KafkaTimeoutError: KafkaTimeoutError: Unable to bootstrap
from [...]``). The one place they are worded: :class:`events.logs.kafka.KafkaLog` raises
its ``LogError`` s made here (:func:`unreachable`, :func:`not_written`, :func:`worded`), as
``uth ingest`` and ``uth audit --follow`` print them; ``uth load``, whose failed step raised
the error chain, shows that ``LogError`` rather than its kafka-python cause
(:func:`step_said`).

Pure: errors are told apart by their classes' names (the module imports no kafka).

>>> worded(TimeoutError("timed out"), ["db1:9092"], 10)
'the broker at db1:9092 did not answer within 10 s; is it running, and is the address right?'
>>> class TopicAuthorizationFailedError(Exception): ...
>>> worded(TopicAuthorizationFailedError(), ["db1:9092"], 10).partition(";")[0]
'the broker at db1:9092 refused this user access'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from events.logs.base import LogError, LogUnavailable, LogWriteError

# kafka-python's names for: no answer in time; a connection that failed; no leader yet
_SILENT = frozenset({"KafkaTimeoutError", "RequestTimedOutError", "NoBrokersAvailable",
                     "NodeNotReadyError", "TimeoutError", "timeout"})
_CUT = frozenset({"KafkaConnectionError", "ConnectionError", "ConnectionRefusedError",
                  "ConnectionResetError", "BrokenPipeError", "gaierror", "OSError"})
_ELECTING = frozenset({"LeaderNotAvailableError", "NotLeaderForPartitionError",
                       "NotCoordinatorError", "CoordinatorNotAvailableError",
                       "CoordinatorLoadInProgressError"})
_CREDENTIALS = frozenset({"SaslAuthenticationFailedError", "IllegalSaslStateError",
                          "UnsupportedSaslMechanismError", "SSLError"})


def _detail(name: str, text: str) -> str:
    """The library's own words without its class names and error codes."""
    text = re.sub(r"\[Error -?\d+\]\s*", "", text).strip()
    while name and text.startswith(name):
        text = text[len(name):].lstrip(": ").strip()
    return text


def sentence(names: Sequence[str], text: str, at: str, timeout_s: float | None) -> str:
    """What an error whose class (then its bases) is named ``names`` means; ``at`` names
    the broker (``the broker at host:port``)."""
    name = names[0] if names else ""
    detail = _detail(name, text)
    within = f" within {timeout_s:g} s" if timeout_s else " in time"
    if any(n in _SILENT for n in names):
        return f"{at} did not answer{within}; is it running, and is the address right?"
    if any(n in _CREDENTIALS for n in names) or name.endswith("AuthenticationFailedError"):
        return (f"{at} did not accept the credentials{f' ({detail})' if detail else ''}; "
                "check the KAFKA_SASL_* and KAFKA_SSL_* settings")
    if "AuthorizationError" in names or name.endswith("AuthorizationFailedError"):
        return (f"{at} refused this user access; check the KAFKA_SASL_* settings and the "
                "ACLs the broker gives this user")
    if name in ("UnknownTopicOrPartitionError", "UnknownTopicIdError"):
        return f"{at} has no such topic or partition; check the topic in the kafka:// URL"
    if any(n in _ELECTING for n in names):
        return (f"{at} has no leader for a partition yet (it is starting, or electing one); "
                "run the command again in a moment")
    if any(n in _CUT for n in names):
        return (f"{at} could not be connected to{f' ({detail})' if detail else ''}; is it "
                "running, and reachable from here?")
    return (f"{at} answered with an error{f': {detail}' if detail else ''}; see the "
            "broker's log")


def worded(exc: BaseException, servers: Sequence[str], timeout_s: float | None) -> str:
    """``exc``, raised by kafka-python talking to ``servers`` (waiting ``timeout_s``), as
    a sentence saying what happened and what to do."""
    names = [k.__name__ for k in type(exc).__mro__]
    at = f"the broker at {','.join(servers)}" if servers else "the broker"
    return sentence(names, str(exc), at, timeout_s)


def unreachable(servers: Sequence[str], timeout_s: float, what: str,
                exc: BaseException) -> LogUnavailable:
    """Kafka at ``servers`` could not be used for ``what`` (a client, a topic, a read)."""
    return LogUnavailable(f"Kafka at {','.join(servers)} cannot be reached ({what}): "
                          f"{worded(exc, (), timeout_s)}")


def not_written(servers: Sequence[str], timeout_s: float, what: str,
                exc: BaseException) -> LogWriteError:
    """A batch (``what``) the broker did not acknowledge: none of it counts."""
    return LogWriteError(f"{what} was not acknowledged: {worded(exc, servers, timeout_s)}; "
                         "none of it counts as written")


def step_said(error: BaseException | None) -> str | None:
    """For a load step that failed on a Kafka error (``error``: the exception it raised,
    its chain followed through ``__cause__`` and ``__context__``), the project's own
    ``LogError`` sentence (worded here), or, with none, the Kafka error worded by its class
    alone; None when no Kafka error is in the chain."""
    chain: list[BaseException] = []
    while error is not None and error not in chain:
        chain.append(error)
        error = error.__cause__ or error.__context__
    for e in chain:
        if isinstance(e, LogError):
            return str(e).strip()
    kafka = [e for e in chain if type(e).__module__.split(".")[0] == "kafka"]
    if not kafka:
        return None
    return worded(kafka[-1], (), None).replace("the broker", "the Kafka broker", 1)
