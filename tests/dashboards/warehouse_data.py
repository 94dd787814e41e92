"""A warehouse made by hand: the brief's tables created directly in DuckDB and filled with
rows whose figures the tests know, so a page can be checked against them.

Hand ``H1`` is a complete, correctly dealt hand with one mispay: table T1 (charlevoix-2011,
USD), seat 2 antes $10, blind $10, Trips $5 with Qh 3h; board Ah Kh 7h 2c 9s, dealer 9d 9c.
Seat 2 checks preflop and raises 2x ($20) on the flop with a made flush; the dealer has
three nines and qualifies. Correct: play +$20, ante +$10, blind +$15 (flush 3:2), Trips
+$30 (flush 6:1). Recorded: the blind paid 1:1 (+$10), an underpayment of $5.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import Any

import duckdb

SCHEMA = """
CREATE TABLE events(event_id VARCHAR PRIMARY KEY, type VARCHAR, schema_version INT,
  table_id VARCHAR, hand_id VARCHAR, seq BIGINT, occurred_at TIMESTAMP, gaming_day DATE,
  payload JSON, source VARCHAR, position VARCHAR);
CREATE TABLE hands(hand_id VARCHAR PRIMARY KEY, table_id VARCHAR, ruleset VARCHAR,
  currency VARCHAR, dealer_id VARCHAR, seats VARCHAR, seat_count INT, started_at TIMESTAMP,
  ended_at TIMESTAMP, gaming_day DATE, status VARCHAR, dealing_order VARCHAR, shoe_id VARCHAR);
CREATE TABLE wagers(hand_id VARCHAR, table_id VARCHAR, gaming_day DATE, dealer_id VARCHAR,
  ruleset VARCHAR, seat INT, spot VARCHAR, amount BIGINT, recorded_outcome VARCHAR,
  recorded_result BIGINT, correct_outcome VARCHAR, correct_result BIGINT, player_category INT,
  PRIMARY KEY (hand_id, seat, spot));
CREATE TABLE audit_findings(finding_id VARCHAR PRIMARY KEY, kind VARCHAR, hand_id VARCHAR,
  table_id VARCHAR, dealer_id VARCHAR, seat INT, spot VARCHAR, expected BIGINT,
  recorded BIGINT, detail VARCHAR, occurred_at TIMESTAMP, gaming_day DATE);
CREATE TABLE table_hold_daily(table_id VARCHAR, gaming_day DATE, ruleset VARCHAR,
  currency VARCHAR, hands BIGINT, "drop" BIGINT, handle BIGINT, house_win BIGINT,
  hold_pct DOUBLE, win_to_handle_pct DOUBLE, theoretical_win BIGINT, hands_per_hour DOUBLE,
  hold_ci_low DOUBLE, hold_ci_high DOUBLE);
CREATE TABLE trips_performance(ruleset VARCHAR, table_id VARCHAR, gaming_day DATE,
  trips_wagers BIGINT, trips_handle BIGINT, trips_win BIGINT, hold_pct DOUBLE,
  theoretical_hold_pct DOUBLE, ci_low DOUBLE, ci_high DOUBLE);
CREATE TABLE trips_hits(ruleset VARCHAR, table_id VARCHAR, gaming_day DATE, category INT,
  category_name VARCHAR, hits BIGINT, expected_hits DOUBLE, probability DOUBLE);
CREATE TABLE dealer_performance(dealer_id VARCHAR, gaming_day DATE, hands BIGINT,
  hours DOUBLE, hands_per_hour DOUBLE, mispays BIGINT, mispay_net BIGINT);
CREATE TABLE load_positions(source VARCHAR PRIMARY KEY, position VARCHAR,
  events_loaded BIGINT, updated_at TIMESTAMP);
CREATE TABLE dead_letters(source VARCHAR, position VARCHAR, reason VARCHAR, raw VARCHAR,
  loaded_at TIMESTAMP);
CREATE TABLE player_ratings(player VARCHAR, gaming_day DATE, table_id VARCHAR, hands BIGINT,
  hours DOUBLE, avg_ante DOUBLE, avg_wager DOUBLE, handle BIGINT, theo_win BIGINT,
  decision_cost BIGINT, actual_win BIGINT, win_minus_theo BIGINT, protection_score DOUBLE,
  flagged BOOLEAN, currency VARCHAR, theo_base BIGINT, theo_trips BIGINT,
  dispute_adjustment BIGINT);
CREATE TABLE player_alerts(player VARCHAR, table_id VARCHAR, seats VARCHAR, hands BIGINT,
  decisions BIGINT, score DOUBLE, z_both DOUBLE, z_one DOUBLE, pattern VARCHAR,
  gain_antes DOUBLE, evidence VARCHAR, top_dealer VARCHAR, only_with_dealer VARCHAR,
  test VARCHAR, streets VARCHAR, crossed_on DATE);
