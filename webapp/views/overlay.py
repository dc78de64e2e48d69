"""Streams: overlays for OBS and the delayed broadcast view.

* ``/overlay/<game>/<part>``: one part of the screen (``board``, ``scores``, ``plays``,
  ``rack``, ``clock``, ``summary``, ``standings``, ``notices``: the director's notices to the
  room, ``records.notices``; ``tournament``: the standings across the tournament's games;
  ``lowerthird``: after each master, the master and the round's top plays with who found each;
  both read from ``views.stream``) on a transparent page, laid out at the
  size the browser source gives it; ``/overlay/mesa/<n>/<part>`` follows the game table
  ``n`` plays now (``screens.table_game``), so a stream is set up once. Beside the names an
  overlay shows each player's club, photo and EloDI (``records.stream_players``).
* ``/emision/<game>`` and ``/emision/mesa/<n>``: the whole screen, minutes behind the room.

A delay (``?retraso=`` minutes; the organiser's ``OVERLAY_DELAY_MINUTES`` and
``BROADCAST_DELAY_MINUTES``, or ``$VEEDOR_OVERLAY_DELAY_MINUTES`` and
``$VEEDOR_BROADCAST_DELAY_MINUTES``, are the least allowed: a link cannot shorten them) makes
the page poll ``/emision/<game>/estado``, the game rebuilt from the events older than
the delay, so that a stream cannot help a player. Views at least as far behind as the
broadcast add the analysis of the last play: the best plays of its position
(``rules_core.movegen``) and the played one's rank, and at a classic table the rack of the player
to move where the arbiter recorded it (``rack_to_move``). Embedding in other sites: ``app._security_headers`` (``EMBED_ORIGINS``).
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

from rules_core.cgp import Position
from rules_core.classic import ClassicGame, parse_rack
from rules_core.duplicate import DuplicateGame, rack_labels
from rules_core.events import Event, GameError
from rules_core.movegen import ScoredPlay, generate_plays

from ..records.notices import notices_of
from ..records.stream_players import current_ratings, data_dir, people
from ..records.tournaments import tournaments_of
from ..services.games import Game
from ..services.shared import services
from .display import clock_state, game_record, render_screen, screen_state

bp = Blueprint("overlay", __name__)

PARTS: Final = ("board", "scores", "plays", "rack", "clock", "summary", "standings", "notices", "tournament", "lowerthird")
MAX_DELAY_MINUTES: Final = 180.0
ANALYSIS_PLAYS: Final = 5
BROADCAST_DELAY_MINUTES: Final = 5.0  # the default of ``BROADCAST_DELAY_MINUTES``
LOWER_THIRD_SECONDS: Final = 30  # how long the lower third stays after a master (``?segundos=``, 5 to 600)

_cache: OrderedDict[tuple[str, int], tuple[dict[str, Any], dict[str, Any] | None]] = OrderedDict()
_games: OrderedDict[tuple[str, int], Game] = OrderedDict()
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


def config_minutes(key: str, default: float) -> float:
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


def overlay_delay() -> float:
    """The delay of an overlay: ``?retraso=``, never under ``OVERLAY_DELAY_MINUTES``."""
    return delay_minutes(config_minutes("OVERLAY_DELAY_MINUTES", 0.0))


def _overlay_page(game_id: str, part: str, follow: dict[str, str] | None) -> str:
    game_record(game_id)
    delay = overlay_delay()
    stream = stream_settings(game_id, delay)
    if delay <= 0:
        return render_screen(game_id, view="overlay", part=part, follow=follow, stream=stream)
    poll = url_for("overlay.delayed_state", game_id=game_id, retraso=delay)
    return render_screen(game_id, view="overlay", part=part, follow=follow, poll=poll, stream=stream,
                         initial=delayed_message(game_id, delay, datetime.now(timezone.utc)))  # fmt: skip


def stream_settings(game_id: str, delay: float) -> dict[str, Any]:
    """What an overlay shows beside the game: each player's club, photo (an address the page loads)
    and EloDI (``records.stream_players.people``), where it reads the standings across the tournament's
    games (None when the game is part of none) and the lower third, with the overlay's delay; how long the
    lower third stays (``?segundos=``)."""
    games = services().games
    found = tournaments_of().of_game(game_id)
    tournament = tournaments_of().get(found[0]) if found else None
    elodi = current_ratings(games, data_dir())
    with games.reading(game_id) as game:
        shown = people(game, tournament, elodi)
    for who in shown.values():
        who["photo"] = photo_src(who["photo"])
    behind: dict[str, Any] = {"retraso": _minutes_text(delay)} if delay > 0 else {}
    seconds = request.args.get("segundos", "")
    return {
        "people": shown,
        "tournament": url_for("stream.tournament_state", tournament_id=tournament.id, **behind) if tournament else None,
        "lower": url_for("stream.lower_third", game_id=game_id, **behind),
        "seconds": int(seconds) if seconds.isdigit() and 5 <= int(seconds) <= 600 else LOWER_THIRD_SECONDS,
    }  # fmt: skip


def photo_src(photo: str) -> str:
    """A listed photo as a page loads it: an http(s) address as it is, a file name from the stream's photos."""
    if not photo or photo.startswith(("http://", "https://")):
        return photo
    return url_for("stream.photo", photo=photo)


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
                               screen=follow["screen"], notices=notices_of().json())  # fmt: skip
    return _broadcast_page(game_id, follow)


