"""A simulated casino floor: N tables dealing Ultimate Texas Hold'em, as the contract's
event stream (``uth simulate``).

Same configuration and seed, same bytes: event ids come from seeded generators and times
from a simulated clock starting at ``start``. The pieces:

- ``sim_config``: :class:`SimConfig` (``hands`` is per table) and the tables' specs;
- ``sim_table``: one table plays a batch of hands at once -- seats and players
  (``sim_players``), one shuffled deck per hand, one ``evaluate7`` call, vectorized
  decisions, ``settle_batch``, chip purchases, voids, dealer shifts, mispays and disputes
  (``sim_errors``) -- and renders its events (``sim_events``, ``sim_format``);
- ``sim_floor``: the tables' batches merged into one stream: whole hands in the order they
  start (fast), or every event in time order (``by_event``, for real time);
- ``sim_output``: :func:`simulate` writes it to a JSON Lines file or any event log
  (``events.logs.open_log``) and the injected mispays to a ground-truth file.

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

from events.sim.config import DEFAULT_START, ONLINE_SEATS, SimConfig, parse_start, table_specs
from events.sim.floor import Floor
from events.sim.output import Summary, is_file_sink, simulate
from events.sim.stream import Chunk

__all__ = [
    "DEFAULT_START", "ONLINE_SEATS", "Chunk", "Floor", "SimConfig", "Summary", "is_file_sink",
    "parse_start", "simulate", "table_specs",
]
