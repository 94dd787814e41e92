"""A simulated casino floor (``uth simulate``): ``simulation`` is the entry point; the
tables, players, styles, errors and the events they make are its parts."""
