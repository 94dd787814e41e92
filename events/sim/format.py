"""Fast, canonical JSON for simulated events: the bytes ``events.contract.schemas.encode_event``
writes for the same event, built from NumPy columns without one Python operation per event.

A batch of events is first a ``uint8`` matrix, one row per event: the line's bytes and a
newline, with NUL bytes wherever a field is shorter than its column (numbers right-aligned
in theirs). :func:`squeeze` drops every NUL at once: the JSON Lines text.

Event ids are version-4 UUIDs: a random prefix per table from the seeded generator, then
48 bits counting the table's events from a random offset, so they are unique, the same for
the same seed, and cheap. Times are RFC 3339 UTC with milliseconds, formatted a batch at a
time.

>>> ids = IdMaker(np.random.default_rng(1))
>>> one = ids.make(0).decode()
>>> len(one), one[14], one[19] in "89ab"
(36, '4', True)
>>> timestamps(np.array([0, 1_795_000_000_123])).tolist()
[b'1970-01-01T00:00:00.000Z', b'2026-11-18T11:06:40.123Z']
>>> ids.tails(np.array([0, 1])).tolist() == [ids.make(0)[-12:], ids.make(1)[-12:]]
True
>>> squeeze(hstack(3, b"[", digits(np.array([7, -120, 0])), b"]\\n"))
b'[7]\\n[-120]\\n[0]\\n'
"""

from __future__ import annotations

import msgspec
import numpy as np
import numpy.typing as npt

from events.game.cards import DECK

CARD_JSON: tuple[bytes, ...] = tuple(f'"{c}"'.encode() for c in DECK)
_DIGITS2 = np.array([list(f"{i:02d}".encode()) for i in range(100)], dtype=np.uint8)
_DIGITS3 = np.array([list(f"{i:03d}".encode()) for i in range(1000)], dtype=np.uint8)
_ID_MASK = (1 << 48) - 1
_ID_STEP = 0x9E3779B97F4B  # odd: n -> offset + n * step is a bijection modulo 2**48
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_SHIFTS = np.arange(44, -1, -4, dtype=np.uint64)


U8 = npt.NDArray[np.uint8]
_P10 = 10 ** np.arange(19, dtype=np.int64)
_P10_4 = 10 ** np.arange(4, 19, 4, dtype=np.int64)  # 10**4, 10**8, ...
CARD_M = np.frombuffer(b"".join(CARD_JSON), dtype=np.uint8).reshape(52, 4)


def _as_u32(words: list[bytes]) -> npt.NDArray[np.uint32]:
    return np.frombuffer(b"".join(words), dtype=np.uint32)


# four-digit groups as 4-byte words: all digits, leading zeros as NUL, and with a sign
_D4 = _as_u32([b"%04d" % i for i in range(10_000)])
_D4_LEAD = _as_u32([(b"%d" % i).rjust(4, b"\0") for i in range(10_000)])
_D4_NEG = _as_u32([(b"-%d" % i).rjust(4, b"\0")[-4:] for i in range(10_000)])
_SIGN = _as_u32([b"\0\0\0-"])[0]


def digits(values: npt.ArrayLike) -> U8:
    """Decimal integers as an (n, w) matrix: right-aligned, NUL-padded, ``-`` when
    negative (four-digit groups looked up as 4-byte words)."""
    v = np.asarray(values, dtype=np.int64).ravel()
    n = len(v)
    if n == 0:
        return np.zeros((0, 4), dtype=np.uint8)
    neg = v < 0
    negative = bool(neg.any())
    m = np.abs(v) if negative else v
    top = np.searchsorted(_P10_4, m, side="right")  # the group of the first digit
    sign_apart = neg & (m >= _P10[np.minimum(4 * top + 3, 18)])  # a minus of its own
    apart = negative and bool(sign_apart.any())
    groups = int(top.max()) + 1 + int(apart)
    out = np.zeros((n, groups), dtype=np.uint32)
    for g in range(groups):  # from the right
        chunk = m % 10_000
        if g == 0 and groups == 1 and not negative:
            out[:, 0] = _D4_LEAD[chunk]
            break
        lead = np.where(neg, _D4_NEG[chunk], _D4_LEAD[chunk]) if negative else _D4_LEAD[chunk]
        word = np.where(g < top, _D4[chunk], np.where(g == top, lead, 0))
        if apart:
            word = np.where(sign_apart & (g == top + 1), _SIGN, word)
        out[:, groups - 1 - g] = word
        m = m // 10_000
    return out.view(np.uint8).reshape(n, 4 * groups)


def fixed(values: list[bytes]) -> U8:
    """Byte strings as an (n, w) matrix, left-aligned and NUL-padded."""
    arr = np.array(values, dtype=np.bytes_)
    width = max(arr.dtype.itemsize, 1)
    return np.frombuffer(arr.astype(f"S{width}").tobytes(), dtype=np.uint8).reshape(
        len(values), width)


def lookup(words: list[bytes] | tuple[bytes, ...]) -> U8:
    """A table of words, to index by code: ``lookup(WORDS)[codes]``."""
    return fixed(list(words))


Field = bytes | U8


def width_of(fields: tuple[Field, ...] | list[Field]) -> int:
    """Bytes that :func:`place` takes for these fields."""
    return sum(len(f) if isinstance(f, bytes) else f.shape[1] for f in fields)


