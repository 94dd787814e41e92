"""infra/RUNBOOK.md: the six sections exist, and every command in its code blocks names
services, files, flags, topics and variables that exist; the "add a ruleset" procedure is
carried out for real on a temporary rulesets directory."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.infra import infra_files as f

RUNBOOK = f.INFRA / "RUNBOOK.md"
SECTIONS = ("Start", "Scale the auditor", "Replay from the start", "Rebuild the warehouse",
            "Add a ruleset", "Rotate credentials")
KAFKA_TOOLS = {"kafka-consumer-groups.sh", "kafka-topics.sh", "kafka-configs.sh",
               "kafka-metadata-quorum.sh"}
# docker compose options that take a value, by subcommand ("" = global)
VALUE_OPTIONS = {
    "": {"-f", "--file", "-p", "--project-name", "--profile", "--env-file"},
    "run": {"-e", "--env", "--entrypoint", "-u", "--user", "-w", "--workdir", "--name"},
    "exec": {"-e", "--env", "-u", "--user", "-w", "--workdir"},
    "up": {"--scale", "-t", "--timeout"},
    "logs": {"--tail", "-n", "--since"},
}
SUBCOMMANDS = {"build", "up", "ps", "logs", "run", "exec", "stop", "start", "restart", "down",
               "pull", "config"}


def blocks() -> list[tuple[int, list[str]]]:
    """(line, argv) of every simple command in the runbook's code blocks; here-documents
    are skipped (their lines are file contents, not commands)."""
    out = []
    heredoc = None
    for number, line in f.code_lines(RUNBOOK):
        if heredoc is not None:
            if line == heredoc:
                heredoc = None
            continue
        m = re.search(r"<<-?'?(\w+)'?", line)
        if m:
            heredoc = m.group(1)
            line = line[:m.start()]
        out += [(number, argv) for argv in f.split_commands(line)]
    return out


def sections() -> list[str]:
    return [m.group(1) for m in re.finditer(r"^## (.+)$", RUNBOOK.read_text(), re.MULTILINE)]


def test_the_six_operations_have_their_section() -> None:
    assert [s for s in sections() if s in SECTIONS] == list(SECTIONS)
    text = RUNBOOK.read_text()
    for title in SECTIONS:  # the links at the top reach them (GitHub's anchors)
        assert f"(#{title.lower().replace(' ', '-')})" in text, title


def compose_for(files: list[str]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for name in files:
        path = f.REPO / name
        assert path.is_file(), f"docker compose -f {name}: no such file"
        doc = f.load_yaml(path)
        for svc, body in doc.get("services", {}).items():
            merged.setdefault(svc, {}).update(body)
    return merged


def check_compose(argv: list[str], where: str) -> str:
    """Check one ``docker compose ...`` command; returns what it ran in the container."""
    i = 2
    files: list[str] = []
    profiles: set[str] = set()
    while argv[i].startswith("-"):
        assert argv[i] in VALUE_OPTIONS[""], f"{where}: unknown global option {argv[i]}"
        if argv[i] in ("-f", "--file"):
            files.append(argv[i + 1])
        if argv[i] == "--profile":
            profiles.add(argv[i + 1])
        i += 2
    assert files and files[0] == "infra/compose.yaml", f"{where}: -f infra/compose.yaml first"
    services = compose_for(files)
    sub = argv[i]
    assert sub in SUBCOMMANDS, f"{where}: docker compose {sub}?"
    rest = argv[i + 1:]
    positional: list[str] = []
    env_overrides: list[str] = []
    j = 0
    while j < len(rest):
        token = rest[j]
        if token.startswith("-") and not positional:
            if token in VALUE_OPTIONS.get(sub, set()):
                if token == "--scale":
                    positional.append(rest[j + 1].split("=")[0])
                if token in ("-e", "--env"):
                    env_overrides.append(rest[j + 1])
                j += 2
            else:
                j += 1
            continue
        positional.append(token)
        if sub in ("run", "exec"):
            break
        j += 1
    for profile in profiles:
        assert any(profile in s.get("profiles", []) for s in services.values()), where
    for name in positional[:1] if sub in ("run", "exec") else positional:
        assert name in services, f"{where}: no service {name!r}"
    if sub not in ("run", "exec"):
        return ""
    name = positional[0]
    service = f.services()[name]
    inner = rest[j + 1:]
    assert inner, f"{where}: nothing to run in {name}"
    for item in env_overrides:  # -e NAME passes the operator's value of a known variable
        assert item in f.environment(service), f"{where}: {name} does not read {item}"
    check_inner(name, service, inner, where)
    return inner[0]


def check_inner(name: str, service: dict[str, Any], argv: list[str], where: str) -> None:
    program = argv[0]
    if program == "uth":
        f.check_uth(argv[1:], where)
        if "--gaming-day-start" in argv:
            assert argv[argv.index("--gaming-day-start") + 1] == f.env_example()[
                "UTH_GAMING_DAY_START"], where
    elif program == "python":
        script = f.host_path(argv[1], service)
        assert script == (f.INFRA / "kafka" / "create_topics.py").resolve(), where
        args = f.create_topics().build_parser().parse_args(argv[2:])
        assert f.host_path(str(args.file), service) is not None, where
    elif program.startswith("/opt/kafka/bin/"):
        assert name in ("kafka-1", "kafka-2", "kafka-3"), f"{where}: Kafka tools run in a broker"
        assert program.rsplit("/", 1)[1] in KAFKA_TOOLS, where
        server = argv[argv.index("--bootstrap-server") + 1]
        host, port = server.split(":")
        env = f.container_env(host)
        # the INTERNAL listener, where the admin user (PLAIN) is accepted
        assert f"INTERNAL://{host}:{port}" in env["KAFKA_ADVERTISED_LISTENERS"], where
        if "--group" in argv:
            from events.audit.follow import CONSUMER

            assert argv[argv.index("--group") + 1] == CONSUMER, where
        if "--topic" in argv:
            assert argv[argv.index("--topic") + 1] in f.topics(), where
    elif program == "psql":
        assert name == "postgres", where
        env = f.container_env("postgres")
        assert argv[argv.index("-U") + 1] == env["POSTGRES_USER"], where
        assert argv[argv.index("-d") + 1] == env["POSTGRES_DB"], where
    elif program == "dagster":
        local = [str(f.host_path(a, service)) if a.startswith("/opt/") else a for a in argv[1:]]
        f.check_click("dagster", local, where)
        from pipeline.definitions import defs

        kind, action, target = argv[1:4]
        assert action == "start", where
        names = {"sensor": [s.name for s in defs.sensors or []],
                 "schedule": [s.name for s in defs.schedules or []]}[kind]
        assert target in names, f"{where}: no {kind} {target!r} in pipeline.definitions"
    elif program == "sh" and name.startswith("kafka-"):  # the admin client file
        assert argv[1:] == ["-c", "cat > /tmp/admin.properties"], where
    elif program == "sh":
        assert argv[1] == "-c" and name == "dagster-daemon", where
        warehouse = Path(f.container_env("dagster-daemon")["UTH_WAREHOUSE"])
        for path in re.findall(r"cd (\S+)", argv[2]):
            assert path == str(warehouse.parent), where
        # the files moved are the warehouse and its archive (<stem>_archive beside it)
        moved = re.findall(r"mv (\S+) \S+", argv[2])
        assert {warehouse.name, f"{warehouse.stem}_archive"} <= set(moved), where
    else:
        raise AssertionError(f"{where}: unexpected program {program!r} in {name}")


def test_every_command_in_the_runbook_exists() -> None:
    seen = {"uth": 0, "compose": 0, "other": 0}
    for number, argv in blocks():
        where = f"RUNBOOK.md:{number}"
        if argv[:2] == ["docker", "compose"]:
            inner = check_compose(argv, where)
            seen["compose"] += 1
            seen["uth"] += inner == "uth"
        elif argv[0] == "uth":
            f.check_uth(argv[1:], where)
            seen["uth"] += 1
        else:
            assert argv[0] in ("cp", "python3", "export", "set", "alias"), f"{where}: {argv}"
            seen["other"] += 1
    assert seen["compose"] >= 25 and seen["uth"] >= 6, seen


def test_every_kafka_url_names_a_declared_topic() -> None:
    from events.logs.kafka import parse_url

    urls = re.findall(r"kafka://[^\s`]+", RUNBOOK.read_text())
    assert len(urls) >= 5
    for url in urls:
        assert parse_url(url, {}).topic in f.topics(), url


def test_paths_it_names_exist() -> None:
    text = RUNBOOK.read_text()
    paths = set(re.findall(r"`((?:infra|events|pipeline|dashboards)/[\w./-]*)`", text))
    paths |= set(re.findall(r"\b(infra/[\w.-]+(?:/[\w.-]+)*)", text))
    assert "infra/kafka/topics.yaml" in paths and "events/game/rulesets/" in paths
    for path in paths:
        if path.startswith(("infra/secrets/", "infra/.env")) and path != "infra/.env.example":
            continue  # made by the operator, never committed
        if re.search(r"/[A-Z]+\.", path):
            assert path == "infra/rulesets/NAME.toml"  # the operator's file, named by them
            continue
        assert (f.REPO / path.rstrip(".")).exists(), path


def test_variables_it_names_are_known() -> None:
    from events.logs.kafka_config import ENV_KEYS

    known = set(f.env_example()) | set(ENV_KEYS) | {"KAFKA_BOOTSTRAP_SERVERS"}
    known |= {k + "_FILE" for k in ENV_KEYS} | set(f.docker_env())
    for name in f.services():
        known |= set(f.environment(f.services()[name]))
    from events.contract.privacy import KEY_ENV

    known |= {"UTH_SCRAM_PASSWORD", KEY_ENV}
    text = RUNBOOK.read_text()
    named = set(re.findall(r"`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`", text))
    named |= {m for line in (ln for _, ln in f.code_lines(RUNBOOK))
              for m in re.findall(r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=", line)}
    assert {"KAFKA_CLUSTER_ID", "UTH_AUDITOR_REPLICAS", "KAFKA_SASL_PASSWORD_FILE"} <= named
    assert named - known == set()


def test_generators_it_gives_produce_usable_values() -> None:
    lines = [argv for _, argv in blocks() if argv[:2] == ["python3", "-c"]]
    assert len(lines) == 2
    outputs = [subprocess.run([sys.executable, "-c", argv[2]], capture_output=True, text=True,
                              check=True).stdout.strip() for argv in lines]
    cluster_id, secret = outputs
    import base64

    assert len(cluster_id) == 22 and len(base64.urlsafe_b64decode(cluster_id + "==")) == 16
    assert len(secret) >= 32 and re.fullmatch(r"[A-Za-z0-9_-]+", secret)  # JAAS-safe


def test_add_a_ruleset_as_the_runbook_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Step 1-2 of "Add a ruleset": a copied, changed file in UTH_RULESETS_DIR is known to
    every command, and `uth theory --ruleset NAME --hands 0` prints its exact trips edge:
    paying a flush 5 to 1 instead of 6 costs the player exactly P(flush) per unit."""
    from events.game.rulesets import known_rulesets
    from pipeline.cli import main

    base = (f.REPO / "events" / "game" / "rulesets" / "charlevoix-2011.toml").read_text()
    changed = base.replace('flush = "6:1"', 'flush = "5:1"')
    assert changed != base
    (tmp_path / "mycasino-2027.toml").write_text(changed)
    monkeypatch.setenv("UTH_RULESETS_DIR", str(tmp_path))
    assert "mycasino-2027" in known_rulesets()

    edges = {}
    for name in ("charlevoix-2011", "mycasino-2027"):
        assert main(["theory", "--ruleset", name, "--hands", "0", "--json"]) == 0
        edges[name] = json.loads(capsys.readouterr().out)["trips_house_edge"]
    flush = 4_047_644 / 133_784_560  # seven-card flushes (not straight flushes) / all hands
    assert edges["mycasino-2027"] - edges["charlevoix-2011"] == pytest.approx(flush, abs=1e-12)

    # a wrong field is named with its file
    (tmp_path / "broken.toml").write_text(changed.replace('flush = "5:1"', 'flush = "five"'))
    assert main(["theory", "--ruleset", "broken", "--hands", "0"]) != 0
    err = capsys.readouterr().err
    assert "broken.toml" in err and "flush" in err


