"""Hostile and accidental input, beyond one bad line in a good stream: each case found by
probing the commands as an attacker or a careless user would. The rule is the project's
own: every valid event kept, bad input dead-lettered once with a reason, nothing stops the
pipeline, nothing stored in clear, nothing printed raw."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pytest

from events.contract.codec import Rejection, decode_many
from events.contract.privacy import scrub
from events.game.rulesets import UnknownRulesetError, load_ruleset
from events.logs import open_log
from pipeline.ingest.transforms import decode_lines
from tests.reliability import corpus
from tests.reliability.helpers import floor, load_in_process, uth, uth_env

KEY = "hostile-input-test-key-0123456789"
CARD = "4242123412341234"


def _lines(tables: int = 1, name: str = "t") -> list[bytes]:
    return [corpus.encode(e) for e in floor(tables, name)]


def _write(path: Path, lines: list[bytes], end: bytes = b"\n") -> Path:
    path.write_bytes(b"".join(line + end for line in lines))
    return path


def _ingest(source: Path | str, sink: str, **env: str) -> dict[str, Any]:
    done = uth("ingest", "--source", str(source), "--sink", sink, "--json",
               env=uth_env(**env))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _stored(sink: str) -> list[bytes]:
    with open_log(sink) as log:
        return [r.value for b in log.read() for r in b]


def _dead(sink: str) -> list[dict[str, Any]]:
    with open_log(sink) as log:
        return log.dead_letters()  # type: ignore[attr-defined, no-any-return]


# 1 ---------------------------------------------------------------------------------------

def test_deep_nesting_is_one_dead_letter_not_a_crash(tmp_path: Path, ledger: Any) -> None:
    """1,000 nested lists (2 KB) and 20,000 beside a player_ref: rejected with a reason by
    the decoders of uth ingest, uth audit and the warehouse, and by the pseudonymizer."""
    good = _lines()
    deep = b'{"type":"BetPlaced","payload":' + b"[" * 1000 + b"]" * 1000 + b"}"
    deeper = b'{"payload":{"player_ref":"x"},"a":' + b"[" * 20000 + b"]" * 20000 + b"}"
    lines = [*good[:10], deep, *good[10:30], deeper, *good[30:]]
    out = decode_many(lines)
    rejected = [r for r in out if isinstance(r, Rejection)]
    assert [r.code for r in rejected] == ["too-deep", "too-deep"]
    batch = decode_lines(lines)  # the warehouse's decoder
    assert batch.events.num_rows == len(good) and len(batch.rejections) == 2
    assert b"pr1_" in scrub(deeper, {"UTH_PSEUDONYM_KEY": KEY})
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    report = _ingest(_write(tmp_path / "deep.jsonl", lines), sink, UTH_PSEUDONYM_KEY=KEY)
    assert report["written"] == len(good) and report["rejected_by_reason"] == {"too-deep": 2}
    assert len(_stored(sink)) == len(good)
    ledger.record("bad-input", "nested 1,000 and 20,000 deep [uth ingest]", sent=len(lines),
                  processed=report["written"], rejected=report["rejected"])


# 2 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("named", ["{path}", "../rulesets/house.toml", "/proc/self/mem"])
def test_an_event_never_names_a_ruleset_file(tmp_path: Path, named: str, ledger: Any) -> None:
    """A TableOpened naming a file (a copy with other pays, or /proc/self/mem) is an
    unknown ruleset: its hands are not judged by that file's pays, nothing is opened."""
    from events.audit.auditor import audit

    house = tmp_path / "house.toml"
    built_in = Path(__file__).parents[2] / "events" / "game" / "rulesets" / "charlevoix-2011.toml"
    house.write_text(built_in.read_text().replace('flush = "7:1"', 'flush = "70:1"'))
    name = named.format(path=house)
    with pytest.raises(UnknownRulesetError):
        load_ruleset(name)
    events = floor(1, "rs")
    events[0]["payload"]["ruleset"] = name
    report = audit(decode_many([corpus.encode(e) for e in events]))
    assert {f.kind for f in report.findings} == {"unknown_ruleset"}
    ledger.record("bad-input", "a ruleset named as a file [uth audit]", sent=len(events),
                  processed=report.summary["events"], flagged=len(report.findings))


