"""The table event contract v1: its Structs (``schemas``), decoding that never raises
(``codec``, wording in ``codec_reasons``), identifiers (``identifiers``), older versions
read as v1 (``upcasting``) and keyed pseudonyms for players (``privacy``)."""