def test_compose_command_checker_rejects_what_does_not_exist() -> None:
    """The checks above can fail."""
    bad = [
        "docker compose -f infra/compose.yaml up -d --scale auditors=2",
        "docker compose -f infra/compose.yaml run --rm auditor uth ingest --no-such-flag",
        "docker compose -f infra/compose.yaml run --rm auditor uth audit --source x.jsonl --at 3",
        "docker compose -f infra/compose.yaml run --rm auditor uth replay --source x.jsonl",
        "docker compose -f infra/compose.yaml run --rm -e NOT_READ auditor uth schema",
        "docker compose -f infra/compose.yaml run --rm auditor uth no-such-command",
        "docker compose -f infra/compose.yaml exec postgres /opt/kafka/bin/kafka-topics.sh",
        "docker compose -f infra/nothing.yaml ps",
    ]
    for line in bad:
        with pytest.raises(AssertionError):
            check_compose(shlex.split(line), "example")


def test_admin_client_file_matches_the_internal_listener() -> None:
    """The properties the runbook writes for the Kafka tools are what the INTERNAL listener
    (the one --bootstrap-server names) accepts, and every tool call uses that file."""
    text = RUNBOOK.read_text()
    body = re.search(r"<<EOF\n(.*?)\nEOF", text, re.DOTALL)
    assert body is not None
    props = dict(line.split("=", 1) for line in body.group(1).splitlines())
    env = f.container_env("kafka-1")
    protocols = dict(p.split(":") for p in env["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"].split(","))
    assert props["security.protocol"] == protocols["INTERNAL"]
    assert props["sasl.mechanism"] in env[
        "KAFKA_LISTENER_NAME_INTERNAL_SASL_ENABLED_MECHANISMS"].split(",")
    assert props["sasl.jaas.config"] == (
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
        'password="${KAFKA_ADMIN_PASSWORD}";')
    tools = [argv for _, argv in blocks() if any(a.startswith("/opt/kafka/bin/") for a in argv)]
    assert len(tools) == 3
    for argv in tools:
        assert argv[argv.index("--command-config") + 1] == "/tmp/admin.properties"