# 3 ---------------------------------------------------------------------------------------

def test_identifiers_that_are_no_path_segment_or_other_spellings_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], ledger: Any) -> None:
    """``T\\u0000A`` and ``T\\u0000B`` shared the archive directory of ``T`` (loading the
    second deleted the first's archive); NFC and NFD ``Café`` were two tables. Such
    events are dead letters; the valid table's archive is whole."""
    good = floor(1, "ok")
    bad: list[bytes] = []
    for table_id in ("T\u0000A", "T\u0000B", "Cafe\u0301"):
        for e in floor(1, f"bad{len(bad)}")[:5]:
            bad.append(corpus.encode({**e, "table_id": table_id}))
    source = _write(tmp_path / "ids.jsonl", [corpus.encode(e) for e in good] + bad)
    warehouse = tmp_path / "w.duckdb"
    code, _, err = load_in_process(capsys, "load", "--source", str(source), "--warehouse",
                                     str(warehouse), "-q")
    assert code in (0, 1), err
    with duckdb.connect(str(warehouse), read_only=True) as con:
        tables = con.execute("SELECT DISTINCT table_id FROM events").fetchall()
        dead = con.execute("SELECT reason FROM dead_letters").fetchall()
        archived = con.execute(
            "SELECT count(*) FROM read_parquet(?, hive_partitioning=true)",
            [str(tmp_path / "w_archive" / "**" / "*.parquet")]).fetchone()
    assert tables == [("T-ok0",)]
    assert len(dead) == len(bad)
    assert sum("control character" in r for (r,) in dead) == 10
    assert sum("NFC" in r for (r,) in dead) == 5
    assert archived == (len(good),)
    ledger.record("bad-input", "NUL and NFD table ids [uth load, archive]",
                  sent=len(good) + len(bad), processed=archived[0], rejected=len(dead))


# 4 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("sink_kind", ["sqlite", "jsonl"])
def test_an_ingest_run_again_dead_letters_nothing_twice(tmp_path: Path, sink_kind: str,
                                                        ledger: Any) -> None:
    lines = _lines()
    lines[5:5] = [b"not json", b'{"type":"Foo"}']
    source = _write(tmp_path / "src.jsonl", lines)
    sink = (f"sqlite:///{tmp_path / 'log.db'}" if sink_kind == "sqlite"
            else str(tmp_path / "sink.jsonl"))
    for _ in range(3):
        report = _ingest(source, sink)
        assert report["accounted"]
    if sink_kind == "sqlite":
        dead = _dead(sink)
    else:
        dead = [json.loads(x) for x in (tmp_path / "sink.rejected.jsonl").read_text().split(
            "\n") if x]
    assert sorted(str(d["position"]) for d in dead) == ["6", "7"]
    ledger.record("bad-input", "the same bad lines ingested 3 times", sent=len(lines),
                  processed=len(_stored(sink)), rejected=len(dead))


# 5 ---------------------------------------------------------------------------------------

def test_a_player_identifier_is_never_stored_in_clear(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      ledger: Any) -> None:
    """Written with a JSON escape in its key, or as a number: not in the log, the dead
    letters (stored line and reason), the warehouse or the archive."""
    events = floor(1, "pl")
    bets = [i for i, e in enumerate(events) if e["type"] == "BetPlaced"]
    escaped = corpus.encode({**events[bets[0]], "payload": {
        **events[bets[0]]["payload"], "player_ref": CARD}}).replace(
        b'"player_ref"', b'"player\\u005fref"')
    number = corpus.encode({**events[bets[1]], "payload": {
        **events[bets[1]]["payload"], "player_ref": int(CARD)}})
    lines = [corpus.encode(e) for e in events]
    lines[bets[0]], lines[bets[1]] = escaped, number
    source = _write(tmp_path / "players.jsonl", lines)
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    report = _ingest(source, sink, UTH_PSEUDONYM_KEY=KEY)
    assert report["written"] == len(lines) - 1 and report["rejected_by_reason"] == {
        "wrong-type": 1}
    with sqlite3.connect(tmp_path / "log.db") as con:
        dump = "\n".join(con.iterdump())
    assert CARD not in dump and "pr1_" in dump
    assert "kept only as its pseudonym" in _dead(sink)[0]["reason"]
    ledger.record("bad-input", "escaped and numeric player_ref [uth ingest]", sent=len(lines),
                  processed=report["written"], rejected=report["rejected"])
    os.environ["UTH_PSEUDONYM_KEY"] = KEY
    try:
        code, _, err = load_in_process(capsys, "load", "--source", str(source),
                                       "--warehouse", str(tmp_path / "w.duckdb"), "-q")
    finally:
        del os.environ["UTH_PSEUDONYM_KEY"]
    assert code in (0, 1), err
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
                      and p.name != "players.jsonl" and "log.db" not in p.name)
    assert CARD.encode() not in stored
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as con:
        text = con.execute("SELECT string_agg(CAST(payload AS VARCHAR), ' ') FROM events"
                           ).fetchone()[0] + " ".join(
            r for (r,) in con.execute("SELECT reason || raw FROM dead_letters").fetchall())
    assert CARD not in text and "pr1_" in text


