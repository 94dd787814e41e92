"""A batch of hands' stored events as the typed columns :func:`events.audit.certify.certify`
reads: each payload's fields parsed once, by Arrow's JSON reader over all the payloads at
a time (no event built, no Python step per event), the coded fields (type, spot, action,
street, target, outcome, cards) as their vocabularies' indices."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from events.audit.certify import KINDS, OUTCOMES, STREET_NAMES, TARGETS, EventColumns
from events.game.cards import DECK
from events.game.rules import ACTIONS
from events.game.settlement import SPOTS

# the payload fields a hand's plan reads (a field an event lacks is null)
PAYLOAD_SCHEMA = pa.schema([
    ("seat", pa.int64()), ("spot", pa.string()), ("amount", pa.int64()),
    ("action", pa.string()), ("street", pa.string()), ("multiple", pa.int64()),
    ("target", pa.string()), ("cards", pa.list_(pa.string())), ("outcome", pa.string()),
    ("seats", pa.list_(pa.int64())), ("dealer_id", pa.string()), ("shoe_id", pa.string()),
])
_OPTIONS = pj.ParseOptions(explicit_schema=PAYLOAD_SCHEMA, unexpected_field_behavior="ignore")


def payload_fields(payloads: pa.Array | pa.ChunkedArray) -> pa.Table:
    """Each payload's fields (:data:`PAYLOAD_SCHEMA`), one row per payload, in order: the
    payloads (JSON objects, one a line in the contract's JSON, never a line break inside)
    read by Arrow's JSON reader in one pass."""
    if isinstance(payloads, pa.ChunkedArray):
        payloads = payloads.combine_chunks()
    if not len(payloads):
        return PAYLOAD_SCHEMA.empty_table()
    text = payloads.cast(pa.large_string())
    whole = pa.LargeListArray.from_arrays(pa.array([0, len(text)], pa.int64()), text)
    joined = pc.binary_join(whole, pa.scalar("\n", pa.large_string()))[0].as_buffer()
    table = pj.read_json(pa.BufferReader(joined), parse_options=_OPTIONS)
    if table.num_rows != len(text):  # (a payload with a line break in it: never stored)
        raise ValueError("a stored payload is not one JSON object on one line")
    return table


def event_columns(hand: np.ndarray, types: pa.Array | pa.ChunkedArray,
                  fields: pa.Table) -> EventColumns:
    """The :class:`~events.audit.certify.EventColumns` of events whose hand index is
    ``hand`` (grouped by hand, in seq order), of these types and payload fields."""
    cards = fields["cards"].combine_chunks()
    n = len(hand)
    counts = pc.fill_null(pc.list_value_length(cards), 0).to_numpy(zero_copy_only=False)
    matrix = np.full((n, 5), -1, np.int16)
    flat = _codes(pc.list_flatten(cards), DECK)
    rows = np.repeat(np.arange(n), counts)
    place = np.arange(len(flat)) - np.repeat(np.cumsum(counts) - counts, counts)
    inside = place < 5
    matrix[rows[inside], place[inside]] = flat[inside]
    seats = fields["seats"].combine_chunks()
    seat_counts = pc.fill_null(pc.list_value_length(seats), 0).to_numpy(zero_copy_only=False)
    amount = fields["amount"]
    return EventColumns(
        hand=np.asarray(hand, np.int64), kind=_codes(types, KINDS),
        seat=_ints(fields["seat"], -1), spot=_codes(fields["spot"], SPOTS),
        amount=_ints(amount, 0),
        has_amount=pc.is_valid(amount).to_numpy(zero_copy_only=False),
        action=_codes(fields["action"], ACTIONS),
        street=_codes(fields["street"], STREET_NAMES),
        multiple=_ints(fields["multiple"], 0), target=_codes(fields["target"], TARGETS),
        cards=matrix, n_cards=np.minimum(counts, 99).astype(np.int64),
        outcome=_codes(fields["outcome"], OUTCOMES),
        started_hand=np.repeat(np.asarray(hand, np.int64), seat_counts),
        started_seat=_ints(pc.list_flatten(seats), -1))


def _codes(values: pa.Array | pa.ChunkedArray, vocabulary: tuple[str, ...]) -> np.ndarray:
    """Each value's index in ``vocabulary`` (-1: null or another value)."""
    found = pc.index_in(values, value_set=pa.array(vocabulary, pa.string()))
    return np.asarray(pc.fill_null(found, -1).to_numpy(zero_copy_only=False), np.int64)


def _ints(values: pa.Array | pa.ChunkedArray, missing: int) -> np.ndarray:
    return np.asarray(pc.fill_null(values, missing).to_numpy(zero_copy_only=False), np.int64)
