"""A tournament's public pages: the standings by the criterion of D.IV.31 the director chose, with the
sums and tie-breaks the federation reads (``/results/torneo/<id>``), the files it takes (XLSX, CSV),
the printable sheet with the arbiters and a place to sign, and each player's tournament
(``/results/torneo/<id>/jugador/<player>``: games, rounds, plays and scores, the place after each
game, the EloDI change). Players are the tournament's list, known by their id, never by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import abort, current_app, render_template
from werkzeug.wrappers import Response

from rules_core.classic import ClassicGame

from ...records.elodi import ratings
from ...records.elodi_list import elodi_key
from ...records.exports import CSV_TYPE, XLSX_TYPE, attachment, export_name, to_csv, to_xlsx
from ...records.federation import tournament_table
from ...records.timezone import local_date, local_now
from ...records.tournament_players import game_keys
from ...records.tournament_standings import classic_ranking, player_history, ranking
from ...records.tournaments import CRITERIA
from ...services.shared import services
from .common import Loaded, bp, loaded


@bp.get("/results/torneo/<tournament_id>")
def public(tournament_id: str) -> str:
    found = loaded(tournament_id)
    with services().games.lock:
        lines = ranking(found.tournament, [game for _id, game in found.duplicate])
        classic_lines = classic_ranking(found.tournament, found.classic)
    return render_template("results/tournament.html", tournament=found.tournament, games=found.games, lines=lines,
                           classic_lines=classic_lines, criteria=CRITERIA)  # fmt: skip


@bp.get("/results/torneo/<tournament_id>/clasificacion.<any(csv, xlsx):kind>")
def ranking_file(tournament_id: str, kind: str) -> Response:
    """The ranking as the federation takes it (``federation.tournament_table``)."""
    found = loaded(tournament_id)
    with services().games.lock:
        table = tournament_table(ranking(found.tournament, [game for _id, game in found.duplicate]))
    tournament = found.tournament
    name = export_name(tournament.name, local_date(tournament.created_at), "clasificacion", kind)
    body, mimetype = (to_xlsx({"clasificacion": table}), XLSX_TYPE) if kind == "xlsx" else (to_csv(table), CSV_TYPE)
    return Response(body, content_type=mimetype, headers=attachment(name))


@bp.get("/results/torneo/<tournament_id>/imprimir")
def printable(tournament_id: str) -> str:
    """The sheet to print and sign: the ranking with every figure, the arbiters, a place for each signature."""
    found = loaded(tournament_id)
    with services().games.lock:
        lines = ranking(found.tournament, [game for _id, game in found.duplicate])
    ended = bool(found.games) and all(g.ended for g in found.games)
    return render_template("results/tournament_print.html", tournament=found.tournament, lines=lines, games=found.games,
                           ended=ended, criteria=CRITERIA, printed=local_now())  # fmt: skip


@bp.get("/results/torneo/<tournament_id>/jugador/<player>")
def player_page(tournament_id: str, player: str) -> str:
    found = loaded(tournament_id)
    listed = found.tournament.player(player)
    if listed is None:
        abort(404)
    with services().games.lock:
        line = next((line for line in ranking(found.tournament, [g for _id, g in found.duplicate]) if line.key == player),
                    None)  # fmt: skip
        history = player_history(found.tournament, found.duplicate, player)
        classic = _classic_games(found, player)
    changes = _rating_changes(elodi_key(listed.name, listed.licence))
    names = {g.record.id: g.record.name for g in found.games}
    return render_template("results/tournament_player.html", tournament=found.tournament, player=listed, line=line,
                           history=history, classic=classic, changes=changes, names=names)  # fmt: skip


def _classic_games(found: Loaded, player: str) -> list[dict[str, Any]]:
    """The classic games ``player`` played in the tournament: opponent, scores, result."""
    games = []
    for shown in found.games:
        game = shown.live
        if not isinstance(game, ClassicGame):
            continue
        keys = game_keys(found.tournament, game.events)
        me = next((int(seat) for seat, key in keys.items() if key == player), None)
        if me is None:
            continue
        scores = game.scores
        games.append({"game": shown.record, "opponent": game.players[1 - me], "mine": scores[me],
                      "theirs": scores[1 - me], "ended": game.finished})  # fmt: skip
    return games


def _rating_changes(key: str) -> dict[str, tuple[float, float]]:
    """Each rated game's EloDI change of the player ``key``: game id -> (before, after)."""
    data_dir = Path(current_app.config.get("DATA_DIR") or current_app.instance_path)
    found = ratings(services().games, data_dir)
    return {c.game: (c.before.rating, c.after.rating) for c in found.changes if c.player == key}

