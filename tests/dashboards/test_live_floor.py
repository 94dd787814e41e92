"""The live floor end to end, as the README tells a user to run it (issue 31): a paced
``uth simulate`` deals into a table outbox (the SQLite log ``TablePublisher`` writes),
``uth ingest --follow`` forwards the outbox to a topic of the local Kafka-protocol broker,
``uth load --follow`` keeps the warehouse current from the topic, and the Live page is open
in headless Chromium all along. Every hand of the outbox arrives once, the loads never
overlap nor lock a reader out, and the page shows the new hands without a reload."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from events.logs import open_log
from events.logs.publisher import TablePublisher
from pipeline.warehouse import query
from tests.dashboards.conftest import ROOT, Server
from tests.dashboards.test_browser import browser  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.kafka, pytest.mark.slow]

TABLES, HANDS, PACE = 3, 40, 1200  # hands an hour per table: a hand every 3 s
LOCKED = re.compile(r"could not set lock|conflicting lock|another load is running|"
                    r"warehouseBusy|stayed locked|traceback", re.IGNORECASE)


def _uth(*argv: str, out: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with out.open("wb") as sink:
        return subprocess.Popen([sys.executable, "-m", "pipeline.cli", *argv], cwd=ROOT,
                                stdout=sink, stderr=subprocess.STDOUT, env=env)


def _stop(proc: subprocess.Popen[bytes]) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _outbox(url: str) -> tuple[list[str], set[str]]:
    """The outbox's event ids (every record) and its hands' ids."""
    with open_log(url) as log:
        events = [json.loads(r.value) for batch in log.read() for r in batch]
    return [e["event_id"] for e in events], {e["hand_id"] for e in events if e["hand_id"]}


def _warehouse(path: Path) -> tuple[list[str], list[str]]:
    """The warehouse's event ids and hand ids, every row (duplicates kept); none before
    the first load made it."""
    if not path.exists():
        return [], []
    try:
        events = [r[0] for r in query(path, "SELECT event_id FROM events")]
        hands = [r[0] for r in query(path, "SELECT hand_id FROM hands")]
    except duckdb.CatalogException:  # the file, not yet its tables
        return [], []
    return events, hands


def _metric(page, label: str) -> int:  # type: ignore[no-untyped-def]
    box = page.locator('[data-testid="stMetric"]', has_text=label).first
    text = box.locator('[data-testid="stMetricValue"]').inner_text(timeout=60_000)
    return int(text.replace(",", "").strip())


def test_live_floor_end_to_end(browser, kafka_broker: str,  # type: ignore[no-untyped-def]  # noqa: F811
                               tmp_path: Path) -> None:
    outbox = f"sqlite:///{tmp_path / 'outbox.db'}"
    topic = f"kafka://{kafka_broker}/floor.{os.getpid()}.{int(time.time())}"
    warehouse = tmp_path / "warehouse.duckdb"
    env = {k: v for k, v in os.environ.items() if not k.startswith("UTH_")}
    env["UTH_LIVE_REFRESH"] = "1"
    logs = {name: tmp_path / f"{name}.log" for name in ("simulate", "ingest", "load")}
    procs: dict[str, subprocess.Popen[bytes]] = {}
    server: Server | None = None
    try:
        TablePublisher(tmp_path / "outbox.db").close()  # the tables' outbox, empty yet
        procs["ingest"] = _uth("ingest", "--source", outbox, "--sink", topic, "--follow",
                               out=logs["ingest"], env=env)
        procs["load"] = _uth("load", "--source", topic, "--warehouse", str(warehouse),
                             "--follow", "--interval", "1", out=logs["load"], env=env)
        deadline = time.monotonic() + 300
        while "newest event" not in logs["load"].read_text():  # a first load, of nothing
            assert time.monotonic() < deadline, {n: p.read_text() for n, p in logs.items()}
            assert all(p.poll() is None for p in procs.values()), logs["load"].read_text()
            time.sleep(0.5)
        server = Server(warehouse, tmp_path / "dashboards.log", env=env)
        server.wait_ready()
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        page.goto(f"{server.url}/live", wait_until="domcontentloaded")
        page.get_by_role("heading", name="Live", exact=True).wait_for(timeout=120_000)
        page.get_by_text("no hands loaded yet").wait_for(timeout=120_000)
        # the floor opens while the page is open
        procs["simulate"] = _uth("simulate", "--sink", outbox, "--tables", str(TABLES),
                                 "--hands", str(HANDS), "--pace", str(PACE), "--seed", "31",
                                 "--mispay-rate", "0.05", "--quiet", out=logs["simulate"],
                                 env=env)
        page.evaluate("window.__uthSameDocument = true")  # gone if the page reloads
        page.locator('[data-testid="stMetric"]', has_text="Hands in the last 60 min") \
            .first.wait_for(timeout=300_000)  # the first hands loaded, shown
        first = _metric(page, "Hands in the last 60 min")
        shown = [first]
        # the page follows the floor, on its own, until the outbox's last hand is shown
        deadline = time.monotonic() + 300
        while shown[-1] < TABLES * HANDS:
            assert time.monotonic() < deadline, (shown, {n: p.read_text()
                                                         for n, p in logs.items()})
            page.wait_for_timeout(1000)
            shown.append(_metric(page, "Hands in the last 60 min"))
        assert page.evaluate("window.__uthSameDocument === true")  # no reload happened
        assert first < TABLES * HANDS and len(set(shown)) >= 3, shown  # it grew, in steps
        assert procs["simulate"].wait(timeout=120) == 0, logs["simulate"].read_text()
        errors = page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]')
        assert errors.count() == 0, errors.first.inner_text()
        assert not problems, problems

        # every hand and every event of the outbox, once
        event_ids, hand_ids = _outbox(outbox)
        deadline = time.monotonic() + 120
        while True:
            events, hands = _warehouse(warehouse)
            if len(events) >= len(event_ids) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert len(hand_ids) == TABLES * HANDS
        assert sorted(hands) == sorted(hand_ids)
        assert sorted(events) == sorted(event_ids)
    finally:
        if server is not None:
            server.stop()
        codes = {name: _stop(p) for name, p in procs.items()}
    assert codes == {"simulate": 0, "ingest": 0, "load": 0}, \
        {n: p.read_text()[-3000:] for n, p in logs.items()}
    # one writer: no load was refused or locked out, no reader saw a lock error
    load_log = logs["load"].read_text()
    dash_log = (tmp_path / "dashboards.log").read_text()
    for name, text in (("load", load_log), ("ingest", logs["ingest"].read_text()),
                       ("dashboards", dash_log)):
        assert not LOCKED.search(text), (name, text[-3000:])
    loads = re.search(r"stopped after ([\d,]+) loads \(([\d,]+) failed\)", load_log)
    said = [line for line in load_log.splitlines() if not line.startswith("newest event")]
    assert loads is not None and int(loads[1].replace(",", "")) >= 3 and loads[2] == "0", \
        "\n".join(said)[-6000:]  # what each failed load said, not the freshness lines