def place(out: U8, rows: npt.NDArray[np.int64] | slice, pos: int,
          fields: tuple[Field, ...] | list[Field]) -> int:
    """Write ``fields`` side by side into ``out[rows]`` from byte ``pos``: the constants in
    one pass, then each matrix. Returns the byte after the last field."""
    parts: list[bytes] = []
    matrices: list[tuple[int, U8]] = []
    at = pos
    for f in fields:
        if isinstance(f, bytes):
            parts.append(f)
            at += len(f)
        else:
            matrices.append((at, f))
            parts.append(b"\0" * f.shape[1])
            at += f.shape[1]
    out[rows, pos:at] = np.frombuffer(b"".join(parts), dtype=np.uint8)
    for start, m in matrices:
        out[rows, start:start + m.shape[1]] = m
    return at


def hstack(n: int, *fields: Field) -> U8:
    """Side by side: constants (bytes, the same on every row) and (n, w) matrices."""
    out = np.empty((n, width_of(fields)), dtype=np.uint8)
    place(out, slice(None), 0, fields)
    return out


def cards(c: npt.NDArray[np.int64]) -> U8:
    """(n, k) card indices as ``"As","Kd"`` rows (n, 5k - 1)."""
    n, k = c.shape
    out = np.full((n, k, 5), ord(","), dtype=np.uint8)
    out[:, :, :4] = CARD_M[c]
    return out.reshape(n, 5 * k)[:, :-1]


def squeeze(rows: U8) -> bytes:
    """The text of NUL-padded rows: every NUL dropped at once."""
    flat = rows.ravel()
    text: bytes = flat[flat != 0].tobytes()
    return text


def json_bytes(text: str) -> bytes:
    """A JSON string literal (quoted and escaped)."""
    return msgspec.json.encode(text)


class IdMaker:
    """Event ids of one table: ``make(n)`` is the id of the table's n-th event."""

    def __init__(self, rng: np.random.Generator) -> None:
        raw = bytearray(rng.bytes(16))
        raw[6] = (raw[6] & 0x0F) | 0x40
        raw[8] = (raw[8] & 0x3F) | 0x80
        h = raw.hex()
        self.prefix = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-".encode()
        self.offset = int.from_bytes(raw[10:], "big")

    def counter(self, n: int) -> int:
        """The number printed as the id's last 12 hex digits (``b"%012x"``)."""
        return (self.offset + n * _ID_STEP) & _ID_MASK

    def tails(self, seq: npt.NDArray[np.int64]) -> npt.NDArray[np.bytes_]:
        """The last 12 hex digits of the ids of many event numbers at once (``S12``)."""
        mixed = np.uint64(self.offset) + seq.astype(np.uint64) * np.uint64(_ID_STEP)
        nibbles = (mixed[:, None] >> _SHIFTS) & np.uint64(15)
        return _HEX[nibbles.astype(np.intp)].view("S12").ravel()

    def make(self, n: int) -> bytes:
        return self.prefix + b"%012x" % self.counter(n)


_SOD: U8 | None = None


def _second_of_day() -> U8:
    """``HH:MM:SS`` for each of the 86,400 seconds of a day."""
    global _SOD
    if _SOD is None:
        sec = np.arange(86_400)
        table = np.empty((86_400, 8), dtype=np.uint8)
        table[:, 0:2] = _DIGITS2[sec // 3600]
        table[:, 2] = table[:, 5] = ord(":")
        table[:, 3:5] = _DIGITS2[sec // 60 % 60]
        table[:, 6:8] = _DIGITS2[sec % 60]
        _SOD = table
    return _SOD


def timestamps(ms: npt.NDArray[np.int64]) -> npt.NDArray[np.bytes_]:
    """RFC 3339 UTC strings with milliseconds (``...T21:03:11.123Z``) for epoch ms, as an
    ``S24`` array."""
    ms = np.asarray(ms, dtype=np.int64)
    n = len(ms)
    out = np.empty((n, 24), dtype=np.uint8)
    if n == 0:
        return out.view("S24").ravel()
    days = ms // 86_400_000
    rem = ms - days * 86_400_000
    first = int(days.min())
    span = np.arange(first, int(days.max()) + 1).astype("datetime64[D]")
    dates = np.frombuffer(np.datetime_as_string(span).astype("S10").tobytes(), dtype=np.uint8)
    out[:, 0:10] = dates.reshape(-1, 10)[days - first]
    out[:, 10] = ord("T")
    out[:, 11:19] = _second_of_day()[rem // 1000]
    out[:, 19] = ord(".")
    out[:, 20:23] = _DIGITS3[rem % 1000]
    out[:, 23] = ord("Z")
    return out.view("S24").ravel()


def envelope(type_name: str, table_id: str) -> tuple[bytes, bytes]:
    """The constant pieces of an event line around its event id:
    ``{"type":...,"event_id":"`` and ``","schema_version":1,"table_id":...,"hand_id":``."""
    return (b'{"type":"%s","event_id":"' % type_name.encode(),
            b'","schema_version":1,"table_id":%s,"hand_id":' % json_bytes(table_id))


def one_line(type_name: str, table_id: str, event_id: bytes, seq: int, ts: bytes,
             payload: bytes, hand_json: bytes = b"null") -> bytes:
    """One event line, for the few events built one at a time."""
    head, mid = envelope(type_name, table_id)
    return b'%s%s%s%s,"seq":%d,"occurred_at":"%s","payload":%s}' % (
        head, event_id, mid, hand_json, seq, ts, payload)
