"""infra/compose.yaml (and the TLS overlay): the Kafka cluster's settings hang together, the
UTH services run commands the project really has, and every variable, path and module they
name exists."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import pytest

from tests.infra import infra_files as f

BROKERS = ("kafka-1", "kafka-2", "kafka-3")
UTH_SERVICES = ("kafka-topics", "dagster-webserver", "dagster-daemon", "auditor", "dashboards",
                "simulator")


def broker_properties(name: str, overlay: bool = False) -> dict[str, str]:
    """The server.properties the apache/kafka image renders from a broker's environment:
    KAFKA_ prefix dropped, ``___`` -> ``-``, ``__`` -> ``_``, ``_`` -> ``.``, lower case."""
    env = f.container_env(name)
    if overlay:
        extra = f.environment(f.compose_tls()["services"][name])
        env.update(f.interpolate(extra, f.env_example()))
    props = {}
    for key, value in env.items():
        if not key.startswith("KAFKA_") or key in ("KAFKA_HEAP_OPTS", "KAFKA_OPTS"):
            continue
        name_ = key[len("KAFKA_"):].replace("___", "\0").replace("__", "\1").replace("_", ".")
        props[name_.replace("\0", "-").replace("\1", "_").lower()] = value
    return props


def listeners(props: dict[str, str]) -> dict[str, int]:
    out = {}
    for item in props["listeners"].split(","):
        name, _, address = item.partition("://")
        out[name] = int(address.rsplit(":", 1)[1])
    return out


def protocols(props: dict[str, str]) -> dict[str, str]:
    return dict(item.split(":") for item in props["listener.security.protocol.map"].split(","))


def test_expected_services_exist() -> None:
    assert set(f.services()) == set(BROKERS) | set(UTH_SERVICES) | {"postgres"}


@pytest.mark.parametrize("name", BROKERS)
def test_each_broker_is_a_kraft_node_of_one_cluster(name: str) -> None:
    service = f.services()[name]
    assert service["image"].startswith("${KAFKA_IMAGE:-apache/kafka:")
    props = broker_properties(name)
    assert props["process.roles"] == "broker,controller"
    assert "zookeeper.connect" not in props
    node = int(props["node.id"])
    assert node == BROKERS.index(name) + 1
    voters = dict(v.split("@") for v in props["controller.quorum.voters"].split(","))
    assert voters == {"1": "kafka-1:9093", "2": "kafka-2:9093", "3": "kafka-3:9093"}
    ports = listeners(props)
    assert ports[props["controller.listener.names"]] == 9093  # the port the voters name
    assert service["hostname"] == name
    # The cluster id comes from the env file, the same for all three.
    cluster = f.environment(service)["CLUSTER_ID"]
    assert cluster == "${KAFKA_CLUSTER_ID:?set KAFKA_CLUSTER_ID in infra/.env}"


@pytest.mark.parametrize("overlay", [False, True], ids=["plain", "tls"])
@pytest.mark.parametrize("name", BROKERS)
def test_listeners_protocols_and_sasl_settings_agree(name: str, overlay: bool) -> None:
    props = broker_properties(name, overlay)
    ports = listeners(props)
    proto = protocols(props)
    assert set(ports) == set(proto), "every listener needs a protocol and vice versa"
    assert len(set(ports.values())) == len(ports), "two listeners on one port"
    advertised = dict(item.split("://") for item in props["advertised.listeners"].split(","))
    controller = props["controller.listener.names"]
    assert set(advertised) == set(ports) - {controller}
    for listener, address in advertised.items():
        host, port = address.rsplit(":", 1)
        if listener == "EXTERNAL":  # published on the host: 19094, 29094, 39094
            assert f.services()[name]["ports"] == [f"{port}:{ports[listener]}"]
        else:  # inside the compose network: the broker's own name and its real port
            assert (host, int(port)) == (name, ports[listener])
    assert props["inter.broker.listener.name"] in ports
    assert proto[controller] == "PLAINTEXT"  # private network, no credentials for the quorum
    for listener, protocol in proto.items():
        if not protocol.startswith("SASL_"):
            continue
        prefix = f"listener.name.{listener.lower()}."
        mechanisms = props[prefix + "sasl.enabled.mechanisms"].split(",")
        for mechanism in mechanisms:
            jaas = props.get(f"{prefix}{mechanism.lower()}.sasl.jaas.config")
            assert jaas, f"{listener}: no JAAS config for {mechanism}"
            module = {"PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
                      "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
                      "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
                      }[mechanism]
            assert jaas.startswith(module + " required") and jaas.endswith(";")
        if protocol == "SASL_SSL":
            assert props[prefix + "ssl.keystore.location"] == f"/etc/kafka/secrets/{name}.pem"
            assert props[prefix + "ssl.keystore.type"] == "PEM"
    inter = props["inter.broker.listener.name"]
    assert props["sasl.mechanism.inter.broker.protocol"] in props[
        f"listener.name.{inter.lower()}.sasl.enabled.mechanisms"].split(",")
    # The inter-broker PLAIN login is the admin user, whose password the env file supplies.
    jaas = props[f"listener.name.{inter.lower()}.plain.sasl.jaas.config"]
    assert 'username="admin"' in jaas and 'user_admin="CHANGE_ME"' in jaas
    if overlay:
        assert proto["EXTERNAL"] == "SASL_SSL"


@pytest.mark.parametrize("name", BROKERS)
def test_durability_settings(name: str) -> None:
    props = broker_properties(name)
    assert props["default.replication.factor"] == "3"
    assert props["min.insync.replicas"] == "2"
    assert props["unclean.leader.election.enable"] == "false"
    assert props["auto.create.topics.enable"] == "false"
    assert props["offsets.topic.replication.factor"] == "3"
    assert props["transaction.state.log.replication.factor"] == "3"
    assert props["transaction.state.log.min.isr"] == "2"
    assert props["log.retention.hours"] == "-1"
    data = props["log.dirs"]
    assert f.services()[name]["volumes"] == [f"{name}:{data}"]
    assert name in f.compose()["volumes"]


def test_uth_clients_speak_what_the_client_listener_offers() -> None:
    """The client settings of every UTH service go through events.logs' own reader and
    land on a listener that offers that protocol and mechanism."""
    from events.logs.kafka_config import ENV_KEYS, bootstrap_servers, client_config

    props = broker_properties("kafka-1")
    ports = listeners(props)
    proto = protocols(props)
    for name in UTH_SERVICES:
        env = f.container_env(name)
        kafka_vars = {k for k in env if k.startswith("KAFKA_")}
        if name == "dashboards":  # reads only the warehouse
            assert not kafka_vars
            continue
        assert kafka_vars <= set(ENV_KEYS) | {"KAFKA_BOOTSTRAP_SERVERS"}, name
        config = client_config(env)
        servers = bootstrap_servers("", env)
        assert [s.split(":")[0] for s in servers] == list(BROKERS), name
        (port,) = {int(s.split(":")[1]) for s in servers}
        (listener,) = [n for n, p in ports.items() if p == port]
        assert config["security_protocol"] == proto[listener], name
        enabled = props[f"listener.name.{listener.lower()}.sasl.enabled.mechanisms"].split(",")
        assert config["sasl_mechanism"] in enabled, name
        if config["sasl_mechanism"] == "PLAIN":  # the admin job: the JAAS user list has it
            jaas = props[f"listener.name.{listener.lower()}.plain.sasl.jaas.config"]
            assert f'user_{config["sasl_plain_username"]}="{config["sasl_plain_password"]}"' in jaas
        else:  # SCRAM: the user the topic job creates
            job = f.command(f.services()["kafka-topics"])
            assert job is not None
            assert config["sasl_plain_username"] == f.interpolate(
                job[job.index("--scram-user") + 1], f.env_example())
            assert config["sasl_plain_password"] == f.container_env("kafka-topics")[
                "UTH_SCRAM_PASSWORD"]


def test_uth_services_use_the_image_and_wait_for_the_topics() -> None:
    for name in UTH_SERVICES:
        service = f.services()[name]
        assert service["image"] == "${UTH_IMAGE:-uth-floor:latest}", name
        assert service["build"] == {"context": "..", "dockerfile": "infra/Dockerfile"}, name
        assert (f.INFRA / service["build"]["context"] / service["build"]["dockerfile"]).is_file()
        if name not in ("kafka-topics", "dashboards"):
            assert service["depends_on"]["kafka-topics"] == {
                "condition": "service_completed_successfully"}, name
    assert f.services()["kafka-topics"]["restart"] == "no"


def test_depends_on_and_volumes_name_what_exists() -> None:
    named = set(f.compose()["volumes"])
    for name, service in f.services().items():
        for other in service.get("depends_on") or {}:
            assert other in f.services(), f"{name} depends on unknown {other}"
        for item in service.get("volumes") or []:
            source = str(item).split(":")[0]
            if source.startswith("."):
                assert (f.INFRA / source).exists(), f"{name}: bind mount {source} is missing"
            else:
                assert source in named, f"{name}: volume {source} is not declared"
    for name, service in f.compose_tls()["services"].items():
        assert name in f.services()
        for item in service.get("volumes") or []:
            source = str(item).split(":")[0]
            assert source.startswith("./secrets/"), "the overlay mounts only operator secrets"


def test_host_ports_do_not_collide() -> None:
    published = [f.interpolate(str(p), f.env_example()) for s in f.services().values()
                 for p in s.get("ports", [])]
    published = [p.rsplit(":", 1)[0].rsplit(":", 1)[-1] for p in published]  # the host's
    assert len(published) == len(set(published)), published


def test_auditor_is_a_scalable_consumer_group_service() -> None:
    auditor = f.services()["auditor"]
    assert "container_name" not in auditor and "ports" not in auditor  # N copies can run
    replicas = int(f.interpolate(str(auditor["deploy"]["replicas"]), f.env_example()))
    assert 1 <= replicas <= f.topics()["uth.table-events"].partitions
    argv = f.command(auditor)
    assert argv is not None and argv[:3] == ["uth", "audit", "--follow"]
    # the group and findings topic it joins by default are the ones the runbook and
    # topics.yaml name
    from events.audit.follow import CONSUMER, FINDINGS_TOPIC

    args = f.uth_subcommands()["audit"].parse_args(argv[2:])
    assert args.consumer == CONSUMER == "uth-auditor"
    assert args.findings_topic == FINDINGS_TOPIC and FINDINGS_TOPIC in f.topics()
    assert auditor["stop_grace_period"] == "60s"  # SIGTERM: finish the batch, commit, exit


def test_every_kafka_url_names_the_cluster_and_a_declared_topic() -> None:
    from events.logs.kafka import parse_url

    urls = [token for s in f.services().values() for token in (f.command(s) or [])
            if token.startswith("kafka://")]
    urls += [v for name in UTH_SERVICES for v in f.container_env(name).values()
             if v.startswith("kafka://")]
    assert len(urls) >= 3
    for url in urls:
        target = parse_url(url, {})
        assert target.topic in f.topics(), url
        assert target.dead_letter_topic in f.topics(), url
        assert [h.split(":")[0] for h in url[len("kafka://"):].split("/")[0].split(",")] == list(
            BROKERS), url


@pytest.mark.parametrize("name", [n for n in UTH_SERVICES if n != "kafka-topics"])
def test_service_commands_exist_in_the_project(name: str) -> None:
    service = f.services()[name]
    argv = f.command(service)
    assert argv, name
    if argv[0] == "uth":
        f.check_uth(argv[1:], f"compose.yaml {name}")
    else:
        assert argv[0] in ("dagster-webserver", "dagster-daemon"), name
        # Paths inside the container are checked where they come from (image or mount).
        local = []
        for token in argv[1:]:
            if token.startswith("/"):
                src = f.host_path(token, service)
                assert src is not None and src.is_file(), f"{name}: {token} is not provided"
                token = str(src)
            local.append(token)
        f.check_click(argv[0], local, f"compose.yaml {name}")


def test_topic_job_command_parses_with_its_own_parser() -> None:
    service = f.services()["kafka-topics"]
    argv = f.interpolate(f.command(service), f.env_example())
    assert argv[0] == "python"
    script = f.host_path(argv[1], service)
    assert script == (f.INFRA / "kafka" / "create_topics.py").resolve()
    args = f.create_topics().build_parser().parse_args(argv[2:])
    assert f.host_path(str(args.file), service) == (f.INFRA / "kafka" / "topics.yaml").resolve()
    assert args.scram_user == "uth" and not args.fix and not args.check
    assert f.container_env("kafka-topics")["KAFKA_BOOTSTRAP_SERVERS"].endswith(":19092")


def test_dagster_services_share_the_instance_and_warehouse() -> None:
    web, daemon = f.services()["dagster-webserver"], f.services()["dagster-daemon"]
    assert f.environment(web) == f.environment(daemon)
    env = f.container_env("dagster-daemon")
    assert env["DAGSTER_HOME"] == f.docker_env()["DAGSTER_HOME"]
    assert f.host_path(env["DAGSTER_HOME"] + "/dagster.yaml") == f.INFRA / "dagster/dagster.yaml"
    warehouse = env["UTH_WAREHOUSE"]
    daemon_volumes = {str(v).split(":")[1]: str(v).split(":")[0] for v in daemon["volumes"]}
    assert daemon_volumes.get(str(PurePosixPath(warehouse).parent)) == "warehouse"
    # The dashboards read that same file, from the same volume, mounted read-only.
    dash = f.services()["dashboards"]
    argv = f.command(dash)
    assert argv is not None and argv[argv.index("--warehouse") + 1] == warehouse
    assert f"warehouse:{PurePosixPath(warehouse).parent}:ro" in dash["volumes"]
    assert argv[argv.index("--address") + 1] == "0.0.0.0"  # reachable through the port map
    assert dash["ports"] == [  # loopback: the proxy in front (test_ports.py)
        f"127.0.0.1:${{DASHBOARDS_PORT:-8501}}:{argv[argv.index('--port') + 1]}"]


def test_postgres_credentials_match_what_dagster_reads() -> None:
    pg = f.container_env("postgres")
    dagster = f.container_env("dagster-daemon")
    assert pg["POSTGRES_DB"] == dagster["DAGSTER_POSTGRES_DB"]
    assert pg["POSTGRES_USER"] == dagster["DAGSTER_POSTGRES_USER"]
    assert pg["POSTGRES_PASSWORD"] == dagster["DAGSTER_POSTGRES_PASSWORD"]
    assert dagster["DAGSTER_POSTGRES_HOST"] == "postgres"
    assert f.services()["dagster-daemon"]["depends_on"]["postgres"] == {
        "condition": "service_healthy"}


def test_uth_variables_given_to_containers_are_read_by_the_project() -> None:
    """A UTH_* variable set for a container must be one the code reads (a typo would be
    silently ignored)."""
    sources = "\n".join(p.read_text() for d in ("events", "pipeline", "dashboards")
                        for p in (f.REPO / d).rglob("*.py"))
    given = {k for name in UTH_SERVICES for k in f.container_env(name) if k.startswith("UTH_")}
    given |= {k for k in f.docker_env() if k.startswith("UTH_")}
    given.discard("UTH_SCRAM_PASSWORD")  # read by infra/kafka/create_topics.py
    assert given
    for var in sorted(given):
        assert re.search(rf"[\"']{var}[\"']", sources), f"{var} is read nowhere in the project"
    assert "UTH_SCRAM_PASSWORD" in (f.INFRA / "kafka" / "create_topics.py").read_text()


def test_required_secrets_have_no_default() -> None:
    text_values = [s for doc in (f.compose(), f.compose_tls()) for s in f.strings(doc)]
    for value in text_values:
        for m in re.finditer(r"\$\{([A-Z_]*(?:PASSWORD|SECRET|TOKEN|CLUSTER_ID)[A-Z_]*)([^}]*)\}",
                             value):
            assert m.group(2).startswith(":?"), f"${{{m.group(1)}}} must be required (:?)"


def test_every_compose_variable_is_documented_and_every_documented_one_used() -> None:
    documented = set(f.env_example())
    used = f.compose_variables()
    assert used - documented == set(), "used in compose but not in infra/.env.example"
    assert documented - used == set(), "in infra/.env.example but used by no compose file"


def test_interpolation_fails_without_the_secrets() -> None:
    """With an empty environment compose would refuse to start (the :? form)."""
    with pytest.raises(KeyError, match="KAFKA_ADMIN_PASSWORD"):
        f.interpolate(f.environment(f.services()["kafka-topics"]), {})
