"""Game protection: players, their rating slips, and the detection of play that depends on
the dealer's hidden cards (hole-carding). Pure: NumPy only.

- ``values``: what a decision is worth, in antes, under given dealer cards (vectorized);
- ``hands``: seat-hands (one player's part of one hand) folded from contract events;
- ``scoring``: the hidden-information gain of each seat-hand and its null moments;
- ``assess``: who a seat-hand belongs to (a pseudonym, or a seat session), per-player
  scores, flags, patterns, evidence and dealers;
- ``ratings``: rating slips per player and gaming day;
- ``report``: one pass over decoded events (what ``uth protect`` and the warehouse run).

The statistic and its false-alarm rate: ``docs/game-protection.md``.
"""
