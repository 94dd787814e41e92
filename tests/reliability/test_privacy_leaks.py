"""Nothing leaked (issue 30, items 9 to 12): a player identifier out of its place, in a
line that is no valid event, in a rejection reason, or with no key configured."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from events.contract import privacy
from events.contract.codec import Rejection, decode_line
from tests.reliability import corpus
from tests.reliability.helpers import uth, uth_env

KEY = "test-pseudonym-key-0123456789abcdef"
NUMBER = 4417004299110042  # a card number, as a table might send it
CLEAR = str(NUMBER)
NOTICE = "UTH_PSEUDONYM_KEY is not set"


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(privacy.KEY_ENV, KEY)
    return KEY


def _stream(name: str) -> list[dict[str, Any]]:
    return corpus.table(name).events


def _with(ev: dict[str, Any], **payload: Any) -> dict[str, Any]:
    return {**ev, "payload": {**ev["payload"], **payload}}


# -- item 9: valid events carrying an identifier outside the contract's two places ----------
def _top(ev: dict[str, Any]) -> dict[str, Any]:
    return {**ev, "player_ref": CLEAR}


def _nested(ev: dict[str, Any]) -> dict[str, Any]:
    return _with(ev, loyalty={"tier": "gold", "player_ref": CLEAR})


def _camel(ev: dict[str, Any]) -> dict[str, Any]:
    return _with(ev, playerId=NUMBER)


def _shouting(ev: dict[str, Any]) -> dict[str, Any]:
    return {**ev, "PLAYER_REFS": {"1": CLEAR}}


def _in_a_list(ev: dict[str, Any]) -> dict[str, Any]:
    return _with(ev, extra=[{"Player_Card": CLEAR}])


OUT_OF_PLACE: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "envelope": _top, "unknown-payload-field": _nested, "camel-case": _camel,
    "upper-case": _shouting, "inside-a-list": _in_a_list,
}


@pytest.mark.parametrize("shape", sorted(OUT_OF_PLACE))
def test_an_identifier_out_of_place_is_pseudonymized(key: str, shape: str) -> None:
    stream = _stream("oop")
    for ev in stream[1:4]:  # HandStarted, BetPlaced, BetPlaced: any type
        data = corpus.encode(OUT_OF_PLACE[shape](ev))
        out = privacy.scrub(data)
        assert CLEAR.encode() not in out, out
        assert privacy.pseudonymize(CLEAR).encode() in out  # kept as its pseudonym
        event = decode_line(out, 1)
        assert not isinstance(event, Rejection), event  # still the same valid event
        assert event == decode_line(corpus.encode(ev), 1)


def _bytes_under(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file())


def _warehouse_text(warehouse: Path) -> str:
    from tests.pipeline.conftest import dump

    return json.dumps(dump(warehouse), default=str)


def _archive_text(archive: Path) -> str:
    import duckdb

    files = sorted(str(p) for p in archive.rglob("*.parquet"))
    assert files, "no archive written"
    con = duckdb.connect()
    try:
        rows = con.execute("SELECT * FROM read_parquet(?, union_by_name = true)",
                           [files]).fetchall()
    finally:
        con.close()
    return json.dumps(rows, default=str)


def test_out_of_place_identifiers_reach_no_store(tmp_path: Path, ledger: Any) -> None:
    """Through `uth ingest` into a log, `uth load` into the warehouse and its archive, and
    `uth seal`: every event stored, none of them with the identifier in clear."""
    from tests.pipeline.conftest import materialize

    lines = []
    shapes = iter(sorted(OUT_OF_PLACE) * 20)
    for ev in _stream("oop"):
        lines.append(corpus.encode(OUT_OF_PLACE[next(shapes)](ev) if ev["hand_id"] else ev))
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    store = tmp_path / "store"
    store.mkdir()
    log = f"sqlite:///{store / 'log.db'}"
    env = uth_env(**{privacy.KEY_ENV: KEY})
    done = uth("ingest", "--source", str(source), "--sink", log, "--json", env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["written"] == len(lines) and report["rejected"] == 0
    assert CLEAR.encode() not in _bytes_under(store)
    ledger.record("bad-input", "identifier out of its place [uth ingest]", sent=len(lines),
                  processed=report["written"], rejected=report["rejected"])
    done = uth("keygen", "--out", str(tmp_path / "seal"), env=env)
    assert done.returncode == 0, done.stderr
    done = uth("seal", "--source", log, "--key", str(tmp_path / "seal"), env=env)
    assert done.returncode == 0, done.stderr
    assert CLEAR.encode() not in _bytes_under(store)
    # the warehouse loaded straight from the file (the loader pseudonymizes as ingest does)
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    warehouse.parent.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(privacy.KEY_ENV, KEY)
        materialize(source, warehouse)
    text = _warehouse_text(warehouse)
    assert privacy.pseudonymize(CLEAR, {privacy.KEY_ENV: KEY}) in text
    assert CLEAR not in text
    assert CLEAR not in _archive_text(tmp_path / "wh" / "warehouse_archive")


# -- item 10: lines that are no valid event, carrying an identifier -------------------------
def _inverted(stream: list[dict[str, Any]]) -> bytes:  # seat by identifier, not the reverse
    return corpus.encode(_with(stream[1], player_refs={CLEAR: 1}))


def _payload_list(stream: list[dict[str, Any]]) -> bytes:
    return corpus.encode({**stream[2], "payload": [{"player_ref": NUMBER}]})


def _top_level_array(stream: list[dict[str, Any]]) -> bytes:
    return b"[" + corpus.encode(_with(stream[2], player_ref=CLEAR)) + b"]"


def _torn_refs(stream: list[dict[str, Any]]) -> bytes:  # cut inside a numeric refs map
    line = corpus.encode(_with(stream[1], player_refs={"1": NUMBER, "2": "CARD-1"}))
    return line[: line.index(CLEAR.encode()) + len(CLEAR)]


def _unquoted_key(stream: list[dict[str, Any]]) -> bytes:
    line = corpus.encode(_with(stream[2], player_ref=NUMBER))
    return line.replace(b'"player_ref"', b"player_ref")


def _no_colon(stream: list[dict[str, Any]]) -> bytes:
    line = corpus.encode(_with(stream[2], player_ref=CLEAR))
    return line.replace(b'"player_ref":', b'"player_ref" ')


BAD_LINES: dict[str, Callable[[list[dict[str, Any]]], bytes]] = {
    "inverted-player-refs": _inverted, "payload-a-list": _payload_list,
    "top-level-array": _top_level_array, "torn-numeric-refs": _torn_refs,
    "unquoted-key": _unquoted_key, "missing-colon": _no_colon,
}


@pytest.mark.parametrize("with_key", [True, False], ids=["key", "no-key"])
@pytest.mark.parametrize("sink", ["sqlite", "jsonl"])
def test_a_bad_line_keeps_no_identifier_in_the_dead_letters(
    tmp_path: Path, sink: str, with_key: bool, ledger: Any,
) -> None:
    stream = _stream("dl")
    bad = {name: make(stream) for name, make in sorted(BAD_LINES.items())}
    for name, line in bad.items():
        assert CLEAR.encode() in line, name
        assert isinstance(decode_line(line, 1), Rejection), name
    lines = [corpus.encode(ev) for ev in stream]
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join([*lines[:3], *bad.values(), *lines[3:]]) + b"\n")
    store = tmp_path / "store"
    store.mkdir()
    url = f"sqlite:///{store / 'log.db'}" if sink == "sqlite" else str(store / "log.jsonl")
    env = uth_env(**{privacy.KEY_ENV: KEY})
    if not with_key:
        env.pop(privacy.KEY_ENV)
    done = uth("ingest", "--source", str(source), "--sink", url, "--json", env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["written"] == len(lines)
    # each refused, none stored (with no key the inverted map is dropped: what is left is
    # the HandStarted it copies, counted once)
    assert report["rejected"] == len(bad) - (0 if with_key else 1)
    assert report["duplicates"] == (0 if with_key else 1)
    assert CLEAR.encode() not in _bytes_under(store)
    assert CLEAR not in done.stdout + done.stderr
    ledger.record("bad-input", "identifier in a bad line [uth ingest]",
                  sent=len(lines) + len(bad), processed=report["written"],
                  rejected=report["rejected"], ignored=report["duplicates"])
    if sink == "sqlite":
        from events.logs import open_log

        with open_log(url, create=False) as log:
            letters = log.dead_letters()  # type: ignore[attr-defined]
    else:
        rejected = (store / "log.rejected.jsonl").read_bytes().splitlines()
        letters = [json.loads(r) for r in rejected]
    assert len(letters) == report["rejected"]
    for letter in letters:  # the reason and the place kept, to find the line in the source
        text = json.dumps(letter, default=str)
        assert CLEAR not in text
        assert "line" in text and letter.get("reason"), letter


@pytest.mark.parametrize("with_key", [True, False], ids=["key", "no-key"])
def test_a_bad_line_keeps_no_identifier_in_the_warehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_key: bool,
) -> None:
    from pipeline.ingest.steps import load_events
    from pipeline.warehouse import reading

    if with_key:
        monkeypatch.setenv(privacy.KEY_ENV, KEY)
    else:
        monkeypatch.delenv(privacy.KEY_ENV, raising=False)
    stream = _stream("wd")
    bad = [make(stream) for _, make in sorted(BAD_LINES.items())]
    lines = [corpus.encode(ev) for ev in stream]
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join([*lines[:3], *bad, *lines[3:]]) + b"\n")
    stats = load_events(str(source), tmp_path / "wh.duckdb")
    assert stats.rejected == len(bad) - (0 if with_key else 1)  # as uth ingest, above
    with reading(tmp_path / "wh.duckdb") as con:
        letters = con.execute("SELECT position, reason, raw FROM dead_letters").fetchall()
    assert len(letters) == stats.rejected
    assert CLEAR not in json.dumps(letters)
    assert all(position and reason for position, reason, _ in letters)


# -- item 11: a rejection reason printed by uth audit and uth tail --------------------------
def _numeric_ref_log(tmp_path: Path) -> tuple[Path, bytes]:
    stream = _stream("au")
    bad = corpus.encode(_with(stream[2], player_ref=NUMBER))  # a number: refused
    lines = [corpus.encode(ev) for ev in stream]
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join([*lines[:3], bad, *lines[3:]]) + b"\n")
    return source, bad


@pytest.mark.parametrize("command", [("audit",), ("audit", "--json"), ("audit", "--csv"),
                                     ("tail", "--from-start", "--no-follow")])
def test_a_rejection_reason_shows_no_identifier(tmp_path: Path, command: tuple[str, ...]) -> None:
    """`uth audit` and `uth tail` word the rejection as `uth ingest` does: the identifier
    only as its pseudonym."""
    source, bad = _numeric_ref_log(tmp_path)
    env = uth_env(**{privacy.KEY_ENV: KEY})
    done = uth(*command, "--source", str(source), env=env)
    assert done.returncode == 0, done.stderr
    assert CLEAR not in done.stdout + done.stderr
    if command[-1] == "--csv":
        return  # findings only
    pseudonym = privacy.pseudonymize(CLEAR, {privacy.KEY_ENV: KEY})
    place = '"position": 4' if "--json" in command else "line 4"
    assert place in done.stdout and pseudonym in done.stdout, done.stdout
    with pytest.MonkeyPatch.context() as mp:  # the same reason as the ingest's dead letter
        mp.setenv(privacy.KEY_ENV, KEY)
        rejection = decode_line(privacy.scrub(bad, without_key="drop"), 4)
    assert isinstance(rejection, Rejection)
    shown = json.dumps(rejection.reason)[1:-1] if "--json" in command else rejection.reason
    assert shown in done.stdout


# -- item 12: no key configured: identifiers dropped, and said once --------------------------
def _refs_log(tmp_path: Path, with_refs: bool = True) -> Path:
    stream = _stream("nk")
    lines = [corpus.encode(_with(ev, player_ref=CLEAR))
             if with_refs and ev["type"] == "BetPlaced" else corpus.encode(ev) for ev in stream]
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    return source


def _no_key_env() -> dict[str, str]:
    env = uth_env()
    env.pop(privacy.KEY_ENV, None)
    return env


@pytest.mark.parametrize("command", ["ingest", "load", "seal", "replay"])
def test_identifiers_dropped_without_a_key_are_said_once(tmp_path: Path, command: str) -> None:
    source = _refs_log(tmp_path)
    stream = _stream("nk")
    args = {
        "ingest": ("ingest", "--source", str(source), "--sink",
                   f"sqlite:///{tmp_path / 'log.db'}"),
        "load": ("load", "--source", str(source), "--warehouse", str(tmp_path / "w.duckdb")),
        "seal": ("seal", "--source", str(source), "--key", str(tmp_path / "k")),
        "replay": ("replay", stream[2]["hand_id"], "--source", str(source)),
    }[command]
    if command == "seal":
        assert uth("keygen", "--out", str(tmp_path / "k")).returncode == 0
    done = uth(*args, env=_no_key_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(NOTICE) == 1, done.stderr
    assert "dropped" in done.stderr and CLEAR not in done.stderr
    # the same command with a key, or on events that carry no identifier: not a word
    again = uth(*args, env=uth_env(**{privacy.KEY_ENV: KEY}), timeout=300)
    assert NOTICE not in again.stderr


def test_nothing_said_when_nothing_is_dropped(tmp_path: Path) -> None:
    source = _refs_log(tmp_path, with_refs=False)
    done = uth("ingest", "--source", str(source), "--sink", f"sqlite:///{tmp_path / 'l.db'}",
               env=_no_key_env())
    assert done.returncode == 0, done.stderr
    assert NOTICE not in done.stderr


def test_what_is_stored_without_a_key_is_unchanged(tmp_path: Path) -> None:
    """The notice changes nothing stored: each identifier dropped, every event kept."""
    source = _refs_log(tmp_path)
    done = uth("ingest", "--source", str(source), "--sink", f"sqlite:///{tmp_path / 'l.db'}",
               "--json", env=_no_key_env())
    assert done.returncode == 0, done.stderr
    from events.logs import open_log

    with open_log(f"sqlite:///{tmp_path / 'l.db'}", create=False) as log:
        stored = [r.value for batch in log.read() for r in batch]
    expected = []
    for line in source.read_bytes().splitlines():
        ev = msgspec.json.decode(line)
        ev["payload"].pop("player_ref", None)
        expected.append(msgspec.json.encode(ev))
    assert stored == expected


def test_the_publisher_stores_no_identifier_out_of_place(tmp_path: Path, key: str) -> None:
    """A guard (it held before issue 30): the outbox stores the event as the contract reads
    it, so an unknown field never reaches it."""
    from events.logs.publisher import TablePublisher

    stream = _stream("pub")
    shapes = iter(sorted(OUT_OF_PLACE) * 20)
    sent = [OUT_OF_PLACE[next(shapes)](ev) if ev["hand_id"] else ev for ev in stream]
    with TablePublisher(tmp_path / "outbox.db") as pub:
        stored = pub.publish_many(sent)
    assert len(stored) == len(stream)
    assert CLEAR.encode() not in _bytes_under(tmp_path)
