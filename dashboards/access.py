"""Who may open what on the dashboards: the pages' one registry, and the sign-in settings
read from a file or the environment, never from code (no Streamlit here).

The file (``uth dashboards --access FILE`` or ``UTH_ACCESS_CONFIG``) is TOML::

    [auth]                      # Streamlit's st.login, OpenID Connect
    server_metadata_url = "https://idp.casino.example/.well-known/openid-configuration"
    client_id = "uth-dashboards"
    client_secret_file = "/run/secrets/uth-oidc-client"   # or client_secret = ...
    redirect_uri = "https://floor.casino.example/oauth2callback"
    cookie_secret_file = "/run/secrets/uth-cookie"         # or cookie_secret = ...

    [access]
    role_claim = "roles"        # the ID token's claim holding the user's roles
    log = "/var/lib/uth/access-log.jsonl"   # default: beside the warehouse
    [access.roles]
    pit = ["Floor", "Live", "Hand audit", "Disputes", "Hold report", "download:csv"]
    audit = ["*"]

Each ``[auth]`` key may come from the environment instead (``ENV_AUTH``, a ``*_FILE``
variant for the two secrets), the roles from ``UTH_ACCESS_ROLES``
(``pit=Floor,Live;audit=*``), the claim from ``UTH_ACCESS_ROLE_CLAIM``, the log's path from
``UTH_ACCESS_LOG``. The environment wins over the file.
"""

from __future__ import annotations

import ipaddress
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_FILE = "UTH_ACCESS_CONFIG"
ENV_ROLES = "UTH_ACCESS_ROLES"
ENV_ROLE_CLAIM = "UTH_ACCESS_ROLE_CLAIM"
ENV_LOG = "UTH_ACCESS_LOG"
ENV_AUTH = {
    "server_metadata_url": "UTH_OIDC_METADATA_URL",
    "client_id": "UTH_OIDC_CLIENT_ID",
    "client_secret": "UTH_OIDC_CLIENT_SECRET",
    "redirect_uri": "UTH_OIDC_REDIRECT_URI",
    "cookie_secret": "UTH_OIDC_COOKIE_SECRET",
}
SECRETS = ("client_secret", "cookie_secret")  # may be read from a file (``*_file``)
EVERYTHING = "*"
CSV = "download:csv"
EVIDENCE = "download:evidence"
DOWNLOADS = {CSV: "every table's CSV", EVIDENCE: "a hand's evidence (JSON, printable sheet)"}


@dataclass(frozen=True)
class PageSpec:
    """One page: its script under ``dashboards/``, title, URL path and icon."""

    script: str
    title: str
    url_path: str
    icon: str


# The one list of pages: the navigation, the roles and the tests all name pages from it.
PAGES: tuple[PageSpec, ...] = (
    PageSpec("app_pages/floor.py", "Floor", "floor", ":material/casino:"),
    PageSpec("app_pages/trips.py", "Trips", "trips", ":material/target:"),
    PageSpec("app_pages/hand_audit.py", "Hand audit", "hand_audit", ":material/search:"),
    PageSpec("app_pages/live.py", "Live", "live", ":material/monitor_heart:"),
    PageSpec("app_pages/findings.py", "Findings", "findings", ":material/report:"),
    PageSpec("app_pages/disputes.py", "Disputes", "disputes", ":material/gavel:"),
    PageSpec("app_pages/hold.py", "Hold report", "hold", ":material/table_chart:"),
    PageSpec("app_pages/dealers.py", "Dealers", "dealers", ":material/badge:"),
    PageSpec("app_pages/players.py", "Players", "players", ":material/groups:"),
    PageSpec("app_pages/health.py", "Health", "health", ":material/dns:"),
    PageSpec("app_pages/access_log.py", "Access log", "access_log", ":material/policy:"),
)


class AccessConfigError(ValueError):
    """The access settings are incomplete or name what does not exist."""


@dataclass(frozen=True)
class Settings:
    """Sign-in configured: Streamlit's ``[auth]`` keys, the roles' claim and grants."""

    auth: Mapping[str, str]
    role_claim: str
    roles: Mapping[str, frozenset[str]]
    log: str | None

    def grants(self, claim: Any) -> frozenset[str]:
        """What a user whose role claim is ``claim`` (a name or a list of names) may open:
        page URL paths and download names."""
        names = [claim] if isinstance(claim, str) else list(claim or ())
        out: set[str] = set()
        for name in names:
            out |= self.roles.get(str(name), frozenset())
        return frozenset(out)


