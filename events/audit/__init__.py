"""The auditor: every hand rebuilt from its events, every payout proved right or wrong.

``auditor`` (the :class:`~events.audit.auditor.Auditor` and :func:`audit`), fed by
``intake`` and ``sequence``; the fast path ``plan`` + ``judge`` certifies plain hands and
sends every other hand to the reference (:mod:`events.replay` and ``settle``), which words
the ``findings``; ``records`` / ``columns`` are the warehouse rows, ``clean`` what is kept
of a clean hand, ``follow`` the ``--follow`` consumer; ``evidence`` (and its printable
sheet ``evidence_html``) and ``disputes`` serve supervisors.
"""
