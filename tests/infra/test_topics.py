"""infra/kafka/topics.yaml and the one-shot job that applies it (create_topics.py): the
settings the event log depends on, the job's plan worked out by hand, and the job run
against a real Kafka-protocol broker."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
import yaml

from tests.infra import infra_files as f


def test_events_topic_is_the_record_never_compacted_never_expired() -> None:
    events = f.topics()["uth.table-events"]
    assert events.replication_factor == 3
    assert events.config["min.insync.replicas"] == "2"
    assert events.config["cleanup.policy"] == "delete"
    assert events.config["retention.ms"] == "-1"
    assert events.config["retention.bytes"] == "-1"
    assert events.config["unclean.leader.election.enable"] == "false"


def test_all_three_topics_survive_one_broker_loss() -> None:
    assert set(f.topics()) == {"uth.table-events", "uth.dead-letter", "uth.audit-findings"}
    for spec in f.topics().values():
        isr = int(spec.config["min.insync.replicas"])
        assert spec.replication_factor == 3 and isr == 2, spec.name
        assert "compact" not in spec.config["cleanup.policy"], spec.name
        assert spec.config["retention.ms"] == "-1", spec.name


def test_topic_names_are_the_ones_the_code_uses() -> None:
    from events.logs.kafka import DEAD_LETTER_TOPIC, DEFAULT_TOPIC

    assert DEFAULT_TOPIC in f.topics()
    assert DEAD_LETTER_TOPIC in f.topics()
    sources = "\n".join(p.read_text() for d in ("events", "pipeline")
                        for p in (f.REPO / d).rglob("*.py"))
    for name in f.topics():
        assert f'"{name}"' in sources, f"no module of the project names topic {name}"


def test_partitions_leave_room_to_scale_the_auditor() -> None:
    # One consumer per partition at most: 12 partitions allow 12 auditors (RUNBOOK).
    assert f.topics()["uth.table-events"].partitions == 12
    assert f.topics()["uth.audit-findings"].partitions == 12


# --- the plan, by hand ------------------------------------------------------------------


def spec(name: str = "t", partitions: int = 3, rf: int = 3, **config: str):  # type: ignore[no-untyped-def]
    return f.create_topics().TopicSpec(name, partitions, rf, config)


def state(partitions: int = 3, rf: int = 3, **config: str):  # type: ignore[no-untyped-def]
    return f.create_topics().TopicState(partitions, rf, config)


def test_plan_creates_missing_and_leaves_matching_topics_alone() -> None:
    ct = f.create_topics()
    a, b = spec("a", **{"retention.ms": "-1"}), spec("b")
    todo = ct.plan([a, b], {"b": state(**{"retention.ms": "5"})})
    assert todo.create == [a]
    assert todo.alter == {}  # b's file config is empty: nothing to compare
    assert ct.plan([a], {"a": state(**{"retention.ms": "-1", "x": "y"})}).clean


def test_plan_reports_drift_growth_and_what_it_cannot_fix() -> None:
    ct = f.create_topics()
    want = spec("e", partitions=12, rf=3, **{"retention.ms": "-1", "cleanup.policy": "delete"})
    todo = ct.plan([want], {"e": state(6, 3, **{"retention.ms": "604800000",
                                                   "cleanup.policy": "delete"})})
    assert todo.grow == {"e": (6, 12)}
    assert todo.alter == {"e": {"retention.ms": ("604800000", "-1")}}
    assert todo.problems == [] and not todo.clean
    shrink = ct.plan([want], {"e": state(16, 1, **want.config)})
    assert shrink.grow == {} and shrink.alter == {}
    assert len(shrink.problems) == 2
    assert "16 partitions" in shrink.problems[0] and "replication factor 1" in shrink.problems[1]
    lines = ct.describe(todo)
    assert lines == ["grow e: 6 -> 12 partitions",
                     "config e: retention.ms is '604800000', the file says '-1'"]


@pytest.mark.parametrize(("doc", "message"), [
    ({}, "a list under 'topics'"),
    ({"topics": [{"name": "a", "partitions": 0, "replication_factor": 3}]}, "a.partitions"),
    ({"topics": [{"name": "a", "partitions": 1, "replication_factor": True}]},
     "a.replication_factor"),
    ({"topics": [{"name": "a", "partitions": 1, "replication_factor": 1, "retention": 1}]},
     "unknown keys"),
    ({"topics": [{"name": "a", "partitions": 1, "replication_factor": 1,
                  "config": {"x": [1]}}]}, "a.config.x"),
    ({"topics": [{"name": "a", "partitions": 1, "replication_factor": 1}] * 2}, "twice"),
])
def test_spec_errors_name_the_topic_and_key(doc: object, message: str) -> None:
    ct = f.create_topics()
    with pytest.raises(ct.SpecError, match=message):
        ct.parse_spec(doc)


def test_config_values_become_kafka_strings() -> None:
    ct = f.create_topics()
    (one,) = ct.parse_spec({"topics": [{"name": "a", "partitions": 1, "replication_factor": 1,
                                         "config": {"retention.ms": -1, "x": False}}]})
    assert one.config == {"retention.ms": "-1", "x": "false"}


# --- against a broker ---------------------------------------------------------------------


def single_broker_copy(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """topics.yaml with fresh names and replication 1 (the test broker is one node)."""
    doc = yaml.safe_load((f.INFRA / "kafka" / "topics.yaml").read_text())
    suffix = uuid.uuid4().hex[:8]
    names = {}
    for item in doc["topics"]:
        names[item["name"]] = f"{item['name']}.{suffix}"
        item["name"] = names[item["name"]]
        item["replication_factor"] = 1
    path = tmp_path / "topics.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path, names


@pytest.mark.kafka
def test_job_creates_checks_and_repairs_topics(
    kafka_broker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient

    ct = f.create_topics()
    for var in ("KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_MECHANISM", "KAFKA_CONFIG_FILE"):
        monkeypatch.delenv(var, raising=False)
    path, names = single_broker_copy(tmp_path)
    events = names["uth.table-events"]
    base = ["--file", str(path), "--bootstrap", kafka_broker, "--wait", "30"]

    assert ct.main([*base, "--check"]) == 2  # nothing exists yet: reported, not created
    assert capsys.readouterr().out.count("create ") == 3
    assert ct.main([*base, "--check"]) == 2
    capsys.readouterr()
    assert ct.main(base) == 0
    out = capsys.readouterr().out
    assert out.count("create ") == 3
    assert ct.main([*base, "--check"]) == 0
    assert "every topic matches" in capsys.readouterr().out

    admin = KafkaAdminClient(bootstrap_servers=kafka_broker)
    try:
        (described,) = admin.describe_topics([events])
        assert len(described["partitions"]) == 12
        admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, events,
                                            configs={"retention.ms": "604800000"})],
                            incremental=True)
        # Someone shortened the retention: the job refuses to go on, and --fix restores it.
        assert ct.main(base) == 2
        assert "retention.ms is '604800000', the file says '-1'" in capsys.readouterr().out
        assert ct.main([*base, "--fix"]) == 0
        assert ct.main([*base, "--check"]) == 0
        configs = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, events)],
                                         config_filter="all")
        assert configs["topic"][events]["retention.ms"]["value"] == "-1"
    finally:
        admin.close()


@pytest.mark.kafka
def test_job_sets_the_scram_credential_without_printing_it(
    kafka_broker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ct = f.create_topics()
    for var in ("KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_MECHANISM", "KAFKA_CONFIG_FILE"):
        monkeypatch.delenv(var, raising=False)
    path, _ = single_broker_copy(tmp_path)
    base = ["--file", str(path), "--bootstrap", kafka_broker, "--wait", "30",
            "--scram-user", "uth-test"]
    monkeypatch.delenv(ct.SCRAM_PASSWORD_ENV, raising=False)
    with pytest.raises(SystemExit, match="UTH_SCRAM_PASSWORD"):
        ct.main(base)
    secret_file = tmp_path / "scram"
    secret_file.write_text("not-a-real-password-0123\n")
    monkeypatch.setenv(ct.SCRAM_PASSWORD_ENV + "_FILE", str(secret_file))
    assert ct.main(base) == 0
    out = capsys.readouterr()
    assert "SCRAM SCRAM-SHA-512 credential set for user 'uth-test'" in out.out
    assert "not-a-real-password" not in out.out + out.err


def test_job_refuses_unusable_client_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    ct = f.create_topics()
    monkeypatch.setenv("KAFKA_SASL_MECHANISM", "PLAIN")
    monkeypatch.delenv("KAFKA_SECURITY_PROTOCOL", raising=False)
    monkeypatch.delenv("KAFKA_CONFIG_FILE", raising=False)
    assert ct.main(["--bootstrap", "127.0.0.1:1", "--wait", "0"]) == 1
    assert "KAFKA_SECURITY_PROTOCOL" in capsys.readouterr().err
