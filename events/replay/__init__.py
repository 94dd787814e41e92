"""A hand rebuilt from its events: the fold (``fold``), each event checked before it
applies (``apply``), over a frozen state (``state``). This is the reference: it words
every finding of the audit, and serves ``uth replay``, evidence and disputes."""
