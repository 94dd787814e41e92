"""Security: Kafka credentials reach the client from the environment or a config file and
nowhere else (not in messages, reprs or logs); nothing taken from an event is executed;
payload sizes and counts are bounded.

(The dashboards' SQL-injection test belongs to the dashboards suite.)
"""

from __future__ import annotations

import ast
import json
import logging
import re
import subprocess
from pathlib import Path
from typing import Any, ClassVar

import pytest

from events.audit.auditor import audit
from events.contract.codec import MAX_EVENT_BYTES, Rejection, decode_line, decode_many
from events.logs import LogError, open_log
from events.logs.kafka import KafkaLog
from events.logs.kafka_config import client_config, redact
from tests.reliability import corpus
from tests.reliability.helpers import ROOT, floor, uth, uth_env

SECRET = "s3cr3t-Pa55word-do-not-log"
KEY_SECRET = "k3y-pa55phrase-do-not-log"


class _Captured(Exception):
    pass


class FakeClient:
    """Stands in for KafkaProducer/KafkaConsumer/KafkaAdminClient: records its kwargs."""

    calls: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        FakeClient.calls.append((type(self).__name__, dict(kwargs)))


class KafkaProducer(FakeClient):
    pass


class KafkaConsumer(FakeClient):
    pass


class KafkaAdminClient(FakeClient):
    pass