# 6, 7, 11: what a file holds and how its lines end ------------------------------------

def test_a_byte_order_mark_and_cr_only_line_ends_lose_nothing(tmp_path: Path,
                                                               ledger: Any) -> None:
    lines = _lines()
    for name, data in (("bom.jsonl", b"\xef\xbb\xbf" + b"\n".join(lines) + b"\n"),
                       ("mac.jsonl", b"\r".join(lines) + b"\r")):
        sink = f"sqlite:///{tmp_path / (name + '.db')}"
        report = _ingest(_write(tmp_path / name, [data], end=b""), sink)
        assert (report["read"], report["written"], report["rejected"]) == (len(lines),) * 2 + (0,)
        audited = uth("audit", "--source", str(tmp_path / name), "--json")
        summary = json.loads(audited.stdout.strip().splitlines()[-1])["summary"]
        assert summary["events"] == len(lines) and summary["rejected_events"] == 0
        assert summary["hands"] == 3
        ledger.record("bad-input", f"{name} [uth ingest, uth audit]", sent=len(lines),
                      processed=report["written"], rejected=report["rejected"])


def test_ingest_and_audit_agree_on_an_unended_last_line(tmp_path: Path, ledger: Any) -> None:
    """A one-shot read refuses a last line without its newline that is not JSON (it never
    vanishes); uth ingest and uth audit count it alike."""
    lines = _lines()
    source = tmp_path / "torn.jsonl"
    source.write_bytes(b"\n".join(lines) + b'\n{"event_id":"e-torn","type":"HandEn')
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    report = _ingest(source, sink)
    assert report["read"] == len(lines) + 1 and report["rejected_by_reason"] == {"bad-json": 1}
    audited = uth("audit", "--source", str(source), "--json")
    summary = json.loads(audited.stdout.strip().splitlines()[-1])["summary"]
    assert (summary["events"], summary["rejected_events"]) == (len(lines), 1)
    ledger.record("bad-input", "a last line without its newline [ingest, audit]",
                  sent=len(lines) + 1, processed=report["written"], rejected=report["rejected"])


