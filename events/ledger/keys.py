"""Ed25519 key pairs for seals: ``PREFIX`` (the private key, PKCS#8 PEM, mode 0600) and
``PREFIX.pub`` (the public key, SubjectPublicKeyInfo PEM, for anyone who verifies).

The private key is read only to sign and never leaves this module but as a signature: it
is not logged, not stored with a seal, and its file is created with mode 0600 from the
start (never written first and restricted after).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)


class LedgerKeyError(ValueError):
    """A key file that is missing, unreadable, of another kind, or too widely readable."""


def public_path(prefix: str | Path) -> Path:
    return Path(f"{prefix}.pub")


def generate(prefix: str | Path, *, overwrite: bool = False) -> tuple[Path, Path]:
    """Write a new key pair; refuses to replace an existing key unless ``overwrite``."""
    private = Path(prefix)
    public = public_path(prefix)
    if not overwrite and (private.exists() or public.exists()):
        raise LedgerKeyError(f"{private} or {public} exists already; not replaced")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    private.parent.mkdir(parents=True, exist_ok=True)
    if overwrite and private.exists():
        private.unlink()
    fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(pem)
    os.chmod(private, 0o600)  # whatever the umask did
    public.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def load_private(prefix: str | Path) -> Ed25519PrivateKey:
    """The private key at ``prefix``; refuses a file others may read."""
    path = Path(prefix)
    try:
        mode = path.stat().st_mode & 0o777
        data = path.read_bytes()
    except OSError as exc:
        raise LedgerKeyError(f"{path}: cannot read the private key ({exc.strerror})") from exc
    if data.lstrip().startswith(b"-----BEGIN PUBLIC KEY-----"):  # floor-seal.pub, by mistake
        stem = path.with_suffix("") if path.suffix == ".pub" else "the key pair's prefix"
        raise LedgerKeyError(f"{path}: this is the public key; sealing needs the private key "
                             f"({stem})")
    if mode & 0o077:
        raise LedgerKeyError(f"{path}: the private key is readable by others (mode {mode:o}); "
                        "chmod 600 it")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise LedgerKeyError(f"{path}: not a PEM private key") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise LedgerKeyError(f"{path}: not an Ed25519 key")
    return key


def load_public(path: str | Path) -> Ed25519PublicKey:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LedgerKeyError(f"{path}: cannot read the public key ({exc.strerror})") from exc
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise LedgerKeyError(f"{path}: not a PEM public key") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise LedgerKeyError(f"{path}: not an Ed25519 key")
    return key


def key_id(public: Ed25519PublicKey) -> str:
    """A short name of a public key: the first 16 hex digits of SHA-256 of its raw bytes."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def signature_valid(public: Ed25519PublicKey, signature: bytes, data: bytes) -> bool:
    try:
        public.verify(signature, data)
    except InvalidSignature:
        return False
    return True
