"""Access settings from a file or the environment, and ``uth dashboards``' safe default:
with no sign-in configured it serves loopback only and refuses any other address."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards import access, access_log
from pipeline.cli import main

AUTH = {"UTH_OIDC_METADATA_URL": "http://127.0.0.1:9/.well-known/openid-configuration",
        "UTH_OIDC_CLIENT_ID": "uth", "UTH_OIDC_CLIENT_SECRET": "x" * 16,
        "UTH_OIDC_REDIRECT_URI": "http://127.0.0.1:8501/oauth2callback",
        "UTH_OIDC_COOKIE_SECRET": "y" * 32}


def test_nothing_configured_is_one_persons_use() -> None:
    assert access.load({}) is None


def test_settings_from_the_environment() -> None:
    settings = access.load({**AUTH, "UTH_ACCESS_ROLES": "pit=Floor,hand_audit;audit=*"})
    assert settings is not None and settings.role_claim == "roles"
    assert settings.grants(["pit"]) == {"floor", "hand_audit"}
    assert settings.grants("audit") == access.ALL
    assert settings.grants(["guest"]) == frozenset() and settings.grants(None) == frozenset()
    assert "[auth]" in access.secrets_toml(settings) and 'client_id = "uth"' in \
        access.secrets_toml(settings)


def test_settings_from_a_file_with_secrets_in_files(tmp_path: Path) -> None:
    secret = tmp_path / "client"
    secret.write_text("from-a-file\n")
    config = tmp_path / "access.toml"
    config.write_text(
        '[auth]\nserver_metadata_url = "http://idp/.well-known/openid-configuration"\n'
        'client_id = "uth"\n'
        f'client_secret_file = "{secret}"\n'
        'redirect_uri = "https://floor/oauth2callback"\n'
        '[access]\nrole_claim = "groups"\n[access.roles]\nit = ["Health", "download:csv"]\n')
    settings = access.load({"UTH_OIDC_COOKIE_SECRET": "c" * 32}, config)
    assert settings is not None and settings.auth["client_secret"] == "from-a-file"
    assert settings.role_claim == "groups"
    assert settings.grants(["it"]) == {"health", access.CSV}


@pytest.mark.parametrize(("env", "says"), [
    ({"UTH_OIDC_CLIENT_ID": "uth"}, "without server_metadata_url"),
    ({**AUTH, "UTH_ACCESS_ROLES": "pit=Flor"}, "'Flor' is no page"),
    ({**AUTH}, "no role is mapped"),
    ({**AUTH, "UTH_OIDC_REDIRECT_URI": "http://x/", "UTH_ACCESS_ROLES": "a=*"},
     "/oauth2callback"),
])
def test_incomplete_settings_are_named(env: dict[str, str], says: str) -> None:
    with pytest.raises(access.AccessConfigError, match=says):
        access.load(env)


@pytest.mark.parametrize(("address", "loop"), [
    ("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False),
    ("10.1.2.3", False), ("floor.casino", False)])
def test_loopback(address: str, loop: bool) -> None:
    assert access.is_loopback(address) is loop


def test_another_address_without_sign_in_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    for var in [*access.ENV_AUTH.values(), access.ENV_FILE, access.ENV_ROLES]:
        monkeypatch.delenv(var, raising=False)
    code = main(["dashboards", "--warehouse", str(tmp_path / "w.duckdb"),
                 "--address", "0.0.0.0", "--port", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "refusing to serve on 0.0.0.0 with no sign-in configured" in err
    assert "serving" not in err


def test_wrong_settings_stop_the_command(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "access.toml"
    config.write_text('[access.roles]\npit = ["Floor"]\n')
    code = main(["dashboards", "--warehouse", str(tmp_path / "w.duckdb"),
                 "--access", str(config)])
    assert code == 2 and "sign-in is configured without" in capsys.readouterr().err


def test_the_log_only_appends(tmp_path: Path) -> None:
    log = access_log.default_path(tmp_path / "w.duckdb")
    assert log.name == "w.duckdb.access.jsonl"
    access_log.append(log, access_log.record({"sub": "u1"}, ["pit"], "page", page="floor"))
    access_log.append(log, access_log.record({"sub": "u1", "email": "a@b"}, ["pit"], "hand",
                                             hand="H1", players=None))
    with log.open("a") as f:
        f.write('{"torn')  # a line cut by a crash stays visible, read as unreadable
    rows = access_log.read(log)
    assert [r.get("what") for r in rows] == ["page", "hand", None]
    assert rows[1]["email"] == "a@b" and "players" not in rows[1]
    assert rows[2] == {"unreadable": 3} and oct(log.stat().st_mode & 0o777) == "0o600"
