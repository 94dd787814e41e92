"""The game of Ultimate Texas Hold'em, as rules and numbers.

``cards`` (card codes and indices), ``evaluation`` (the NumPy seven-card evaluator and the
readable one-hand API), ``rulesets`` (the contract's rulesets as TOML data), ``rules``
(betting rules as verify / can / do), ``settlement`` (the pay of one seat, and the same
vectorized), ``strategy`` (basic strategy) and ``theory`` (exact Trips figures, the
base game's edge).
"""
