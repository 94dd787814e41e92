"""Merkle trees over a table's leaves (RFC 6962, section 2.1), inclusion proofs and their
check.

The tree of ``n`` leaves splits at the largest power of two below ``n``; an inner node is
SHA-256 of 0x01, its left and its right child. A tree's root is built bottom-up here, one
level at a time (each level pairs its nodes, an odd last node rises unchanged), which gives
the same root as the recursive definition and costs one hash per inner node.

>>> leaves = [bytes([i]) * 32 for i in range(5)]
>>> root = tree_root(leaves)
>>> all(verify_inclusion(leaves[i], i, 5, inclusion_proof(leaves, i), root)
...     for i in range(5))
True
>>> verify_inclusion(leaves[1], 2, 5, inclusion_proof(leaves, 2), root)
False
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from events.ledger.canonical import NODE_PREFIX

EMPTY_ROOT = hashlib.sha256(b"").digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def tree_root(leaves: Sequence[bytes]) -> bytes:
    """The root of the tree of ``leaves`` (leaf hashes, in order); of none: SHA-256("")."""
    if not leaves:
        return EMPTY_ROOT
    level = list(leaves)
    sha = hashlib.sha256
    prefix = NODE_PREFIX
    while len(level) > 1:
        paired = [sha(prefix + left + right).digest()
                  for left, right in zip(level[0::2], level[1::2], strict=False)]  # odd: rises
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree of ``leaves`` (RFC 6962 PATH)."""
    if not 0 <= index < len(leaves):
        raise IndexError(f"leaf {index} is not in a tree of {len(leaves)}")
    path: list[bytes] = []
    level = list(leaves)
    at = index
    while len(level) > 1:
        sibling = at ^ 1
        if sibling < len(level):
            path.append(level[sibling])
        paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
        at //= 2
    return path


def inclusion_proofs(leaves: Sequence[bytes], indexes: Sequence[int]) -> list[list[bytes]]:
    """The audit paths of several leaves at once: one pass over the tree's levels (a hand's
    proof in a table of a million events hashes the tree once, not once an event)."""
    for index in indexes:
        if not 0 <= index < len(leaves):
            raise IndexError(f"leaf {index} is not in a tree of {len(leaves)}")
    paths: list[list[bytes]] = [[] for _ in indexes]
    at = list(indexes)
    level = list(leaves)
    sha = hashlib.sha256
    while len(level) > 1:
        for path, i in zip(paths, at, strict=True):
            if i ^ 1 < len(level):
                path.append(level[i ^ 1])
        paired = [sha(NODE_PREFIX + left + right).digest()
                  for left, right in zip(level[0::2], level[1::2], strict=False)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
        at = [i // 2 for i in at]
    return paths


def verify_inclusion(leaf: bytes, index: int, size: int, path: Sequence[bytes],
                     root: bytes) -> bool:
    """True when ``path`` proves ``leaf`` is leaf ``index`` of the tree of ``size`` leaves
    whose root is ``root`` (RFC 9162, section 2.1.3.2)."""
    if not 0 <= index < size:
        return False
    fn, sn = index, size - 1
    node = leaf
    for sibling in path:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            node = node_hash(sibling, node)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            node = node_hash(node, sibling)
        fn >>= 1
        sn >>= 1
    return sn == 0 and node == root