CREATE TABLE player_alert_dealers(player VARCHAR, dealer_id VARCHAR, hands BIGINT,
  gain_antes DOUBLE, z DOUBLE);
CREATE TABLE dealer_alerts(dealer_id VARCHAR, tables VARCHAR, hands BIGINT,
  seat_hands BIGINT, score DOUBLE, z_both DOUBLE, z_first DOUBLE, z_second DOUBLE,
  contrast DOUBLE, pattern VARCHAR, gain_antes DOUBLE, evidence VARCHAR, players VARCHAR);
"""

D27, D28, D29 = date(2026, 11, 27), date(2026, 11, 28), date(2026, 11, 29)

# table_id, day, ruleset, currency, hands, drop, handle, house_win, theoretical_win,
# hands_per_hour, ci_low, ci_high   (hold_pct and win/handle derived below)
HOLD = [
    ("T1", D27, "charlevoix-2011", "USD", 240, 1_250_000, 3_100_000, 190_000, 75_000,
     40.0, 0.02, 0.30),
    ("T1", D28, "charlevoix-2011", "USD", 300, 1_500_000, 3_800_000, 240_000, 92_000,
     42.5, 0.03, 0.29),
    ("T2", D28, "cardroom", "USD", 180, 800_000, 2_000_000, 360_000, 48_000, 36.0,
     0.01, 0.33),  # hold 45%: above its limits, the outlier
    ("T2", D29, "cardroom", "USD", 210, 900_000, 2_300_000, -45_000, 55_000, 35.0,
     -0.05, 0.31),
    ("T3", D29, "eu-participation", "EUR", 120, 123_456_789, 2_000_000, 1_234_500,
     47_000, 30.0, -0.02, 0.34),  # hold 1%: inside
]
OUTLIER = ("T2", D28)

# ruleset, table, day, trips_wagers, trips_handle, trips_win, theo, ci_low, ci_high
TRIPS = [
    ("charlevoix-2011", "T1", D27, 200, 100_000, 4_000, 0.0345, -0.10, 0.169),
    ("charlevoix-2011", "T1", D28, 250, 125_000, -12_500, 0.0345, -0.09, 0.159),
    ("cardroom", "T2", D28, 150, 75_000, 9_000, 0.0189, -0.14, 0.178),
]
# ruleset, table, day, category, hits (probabilities: exact 7-card frequencies)
PROB = {9: 4324 / 133784560, 8: 37260 / 133784560, 7: 224848 / 133784560,
        6: 3473184 / 133784560, 5: 4047644 / 133784560, 4: 6180020 / 133784560,
        3: 6461620 / 133784560}
NAMES = {3: "Three of a kind", 4: "Straight", 5: "Flush", 6: "Full house", 7: "Four of a kind",
         8: "Straight flush", 9: "Royal flush"}
HITS = [
    ("charlevoix-2011", "T1", D27, 3, 9), ("charlevoix-2011", "T1", D27, 5, 6),
    ("charlevoix-2011", "T1", D28, 3, 10), ("charlevoix-2011", "T1", D28, 6, 7),
    ("charlevoix-2011", "T1", D28, 9, 1), ("cardroom", "T2", D28, 4, 8),
]
# dealer, day, hands, hours, mispays, mispay_net
DEALERS = [
    ("D1", D27, 240, 6.0, 0, 0), ("D1", D28, 300, 7.0, 1, -500),
    ("D2", D28, 180, 5.0, 1, 2000), ("D3", D29, 120, 4.0, 1, 1000),
]
# finding_id, kind, hand, table, dealer, seat, spot, expected, recorded, detail, at, day
FINDINGS = [
    ("F1", "mispay", "H1", "T1", "D1", 2, "blind", 1500, 1000, "blind paid 1:1 on a flush",
     datetime(2026, 11, 28, 21, 10), D28),
    ("F2", "mispay", "H3", "T2", "D2", 4, "trips", -500, 1500, "trips paid on a pair",
     datetime(2026, 11, 29, 2, 30), D28),
    ("F3", "sequence_gap", None, "T3", None, None, None, None, None, "seq 41 to 43",
     datetime(2026, 11, 29, 10, 0), D29),
    ("F4", "mispay", "H4", "T3", "D3", 1, "ante", 1000, 2000, "ante paid twice",
     datetime(2026, 11, 29, 15, 0), D29),
]
HANDS = [
    ("H1", "T1", "charlevoix-2011", "USD", "D1", "2", 1, datetime(2026, 11, 28, 21, 8),
     datetime(2026, 11, 28, 21, 10), D28, "settled", "community_first", "S1"),
    ("H2", "T1", "charlevoix-2011", "USD", "D1", "1,3", 2, datetime(2026, 11, 27, 12, 0),
     datetime(2026, 11, 27, 12, 2), D27, "settled", "community_first", "S1"),
    ("H3", "T2", "cardroom", "USD", "D2", "4", 1, datetime(2026, 11, 29, 2, 28),
     datetime(2026, 11, 29, 2, 30), D28, "settled", "players_first", None),
    ("H4", "T3", "eu-participation", "EUR", "D3", "1", 1, datetime(2026, 11, 29, 14, 58),
     datetime(2026, 11, 29, 15, 0), D29, "settled", "community_first", None),
]
# hand, seat, spot, amount, rec_out, rec, cor_out, cor, category
WAGERS = [
    ("H1", 2, "ante", 1000, "win", 1000, "win", 1000, 5),
    ("H1", 2, "blind", 1000, "win", 1000, "win", 1500, 5),
    ("H1", 2, "play", 2000, "win", 2000, "win", 2000, 5),
    ("H1", 2, "trips", 500, "win", 3000, "win", 3000, 5),
    ("H2", 1, "ante", 500, "lose", -500, "lose", -500, 1),
    ("H2", 1, "blind", 500, "lose", -500, "lose", -500, 1),
    ("H2", 3, "ante", 500, "push", 0, "push", 0, 0),
    ("H2", 3, "blind", 500, "lose", -500, "lose", -500, 0),
    ("H2", 3, "play", 2000, "lose", -2000, "lose", -2000, 0),
    ("H3", 4, "trips", 500, "win", 1500, "lose", -500, 1),
    ("H4", 1, "ante", 1000, "win", 2000, "win", 1000, 2),
]

H1_EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("HandStarted", {"dealer_id": "D1", "seats": [2], "shoe_id": "S1"}),
    ("BetPlaced", {"seat": 2, "spot": "ante", "amount": 1000}),
    ("BetPlaced", {"seat": 2, "spot": "blind", "amount": 1000}),
    ("BetPlaced", {"seat": 2, "spot": "trips", "amount": 500}),
    ("CardsDealt", {"target": "community", "cards": ["Ah", "Kh", "7h", "2c", "9s"]}),
    ("CardsDealt", {"target": "seat", "seat": 2, "cards": ["Qh", "3h"]}),
    ("CardsDealt", {"target": "dealer", "cards": ["9d", "9c"]}),
    ("PlayerDecision", {"seat": 2, "street": "preflop", "action": "check", "auto": False}),
    ("CommunityRevealed", {"street": "flop", "cards": ["Ah", "Kh", "7h"]}),
    ("PlayerDecision", {"seat": 2, "street": "flop", "action": "raise", "multiple": 2,
                        "amount": 2000, "auto": False}),
    ("CommunityRevealed", {"street": "turn_river", "cards": ["2c", "9s"]}),
    ("DealerRevealed", {"cards": ["9d", "9c"]}),
    ("PayoutRecorded", {"seat": 2, "spot": "ante", "outcome": "win", "amount": 1000}),
    ("PayoutRecorded", {"seat": 2, "spot": "blind", "outcome": "win", "amount": 1000}),
    ("PayoutRecorded", {"seat": 2, "spot": "play", "outcome": "win", "amount": 2000}),
    ("PayoutRecorded", {"seat": 2, "spot": "trips", "outcome": "win", "amount": 3000}),
    ("HandEnded", {}),
]
TABLE_OPENED = {"ruleset": "charlevoix-2011", "min_bet": 500, "max_bet": 50000,
                "max_trips": 10000, "seats": 7, "currency": "USD"}


# Players: a seat session flagged for hole-card play (two gaming days) and a pseudonymous
# player rated on one day. player, day, table, hands, hours, avg ante, avg wager, handle,
# theo, decisions' cost, actual win, score, flagged (win - theo derived below)
HOLE_CARDER = "T1/seat-2/H1"
PSEUDONYM = "pr1_0123456789abcdef0123456789abcdef"
# player, day, table, hands, hours, avg ante, avg wager, handle, theo, decisions' cost,
# actual win, score, flagged, theo base, theo trips, dispute adjustment; the pseudonym
# played a ruleset without an exact base edge: its theo and cost are unknown
RATINGS = [
    (HOLE_CARDER, D27, "T1", 120, 3.0, 1000.0, 3000.0, 360_000, 3_000, 5_000, -20_000, 6.2,
     True, 2_500, 500, 0),
    (HOLE_CARDER, D28, "T1", 80, 2.0, 1000.0, 4000.0, 320_000, 2_000, 4_000, -15_000, 6.2,
     True, 1_800, 200, 1_000),
    (PSEUDONYM, D28, "T2", 60, 1.5, 2500.0, 6000.0, 360_000, None, None, 12_000, 0.7, False,
     None, 1_000, 0),
]
ALERTS = [(HOLE_CARDER, "T1", "2", 200, 350, 6.2, 6.2, 3.0, "hole-card-both", 95.5,
           '["H1", "H2"]', "D1", "D1", "sign river", "flop,river", "2026-11-02")]
DEALER_ALERTS = [("D1", "T1", 150, 600, 5.1, 4.8, 2.0, 1.1, 3.9, "flashes", 80.0,
                  '["H1", "H2"]', json.dumps([{"player": HOLE_CARDER, "gain_antes": 80.0}]))]
ALERT_DEALERS = [(HOLE_CARDER, "D1", 150, 80.0, 6.0), (HOLE_CARDER, "D2", 50, 15.5, 2.1)]


def create_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(SCHEMA)


def _hold_rows() -> list[tuple[Any, ...]]:
    out = []
    for t, d, rs, cur, hands, drop, handle, win, theo, hph, lo, hi in HOLD:
        out.append((t, d, rs, cur, hands, drop, handle, win, win / drop, win / handle, theo,
                    hph, lo, hi))
    return out


def fill(con: duckdb.DuckDBPyConnection) -> None:
    con.executemany("INSERT INTO table_hold_daily VALUES (" + ",".join("?" * 14) + ")",
                    _hold_rows())
    con.executemany("INSERT INTO trips_performance VALUES (?,?,?,?,?,?,?,?,?,?)",
                    [(rs, t, d, n, h, w, w / h, theo, lo, hi)
                     for rs, t, d, n, h, w, theo, lo, hi in TRIPS])
    wagers_of = {(rs, t, d): n for rs, t, d, n, *_ in TRIPS}
    con.executemany("INSERT INTO trips_hits VALUES (?,?,?,?,?,?,?,?)",
                    [(rs, t, d, c, NAMES[c], k, PROB[c] * wagers_of[(rs, t, d)], PROB[c])
                     for rs, t, d, c, k in HITS])
    con.executemany("INSERT INTO dealer_performance VALUES (?,?,?,?,?,?,?)",
                    [(dl, d, h, hrs, h / hrs, m, net) for dl, d, h, hrs, m, net in DEALERS])
    con.executemany("INSERT INTO audit_findings VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", FINDINGS)
    con.executemany("INSERT INTO hands VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", HANDS)
    hand_of = {h[0]: h for h in HANDS}
    con.executemany("INSERT INTO wagers VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", [
        (h, hand_of[h][1], hand_of[h][9], hand_of[h][4], hand_of[h][2], seat, spot, amt, ro,
         r, co, c, cat) for h, seat, spot, amt, ro, r, co, c, cat in WAGERS])
    events = [("e-open", "TableOpened", "T1", None, 100, datetime(2026, 11, 27, 6, 0), D27,
               TABLE_OPENED)]
    for i, (kind, payload) in enumerate(H1_EVENTS):
        at = datetime(2026, 11, 28, 21, 8, i)
        events.append((f"e-h1-{i:02d}", kind, "T1", "H1", 500 + i, at, D28, payload))
    # a dispute of H2 filed twelve days after the hand: outside the audit page's usual window
    events.append(("e-h2-dispute", "DisputeOpened", "T1", "H2", 9000,
                   datetime(2026, 12, 9, 20, 0), date(2026, 12, 9),
                   {"seat": 3, "claim": "my raise was refused"}))
    con.executemany("INSERT INTO events VALUES (?,?,1,?,?,?,?,?,?,'test.jsonl',?)",
                    [(eid, k, t, h, seq, at, d, json.dumps(p), str(seq))
                     for eid, k, t, h, seq, at, d, p in events])
    con.execute("INSERT INTO load_positions VALUES ('test.jsonl', '517', 18, now())")
    con.executemany("INSERT INTO player_ratings VALUES (" + ",".join("?" * 18) + ")", [
        (*r[:11], None if r[8] is None or r[9] is None else r[10] - r[8] - r[9], r[11], r[12],
         "USD", *r[13:]) for r in RATINGS])
    con.executemany("INSERT INTO player_alerts VALUES (" + ",".join("?" * 16) + ")", ALERTS)
    con.executemany("INSERT INTO player_alert_dealers VALUES (?,?,?,?,?)", ALERT_DEALERS)
    con.executemany("INSERT INTO dealer_alerts VALUES (" + ",".join("?" * 13) + ")",
                    DEALER_ALERTS)


def build(path: Path, rows: bool = True) -> Path:
    con = duckdb.connect(str(path))
    try:
        create_schema(con)
        if rows:
            fill(con)
    finally:
        con.close()
    return path
