"""Streams: overlays for OBS and the delayed broadcast view.

* ``/overlay/<game>/<part>``: one part of the screen (``board``, ``scores``, ``plays``,
  ``rack``, ``clock``, ``summary``, ``standings``, ``notices``: the director's notices to the
  room, ``records.notices``) on a transparent page, laid out at the
  size the browser source gives it; ``/overlay/mesa/<n>/<part>`` follows the game table
  ``n`` plays now (``screens.table_game``), so a stream is set up once.
* ``/emision/<game>`` and ``/emision/mesa/<n>``: the whole screen, minutes behind the room.

A delay (``?retraso=`` minutes; the organiser's ``OVERLAY_DELAY_MINUTES`` and
``BROADCAST_DELAY_MINUTES``, or ``$VEEDOR_OVERLAY_DELAY_MINUTES`` and
``$VEEDOR_BROADCAST_DELAY_MINUTES``, are the least allowed: a link cannot shorten them) makes
the page poll ``/emision/<game>/estado``, the game rebuilt from the events older than
the delay, so that a stream cannot help a player. Views at least as far behind as the
broadcast add the analysis of the last play: the best plays of its position
(``rules_core.movegen``) and the played one's rank. Embedding in other sites: ``app._security_headers`` (``EMBED_ORIGINS``).
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections import OrderedDict
from datetime import datetime, timedelta, timezone
from typing import Any, Final

from flask import Blueprint, abort, current_app, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.classic import ClassicGame, parse_rack
from rules_core.duplicate import DuplicateGame
from rules_core.events import Event, GameError
from rules_core.movegen import ScoredPlay, generate_plays

from ..records.notices import notices_of
from ..services.games import Game
from ..services.shared import services
from .display import clock_state, game_record, render_screen, screen_state

bp = Blueprint("overlay", __name__)

PARTS: Final = ("board", "scores", "plays", "rack", "clock", "summary", "standings", "notices")
MAX_DELAY_MINUTES: Final = 180.0
ANALYSIS_PLAYS: Final = 5
BROADCAST_DELAY_MINUTES: Final = 5.0  # the default of ``BROADCAST_DELAY_MINUTES``

_cache: OrderedDict[tuple[str, int], tuple[dict[str, Any], Game, dict[str, Any] | None]] = OrderedDict()
_cache_lock = threading.Lock()
CACHE_SIZE: Final = 64


def delay_minutes(least: float) -> float:
    """``?retraso=`` in minutes, never under the organiser's ``least``."""
    try:
        asked = float(request.args.get("retraso", "0").replace(",", "."))
    except ValueError:
        abort(400, description=_("retraso: un número de minutos"))
    if not math.isfinite(asked) or asked < 0 or asked > MAX_DELAY_MINUTES:
        abort(400, description=_("retraso: de 0 a %(n)s minutos", n=int(MAX_DELAY_MINUTES)))
    return max(asked, least)


def _config_minutes(key: str, default: float) -> float:
    """The app's ``key``, else ``$VEEDOR_<key>``, else ``default`` (minutes)."""
    value = current_app.config.get(key, os.environ.get(f"VEEDOR_{key}") or default)
    try:
        minutes = float(value)
    except ValueError:
        raise ValueError(f"{key}={value!r}: se esperaba un número de minutos") from None
    return minutes if math.isfinite(minutes) and 0 <= minutes <= MAX_DELAY_MINUTES else default


def _part(part: str) -> str:
    if part not in PARTS:
        abort(404)
    return part


@bp.get("/overlay/<game_id>/<part>")
def overlay(game_id: str, part: str) -> str:
    return _overlay_page(game_id, _part(part), None)


@bp.get("/overlay/mesa/<int:number>/<part>")
def table_overlay(number: int, part: str) -> str:
    from .screens import table_game

    _part(part)
    follow = {"target": url_for("display.table_target", number=number), "screen": request.full_path.rstrip("?")}
    game_id = table_game(number)
    if game_id is None:
        return render_template("display/waiting.html", name=_("Mesa %(n)s", n=number), target=follow["target"],
                               screen=follow["screen"], transparent=True)  # fmt: skip
    return _overlay_page(game_id, part, follow)


def _overlay_page(game_id: str, part: str, follow: dict[str, str] | None) -> str:
    delay = delay_minutes(_config_minutes("OVERLAY_DELAY_MINUTES", 0.0))
    if delay <= 0:
        return render_screen(game_id, view="overlay", part=part, follow=follow)
    poll = url_for("overlay.delayed_state", game_id=game_id, retraso=delay)
    return render_screen(game_id, view="overlay", part=part, follow=follow, poll=poll,
                         initial=delayed_message(game_id, delay, datetime.now(timezone.utc)))  # fmt: skip


@bp.get("/emision/<game_id>")
def broadcast(game_id: str) -> str:
    return _broadcast_page(game_id, None)


