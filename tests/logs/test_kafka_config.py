"""events.logs.kafka_config: SASL/TLS settings from environment or file, checked, redacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from events.logs.kafka_config import KafkaConfigError, client_config, redact

SCRAM = {"KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "scram-sha-256",
         "KAFKA_SASL_USERNAME": "uth", "KAFKA_SASL_PASSWORD": "pw",
         "KAFKA_SSL_CAFILE": "/ca.pem", "KAFKA_SSL_CHECK_HOSTNAME": "false"}


def test_environment_maps_to_kafka_python_names() -> None:
    assert client_config(SCRAM) == {
        "security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-256",
        "sasl_plain_username": "uth", "sasl_plain_password": "pw", "ssl_cafile": "/ca.pem",
        "ssl_check_hostname": False}
    assert client_config({}) == {}


def test_properties_file_then_environment_overrides(tmp_path: Path) -> None:
    props = tmp_path / "client.properties"
    props.write_text("# cluster\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                     "sasl.username=file-user\nsasl.password=file-pw\n\nclient.id=uth-7\n")
    config = client_config({"KAFKA_CONFIG_FILE": str(props), "KAFKA_SASL_USERNAME": "env-user"})
    assert config == {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN",
                      "sasl_plain_username": "env-user", "sasl_plain_password": "file-pw",
                      "client_id": "uth-7"}


def test_secret_from_a_file(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text("from-file\n")
    env = {**SCRAM, "KAFKA_SASL_PASSWORD": "", "KAFKA_SASL_PASSWORD_FILE": str(secret)}
    assert client_config(env)["sasl_plain_password"] == "from-file"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"KAFKA_SECURITY_PROTOCOL": "TLS"}, "is not one of PLAINTEXT, SSL"),
        ({"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "MD5"}, "MD5"),
        ({"KAFKA_SASL_MECHANISM": "PLAIN", "KAFKA_SASL_USERNAME": "u",
          "KAFKA_SASL_PASSWORD": "p"}, "KAFKA_SECURITY_PROTOCOL is not SASL"),
        ({"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "PLAIN"},
         "needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD"),
        ({"KAFKA_SSL_CHECK_HOSTNAME": "maybe"}, "not true or false"),
        ({"KAFKA_CONFIG_FILE": "/nonexistent/x.properties"}, "KAFKA_CONFIG_FILE"),
    ],
)
def test_bad_settings_name_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(KafkaConfigError, match=message):
        client_config(env)


def test_unknown_file_key_is_refused(tmp_path: Path) -> None:
    props = tmp_path / "p"
    props.write_text("sasl.jaas.config=whatever\n")
    with pytest.raises(KafkaConfigError, match=r"unknown setting 'sasl\.jaas\.config'"):
        client_config({"KAFKA_CONFIG_FILE": str(props)})


def test_redact_hides_secrets_only() -> None:
    assert redact(client_config(SCRAM)) == {**client_config(SCRAM), "sasl_plain_password": "***"}
