"""The classic top tables from the console: plays, challenges, passes, exchanges, time penalties
(C.25-C.45); the end of the game is ``rounds.end``'s."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.classic import ClassicGame
from rules_core.events import Event, GameError

from ...services.shared import services
from ..auth import login_required
from ..display import board_labels, game_record
from .common import actor, append, back, bp, number


def classic_context(game: Any) -> dict[str, Any]:
    """What the classic console shows (read under the game's lock)."""
    return {
        "classic": game,
        "board": board_labels(game.board),
        "sheet": game.scoresheet(),
        "scores": game.scores,
        "names": game.players,
    }


@bp.post("/g/<game_id>/turn")
@login_required
def turn(game_id: str) -> Response:
    game_record(game_id)
    with services().games.reading(game_id) as game:
        if not isinstance(game, ClassicGame):
            abort(404)
    try:
        event = classic_event(request.form, actor())
    except (GameError, ValueError) as error:
        flash(str(error), "error")
        return back(game_id)
    append(game_id, event)
    return back(game_id)


def classic_event(form: Any, actor: str) -> Event:
    """The classic turn typed in the console: play, pass, exchange, challenge, time penalty."""
    kind = form.get("kind", "")
    player = number(form.get("player")) or 0
    rack = form.get("rack", "").strip().upper() or None
    if kind == "play":
        return ClassicGame.play_event(player, form.get("play", "").strip(), rack=rack,
                                      score=number(form.get("score")), actor=actor)  # fmt: skip
    if kind == "pass":
        return ClassicGame.pass_event(player, actor=actor)
    if kind == "exchange":
        tiles = form.get("tiles", "").strip().upper() or None
        count = None if tiles else number(form.get("count"))
        return ClassicGame.exchange_event(player, count, tiles=tiles, rack=rack, actor=actor)
    if kind == "challenge":
        return ClassicGame.challenge_event(player, actor=actor)
    if kind == "time":
        return ClassicGame.time_penalty_event(player, seconds_over=number(form.get("seconds")), actor=actor)
    raise GameError(_("acción desconocida: %(kind)s", kind=repr(kind)))