ALL = frozenset([p.url_path for p in PAGES] + list(DOWNLOADS))


def item(name: str) -> frozenset[str]:
    """A role's entry as grants: a page by title or URL path, a download, or ``*``."""
    wanted = name.strip().casefold()
    if wanted == EVERYTHING:
        return ALL
    for page in PAGES:
        if wanted in (page.title.casefold(), page.url_path.casefold()):
            return frozenset([page.url_path])
    if wanted in DOWNLOADS:
        return frozenset([wanted])
    known = ", ".join([p.title for p in PAGES] + list(DOWNLOADS))
    raise AccessConfigError(f"role entry {name!r} is no page or download (known: {known}, *)")


def _roles_from_env(text: str) -> dict[str, list[str]]:
    roles: dict[str, list[str]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        role, sep, items = part.partition("=")
        if not sep or not role.strip():
            raise AccessConfigError(f"{ENV_ROLES}: {part!r} is not ROLE=Page,Page")
        roles[role.strip()] = [i for i in (x.strip() for x in items.split(",")) if i]
    return roles


def _read_secret(path: str, key: str) -> str:
    try:
        return Path(path).expanduser().read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise AccessConfigError(f"{key}: cannot read {path}: {exc.strerror}") from exc


def load(env: Mapping[str, str], path: Path | None = None) -> Settings | None:
    """The sign-in settings, or None when nothing configures sign-in (then the dashboards
    are one person's, on loopback only)."""
    doc: dict[str, Any] = {}
    path = path or (Path(env[ENV_FILE]) if env.get(ENV_FILE) else None)
    if path is not None:
        try:
            doc = tomllib.loads(path.expanduser().read_text(encoding="utf-8"))
        except OSError as exc:
            raise AccessConfigError(f"{path}: {exc.strerror}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise AccessConfigError(f"{path}: not TOML: {exc}") from exc
    auth_doc, access_doc = doc.get("auth", {}), doc.get("access", {})
    if not isinstance(auth_doc, dict) or not isinstance(access_doc, dict):
        raise AccessConfigError("[auth] and [access] must be tables")
    auth: dict[str, str] = {}
    for key, var in ENV_AUTH.items():
        value = env.get(var) or auth_doc.get(key)
        if not value and key in SECRETS:
            secret_file = env.get(f"{var}_FILE") or auth_doc.get(f"{key}_file")
            value = _read_secret(str(secret_file), key) if secret_file else None
        if value:
            auth[key] = str(value)
    roles_doc: Any = (_roles_from_env(env[ENV_ROLES]) if env.get(ENV_ROLES)
                      else access_doc.get("roles", {}))
    if not auth and not roles_doc:
        return None
    missing = [f"{k} ({ENV_AUTH[k]})" for k in ENV_AUTH if k not in auth]
    if missing:
        raise AccessConfigError(f"sign-in is configured without {', '.join(missing)}")
    if not auth["redirect_uri"].endswith("/oauth2callback"):
        raise AccessConfigError("redirect_uri must end with /oauth2callback (Streamlit's)")
    if not isinstance(roles_doc, dict) or not roles_doc:
        raise AccessConfigError("no role is mapped to any page ([access.roles] or "
                                f"{ENV_ROLES})")
    roles: dict[str, frozenset[str]] = {}
    for role, entries in roles_doc.items():
        if isinstance(entries, str) or not isinstance(entries, list):
            raise AccessConfigError(f"role {role!r}: a list of pages, e.g. [\"Floor\"]")
        roles[str(role)] = frozenset().union(*(item(str(e)) for e in entries))
    claim = env.get(ENV_ROLE_CLAIM) or access_doc.get("role_claim") or "roles"
    log = env.get(ENV_LOG) or access_doc.get("log")
    return Settings(auth=auth, role_claim=str(claim), roles=roles,
                    log=str(log) if log else None)


def is_loopback(address: str) -> bool:
    """True for an address only this machine reaches (``127.0.0.1``, ``::1``, localhost)."""
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def secrets_toml(settings: Settings) -> str:
    """Streamlit's secrets file for ``st.login``: the ``[auth]`` table."""
    import json

    lines = ["[auth]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in sorted(settings.auth.items())]
    return "\n".join(lines) + "\n"