def test_a_source_that_is_not_json_lines(tmp_path: Path, ledger: Any) -> None:
    """An SQLite log named by its plain path is read as the log it is; a CSV or a binary
    file is refused with one message, not thousands of rejected lines."""
    db = tmp_path / "events.db"
    url = f"sqlite:///{db}"
    with open_log(url) as log:
        log.append([("t", line) for line in _lines()])
    replayed = uth("replay", "t0-h1", "--source", str(db), "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["hand_id"] == "t0-h1"
    csv = tmp_path / "hands.csv"
    csv.write_text("hand_id,table_id\nh1,T1\n")
    blob = tmp_path / "blob.jsonl"
    blob.write_bytes(bytes(range(256)) * 8)
    for path, says in ((csv, "text that is not JSON Lines"), (blob, "a binary file")):
        for command in (("ingest", "--source", str(path), "--sink", str(tmp_path / "o.jsonl")),
                        ("audit", "--source", str(path))):
            done = uth(*command)
            assert done.returncode == 2, done.stdout
            assert says in done.stderr and done.stderr.count("\n") <= 2, done.stderr
    assert not (tmp_path / "o.rejected.jsonl").exists()
    # each file is one input, refused whole with its reason (nothing of it is read as events)
    ledger.record("bad-input", "a CSV and a binary file as sources", sent=2, processed=0,
                  rejected=2)


# 9 ---------------------------------------------------------------------------------------

HOSTILE = "\u001b]0;owned\u0007\u001b[2J\rall paid\u202e"


def test_text_from_events_is_never_printed_raw(tmp_path: Path, ledger: Any) -> None:
    """A dispute's claim, a void's reason and a rejected line's text hold escape sequences:
    uth replay, uth tail and uth audit show them escaped."""
    events = floor(1, "esc")
    hand = "esc0-h2"
    last = max(e["seq"] for e in events)
    events.append({**events[-1], "event_id": "esc-dispute", "type": "DisputeOpened",
                   "hand_id": hand, "seq": last + 1, "payload": {"seat": 3, "claim": HOSTILE}})
    lines = [corpus.encode(e) for e in events]
    lines.append(b'{"type":"' + HOSTILE.encode() + b'"}')
    source = _write(tmp_path / "esc.jsonl", lines)
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    report = _ingest(source, sink)
    # the bad line's raw carriage return ends a line too: the file holds one line more
    assert report["read"] == len(lines) + 1
    ledger.record("bad-input", "escape sequences in event text [ingest, printed]",
                  sent=report["read"], processed=report["written"], rejected=report["rejected"])
    outputs = {
        "replay": uth("replay", hand, "--source", str(source)),
        "replay --json": uth("replay", hand, "--source", str(source), "--json"),
        "tail": uth("tail", "--source", sink, "-n", "5", "--no-follow"),
        "audit": uth("audit", "--source", str(source)),
        "audit --json": uth("audit", "--source", str(source), "--json"),
    }
    for name, done in outputs.items():
        text = done.stdout + done.stderr
        assert done.returncode == 0, (name, done.stderr)
        for raw in ("\u001b", "\u0007", "\r", "\u202e"):
            assert raw not in text, (name, raw)
    assert "\\u001b]0;owned" in outputs["replay"].stdout
    doc = json.loads(outputs["replay --json"].stdout)
    assert [d["claim"] for d in doc["disputes"]] == [HOSTILE]  # --json keeps the text exact


# 12 --------------------------------------------------------------------------------------

def test_load_counts_each_hand_once_and_simulate_twice_stores_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], ledger: Any) -> None:
    source = _write(tmp_path / "f.jsonl", _lines(6, "cut"))
    code, out, err = load_in_process(capsys, "load", "--source", str(source), "--warehouse",
                                     str(tmp_path / "w.duckdb"), "--batch-size", "50")
    assert code in (0, 1), err
    assert "audited 18 hands" in out, out
    log = f"sqlite:///{tmp_path / 'sim.db'}"
    for _ in range(2):
        done = uth("simulate", "--tables", "2", "--hands", "5", "--sink", log, "--fast")
        assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "sim.db") as con:
        n, ids = con.execute("SELECT count(*), count(DISTINCT event_id) FROM events").fetchone()
    assert n == ids > 0
    ledger.record("fault", "uth simulate run twice into one SQLite log", sent=2 * n,
                  processed=n, ignored=n)


def test_an_over_long_line_is_cut_as_it_is_read_and_refused(tmp_path: Path,
                                                           ledger: Any) -> None:
    """A 20 MB line among events: refused as too large (what is kept of it bounded), the
    events on either side of it kept."""
    lines = _lines()
    source = tmp_path / "long.jsonl"
    with open(source, "wb") as f:
        f.write(b"\n".join(lines[:30]) + b"\n")
        f.write(b'{"x":"' + b"a" * 20_000_000 + b'"}\n')
        f.write(b"\n".join(lines[30:]) + b"\n")
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    report = _ingest(source, sink)
    assert report["written"] == len(lines) and report["rejected_by_reason"] == {"too-large": 1}
    (dead,) = _dead(sink)
    assert len(dead["raw"]) <= 4096 and "more than the 65,536 bytes" in dead["reason"]
    ledger.record("bad-input", "a 20 MB line [uth ingest]", sent=len(lines) + 1,
                  processed=report["written"], rejected=report["rejected"])
