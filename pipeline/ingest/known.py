"""The stored events' ids, as 64-bit hashes in memory, for the length of one load.

De-duplicating a batch on ``event_id`` by a join with ``events`` reads every stored id,
every batch: 0.3 s per 100,000-event batch at 8 million stored events, growing with the
warehouse. Here the ids' hashes (DuckDB's ``hash``) are read once, kept sorted, and a
batch is looked up in them (a few hundredths of a second). A hash says only "maybe
stored": those events (a redelivery, or a collision of two ids' hashes) are checked
exactly by the join, now over only them. A batch with no hit is new without any join.

The load holds the warehouse only while it writes a batch, so another process may write
in between: the number of stored events is compared inside each batch's transaction, and
when it is not what this load left, the hashes are read again. That comparison is enough
because ``events`` only grows (rows are inserted, never deleted or rewritten): keep it so,
or make this module read the hashes again after any such change. A batch whose
transaction fails leaves the hashes unknown (:meth:`KnownEvents.forget`).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from pipeline.warehouse import Connection

MERGE_AT = 1 << 20  # hashes added since the last merge into the sorted base
MERGE_ARRAYS = 16  # batches' arrays merged into one (each is one more search per batch)


class KnownEvents:
    """See the module. ``candidates`` then ``added``, inside a batch's transaction."""

    def __init__(self) -> None:
        self.base = np.zeros(0, dtype=np.uint64)  # sorted
        self.recent: list[np.ndarray] = []  # sorted each, not yet merged
        self.recent_size = 0
        self.count = -1  # stored events when last seen; -1: not read yet
        self.batches = 0

    def candidates(self, con: Connection, rows: pa.Table) -> tuple[pa.Table, np.ndarray | None]:
        """The rows of a batch whose event may be stored already, and the hashes of all
        its rows. On the first batch this instance sees: every row, no hashes (one join
        costs less than reading every stored hash, for a load of a single batch). A
        follow keeps one instance from load to load (``steps.Kept``): its next loads
        read the hashes once, then only look up."""
        self.batches += 1
        if self.batches == 1 and self.count < 0:
            return rows, None
        self.reload_if_changed(con)
        hashes = batch_hashes(con, rows)
        hit = self.maybe_stored(hashes)
        return (rows.filter(pa.array(hit)) if hit.any() else rows.slice(0, 0)), hashes

    def reload_if_changed(self, con: Connection) -> bool:
        """Read the hashes again if ``events`` is not as this load left it; whether it
        did."""
        stored = int(con.execute("SELECT count(*) FROM events").fetchall()[0][0])
        if stored == self.count:
            return False
        column = con.execute("SELECT hash(event_id) AS h FROM events").fetchnumpy()["h"]
        self.base = np.sort(np.asarray(column, dtype=np.uint64))
        self.recent, self.recent_size = [], 0
        self.count = stored
        return True

    def forget(self) -> None:
        """A batch's transaction failed after :meth:`added`: read the hashes again."""
        self.count = -1

    def maybe_stored(self, hashes: np.ndarray) -> np.ndarray:
        """For each hash, whether a stored event has it (then check its id exactly)."""
        order = np.argsort(hashes)
        needles = hashes[order]
        hit = np.zeros(len(hashes), dtype=bool)
        for known in (self.base, *self.recent):
            if len(known):
                at = np.minimum(np.searchsorted(known, needles), len(known) - 1)
                hit[order[known[at] == needles]] = True
        return hit

    def added(self, hashes: np.ndarray) -> None:
        """These events were inserted by this load."""
        if not len(hashes):
            return
        self.recent.append(np.sort(np.asarray(hashes, dtype=np.uint64)))
        self.recent_size += len(hashes)
        self.count += len(hashes)
        if self.recent_size >= MERGE_AT:  # (the base is large: merged into rarely)
            self.base = np.sort(np.concatenate([self.base, *self.recent]), kind="stable")
            self.recent, self.recent_size = [], 0
        elif len(self.recent) >= MERGE_ARRAYS:  # many small batches: merged among themselves
            self.recent = [np.sort(np.concatenate(self.recent), kind="stable")]


def batch_hashes(con: Connection, rows: pa.Table) -> np.ndarray:
    """The hashes of ``rows``' event ids, in row order (the same function as the stored
    ones: DuckDB's ``hash``)."""
    con.register("hashed_batch", rows.select(["ord", "event_id"]))
    try:
        out = con.execute("SELECT ord, hash(event_id) AS h FROM hashed_batch").fetchnumpy()
    finally:
        con.unregister("hashed_batch")
    hashes = np.empty(rows.num_rows, dtype=np.uint64)
    # placed by ``ord`` (increasing in the batch), not by the order the scan returned
    ords = rows["ord"].to_numpy()
    hashes[np.searchsorted(ords, np.asarray(out["ord"], dtype=np.int64))] = out["h"]
    return hashes
