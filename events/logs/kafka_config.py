"""Kafka client settings from the environment or a config file, never from code.

Security settings (SASL, TLS) reach kafka-python from, in increasing priority:

1. a properties file named by ``KAFKA_CONFIG_FILE`` (``key=value`` lines, Java client
   names: ``security.protocol``, ``sasl.mechanism``, ``sasl.username``, ``sasl.password``,
   ``ssl.truststore.location`` is *not* read: use ``ssl.cafile``... see ``FILE_KEYS``);
2. environment variables (``ENV_KEYS``): ``KAFKA_SECURITY_PROTOCOL``,
   ``KAFKA_SASL_MECHANISM``, ``KAFKA_SASL_USERNAME``, ``KAFKA_SASL_PASSWORD``,
   ``KAFKA_SSL_CAFILE``, ``KAFKA_SSL_CERTFILE``, ``KAFKA_SSL_KEYFILE``,
   ``KAFKA_SSL_PASSWORD``, ``KAFKA_SSL_CHECK_HOSTNAME``, ``KAFKA_CLIENT_ID``.

``KAFKA_BOOTSTRAP_SERVERS`` is used when a ``kafka://`` URL names no host.

Example (SCRAM over TLS)::

    export KAFKA_SECURITY_PROTOCOL=SASL_SSL KAFKA_SASL_MECHANISM=SCRAM-SHA-512
    export KAFKA_SASL_USERNAME=uth-ingest KAFKA_SASL_PASSWORD_FILE=/run/secrets/kafka
    export KAFKA_SSL_CAFILE=/etc/uth/ca.pem

A ``*_FILE`` variant of a secret (``KAFKA_SASL_PASSWORD_FILE``, ``KAFKA_SSL_PASSWORD_FILE``)
reads it from a file (Docker/Kubernetes secrets). :func:`redact` masks secrets for logs.

>>> client_config({"KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "PLAIN",
...                "KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD": "p"})["security_protocol"]
'SASL_SSL'
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ENV_KEYS = {
    "KAFKA_SECURITY_PROTOCOL": "security_protocol",
    "KAFKA_SASL_MECHANISM": "sasl_mechanism",
    "KAFKA_SASL_USERNAME": "sasl_plain_username",
    "KAFKA_SASL_PASSWORD": "sasl_plain_password",
    "KAFKA_SSL_CAFILE": "ssl_cafile",
    "KAFKA_SSL_CERTFILE": "ssl_certfile",
    "KAFKA_SSL_KEYFILE": "ssl_keyfile",
    "KAFKA_SSL_PASSWORD": "ssl_password",
    "KAFKA_SSL_CRLFILE": "ssl_crlfile",
    "KAFKA_SSL_CHECK_HOSTNAME": "ssl_check_hostname",
    "KAFKA_CLIENT_ID": "client_id",
}
FILE_KEYS = {
    "security.protocol": "security_protocol",
    "sasl.mechanism": "sasl_mechanism",
    "sasl.username": "sasl_plain_username",
    "sasl.password": "sasl_plain_password",
    "ssl.cafile": "ssl_cafile",
    "ssl.ca.location": "ssl_cafile",
    "ssl.certfile": "ssl_certfile",
    "ssl.certificate.location": "ssl_certfile",
    "ssl.keyfile": "ssl_keyfile",
    "ssl.key.location": "ssl_keyfile",
    "ssl.password": "ssl_password",
    "ssl.key.password": "ssl_password",
    "ssl.check.hostname": "ssl_check_hostname",
    "client.id": "client_id",
}
SECRETS = frozenset({"sasl_plain_password", "ssl_password"})
PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")


class KafkaConfigError(ValueError):
    """Settings that cannot work together; the message names the variable to fix."""


def read_properties(path: Path) -> dict[str, str]:
    """``key=value`` lines (``#`` and ``!`` comments, blank lines ignored)."""
    out: dict[str, str] = {}
    try:
        text = path.read_text()
    except OSError as exc:
        raise KafkaConfigError(f"KAFKA_CONFIG_FILE {path}: {exc.strerror}") from exc
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise KafkaConfigError(f"{path}:{number}: expected key=value")
        out[key.strip()] = value.strip()
    return out


def client_config(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """kafka-python keyword arguments for security and identity, from file then env."""
    env = os.environ if env is None else env
    config: dict[str, Any] = {}
    file_name = env.get("KAFKA_CONFIG_FILE")
    if file_name:
        for key, value in read_properties(Path(file_name)).items():
            name = FILE_KEYS.get(key)
            if name is None:
                raise KafkaConfigError(
                    f"{file_name}: unknown setting {key!r} (known: {', '.join(sorted(FILE_KEYS))})")
            config[name] = value
    for var, name in ENV_KEYS.items():
        if env.get(var):
            config[name] = env[var]
        file_var = f"{var}_FILE"
        if name in SECRETS and env.get(file_var):
            try:
                config[name] = Path(env[file_var]).read_text().strip()
            except OSError as exc:
                raise KafkaConfigError(f"{file_var}: {exc.strerror}") from exc
    return _normalize(config)


def _normalize(config: dict[str, Any]) -> dict[str, Any]:
    if "security_protocol" in config:
        protocol = str(config["security_protocol"]).upper()
        if protocol not in PROTOCOLS:
            raise KafkaConfigError(
                f"KAFKA_SECURITY_PROTOCOL {protocol!r} is not one of {', '.join(PROTOCOLS)}")
        config["security_protocol"] = protocol
    if "sasl_mechanism" in config:
        mechanism = str(config["sasl_mechanism"]).upper()
        if mechanism not in MECHANISMS:
            raise KafkaConfigError(
                f"KAFKA_SASL_MECHANISM {mechanism!r} is not one of {', '.join(MECHANISMS)}")
        config["sasl_mechanism"] = mechanism
        if not str(config.get("security_protocol", "")).startswith("SASL"):
            raise KafkaConfigError(
                "KAFKA_SASL_MECHANISM is set but KAFKA_SECURITY_PROTOCOL is not SASL_SSL or "
                "SASL_PLAINTEXT")
        if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") and not (
            config.get("sasl_plain_username") and config.get("sasl_plain_password")
        ):
            raise KafkaConfigError(
                f"SASL {mechanism} needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD")
    if "ssl_check_hostname" in config:
        flag = str(config["ssl_check_hostname"]).strip().lower()
        if flag not in ("true", "false", "1", "0", "yes", "no"):
            raise KafkaConfigError(f"KAFKA_SSL_CHECK_HOSTNAME {flag!r} is not true or false")
        config["ssl_check_hostname"] = flag in ("true", "1", "yes")
    return config


def bootstrap_servers(hosts: str, env: Mapping[str, str] | None = None) -> list[str]:
    """The URL's ``host:port[,host:port]`` or, when empty, ``KAFKA_BOOTSTRAP_SERVERS``."""
    env = os.environ if env is None else env
    text = hosts or env.get("KAFKA_BOOTSTRAP_SERVERS", "")
    servers = [h.strip() for h in text.split(",") if h.strip()]
    if not servers:
        raise KafkaConfigError("no Kafka host: give kafka://host:port or set "
                               "KAFKA_BOOTSTRAP_SERVERS")
    return servers


def redact(config: Mapping[str, Any]) -> dict[str, Any]:
    """The config with secrets replaced by ``***`` (safe to print or log)."""
    return {k: ("***" if k in SECRETS and v else v) for k, v in config.items()}


class RedactingFilter(logging.Filter):
    """Masks secrets in a log record's mapping arguments: kafka-python's admin client logs
    its whole configuration (SASL and key passwords included) at DEBUG level."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, Mapping):
            record.args = redact(args)
        elif isinstance(args, tuple):
            record.args = tuple(redact(a) if isinstance(a, Mapping) else a for a in args)
        return True


_REDACTING = RedactingFilter()
#: kafka-python loggers that print client configurations.
CONFIG_LOGGERS = ("kafka.admin.client",)


def install_log_redaction() -> None:
    """Attach :class:`RedactingFilter` to the kafka-python loggers that print configs."""
    for name in CONFIG_LOGGERS:
        logger = logging.getLogger(name)
        if _REDACTING not in logger.filters:
            logger.addFilter(_REDACTING)
