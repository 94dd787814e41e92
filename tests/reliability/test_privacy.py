"""Privacy: a player identifier a table sends is stored only as a keyed pseudonym."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path

import msgspec
import pytest

from events.contract import privacy
from events.contract.codec import Rejection, decode_line
from events.contract.schemas import json_schema
from tests.reliability import corpus

KEY = "test-pseudonym-key-0123456789abcdef"
CLEAR = "LOYALTY-4417-0042-9911"


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(privacy.KEY_ENV, KEY)
    return KEY


def _bet(**extra: object) -> bytes:
    ev = corpus.table("privacy").events[2]
    assert ev["type"] == "BetPlaced"
    return corpus.encode({**ev, "payload": {**ev["payload"], **extra}})


def _started(**extra: object) -> bytes:
    ev = corpus.table("privacy").events[1]
    assert ev["type"] == "HandStarted"
    return corpus.encode({**ev, "payload": {**ev["payload"], **extra}})


def test_pseudonym_is_hmac_sha256_under_the_key(key: str) -> None:
    expected = "pr1_" + hmac.new(KEY.encode(), CLEAR.encode(), hashlib.sha256).hexdigest()[:32]
    assert privacy.pseudonymize(CLEAR) == expected
    assert privacy.pseudonymize(f"  {CLEAR}\n") == expected  # normalized
    assert privacy.pseudonymize(expected) == expected  # idempotent
    assert privacy.is_pseudonym(expected) and not privacy.is_pseudonym(CLEAR)
    assert privacy.pseudonymize("LOYALTY-4417-0042-9912") != expected


def test_key_is_read_at_call_time_not_at_import(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    # importing without a key works, and the module keeps no key of its own
    env = {k: v for k, v in os.environ.items() if k != privacy.KEY_ENV}
    code = ("import events.contract.privacy as p; "
            "print(sorted(k for k, v in vars(p).items() if isinstance(v, (str, bytes)) "
            "and 'key' in k.lower()))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, cwd=corpus.CORPUS_DIR.parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['KEY_ENV']"
    monkeypatch.delenv(privacy.KEY_ENV, raising=False)
    with pytest.raises(privacy.PseudonymKeyMissing, match="UTH_PSEUDONYM_KEY is not set"):
        privacy.pseudonymize(CLEAR)
    monkeypatch.setenv(privacy.KEY_ENV, KEY)
    first = privacy.pseudonymize(CLEAR)
    monkeypatch.setenv(privacy.KEY_ENV, KEY + "-rotated")
    assert privacy.pseudonymize(CLEAR) != first  # the rotated key is used by the next call
    monkeypatch.setenv(privacy.KEY_ENV, "short")
    with pytest.raises(privacy.PseudonymKeyMissing, match="shorter than 16 bytes"):
        privacy.pseudonymize(CLEAR)


def test_scrub_replaces_identifiers_and_keeps_a_valid_event(key: str) -> None:
    data = _bet(player_ref=CLEAR)
    out = privacy.scrub(data)
    assert CLEAR.encode() not in out
    ev = decode_line(out, 1)
    assert not isinstance(ev, Rejection), ev
    assert ev.payload.player_ref == privacy.pseudonymize(CLEAR)
    assert privacy.scrub(out) == out  # already pseudonymized: unchanged
    started = privacy.scrub(_started(player_refs={"1": CLEAR, "2": "CARD-77"}))
    assert CLEAR.encode() not in started and b"CARD-77" not in started
    ev = decode_line(started, 2)
    assert not isinstance(ev, Rejection), ev
    assert ev.payload.player_refs == {1: privacy.pseudonymize(CLEAR),
                                      2: privacy.pseudonymize("CARD-77")}


def test_scrub_leaves_events_without_identifiers_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(privacy.KEY_ENV, raising=False)
    data = _bet()
    assert privacy.scrub(data) is data  # no key needed when there is nothing to hide


def test_scrub_without_a_key_refuses_rather_than_store_in_clear(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(privacy.KEY_ENV, raising=False)
    with pytest.raises(privacy.PseudonymKeyMissing):
        privacy.scrub(_bet(player_ref=CLEAR))


@pytest.mark.parametrize("cut", [18, 24, 30, 36, 37, 38])
def test_scrub_hides_identifiers_in_broken_lines_too(key: str, cut: int) -> None:
    """A truncated line ends in the dead-letter store: the identifier must not be in it."""
    data = _bet(player_ref=CLEAR)
    at = data.index(b'"player_ref"')  # "player_ref":"LOYALTY-4417-0042-9911"}}
    broken = data[: at + cut]
    shown = CLEAR[: min(cut - 14, len(CLEAR))].encode()  # what the cut line holds of it
    assert shown in broken
    out = privacy.scrub(broken)
    assert shown not in out
    assert isinstance(decode_line(out, 1), Rejection)
    refs = _started(player_refs={"1": CLEAR})[:-5]
    assert b"LOYALTY" not in privacy.scrub(refs)


def test_contract_accepts_player_refs_and_checks_them() -> None:
    assert not isinstance(decode_line(_bet(player_ref="pr1_" + "0" * 32), 1), Rejection)
    assert isinstance(decode_line(_bet(player_ref=""), 1), Rejection)
    assert isinstance(decode_line(_bet(player_ref="x" * 201), 1), Rejection)
    assert isinstance(decode_line(_started(player_refs={"6": "x"}), 1), Rejection)  # not in play
    assert isinstance(decode_line(_started(player_refs={"1": 5}), 1), Rejection)
    schema = json.dumps(json_schema())
    assert '"player_ref"' in schema and '"player_refs"' in schema
    schema_file = corpus.CORPUS_DIR.parents[2] / "events" / "contract"
    committed = msgspec.json.decode((schema_file / "event-contract.schema.json").read_bytes())
    assert committed == json.loads(schema)


def _bytes_on_disk(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file())


def test_publisher_stores_only_pseudonyms(tmp_path: Path, key: str) -> None:
    from events.logs.publisher import TablePublisher

    stream = corpus.table("pub").events
    bets = [{**e, "payload": {**e["payload"], "player_ref": CLEAR}} if e["type"] == "BetPlaced"
            else e for e in stream]
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    with TablePublisher(outbox / "outbox.db") as pub:
        stored = pub.publish_many(bets)
    refs = {e.payload.player_ref for e in stored if type(e).__name__ == "BetPlaced"}
    assert refs == {privacy.pseudonymize(CLEAR)}
    assert CLEAR.encode() not in _bytes_on_disk(outbox)


def test_publisher_without_a_key_refuses_the_identifier(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from events.logs.publisher import PublishError, TablePublisher

    monkeypatch.delenv(privacy.KEY_ENV, raising=False)
    stream = corpus.table("pub").events
    with TablePublisher(tmp_path / "outbox.db") as pub:
        pub.publish_many(stream[:2])
        with pytest.raises(PublishError, match="UTH_PSEUDONYM_KEY"):
            pub.publish({**stream[2], "payload": {**stream[2]["payload"], "player_ref": CLEAR}})
        assert pub.next_seq(stream[0]["table_id"]) == 2  # nothing of it stored
    assert CLEAR.encode() not in (tmp_path / "outbox.db").read_bytes()


@pytest.mark.parametrize("with_key", [True, False])
def test_ingest_stores_only_pseudonyms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_key: bool
) -> None:
    """Identifiers arriving in a file: pseudonymized on the way into the log (or, with no
    key configured, dropped); every event still stored; a broken line's copy in the
    dead-letter store holds no identifier either."""
    from tests.reliability.helpers import uth, uth_env

    stream = corpus.table("ing").events
    lines = [corpus.encode({**e, "payload": {**e["payload"], "player_ref": CLEAR}})
             if e["type"] == "BetPlaced" else corpus.encode(e) for e in stream]
    broken = lines[3][: lines[3].index(b"LOYALTY") + 10]  # a torn line with part of it
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join([*lines, broken]) + b"\n")
    store = tmp_path / "store"
    store.mkdir()
    env = uth_env(**({privacy.KEY_ENV: KEY} if with_key else {}))
    if not with_key:
        env.pop(privacy.KEY_ENV, None)
    done = uth("ingest", "--source", str(source), "--sink", f"sqlite:///{store / 'log.db'}",
               "--json", env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["written"] == len(stream) and report["rejected"] == 1
    assert b"LOYALTY" not in _bytes_on_disk(store)
    with open_log_url(f"sqlite:///{store / 'log.db'}") as log:
        events = [decode_line(r.value, 1) for b in log.read() for r in b]
    refs = {e.payload.player_ref for e in events if type(e).__name__ == "BetPlaced"}
    monkeypatch.setenv(privacy.KEY_ENV, KEY)
    assert refs == ({privacy.pseudonymize(CLEAR)} if with_key else {None})


def open_log_url(url: str):  # type: ignore[no-untyped-def]
    from events.logs import open_log

    return open_log(url)


_PIECES = (b'"player_ref":"LOYALTY-1"', b'"\\u0070layer_ref":"LOYALTY-2"',
           b'"Player says so"', b'"PLAYER"', b'PlayerDecision"',
           b'"playerdecision"', b'"type":"PlayerDecision"', b'"x\\u005f"', b'\\\\n', b'"y"',
           b'"players":["A","B"]', b'"seat":2', b'player', b'ay', b'"')


def _value(draw: list[int]) -> bytes:
    """One value of a batch: a valid event carrying some pieces, or bare pieces (invalid
    JSON, which scrub reads as text)."""
    parts = [_PIECES[i % len(_PIECES)] for i in draw[1:]]
    if draw[0] % 3 == 0:
        return b"".join(parts)
    fields = b",".join(p for p in parts if p.startswith(b'"') and b":" in p)
    return _bet().replace(b'"payload":{', b'"payload":{' + fields + b"," if fields else
                          b'"payload":{', 1) + b" " + b"".join(p for p in parts if b":" not in p)


@pytest.mark.parametrize("with_key", [False, True])
def test_scrub_all_is_scrub_of_each_value(with_key: bool, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """The batch search finds exactly the values scrub would change: scrub_all equals
    scrub value by value, in batches short and long (the search over a batch of more than
    4 KB is vectorized; a single value's is a regular expression)."""
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    if with_key:
        monkeypatch.setenv(privacy.KEY_ENV, KEY)
    else:
        monkeypatch.delenv(privacy.KEY_ENV, raising=False)

    @hypothesis.settings(max_examples=150, deadline=None, derandomize=True)
    @hypothesis.given(st.lists(st.lists(st.integers(0, 60), min_size=1, max_size=6),
                               max_size=80),
                      st.integers(0, 40))
    def check(draws: list[list[int]], filler: int) -> None:
        values = [_value(d) for d in draws] + [_bet()] * filler * 3
        expected = [privacy.scrub(v, without_key="drop") for v in values]
        got = privacy.scrub_all(values)
        assert got == expected
        if all(a is b for a, b in zip(expected, values, strict=True)):
            assert got is values
        assert privacy.needs_scrub(b"\n".join(values)) == any(map(privacy.needs_scrub, values))
        for v in values:
            assert privacy.needs_scrub(v) == (privacy._PLAYER_WORD.search(v.lower()) is not None
                                              or b"\\u" in v)

    check()