@pytest.fixture
def fake_kafka(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    import kafka

    FakeClient.calls = []
    for cls in (KafkaProducer, KafkaConsumer, KafkaAdminClient):
        monkeypatch.setattr(kafka, cls.__name__, cls)
    return FakeClient.calls


def _clients(log: KafkaLog) -> None:
    log.producer()
    log._consumer(None)
    log.admin()


PLAIN_ENV = {"KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "plain",
             "KAFKA_SASL_USERNAME": "uth-ingest", "KAFKA_SASL_PASSWORD": SECRET,
             "KAFKA_SSL_CAFILE": "/etc/uth/ca.pem"}


@pytest.mark.parametrize(("mechanism", "protocol"), [
    ("PLAIN", "SASL_SSL"), ("SCRAM-SHA-256", "SASL_SSL"), ("SCRAM-SHA-512", "SASL_PLAINTEXT"),
])
def test_sasl_settings_from_the_environment_reach_every_client(
    fake_kafka: list[tuple[str, dict[str, Any]]], mechanism: str, protocol: str
) -> None:
    env = {**PLAIN_ENV, "KAFKA_SASL_MECHANISM": mechanism.lower(),
           "KAFKA_SECURITY_PROTOCOL": protocol}
    log = KafkaLog("kafka://broker-1:9093,broker-2:9093/uth.table-events", env=env)
    _clients(log)
    assert [name for name, _ in fake_kafka] == [
        "KafkaProducer", "KafkaConsumer", "KafkaAdminClient"]
    for _, kwargs in fake_kafka:
        assert kwargs["bootstrap_servers"] == ["broker-1:9093", "broker-2:9093"]
        assert kwargs["security_protocol"] == protocol
        assert kwargs["sasl_mechanism"] == mechanism
        assert kwargs["sasl_plain_username"] == "uth-ingest"
        assert kwargs["sasl_plain_password"] == SECRET
        assert kwargs["ssl_cafile"] == "/etc/uth/ca.pem"
    _never_shown(log)


def test_tls_and_sasl_from_a_config_file_with_the_secret_in_a_secret_file(
    fake_kafka: list[tuple[str, dict[str, Any]]], tmp_path: Path
) -> None:
    props = tmp_path / "client.properties"
    props.write_text(
        "# the floor's Kafka\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
        "sasl.username=uth-auditor\nssl.ca.location=/etc/uth/ca.pem\n"
        "ssl.certificate.location=/etc/uth/client.pem\nssl.key.location=/etc/uth/client.key\n"
        f"ssl.key.password={KEY_SECRET}\nssl.check.hostname=true\n")
    secret = tmp_path / "sasl-password"
    secret.write_text(SECRET + "\n")
    env = {"KAFKA_CONFIG_FILE": str(props), "KAFKA_SASL_PASSWORD_FILE": str(secret)}
    log = KafkaLog("kafka://broker:9093", env=env)
    _clients(log)
    for _, kwargs in fake_kafka:
        assert kwargs["security_protocol"] == "SASL_SSL"
        assert kwargs["sasl_mechanism"] == "SCRAM-SHA-512"
        assert kwargs["sasl_plain_username"] == "uth-auditor"
        assert kwargs["sasl_plain_password"] == SECRET  # stripped of the newline
        assert kwargs["ssl_cafile"] == "/etc/uth/ca.pem"
        assert kwargs["ssl_certfile"] == "/etc/uth/client.pem"
        assert kwargs["ssl_keyfile"] == "/etc/uth/client.key"
        assert kwargs["ssl_password"] == KEY_SECRET
        assert kwargs["ssl_check_hostname"] is True
    # the environment overrides the file
    env2 = {**env, "KAFKA_SASL_USERNAME": "override"}
    assert client_config(env2)["sasl_plain_username"] == "override"
    _never_shown(log, KEY_SECRET)


def _never_shown(log: KafkaLog, *more: str) -> None:
    secrets = (SECRET, *more)
    shown = [repr(log), str(log), log.describe(), repr(redact(log.security)),
             repr(log.target), json.dumps(redact(log.security))]
    for text in shown:
        for secret in secrets:
            assert secret not in text, text


def test_credentials_in_the_url_are_refused_without_echoing_them() -> None:
    with pytest.raises(LogError) as info:
        open_log(f"kafka://uth:{SECRET}@broker:9093/uth.table-events")
    assert SECRET not in str(info.value)
    assert "KAFKA_SASL" in str(info.value)


def test_bad_security_settings_are_clear_errors_without_the_secret() -> None:
    for env in (
        {**PLAIN_ENV, "KAFKA_SECURITY_PROTOCOL": "PLAINTEXT"},  # SASL without a SASL protocol
        {**PLAIN_ENV, "KAFKA_SASL_MECHANISM": "MD5"},
        {**PLAIN_ENV, "KAFKA_SASL_PASSWORD": "", "KAFKA_SASL_USERNAME": SECRET[:0] or "u"},
    ):
        with pytest.raises(LogError) as info:
            KafkaLog("kafka://broker:9093", env=env)
        assert SECRET not in str(info.value)
        assert "KAFKA_" in str(info.value)


@pytest.mark.kafka
def test_unreachable_secured_broker_error_and_logs_hold_no_secret(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A real client with SASL settings against a port where nothing listens: the command's
    output and kafka-python's own DEBUG logs never contain the password."""
    source = tmp_path / "floor.jsonl"
    source.write_bytes(b"".join(corpus.encode(e) + b"\n" for e in floor(1, "sec")[:5]))
    env = uth_env(KAFKA_SECURITY_PROTOCOL="SASL_PLAINTEXT", KAFKA_SASL_MECHANISM="PLAIN",
                  KAFKA_SASL_USERNAME="uth", KAFKA_SASL_PASSWORD=SECRET)
    done = uth("ingest", "--source", str(source), "--sink",
               "kafka://127.0.0.1:9/t?connect_timeout=1", env=env, timeout=120)
    assert done.returncode == 2
    assert "cannot be reached" in done.stderr or "nothing was written" in done.stderr
    assert SECRET not in done.stdout + done.stderr
    caplog.set_level(logging.DEBUG)
    env_map = {k: v for k, v in env.items() if k.startswith("KAFKA_")}
    log = KafkaLog("kafka://127.0.0.1:9/t?connect_timeout=1", env=env_map)
    with pytest.raises(LogError) as info:
        log.check()
    assert SECRET not in str(info.value)
    assert SECRET not in caplog.text
    # kafka-python did log its configuration: with the password masked
    assert "'sasl_plain_password': '***'" in caplog.text
    log.close()


# ------------------------------------------------------------ nothing from an event runs

HOSTILE = [
    "$(touch {marker})", "`touch {marker}`", "; touch {marker} #", "| touch {marker}",
    "__import__('os').system('touch {marker}')", "{{0.__class__.__mro__}}", "%s%s%n%x",
    "'; DROP TABLE events; --", "../../../../etc/passwd", "\x00\x1b[31m", "${{jndi:ldap://x}}",
    "cos\nsystem\n(S'touch {marker}'\ntR.",  # a pickle
]


def test_hostile_strings_in_events_are_data_only(tmp_path: Path) -> None:
    """Shell, Python, template, SQL and pickle payloads in every free-text field travel
    through ingest, audit and replay as text: nothing runs, each comes back verbatim."""
    marker = tmp_path / "pwned"
    events = corpus.table("hostile").events
    texts = [h.format(marker=marker) for h in HOSTILE]
    lines = []
    for i, ev in enumerate(events):
        text = texts[i % len(texts)]
        if ev["type"] == "HandStarted":
            ev = {**ev, "payload": {**ev["payload"], "dealer_id": text[:200],
                                    "shoe_id": text[:200]}}
        lines.append(corpus.encode(ev))
    n = len(events)
    extra = [
        {**events[0], "seq": n, "event_id": "h-void", "type": "HandVoided",
         "hand_id": texts[0][:200], "payload": {"reason": " ".join(texts)}},
        {**events[0], "seq": n + 1, "event_id": "h-dispute", "type": "DisputeOpened",
         "hand_id": "hostile-h1", "payload": {"seat": 1, "claim": " ".join(texts)}},
        {**events[0], "seq": n + 2, "event_id": texts[6][:64], "type": "TableClosed",
         "payload": {}},
    ]
    lines += [corpus.encode(e) for e in extra]
    source = tmp_path / "hostile.jsonl"
    source.write_bytes(b"".join(line + b"\n" for line in lines))
    sink = f"sqlite:///{tmp_path / 'hostile.db'}"
    done = uth("ingest", "--source", str(source), "--sink", sink, "--json")
    assert done.returncode == 0, done.stderr
    with open_log(sink) as log:
        stored = [r.value for b in log.read() for r in b]
    assert stored == lines  # byte for byte: nothing interpreted, nothing rewritten
    report = audit(decode_many(stored))
    assert report.summary["rejected_events"] == 0
    dealers = {h.dealer_id for h in report.hands} - {None}  # None: the voided stray hand
    assert dealers and dealers <= {t[:200] for t in texts}
    replay = uth("replay", "hostile-h1", "--source", str(source), "--json", timeout=60)
    assert replay.returncode == 0, replay.stderr[-2000:]
    doc = json.loads(replay.stdout)
    assert " ".join(texts) in json.dumps(doc, ensure_ascii=False) or \
        json.dumps(" ".join(texts))[1:-1] in replay.stdout  # the dispute claim, verbatim
    human = uth("replay", "hostile-h1", "--source", str(source), timeout=60)
    assert human.returncode == 0, human.stderr[-2000:]
    assert not marker.exists(), "a string from an event was executed"


_FORBIDDEN_NAMES = {"eval", "exec", "compile", "__import__", "execfile"}
_FORBIDDEN_ATTRS = {("os", "system"), ("os", "popen"), ("pickle", "loads"), ("pickle", "load"),
                    ("marshal", "loads"), ("yaml", "load"), ("shelve", "open"),
                    ("os", "execv"), ("os", "execvp"), ("subprocess", "getoutput")}


def test_no_code_path_can_execute_event_content() -> None:
    """Static check of events/, pipeline/ and dashboards/: no eval/exec/pickle/shell; every
    subprocess gets an argument list (never a shell string)."""
    problems = []
    for area in ("events", "pipeline", "dashboards"):
        for path in sorted((ROOT / area).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                f = node.func
                if isinstance(f, ast.Name) and f.id in _FORBIDDEN_NAMES:
                    problems.append(f"{where}: {f.id}()")
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and (
                        f.value.id, f.attr) in _FORBIDDEN_ATTRS:
                    problems.append(f"{where}: {f.value.id}.{f.attr}()")
                for kw in node.keywords:
                    if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant)
                                                  and kw.value.value is False):
                        problems.append(f"{where}: shell=")
                    if kw.arg == "allow_pickle" and not (isinstance(kw.value, ast.Constant)
                                                         and kw.value.value is False):
                        problems.append(f"{where}: allow_pickle=")
                if (isinstance(f, ast.Attribute) and f.attr in ("Popen", "run", "call",
                                                                "check_call", "check_output")
                        and isinstance(f.value, ast.Name) and f.value.id == "subprocess"
                        and node.args and isinstance(node.args[0], ast.Constant | ast.JoinedStr)):
                    problems.append(f"{where}: subprocess with a command string")
    assert problems == []


# ------------------------------------------------------------------ bounded sizes and counts

def test_payload_size_is_bounded_before_parsing() -> None:
    big = corpus.encode({**corpus.table("big").events[0], "padding": "x" * MAX_EVENT_BYTES})
    out = decode_line(big, 1)
    assert isinstance(out, Rejection) and out.code == "too-large"
    assert len(out.raw) <= 4096  # the dead-letter copy is bounded too


@pytest.mark.parametrize("depth", [1_000, 20_000, 32_000])
def test_deep_nesting_within_the_size_limit_is_rejected_not_a_crash(depth: int) -> None:
    ev = corpus.table("deep").events[0]
    nested = b"[" * depth + b"]" * depth
    data = corpus.encode(ev)[:-1] + b',"extra":' + nested + b"}"
    assert len(data) <= MAX_EVENT_BYTES
    # run in a child: a stack overflow would kill it, not the test run
    code = ("import sys; from events.contract.codec import decode_line; "
            "data = sys.stdin.buffer.read(); out = decode_line(data, 1); "
            "print(type(out).__name__)")
    done = subprocess.run([*uth_python(), "-c", code], input=data, capture_output=True,
                          cwd=ROOT, env=uth_env(), timeout=60)
    assert done.returncode == 0, done.stderr[-1000:]
    assert done.stdout.strip() in (b"Rejection", b"TableOpened")


def uth_python() -> list[str]:
    import sys

    return [sys.executable]


def test_lists_and_strings_in_events_are_bounded() -> None:
    ev = corpus.table("bounds").events[1]  # HandStarted
    assert ev["type"] == "HandStarted"
    too_many = {**ev, "payload": {**ev["payload"], "seats": list(range(1, 1002))}}
    assert isinstance(decode_line(corpus.encode(too_many), 1), Rejection)
    long_id = {**ev, "payload": {**ev["payload"], "dealer_id": "d" * 201}}
    assert isinstance(decode_line(corpus.encode(long_id), 1), Rejection)
    huge_amount = {**corpus.table("bounds").events[2]}
    huge_amount["payload"] = {**huge_amount["payload"], "amount": 10**13}
    out = decode_line(corpus.encode(huge_amount), 1)
    assert isinstance(out, Rejection) and "out of range" in out.reason


def test_a_seq_far_ahead_does_not_allocate_the_gap() -> None:
    """A hostile seq (2**62) opens a gap of 4.6e18 events: reported, in bounded memory."""
    from events.logs.sequence import SequenceTracker

    events = corpus.table("far").events
    far = {**events[5], "seq": 2**62, "event_id": "far-ahead"}
    lines = [corpus.encode(e) for e in events[:5]] + [corpus.encode(far)]
    report = audit(decode_many(lines))
    gaps = [f for f in report.findings if f.kind == "sequence_gap"]
    assert len(gaps) == 1 and re.search(r"seq 5 to \d+", gaps[0].detail)
    tracker = SequenceTracker(expect_start=True)
    for e in events[:5]:
        tracker.observe(e["table_id"], e["seq"], e["event_id"])
    tracker.observe(far["table_id"], far["seq"], far["event_id"])
    table = tracker.tables[far["table_id"]]
    assert len(table.gaps) <= tracker.max_gaps