def _broadcast_page(game_id: str, follow: dict[str, str] | None) -> str:
    delay = delay_minutes(config_minutes("BROADCAST_DELAY_MINUTES", BROADCAST_DELAY_MINUTES))
    poll = url_for("overlay.delayed_state", game_id=game_id, retraso=delay)
    initial = delayed_message(game_id, delay, datetime.now(timezone.utc))
    return render_screen(game_id, view="broadcast", follow=follow, poll=poll, initial=initial)


@bp.get("/emision/<game_id>/estado")
def delayed_state(game_id: str) -> Response:
    """The delayed screen message (JSON); the delay is never under the overlays' least."""
    game_record(game_id)
    delay = overlay_delay()
    message = delayed_message(game_id, delay, datetime.now(timezone.utc))
    response = Response(json.dumps(message, ensure_ascii=False), mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


# -- the game as it was ----------------------------------------------------------------


def delayed_message(game_id: str, minutes: float, now: datetime) -> dict[str, Any]:
    """The screen message of ``game_id`` as it stood ``minutes`` ago, with the analysis of
    its last play and a classic table's rack of the player to move when ``minutes`` is at least the
    broadcast's delay (``BROADCAST_DELAY_MINUTES``, never 0): the plays of a rack tell what is left on
    it. Only events older than the delay are read, but for that rack (``rack_to_move``)."""
    mode, shown, later = events_at(game_id, minutes, now)
    state, analysed = _state_at(game_id, mode, shown)
    game = replayed(game_id, mode, shown)
    message = {"version": len(shown), "clock": clock_state(game, now - timedelta(minutes=minutes)), "camera": None,
               "state": state, "notices": notices_of().json(),  # the room's notices now: they tell no player anything
               "delay": _minutes_text(minutes) if minutes > 0 else None}  # fmt: skip
    if minutes > 0 and minutes >= config_minutes("BROADCAST_DELAY_MINUTES", BROADCAST_DELAY_MINUTES):
        message["analysis"] = analysed  # a rack's best plays, only as far behind as the broadcast
        if isinstance(game, ClassicGame):
            message["rack"] = rack_to_move(game, later)
    return message


def events_at(game_id: str, minutes: float, now: datetime) -> tuple[str, list[Event], list[Event]]:
    """The game's mode, its events older than ``minutes`` before ``now`` (the first one always) and the later ones."""
    games = services().games
    with games.reading(game_id) as live:
        events = list(live.events)
    mode = game_record(game_id).mode
    cutoff = now - timedelta(minutes=minutes)
    shown = [e for i, e in enumerate(events) if i == 0 or e.at <= cutoff]
    return mode, shown, events[len(shown):]


def game_at(game_id: str, minutes: float, now: datetime) -> Game:
    """The game as it stood ``minutes`` before ``now`` (built once per game and length; never change it)."""
    mode, shown, _later = events_at(game_id, minutes, now)
    return replayed(game_id, mode, shown)


def _minutes_text(minutes: float) -> str:
    return f"{minutes:g}"


def replayed(game_id: str, mode: str, events: list[Event]) -> Game:
    """The game after ``events``, built once per game and length (shared: never change it)."""
    key = (game_id, len(events))
    with _cache_lock:
        if key in _games:
            _games.move_to_end(key)
            return _games[key]
    game = services().games.replay(mode, events)
    with _cache_lock:
        _games[key] = game
        while len(_games) > CACHE_SIZE:
            _games.popitem(last=False)
    return game


def _state_at(game_id: str, mode: str, events: list[Event]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The state after ``events`` and its analysis, built once per game and length."""
    key = (game_id, len(events))
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    game = replayed(game_id, mode, events)
    value = (screen_state(game), analysis(mode, events, game))
    with _cache_lock:
        _cache[key] = value
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return value


TURNS: Final = ("play", "exchange", "pass")


def rack_to_move(game: ClassicGame, later: list[Event]) -> dict[str, Any] | None:
    """The rack of the player to move in ``game`` (a delayed classic game): as the arbiter recorded it
    with that player's next turn, one of the ``later`` events (the rack a play or an exchange was made
    from), else, before their first turn, as the starting position (CGP) gives it; None when neither
    tells it. ``tiles`` are the known tiles (labels), ``unknown`` how many more the rack holds."""
    if game.finished:
        return None
    player = game.to_move
    turn = next((e for e in later if e.kind in TURNS), None)
    text = turn.data.get("rack") if turn is not None and turn.data.get("player") == player else None
    start = game.state.start_cgp
    if not text and start and not any(t.player == player for t in game.turns):
        racks = Position.from_cgp(start).racks
        tiles = racks[0] if player == game.state.first else racks[1]
    elif text:
        try:
            tiles = parse_rack(str(text))
        except GameError:
            return None
    else:
        return None
    if not tiles:
        return None
    return {"player": player, "name": game.players[player], "tiles": rack_labels(tiles),
            "unknown": max(0, game.rack_counts[player] - len(tiles))}  # fmt: skip


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
