"""Tournaments: the arbiter groups duplicate games (``/arbiter/torneos``); the public sees
the ranking by the criterion of D.IV.31 the director chose, with all three criteria's
values and a link to each game (``/results/torneo/<id>``)."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateGame

from ..records.exports import CSV_TYPE, XLSX_TYPE, attachment, export_name, to_csv, to_xlsx
from ..records.timezone import local_date
from ..records.tournaments import CRITERIA, Line, Tournament, TournamentError, classic_ranking, ranking, tournaments_of
from ..services.shared import services
from .auth import login_required

bp = Blueprint("tournaments", __name__)


@bp.get("/results/torneo/<tournament_id>")
def public(tournament_id: str) -> str:
    tournament, games, lines = _ranked(tournament_id)
    classic = [g["live"] for g in games if isinstance(g["live"], ClassicGame)]
    with services().games.lock:
        classic_lines = classic_ranking(classic)
    return render_template("results/tournament.html", tournament=tournament, games=games, lines=lines,
                           classic_lines=classic_lines, criteria=CRITERIA)  # fmt: skip


@bp.get("/results/torneo/<tournament_id>/clasificacion.<any(csv, xlsx):kind>")
def ranking_file(tournament_id: str, kind: str) -> Response:
    tournament, _games, lines = _ranked(tournament_id)
    header = ["puesto", "jugador", "partidas", "puesto_medio", "porcentaje_medio", "desviacion"]
    rows = [[line.rank, line.name, line.games, round(line.place, 2), round(line.percentage, 2), round(line.deviation, 3)]
            for line in lines]  # fmt: skip
    name = export_name(tournament.name, local_date(tournament.created_at), "clasificacion", kind)
    body, mimetype = (to_xlsx({"clasificacion": (header, rows)}), XLSX_TYPE) if kind == "xlsx" else \
        (to_csv((header, rows)), CSV_TYPE)  # fmt: skip
    return Response(body, content_type=mimetype, headers=attachment(name))


@bp.route("/arbiter/torneos", methods=["GET", "POST"])
@login_required
def manage() -> str | Response:
    """Create a tournament, add or take out games."""
    store = tournaments_of()
    if request.method == "POST":
        try:
            _change(request.form.get("action", ""))
        except TournamentError as error:
            flash(str(error), "error")
        return redirect(url_for("tournaments.manage"))
    games = list(reversed(services().games.store.games()))
    return render_template("arbiter/tournaments.html", tournaments=store.all(), games=games, criteria=CRITERIA)


def _change(action: str) -> None:
    store, form = tournaments_of(), request.form
    if action == "create":
        store.create(form.get("name", ""), form.get("criterion", "average_place"))
        flash(_("Torneo creado."), "ok")
    elif action in ("add", "remove"):
        tournament, game_id = form.get("tournament", ""), form.get("game", "")
        store.get(tournament)
        if game_id not in {g.id for g in services().games.store.games()}:
            raise TournamentError(_("esa partida no es de este servidor"))
        (store.add_game if action == "add" else store.remove_game)(tournament, game_id)
    else:
        raise TournamentError(_("acción desconocida"))


def _ranked(tournament_id: str) -> tuple[Tournament, list[dict[str, object]], list[Line]]:
    try:
        tournament = tournaments_of().get(tournament_id)
    except TournamentError:
        abort(404)
    live, shown = [], []
    records = {g.id: g for g in services().games.store.games()}
    for game_id in tournament.games:
        record = records.get(game_id)
        if record is None:
            continue
        with services().games.reading(game_id) as game:
            if isinstance(game, DuplicateGame):
                live.append(game)
            ended = bool(game.end_reason) if isinstance(game, DuplicateGame) else game.finished  # type: ignore[attr-defined]
            shown.append({"record": record, "ended": ended, "live": game})
    with services().games.lock:
        lines = ranking(live, tournament.criterion)
    return tournament, shown, lines
