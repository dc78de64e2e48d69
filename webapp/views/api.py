"""The JSON API (``/api``): games and their screen state, the live stream, device input.

Reading is public, like the screens: ``GET /api/games``, ``GET /api/games/<id>``
(the screen message) and ``GET /api/games/<id>/stream`` (Server-Sent Events: an
``event: state`` message at once and after every change, an ``event: ping`` every
``LIVE_PING_SECONDS`` while idle, so that a screen tells a quiet game from a dead link).

Writing needs a device token (``Authorization: Bearer <token>``, see ``auth``):
``POST /api/games/<id>/events`` takes one event ``{"kind", "data"}`` of the kinds a
device may send (slips, classic turns), and ``POST /api/games/<id>/slips`` a slip
by table number as the scanner reads it. Both answer 201 with the game's new
version (and the slip's score); the rules' refusals are 409 with the reason.
Every error is JSON.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Final

from flask import Blueprint, abort, current_app, g, jsonify, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response
from werkzeug.wsgi import ClosingIterator

from rules_core.duplicate import DuplicateGame
from rules_core.events import Event, GameError
from rules_core.slips import Slip

from ..services.live import LiveGames
from ..services.shared import services
from .auth import device_required
from .display import CameraNote, game_record, screen_message

bp = Blueprint("api", __name__, url_prefix="/api")

PING: Final = b"event: ping\ndata: {}\n\n"  # lets a screen tell a quiet game from a dead link
CAMERA_POLL: Final = 1.0  # seconds between looks at the signal of a game's camera
DEVICE_KINDS: Final = frozenset({"slip", "play", "challenge", "exchange", "pass"})


@bp.get("/games")
def games() -> Response:
    records = services().games.store.games()
    return jsonify([{"id": r.id, "mode": r.mode, "name": r.name, "created_at": r.created_at.isoformat(),
                     "events": r.event_count, "summary": r.snapshot} for r in records])  # fmt: skip


@bp.get("/games/<game_id>")
def game(game_id: str) -> Response:
    game_record(game_id)
    found = services()
    return Response(screen_message(found.games, game_id, found.cameras.screen_note), mimetype="application/json")


@bp.get("/games/<game_id>/stream")
def stream(game_id: str) -> Response:
    """The game's screen messages as Server-Sent Events, for as long as the client listens."""
    game_record(game_id)
    found = services()
    if not found.streams.acquire():
        abort(503, description=_("demasiadas pantallas conectadas; se reintentará"))
    config = current_app.config
    note = found.cameras.screen_note if len(found.cameras) else None
    body = _events(found.games, game_id, float(config["LIVE_PING_SECONDS"]), float(config["LIVE_STREAM_SECONDS"]), note)
    response = Response(ClosingIterator(body, [found.streams.release]), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # a proxy in front must not buffer it
    return response


def _events(games: LiveGames, game_id: str, ping: float, lifetime: float, note: CameraNote | None = None) -> Iterator[bytes]:
    """With cameras (``note``), their signal is looked at every ``CAMERA_POLL`` seconds too:
    a camera that loses its signal changes the screen without any new event."""
    yield b"retry: 1000\n\n"
    seen, shown = -1, None
    deadline = time.monotonic() + lifetime
    pinged = time.monotonic()
    while not games.closing and time.monotonic() < deadline:
        version = games.wait(game_id, seen, min(ping, CAMERA_POLL) if note else ping)
        camera = note(game_id) if note else None
        if version == seen and camera == shown:
            if time.monotonic() - pinged >= ping * 0.99:
                pinged = time.monotonic()
                yield PING
            continue
        seen, shown, pinged = version, camera, time.monotonic()
        yield f"id: {version}\nevent: state\ndata: {screen_message(games, game_id, note)}\n\n".encode()


@bp.post("/games/<game_id>/events")
@device_required
def post_event(game_id: str) -> tuple[Response, int]:
    game_record(game_id)
    body = _json_body()
    kind = body.get("kind")
    data = body.get("data")
    if kind not in DEVICE_KINDS or not isinstance(data, dict):
        abort(400, description=_("un dispositivo envía eventos de tipo %(kinds)s con 'data'", kinds=", ".join(sorted(DEVICE_KINDS))))
    version = _store(game_id, Event(str(kind), data, f"dispositivo:{g.device}"))
    return jsonify({"ok": True, "version": version}), 201


@bp.post("/games/<game_id>/slips")
@device_required
def post_slip(game_id: str) -> tuple[Response, int]:
    """A scanned slip: ``table``, ``notation`` and the facts noted (``late``, ``void``...)."""
    game_record(game_id)
    body = _json_body()
    games: LiveGames = services().games
    with games.reading(game_id) as live:
        if not isinstance(live, DuplicateGame):
            abort(409, description=_("la partida no es una duplicada"))
        player = _player_at(live, body.get("table"))
        number = body.get("round") or (live.current.number if live.current else 0)
    slip = Slip.from_json({**body, "source": str(body.get("source") or "escáner")})
    data = {"round": int(number), "player": player, "slip": slip.to_json()}
    version = _store(game_id, Event("slip", data, f"dispositivo:{g.device}"))
    with games.reading(game_id):
        result = live.round(int(number)).results[player]
    scored = {"play": result.play, "score": result.score, "reason": result.reason}
    return jsonify({"ok": True, "version": version, "result": scored}), 201


def _player_at(game: DuplicateGame, table: Any) -> str:
    for player in game.players.values():
        if isinstance(table, int) and player.table == table:
            return player.id
    abort(409, description=_("no hay ningún jugador en la mesa %(t)s", t=repr(table)))


def _json_body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, description=_("se esperaba un objeto JSON"))
    return body


def _store(game_id: str, event: Event) -> int:
    """Append ``event``; the game's new version. A refusal by the rules is a 409."""
    games: LiveGames = services().games
    try:
        games.append(game_id, event)
    except GameError as error:
        abort(409, description=str(error))
    return games.version(game_id)
