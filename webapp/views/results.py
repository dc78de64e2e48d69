"""Public results (``/results``): standings, rounds, players, exports and a printable sheet.

Read-only and fit for a phone. Only rounds whose master has been announced are
shown: the slips of the round in play stay hidden until then (D.IV.32 publishes
results per round and per player, bonuses marked, D.III.24). What an arbiter wrote (an
annulment's or a correction's reason, a void slip's own words, why the game was ended)
stays on the console: these pages and files say only its kind (``SlipScore.public_reason``,
``DuplicateGame.public_end_reason``). Tables download as XLSX or CSV
(``records.exports``); a classic game's page is ``classic_results``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, render_template
from werkzeug.wrappers import Response

from rules_core.duplicate import NO_SLIP, DuplicateGame, Round, rack_labels
from rules_core.results_csv import round_results_table

from ..records.exports import table_download
from ..records.federation import game_standings_table
from ..records.players import players_of
from ..records.timezone import local_now
from ..records.tournaments import tournaments_of
from ..services.shared import services
from .classic_results import classic_page
from .display import game_record

bp = Blueprint("results", __name__, url_prefix="/results")


@bp.get("")
def index() -> str:
    records = list(reversed(services().games.store.games()))
    return render_template("results/index.html", games=records)


def _with_game(game_id: str) -> tuple[Any, DuplicateGame]:
    record = game_record(game_id)
    if record.mode != "duplicate":
        abort(404)
    with services().games.reading(game_id) as game:
        assert isinstance(game, DuplicateGame)
        return record, game


def announced(game: DuplicateGame) -> list[Round]:
    return [r for r in game.rounds if r.master is not None]


@bp.get("/<game_id>")
def game(game_id: str) -> str:
    if game_record(game_id).mode == "classic":
        return classic_page(game_id)
    record, live = _with_game(game_id)
    with services().games.reading(game_id):
        context = standings_context(live)
    return render_template("results/game.html", game=record, **context)


def standings_context(game: DuplicateGame) -> dict[str, Any]:
    rounds = announced(game)
    total = game.master_total
    standings = [{"rank": s.rank, "player": s.player, "name": s.name, "total": s.total, "bonus": s.bonus,
                  "percent": 100 * s.total / total if total else 0.0, "matched": s.masters_matched,
                  "solo": s.solo_tops, "deficit": s.max_deficit} for s in game.standings()]  # fmt: skip
    cumulative = 0
    round_rows = []
    for r in rounds:
        cumulative += r.master_score
        bonuses = game.bonuses(r)
        round_rows.append({"number": r.number, "rack": "".join(_rack(r)), "master": r.master.notation if r.master else "",
                           "score": r.master_score, "cumulative": cumulative, "annulled": r.annulled is not None,
                           "bonus": [game.players[p].name for p in bonuses]})  # fmt: skip
    return {"standings": standings, "rounds": round_rows, "master_total": total, "settings": game.settings,
            "ended": game.public_end_reason,
            "in_play": game.current is not None and game.current.master is None}  # fmt: skip


def _rack(r: Round) -> list[str]:
    return rack_labels(r.rack)


@bp.get("/<game_id>/ronda/<int:number>")
def round_page(game_id: str, number: int) -> str:
    record, live = _with_game(game_id)
    with services().games.reading(game_id):
        rounds = {r.number: r for r in announced(live)}
        r = rounds.get(number)
        if r is None:
            abort(404)
        bonuses = live.bonuses(r)
        lines: list[dict[str, Any]] = []
        for p in sorted(live.players.values(), key=lambda p: p.table):
            result = r.results.get(p.id, NO_SLIP)
            lines.append({"player": p.id, "name": p.name, "table": p.table, "play": result.play or "",
                          "score": result.score, "reason": result.public_reason, "bonus": bonuses.get(p.id, 0),
                          "master": result.score == r.master_score and r.master_score > 0})  # fmt: skip
        lines.sort(key=lambda line: (-line["score"], line["name"]))
        context = {"round": r, "annulled": r.annulled is not None, "rack": "".join(_rack(r)), "lines": lines,
                   "numbers": sorted(rounds)}  # fmt: skip
    return render_template("results/round.html", game=record, **context)


@dataclass(frozen=True)
class Bar:
    """One round in the player's chart: the master's score and the player's, in SVG units."""

    number: int
    x: float
    width: float
    master: int
    score: int
    master_y: float
    score_y: float
    kind: str  # "top" matched the master, "zero", "part"


