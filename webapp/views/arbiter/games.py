"""The console's home and the games it creates: duplicate games with their players (a pasted
list shown first as a preview), classic top tables."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.classic import ClassicGame
from rules_core.duplicate import NOTATIONS, DuplicateSettings
from rules_core.events import Event, GameError
from rules_core.player_list import MAX_NAME, MAX_PLAYERS, ListedPlayer, PlayerListError, parse_player_list

from ...records.notices import MAX_NOTICES
from ...records.notices import MAX_TEXT as MAX_NOTICE
from ...records.notices import notices_of
from ...services.shared import scan_service, services
from ..auth import login_required
from ..display import game_record
from .common import actor, append, back, bp, duplicate_of, number


@bp.get("/")
@login_required
def index() -> str:
    games = list(reversed(services().games.store.games()))
    scans = scan_service()
    pending = {g.id: scans.pending_count(g.id) for g in games if g.mode == "duplicate"}
    return render_template("arbiter/index.html", games=games, pending=pending, scanner_alerts=scans.problems(),
                           notices=notices_of().current(), notice_limits=(MAX_NOTICE, MAX_NOTICES))  # fmt: skip


@bp.post("/duplicate")
@login_required
def create_duplicate() -> Response | str:
    """A new duplicate game; with a player list, shown first as a preview (stored on ``confirm``)."""
    form = request.form
    name = form.get("name", "").strip()[:200] or _("Partida duplicada")
    try:
        settings = duplicate_settings(form)
        players = parse_player_list(form.get("players", ""))
    except PlayerListError as error:
        return players_preview([], error.problems, url_for("arbiter.create_duplicate"), name)
    except GameError as error:
        flash(str(error), "error")
        return redirect(url_for("arbiter.index"))
    if players and form.get("confirm") != list_token(form.get("players", "")):
        return players_preview(players, [], url_for("arbiter.create_duplicate"), name)
    game_id = services().games.create_duplicate(name, settings, actor=actor())
    added = sum(append(game_id, _player_event(p)) for p in players)
    flash(_("Partida creada con %(n)s jugadores.", n=added), "ok")
    return back(game_id)


def duplicate_settings(form: Mapping[str, str]) -> DuplicateSettings:
    """A duplicate game's settings from the console's form (GameError naming a bad one)."""
    return DuplicateSettings(
        rounds=number(form.get("rounds")) or None,
        round_seconds=number(form.get("round_seconds")) or 180,
        bonuses=form.get("bonuses") == "on",
        tie_breaks=form.get("tie_breaks") == "on",
        seed=number(form.get("seed")),
        notations=("canonica", *(n for n in NOTATIONS[1:] if form.get(f"notation_{n}") == "on")),
    )


def list_token(text: str) -> str:
    """What a preview's Save button sends back: the list it showed, hashed (an edited list is shown again)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode()).hexdigest()[:16]


def players_preview(players: list[ListedPlayer], problems: list[str], action: str, title: str) -> str:
    """The pasted list as it will be stored, or its problems; the form again to store it."""
    fields = [(k, v) for k, v in request.form.items(multi=True) if k not in ("csrf_token", "confirm")]
    return render_template("arbiter/players_preview.html", players=players, problems=problems, action=action,
                           fields=fields, title=title, limits=(MAX_PLAYERS, MAX_NAME),
                           token=list_token(request.form.get("players", "")))  # fmt: skip


def parse_players(text: str, first_table: int = 1) -> list[tuple[int, str]]:
    """(table, name) of each player of a pasted list (``rules_core.player_list``); GameError
    with every problem."""
    try:
        return [(p.table, p.name) for p in parse_player_list(text, first_table)]
    except PlayerListError as error:
        raise GameError(str(error)) from None


def _player_event(player: ListedPlayer) -> Event:
    data: dict[str, Any] = {"player": f"j{player.table}", "name": player.name, "table": player.table}
    data.update({k: v for k, v in (("club", player.club), ("federation_id", player.federation_id),
                                   ("photo", player.photo)) if v})  # fmt: skip
    return Event("player_added", data, actor())


@bp.post("/classic")
@login_required
def create_classic() -> Response:
    form = request.form
    players = [form.get("player1", "").strip()[:100], form.get("player2", "").strip()[:100]]
    title = form.get("title", "").strip()[:200] or f"{players[0]} – {players[1]}"
    try:
        first = ClassicGame.create_event(players, title=title, actor=actor(), clock=form.get("clock") or None,
                                         minutes=number(form.get("minutes")), duration=number(form.get("duration")))  # C.30-C.34
        game_id = services().games.create("classic", title, first)
    except GameError as error:
        flash(str(error), "error")
        return redirect(url_for("arbiter.index"))
    flash(_("Mesa clásica creada."), "ok")
    return back(game_id)


@bp.post("/g/<game_id>/players")
@login_required
def add_players(game_id: str) -> Response | str:
    """Players pasted into a game: a preview first, stored on ``confirm``."""
    game = duplicate_of(game_id)
    with services().games.reading(game_id):
        taken = {p.table: p.name for p in game.players.values()}
    action = url_for("arbiter.add_players", game_id=game_id)
    try:
        players = parse_player_list(request.form.get("players", ""), max(taken, default=0) + 1, taken)
    except PlayerListError as error:
        return players_preview([], error.problems, action, str(_("Añadir jugadores")))
    if request.form.get("confirm") != list_token(request.form.get("players", "")):
        return players_preview(players, [], action, str(_("Añadir jugadores")))
    added = sum(append(game_id, _player_event(p)) for p in players)
    flash(_("%(n)s jugadores añadidos.", n=added), "ok")
    return back(game_id)


@bp.post("/g/<game_id>/lexicon")
@login_required
def change_lexicon(game_id: str) -> Response:
    """Judge the game with another of the server's lists from now on: an arbiter's decision, with its reason."""
    game_record(game_id)
    try:
        ref = services().games.shelf.ref(request.form.get("sha256", ""))
        reason = request.form.get("reason", "").strip()[:300]
        services().games.append(game_id, Event("lexicon_changed", {"word_list": ref.to_json(), "reason": reason}, actor()))
        flash(_("Léxico cambiado: %(name)s (%(hash)s).", name=ref.name, hash=ref.short), "ok")
    except GameError as error:
        flash(str(error), "error")
    return back(game_id)
