"""What the console's modules share: the blueprint, who acts, storing an event, the way back."""

from __future__ import annotations

from typing import Final

from flask import Blueprint, abort, flash, g, redirect, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.duplicate import DuplicateGame
from rules_core.events import Event, GameError

from ...services.shared import services
from ..display import game_record

bp = Blueprint("arbiter", __name__, url_prefix="/arbiter")

VOID_REASONS: Final = (
    "caligrafía ininteligible",
    "jugador no identificable",
    "posición no identificable",
    "coordenadas erróneas",
    "flecha ausente o errónea",
)  # D.III.20.4, D.III.25.c: chosen by number in the console (F4, then 1-5)


def actor() -> str:
    """The arbiter acting: every event of the console is theirs."""
    return str(g.arbiter)


def append(game_id: str, event: Event) -> bool:
    """Append; a refusal by the rules is flashed. True when stored."""
    try:
        services().games.append(game_id, event)
    except GameError as error:
        flash(str(error), "error")
        return False
    return True


def back(game_id: str) -> Response:
    """To the game's console."""
    return redirect(url_for("arbiter.console", game_id=game_id))


def duplicate_of(game_id: str) -> DuplicateGame:
    """The live duplicate game ``game_id``, or 404."""
    game_record(game_id)
    with services().games.reading(game_id) as game:
        if not isinstance(game, DuplicateGame):
            abort(404)
        return game


def number(text: str | None) -> int | None:
    """A number typed in a form (None when empty); GameError naming the text otherwise."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise GameError(_("%(text)s no es un número", text=repr(text))) from None
