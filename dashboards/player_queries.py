"""The Players page's SQL (rating slips and game-protection alerts), on the read-only
connection of :mod:`dashboards.queries`; every value a user picks is a bound parameter."""

from __future__ import annotations

import duckdb
import pandas as pd

from dashboards.queries import Filters, Options, _df, _options, _where

EVIDENCE_LIMIT = 200  # evidence rows shown (five hands per flagged player)


def _known_sum(column: str) -> str:
    """The sum over days, unknown (NULL) when a day's figure is unknown (a hand played
    under a ruleset without an exact edge): never a partial sum shown as the whole."""
    return (f"(CASE WHEN count({column}) = count(*) THEN sum({column}) END)::BIGINT "
            f"AS {column}")


def player_options(con: duckdb.DuckDBPyConnection) -> Options:
    return _options(con, "player_ratings", {"tables": "table_id"})


def ratings(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Rating slips per player over the filtered gaming days, flagged players first."""
    where, params = _where(f)
    return _df(con, f"""
        SELECT player, string_agg(DISTINCT table_id, ', ' ORDER BY table_id) AS tables,
               count(*) AS days, sum(hands)::BIGINT AS hands, sum(hours) AS hours,
               round(sum(avg_ante * hands) / sum(hands))::BIGINT AS avg_ante,
               round(sum(avg_wager * hands) / sum(hands))::BIGINT AS avg_wager,
               sum(handle)::BIGINT AS handle, {_known_sum("theo_base")},
               {_known_sum("theo_trips")}, {_known_sum("theo_win")},
               {_known_sum("decision_cost")},
               coalesce(sum(dispute_adjustment), 0)::BIGINT AS dispute_adjustment,
               sum(actual_win)::BIGINT AS actual_win, {_known_sum("win_minus_theo")},
               max(protection_score) AS score, bool_or(flagged) AS flagged,
               CASE WHEN count(DISTINCT currency) = 1 THEN min(currency) ELSE 'mixed' END
                   AS currency
        FROM player_ratings {where}
        GROUP BY player ORDER BY flagged DESC, score DESC NULLS LAST, player""", params)


def ratings_daily(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """The slips as stored: one per player and gaming day."""
    where, params = _where(f)
    return _df(con, f"""SELECT player, gaming_day, table_id, hands, hours,
               round(avg_ante)::BIGINT AS avg_ante, round(avg_wager)::BIGINT AS avg_wager,
               handle, theo_base, theo_trips, theo_win, decision_cost,
               coalesce(dispute_adjustment, 0) AS dispute_adjustment, actual_win,
               win_minus_theo, currency
        FROM player_ratings {where} ORDER BY gaming_day DESC, player""", params)


def alerts(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    return _df(con, """SELECT player, table_id, seats, hands, decisions, score, z_both, z_one,
               pattern, gain_antes, evidence, top_dealer, only_with_dealer, test, streets,
               crossed_on FROM player_alerts ORDER BY score DESC, player""")


def evidence(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per evidence hand of each flagged player, strongest first."""
    return _df(con, f"""
        WITH e AS (SELECT a.player, a.score, u.hand_id, u.rank
                   FROM player_alerts a,
                        unnest(CAST(a.evidence AS JSON)::VARCHAR[]) WITH ORDINALITY
                            AS u(hand_id, rank))
        SELECT e.player, e.rank, e.hand_id, h.table_id, h.dealer_id, h.started_at
        FROM e LEFT JOIN hands h USING (hand_id)
        ORDER BY e.score DESC, e.player, e.rank LIMIT {EVIDENCE_LIMIT}""")


def alert_dealers(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """The dealers the flagged players' hidden-card gains concentrate on."""
    return _df(con, """
        SELECT dealer_id, count(DISTINCT player) AS flagged_players,
               sum(hands)::BIGINT AS hands, sum(gain_antes) AS gain_antes, max(z) AS max_z,
               sum(gain_antes) / nullif(sum(sum(greatest(gain_antes, 0))) OVER (), 0)
                   AS gain_share
        FROM player_alert_dealers GROUP BY dealer_id
        ORDER BY gain_antes DESC, dealer_id""")


def dealer_alerts(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """The dealers flagged on their own statistic, strongest first."""
    return _df(con, """SELECT dealer_id, tables, hands, score, pattern, contrast, gain_antes,
               evidence, players FROM dealer_alerts ORDER BY score DESC, dealer_id""")
