"""Create and check the Kafka topics declared in ``topics.yaml``: the one-shot
``kafka-topics`` job of ``infra/compose.yaml``.

    python create_topics.py --file topics.yaml [--bootstrap HOST:PORT,...] [--fix | --check]
                            [--scram-user NAME]

* a missing topic is created with its partitions, replication factor and configs;
* an existing topic is compared with the file: a config that differs, too few partitions or
  a different replication factor is reported and the exit code is 2, so the stack does not
  start on a log whose retention someone shortened by hand. With ``--fix`` the configs are
  set to the file's values (incremental alter: other settings are left alone) and missing
  partitions are added; a replication factor is never changed here (that is a partition
  reassignment, see infra/RUNBOOK.md);
* ``--check`` changes nothing, only reports (exit 2 on any difference, missing topics
  included);
* ``--scram-user NAME`` also creates or replaces that user's SCRAM credential (the password
  from ``$UTH_SCRAM_PASSWORD`` or the file named by ``$UTH_SCRAM_PASSWORD_FILE``): the
  login of the UTH services on the brokers' CLIENT and EXTERNAL listeners. Rerunning it
  with a new password is how that password is rotated (infra/RUNBOOK.md).

The client's address and its SASL/TLS settings come from the same environment variables
as every ``uth`` command (``events.logs``), never from this file or the command line.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_FILE = Path(__file__).with_name("topics.yaml")
SCRAM_PASSWORD_ENV = "UTH_SCRAM_PASSWORD"


@dataclass(frozen=True)
class TopicSpec:
    name: str
    partitions: int
    replication_factor: int
    config: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TopicState:
    """What the cluster says about one existing topic."""

    partitions: int
    replication_factor: int
    config: Mapping[str, str]


@dataclass
class Plan:
    create: list[TopicSpec] = field(default_factory=list)
    grow: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (have, want)
    alter: dict[str, dict[str, tuple[str | None, str]]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # cannot be fixed here

    @property
    def clean(self) -> bool:
        return not (self.create or self.grow or self.alter or self.problems)


class SpecError(ValueError):
    """topics.yaml is not what this job expects; the message names the topic and key."""


def load_spec(path: Path) -> list[TopicSpec]:
    import yaml

    try:
        doc = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise SpecError(f"{path}: {exc}") from exc
    return parse_spec(doc, str(path))


def parse_spec(doc: Any, where: str = "topics.yaml") -> list[TopicSpec]:
    if not isinstance(doc, dict) or not isinstance(doc.get("topics"), list):
        raise SpecError(f"{where}: expected a mapping with a list under 'topics'")
    specs: list[TopicSpec] = []
    for i, item in enumerate(doc["topics"]):
        at = f"{where}: topics[{i}]"
        if not isinstance(item, dict):
            raise SpecError(f"{at}: expected a mapping")
        unknown = set(item) - {"name", "partitions", "replication_factor", "config"}
        if unknown:
            raise SpecError(f"{at}: unknown keys {sorted(unknown)}")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise SpecError(f"{at}.name: a topic name is required")
        at = f"{where}: topic {name}"
        ints = {}
        for key in ("partitions", "replication_factor"):
            value = item.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise SpecError(f"{at}.{key}: expected a positive integer, got {value!r}")
            ints[key] = value
        config = item.get("config") or {}
        if not isinstance(config, dict):
            raise SpecError(f"{at}.config: expected a mapping")
        for key, value in config.items():
            if isinstance(value, (dict, list)) or value is None:
                raise SpecError(f"{at}.config.{key}: expected a scalar, got {value!r}")
        specs.append(TopicSpec(name, ints["partitions"], ints["replication_factor"],
                               {str(k): _kafka_str(v) for k, v in config.items()}))
    names = [s.name for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SpecError(f"{where}: topics declared twice: {dupes}")
    return specs


def _kafka_str(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def plan(specs: Sequence[TopicSpec], existing: Mapping[str, TopicState]) -> Plan:
    """What must change for the cluster to match ``specs`` (pure: no network)."""
    out = Plan()
    for spec in specs:
        have = existing.get(spec.name)
        if have is None:
            out.create.append(spec)
            continue
        if have.partitions < spec.partitions:
            out.grow[spec.name] = (have.partitions, spec.partitions)
        elif have.partitions > spec.partitions:
            out.problems.append(
                f"{spec.name}: has {have.partitions} partitions, the file says "
                f"{spec.partitions}; partitions cannot be removed (update the file)")
        if have.replication_factor != spec.replication_factor:
            out.problems.append(
                f"{spec.name}: replication factor {have.replication_factor}, the file says "
                f"{spec.replication_factor}; change it by partition reassignment (RUNBOOK)")
        drift = {key: (have.config.get(key), want) for key, want in spec.config.items()
                 if have.config.get(key) != want}
        if drift:
            out.alter[spec.name] = drift
    return out


def describe(plan_: Plan) -> list[str]:
    lines = [f"create {s.name}: {s.partitions} partitions, replication "
             f"{s.replication_factor}, {dict(s.config)}" for s in plan_.create]
    lines += [f"grow {name}: {have} -> {want} partitions"
              for name, (have, want) in plan_.grow.items()]
    for name, drift in plan_.alter.items():
        lines += [f"config {name}: {key} is {have!r}, the file says {want!r}"
                  for key, (have, want) in drift.items()]
    lines += [f"problem {p}" for p in plan_.problems]
    return lines


# --- talking to the cluster (kafka-python's admin client) -------------------------------


def _admin(bootstrap: str | None, brokers_needed: int, wait_s: float) -> Any:
    """An admin client, once ``brokers_needed`` brokers have registered (a topic with
    replication 3 cannot be created while the third broker is still starting)."""
    from kafka.admin import KafkaAdminClient
    from kafka.errors import KafkaError

    from events.logs.kafka_config import bootstrap_servers, client_config, redact

    settings = client_config()
    settings.setdefault("client_id", "uth-create-topics")
    servers = bootstrap_servers(bootstrap or "")
    deadline = time.monotonic() + wait_s
    admin = None
    while True:
        try:
            admin = admin or KafkaAdminClient(bootstrap_servers=servers, **settings)
            found = len(admin.describe_cluster().get("brokers", []))
            if found >= brokers_needed:
                return admin
            reason = f"{found} of {brokers_needed} brokers registered"
        except KafkaError as exc:  # brokers still starting
            reason = str(exc)
        if time.monotonic() > deadline:
            if admin is not None:
                admin.close()
            raise SystemExit(f"Kafka at {','.join(servers)} not ready after {wait_s:.0f}s "
                             f"({reason}); client settings {redact(settings)}")
        time.sleep(2)


def read_state(admin: Any, names: Sequence[str]) -> dict[str, TopicState]:
    from kafka.admin import ConfigResource, ConfigResourceType

    present = set(admin.list_topics())
    wanted = [n for n in names if n in present]
    if not wanted:
        return {}
    described = {t["name"]: t for t in admin.describe_topics(wanted)}
    configs = admin.describe_configs(
        [ConfigResource(ConfigResourceType.TOPIC, n) for n in wanted], config_filter="all")
    by_topic = configs.get("topic", {})
    state: dict[str, TopicState] = {}
    for name in wanted:
        parts = described[name]["partitions"]
        replicas = {len(p["replica_nodes"]) for p in parts}
        entries = by_topic.get(name, {})
        state[name] = TopicState(
            partitions=len(parts),
            replication_factor=max(replicas) if replicas else 0,
            config={k: _kafka_str(v.get("value") if isinstance(v, dict) else v)
                    for k, v in entries.items()},
        )
    return state


def apply(admin: Any, plan_: Plan) -> None:
    from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic

    if plan_.create:
        admin.create_topics(
            [NewTopic(s.name, s.partitions, s.replication_factor, topic_configs=dict(s.config))
             for s in plan_.create])
        admin.wait_for_topics([s.name for s in plan_.create], timeout_ms=60_000)
    if plan_.grow:
        admin.create_partitions({name: NewPartitions(want)
                                 for name, (_have, want) in plan_.grow.items()})
    if plan_.alter:
        admin.alter_configs([
            ConfigResource(ConfigResourceType.TOPIC, name,
                           configs={key: want for key, (_have, want) in drift.items()})
            for name, drift in plan_.alter.items()], incremental=True)


def upsert_scram(admin: Any, user: str, password: str, mechanism: str) -> None:
    """Create or replace ``user``'s SCRAM credential (the password is never printed)."""
    from kafka.admin import UserScramCredentialUpsertion

    errors = admin.alter_user_scram_credentials(
        [UserScramCredentialUpsertion(user, mechanism, password)])
    if errors.get(user):
        raise SystemExit(f"SCRAM credential for {user!r} refused: {errors[user]}")
    print(f"SCRAM {mechanism} credential set for user {user!r}")


