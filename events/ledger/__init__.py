"""Tamper evidence: each table's stored events as a Merkle tree, signed checkpoints of the
trees' heads (seals), inclusion proofs and the verification of a store against its seals.

Pure: no kafka, duckdb, dagster or streamlit. ``canonical`` gives the bytes hashed for an
event, ``merkle`` the trees and proofs, ``seal`` the signed checkpoints and keys,
``compare`` the findings of a store against its seals, ``proof`` a hand's proof document.
See docs/tamper-evidence.md.
"""
