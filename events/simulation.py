"""A simulated casino floor: N tables dealing Ultimate Texas Hold'em, as the contract's
event stream.

Each table plays batches of hands over NumPy arrays (``events.sim_table``); the floor
merges the tables' events into one stream in time order (ties by table, then ``seq``) and
writes it to any event log (``events.logs.open_log``), as fast as the sink takes it or in
real time. Same configuration and seed, same bytes: event ids come from seeded generators
and times from a simulated clock starting at ``start``.

>>> cfg = SimConfig(tables=2, hands=3, seed=7, ruleset="charlevoix-2011")
>>> lines = [line for chunk in Floor(cfg).chunks() for line in chunk.lines()]
>>> import msgspec
>>> first = msgspec.json.decode(lines[0])
>>> first["type"], first["seq"], first["payload"]["ruleset"]
('TableOpened', 0, 'charlevoix-2011')
>>> msgspec.json.decode(lines[-1])["type"]
'TableClosed'
"""

from __future__ import annotations

from events.sim_config import DEFAULT_START, ONLINE_SEATS, SimConfig, parse_start, table_specs
from events.sim_floor import Floor
from events.sim_output import Summary, is_file_sink, simulate
from events.sim_stream import Chunk

__all__ = [
    "DEFAULT_START", "ONLINE_SEATS", "Chunk", "Floor", "SimConfig", "Summary", "is_file_sink",
    "parse_start", "simulate", "table_specs",
]