def _scram_password() -> str:
    value = os.environ.get(SCRAM_PASSWORD_ENV, "")
    path = os.environ.get(SCRAM_PASSWORD_ENV + "_FILE")
    if path:
        value = Path(path).read_text().strip()
    if not value:
        raise SystemExit(f"--scram-user needs the password in {SCRAM_PASSWORD_ENV} "
                         f"(or {SCRAM_PASSWORD_ENV}_FILE)")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="topics.yaml to apply")
    parser.add_argument("--bootstrap", help="host:port[,host:port...] (default: environment)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--fix", action="store_true",
                      help="also set drifted configs and add missing partitions")
    mode.add_argument("--check", action="store_true", help="report only, change nothing")
    parser.add_argument("--scram-user", metavar="NAME",
                        help=f"create or update this user's SCRAM credential, password from "
                             f"${SCRAM_PASSWORD_ENV}")
    parser.add_argument("--scram-mechanism", default="SCRAM-SHA-512",
                        choices=["SCRAM-SHA-256", "SCRAM-SHA-512"])
    parser.add_argument("--wait", type=float, default=120.0,
                        help="seconds to wait for the brokers (default 120)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    try:
        specs = load_spec(args.file)
    except SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    password = _scram_password() if args.scram_user and not args.check else None
    needed = max((s.replication_factor for s in specs), default=1)
    try:
        admin = _admin(args.bootstrap, needed, args.wait)
    except ValueError as exc:  # KafkaConfigError: names the variable to fix
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        if args.scram_user and password is not None:
            upsert_scram(admin, args.scram_user, password, args.scram_mechanism)
        todo = plan(specs, read_state(admin, [s.name for s in specs]))
        for line in describe(todo) or ["every topic matches " + str(args.file)]:
            print(line)
        if args.check:
            return 0 if todo.clean else 2
        if not args.fix:
            fixed = Plan(create=todo.create)
            apply(admin, fixed)
            left = Plan(grow=todo.grow, alter=todo.alter, problems=todo.problems)
            if not left.clean:
                print("existing topics differ from the file: rerun with --fix "
                      "(infra/RUNBOOK.md)", file=sys.stderr)
                return 2
            return 0
        apply(admin, todo)
        return 2 if todo.problems else 0
    finally:
        admin.close()


if __name__ == "__main__":
    sys.exit(main())
