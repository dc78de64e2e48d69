"""The director's tournaments (``/arbiter/torneos``): a tournament made with its player list (pasted as a
game's, shown first as a preview) and its arbiters; each game made from the list, duplicate or classic,
seated at the list's tables or by the standing; games from before added or taken out by hand."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.events import GameError
from rules_core.player_list import PlayerListError, parse_player_list

from ...records.tournament_games import new_classic, new_duplicate
from ...records.tournament_players import SEATINGS, listed
from ...records.tournaments import CRITERIA, TournamentError, TournamentPlayer, tournaments_of
from ...services.shared import services
from ..arbiter.common import actor, back, number
from ..arbiter.games import duplicate_settings, list_token, players_preview
from ..auth import login_required
from .common import bp


@bp.route("/arbiter/torneos", methods=["GET", "POST"])
@login_required
def manage() -> str | Response:
    """Make a tournament, change its list or its arbiters, add or take out games."""
    store = tournaments_of()
    if request.method == "POST":
        try:
            shown = _change(request.form.get("action", ""))
        except TournamentError as error:
            flash(str(error), "error")
            shown = None
        if shown is not None:
            return shown
        return redirect(url_for("tournaments.manage"))
    games = list(reversed(services().games.store.games()))
    return render_template("arbiter/tournaments.html", tournaments=store.all(), games=games, criteria=CRITERIA,
                           seatings=SEATINGS)  # fmt: skip


def _change(action: str) -> str | None:
    """Do ``action``; a page to show instead of going back (a list's preview), or None."""
    store, form = tournaments_of(), request.form
    if action in ("create", "players"):
        return _with_list(action)
    if action == "arbiters":
        store.set_arbiters(form.get("tournament", ""), form.get("arbiters", "").splitlines())
        flash(_("Árbitros guardados."), "ok")
    elif action in ("add", "remove"):
        tournament, game_id = form.get("tournament", ""), form.get("game", "")
        store.get(tournament)
        if game_id not in {g.id for g in services().games.store.games()}:
            raise TournamentError(_("esa partida no es de este servidor"))
        (store.add_game if action == "add" else store.remove_game)(tournament, game_id)
    else:
        raise TournamentError(_("acción desconocida"))
    return None


def _with_list(action: str) -> str | None:
    """A new tournament, or players added to one, from a pasted list: its preview first, stored on ``confirm``."""
    store, form = tournaments_of(), request.form
    already: tuple[TournamentPlayer, ...] = ()
    if action == "players":
        already = store.get(form.get("tournament", "")).players
    title = form.get("name", "") or _("Jugadores del torneo")
    text = form.get("players", "")
    try:
        parsed = parse_player_list(text, max((p.table for p in already), default=0) + 1)
        players = listed(parsed, already)
    except PlayerListError as error:
        return players_preview([], error.problems, url_for("tournaments.manage"), title)
    if parsed and form.get("confirm") != list_token(text):
        return players_preview(parsed, [], url_for("tournaments.manage"), title)
    if action == "players":
        store.add_players(form.get("tournament", ""), players)
        flash(_("%(n)s jugadores añadidos al torneo.", n=len(players)), "ok")
        return None
    store.create(form.get("name", ""), form.get("criterion", "average_place"), players,
                 form.get("arbiters", "").splitlines())  # fmt: skip
    flash(_("Torneo creado con %(n)s jugadores.", n=len(players)), "ok")
    return None


@bp.post("/arbiter/torneos/<tournament_id>/duplicada")
@login_required
def new_duplicate_game(tournament_id: str) -> Response:
    """A duplicate game of the tournament's whole list, seated as the director chose."""
    form = request.form
    try:
        tournament = tournaments_of().get(tournament_id)
        name = form.get("name", "").strip()[:200] or _("%(t)s, partida %(n)s", t=tournament.name, n=len(tournament.games) + 1)
        game_id = new_duplicate(services().games, tournaments_of(), tournament_id, name, duplicate_settings(form),
                                _seating(), actor())  # fmt: skip
    except (GameError, TournamentError) as error:
        flash(str(error), "error")
        return redirect(url_for("tournaments.manage"))
    flash(_("Partida creada con los %(n)s jugadores del torneo.", n=len(tournament.players)), "ok")
    return back(game_id)


@bp.post("/arbiter/torneos/<tournament_id>/clasicas")
@login_required
def new_classic_games(tournament_id: str) -> Response:
    """Classic top tables of the tournament: 1 against 2, 3 against 4..."""
    form = request.form
    try:
        tables = number(form.get("tables")) or 1
        if not 1 <= tables <= 250:
            raise GameError(_("de 1 a 250 mesas"))
        made = new_classic(services().games, tournaments_of(), tournament_id, tables, _seating(),
                           form.get("title", "").strip()[:150], actor())  # fmt: skip
    except (GameError, TournamentError) as error:
        flash(str(error), "error")
        return redirect(url_for("tournaments.manage"))
    flash(_("%(n)s mesas clásicas creadas.", n=len(made)), "ok")
    return redirect(url_for("tournaments.manage"))


def _seating() -> str:
    how = request.form.get("seating", "mesas")
    if how not in SEATINGS:
        raise GameError(_("reparto de mesas desconocido: %(s)s", s=how))
    return how