@bp.get("/emision/mesa/<int:number>")
def table_broadcast(number: int) -> str:
    from .screens import table_game

    follow = {"target": url_for("display.table_target", number=number), "screen": request.full_path.rstrip("?")}
    game_id = table_game(number)
    if game_id is None:
        return render_template("display/waiting.html", name=_("Mesa %(n)s", n=number), target=follow["target"],
                               screen=follow["screen"])  # fmt: skip
    return _broadcast_page(game_id, follow)


def _broadcast_page(game_id: str, follow: dict[str, str] | None) -> str:
    delay = delay_minutes(_config_minutes("BROADCAST_DELAY_MINUTES", BROADCAST_DELAY_MINUTES))
    poll = url_for("overlay.delayed_state", game_id=game_id, retraso=delay)
    initial = delayed_message(game_id, delay, datetime.now(timezone.utc))
    return render_screen(game_id, view="broadcast", follow=follow, poll=poll, initial=initial)


@bp.get("/emision/<game_id>/estado")
def delayed_state(game_id: str) -> Response:
    """The delayed screen message (JSON); the delay is never under the overlays' least."""
    game_record(game_id)
    delay = delay_minutes(_config_minutes("OVERLAY_DELAY_MINUTES", 0.0))
    message = delayed_message(game_id, delay, datetime.now(timezone.utc))
    response = Response(json.dumps(message, ensure_ascii=False), mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


# -- the game as it was ----------------------------------------------------------------


def delayed_message(game_id: str, minutes: float, now: datetime) -> dict[str, Any]:
    """The screen message of ``game_id`` as it stood ``minutes`` ago, with the analysis of
    its last play when ``minutes`` is at least the broadcast's delay (``BROADCAST_DELAY_MINUTES``,
    never 0): the plays of a rack tell what is left on it. Only events older than the delay are read."""
    games = services().games
    with games.reading(game_id) as live:
        events = live.events
    mode = game_record(game_id).mode
    cutoff = now - timedelta(minutes=minutes)
    shown = [e for i, e in enumerate(events) if i == 0 or e.at <= cutoff]
    state, game, analysed = _state_at(game_id, mode, shown)
    message = {"version": len(shown), "clock": clock_state(game, cutoff), "camera": None, "state": state,
               "notices": notices_of().json(),  # the room's notices now: they tell no player anything
               "delay": _minutes_text(minutes) if minutes > 0 else None}  # fmt: skip
    if minutes > 0 and minutes >= _config_minutes("BROADCAST_DELAY_MINUTES", BROADCAST_DELAY_MINUTES):
        message["analysis"] = analysed  # a rack's best plays, only as far behind as the broadcast
    return message


def _minutes_text(minutes: float) -> str:
    return f"{minutes:g}"


def _state_at(game_id: str, mode: str, events: list[Event]) -> tuple[dict[str, Any], Game, dict[str, Any] | None]:
    """The state after ``events``, the game and its analysis, built once per game and length."""
    key = (game_id, len(events))
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    game = services().games.replay(mode, events)
    value = (screen_state(game), game, analysis(mode, events, game))
    with _cache_lock:
        _cache[key] = value
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return value


def _ranked(plays: list[ScoredPlay], played: str, score: int) -> dict[str, Any]:
    best: list[ScoredPlay] = []
    for play in sorted(plays, key=lambda p: (-p.score, p.notation != played, p.notation)):
        if all(p.notation != play.notation for p in best):
            best.append(play)
        if len(best) == ANALYSIS_PLAYS:
            break
    scores = sorted({p.score for p in plays}, reverse=True)
    return {
        "plays": [{"play": p.notation, "score": p.score, "played": p.notation == played} for p in best],
        "rank": 1 + sum(1 for s in scores if s > score), "count": len(scores),
    }  # fmt: skip


def analysis(mode: str, events: list[Event], game: Game) -> dict[str, Any] | None:
    """The last play of the delayed game against every play of its position: the best ones
    and its rank (by score: 1 is the top score; ``count`` distinct scores), with the game's own lexicon. ``title``
    says it in words; ``player`` (a classic game's) and ``play`` are its parts, for the page to mark blanks."""
    if isinstance(game, DuplicateGame):
        announced = [r for r in game.rounds if r.master is not None]
        if not announced:
            return None
        r = announced[-1]
        assert r.master is not None
        found = _ranked(generate_plays(r.board, r.rack, r.lexicon), r.master.notation, r.master.score)
        return {"round": r.number, "title": r.master.notation, "player": None, "play": r.master.notation, **found}
    assert isinstance(game, ClassicGame)
    turns = [t for t in game.turns if t.action == "play"]
    if not turns:
        return None
    turn = turns[-1]
    name = game.players[turn.player]
    head = {"title": f"{name} · {turn.notation}", "player": name, "play": turn.notation}
    if not turn.rack:
        return {**head, "plays": None}
    plays_at = [i for i, e in enumerate(events) if e.kind == "play"]
    before = services().games.replay(mode, events[: plays_at[-1]])
    assert isinstance(before, ClassicGame)
    try:
        rack = parse_rack(turn.rack)
    except GameError:
        return {**head, "plays": None}
    return {**head, **_ranked(generate_plays(before.board, rack, before.lexicon), turn.notation, turn.points)}