CHART_W, CHART_H, CHART_TOP, CHART_BOTTOM, CHART_LEFT = 400.0, 200.0, 10.0, 176.0, 32.0


def chart_bars(pairs: list[tuple[int, int, int]]) -> tuple[list[Bar], list[tuple[float, int]]]:
    """Bars for (round, master score, player score) and the y-axis ticks (y, points)."""
    top = max([m for _n, m, _s in pairs] + [10])
    step = 10 if top <= 60 else (20 if top <= 120 else 50)
    top = ((top + step - 1) // step) * step
    height = CHART_BOTTOM - CHART_TOP
    slot = (CHART_W - CHART_LEFT - 4) / max(len(pairs), 1)

    def y(points: int) -> float:
        return CHART_BOTTOM - height * points / top

    bars = []
    for i, (number, master, score) in enumerate(pairs):
        kind = "top" if score >= master and master > 0 else ("zero" if score == 0 else "part")
        bars.append(Bar(number, CHART_LEFT + i * slot + slot * 0.12, slot * 0.76, master, score, y(master), y(score), kind))
    ticks = [(y(v), v) for v in range(0, top + 1, step)]
    return bars, ticks


@bp.get("/<game_id>/jugador/<player>")
def player_page(game_id: str, player: str) -> str:
    record, live = _with_game(game_id)
    with services().games.reading(game_id):
        p = live.players.get(player)
        if p is None:
            abort(404)
        rows: list[dict[str, Any]] = []
        mine = master = 0
        for r in announced(live):
            result = r.results.get(p.id, NO_SLIP)
            bonus = live.bonuses(r).get(p.id, 0)
            mine += result.score + bonus
            master += r.master_score
            rows.append({"number": r.number, "play": result.play or "", "score": result.score,
                         "reason": result.public_reason, "bonus": bonus,
                         "master": r.master.notation if r.master else "",
                         "master_score": r.master_score, "cumulative": mine, "master_cumulative": master})  # fmt: skip
        standing = next(s for s in live.standings() if s.player == p.id)
    bars, ticks = chart_bars([(row["number"], row["master_score"], row["score"]) for row in rows])
    return render_template("results/player.html", game=record, player=p, rows=rows, standing=standing,
                           percent=100 * mine / master if master else 0.0, bars=bars, ticks=ticks,
                           chart=(CHART_W, CHART_H, CHART_LEFT, CHART_BOTTOM))  # fmt: skip


@bp.get("/<game_id>/rondas.<any(csv, xlsx):kind>")
def rounds_file(game_id: str, kind: str) -> Response:
    """Every player's play in every announced round (the round in play stays hidden)."""
    record, live = _with_game(game_id)
    with services().games.reading(game_id):
        table = round_results_table(live, [r.number for r in announced(live)])
    return table_download(record, "rondas", table, kind)


@bp.get("/<game_id>/clasificacion.<any(csv, xlsx):kind>")
def standings_file(game_id: str, kind: str) -> Response:
    """The standings as the federation takes them (``federation.game_standings_table``)."""
    record, live = _with_game(game_id)
    with services().games.reading(game_id):
        table = game_standings_table(live, players_of(live.events))
    return table_download(record, "clasificacion", table, kind)


@bp.get("/<game_id>/imprimir")
def printable(game_id: str) -> str:
    """The sheet to print and sign: masters, points per round, total, % and the D.III.28 tie-breaks, the
    arbiters (the tournament's, when the game is part of one) and a place for each signature."""
    record, live = _with_game(game_id)
    with services().games.reading(game_id):
        context = standings_context(live)
        rounds = announced(live)
        listed = {p.id: p for p in players_of(live.events)}
        grid = []
        for s in live.standings():
            cells = []
            for r in rounds:
                result = r.results.get(s.player, NO_SLIP)
                cells.append({"score": result.score, "bonus": live.bonuses(r).get(s.player, 0),
                              "top": result.score == r.master_score and r.master_score > 0})  # fmt: skip
            row = listed.get(s.player)
            grid.append({"rank": s.rank, "name": s.name, "club": row.club if row else "", "total": s.total,
                         "percent": 100 * s.total / live.master_total if live.master_total else 0.0,
                         "matched": s.masters_matched, "solos": s.solo_tops, "deficit": s.max_deficit, "cells": cells})  # fmt: skip
    found = tournaments_of().of_game(game_id)
    arbiters = tournaments_of().get(found[0]).arbiters if found else ()
    return render_template("results/print.html", game=record, grid=grid, printed=local_now(), arbiters=arbiters,
                           **context)  # fmt: skip
