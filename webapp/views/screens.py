"""The venue's named screens (``/display/pantalla/<name>``): each shows what the venue file says.

A screen of the venue (``[[screens]]`` in the TOML, ``hardware.venue``) shows one of:

* ``table:N``: the classic game of table N, i.e. the game its camera is attached to
  in the arbiter console (the table's game changes from round to round of a
  tournament; the screen follows);
* ``game:<id>``: one game;
* ``duplicate``: the current duplicate game (the one the arbiter chose for plain slips,
  else the latest one that has not ended);
* ``rotate:1,2,3``: the games of those tables in turn, ``ROTATE_SECONDS`` each.

``/display/pantalla/<name>`` redirects to the screen of the game it shows now (or a
waiting page when none); that page asks ``/display/pantalla/<name>/objetivo`` every
few seconds and moves on when the answer changes, so a projector is set up once per
tournament.
"""

from __future__ import annotations

import re
import time
from typing import Final

from flask import Blueprint, abort, current_app, jsonify, redirect, render_template, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from ..records.notices import notices_of
from ..services.shared import scan_service, services

bp = Blueprint("screens", __name__, url_prefix="/display/pantalla")

ROTATE_SECONDS: Final = 20
FOLLOW_SECONDS: Final = 5  # how often a named screen asks what it should show


def venue_screens() -> dict[str, str]:
    """Screen name -> what it shows, from the venue being served (empty without one)."""
    venue = current_app.config.get("VENUE")
    return {s.name: s.shows for s in venue.screens} if venue is not None else {}


def table_games() -> dict[int, str]:
    """Table number -> the game its camera is attached to."""
    venue = current_app.config.get("VENUE")
    cameras = services().cameras
    known = set(cameras.names())
    tables = [t for t in (venue.tables if venue is not None else ()) if t.camera in known]
    games = {t.number: cameras.game_of(t.camera) for t in tables}
    return {number: game for number, game in games.items() if game}


TABLE_NAME = re.compile(r"\bmesa\s+(\d+)\b", re.IGNORECASE)


def table_game(number: int) -> str | None:
    """The game table ``number`` plays now: the game its venue camera is attached to, else the
    newest classic game named for that table ("Mesa 3", "Mesa 3, ronda 2")."""
    attached = table_games().get(number)
    if attached:
        return attached
    for record in reversed(services().games.store.games()):
        found = TABLE_NAME.search(record.name)
        if record.mode == "classic" and found and int(found.group(1)) == number:
            return record.id
    return None


def target(shows: str, now: float) -> str | None:
    """The game a screen showing ``shows`` shows at time ``now`` (None: nothing yet)."""
    kind, _sep, argument = shows.partition(":")
    if kind == "game":
        return argument or None
    if kind == "duplicate":
        return scan_service().current_game()  # the one plain slips go to, else the latest in play
    games = table_games()
    if kind == "table":
        return games.get(int(argument))
    if kind == "rotate":
        shown = [games[n] for n in (int(part) for part in argument.split(",")) if n in games]
        return shown[int(now // ROTATE_SECONDS) % len(shown)] if shown else None
    return None


def _shows(name: str) -> str:
    shows = venue_screens().get(name)
    if shows is None:
        abort(404, description=_("la sede no tiene ninguna pantalla llamada %(name)s", name=name))
    return shows


@bp.get("/<name>")
def screen(name: str) -> Response | str:
    game_id = target(_shows(name), time.time())
    if game_id is None:
        return render_template("display/waiting.html", name=name, follow_seconds=FOLLOW_SECONDS, notices=notices_of().json())
    return redirect(url_for("display.show", game_id=game_id, pantalla=name))


@bp.get("/<name>/objetivo")
def screen_target(name: str) -> Response:
    """What the screen should show now: ``{"game": id or null}``, with the room's notices (for its waiting screen)."""
    return jsonify({"game": target(_shows(name), time.time()), "follow_seconds": FOLLOW_SECONDS,
                    "notices": notices_of().json()})  # fmt: skip
