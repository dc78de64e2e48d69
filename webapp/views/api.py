"""The JSON API (``/api``): games and their screen state, the live stream, device input.

Reading is public, like the screens: ``GET /api/games``, ``GET /api/games/<id>``
(the screen message) and ``GET /api/games/<id>/stream`` (Server-Sent Events: an
``event: state`` message at once and after changes, at most one every ``STATE_GAP``
seconds, an ``event: ping`` every ``LIVE_PING_SECONDS`` while idle, so that a screen
tells a quiet game from a dead link). Streams are capped in all (503) and per client
address (429); the screen retries either way.

Writing needs a device token (``Authorization: Bearer <token>``, see ``auth``) whose
role allows it (``services.accounts.ROLES``), for a game the token may write to:
``POST /api/games/<id>/events`` takes one event ``{"kind", "data"}`` of the kinds
the role may send (``DEVICE_KINDS``: a scanner's slips, a camera's classic turns),
``POST /api/games/<id>/slips`` a scanner's slip by table number, and
``POST /api/games/<id>/clock`` a press of a classic table's clock (role ``clock``). A device's
slip is marked as scanned whatever it says, and only for a round still in play (a
slip for a published round or an ended game is the arbiter's, with a reason). A file
an event names (``frame``, ``scan``) must be one the server stored for that game
(``services.stored_files``), else 400 naming the field. Both answer 201 with the game's new version (and the slip's score); the rules' refusals
are 409 with the reason. Every error is JSON; a body is checked at the boundary
(``inputs``) before anything reads it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, Final

from flask import Blueprint, abort, current_app, g, jsonify, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response
from werkzeug.wsgi import ClosingIterator

from rules_core.duplicate import DuplicateGame
from rules_core.events import Event, GameError
from rules_core.slips import Slip

from ..records.notices import Notices, notices_of
from ..services.accounts import Device
from ..services.live import LiveGames
from ..services.shared import scan_service, services
from ..services.stored_files import NotStored, scan_pages
from .auth import device_required
from .display import DEVICE_CLOCK_ACTIONS, CameraNote, clock_action, game_record, screen_message
from .inputs import json_object, positive_int

bp = Blueprint("api", __name__, url_prefix="/api")

PING: Final = b"event: ping\ndata: {}\n\n"  # lets a screen tell a quiet game from a dead link
CAMERA_POLL: Final = 1.0  # seconds between looks at the signal of a game's camera
LEAVE_CHECK: Final = 1.0  # seconds between looks at whether a stream's client has left
STATE_GAP: Final = 0.25  # seconds at least between two states of a stream: changes closer go in one
DEVICE_KINDS: Final = {  # what each device role may send to /events
    "scanner": frozenset({"slip"}),
    "camera": frozenset({"play", "challenge", "exchange", "pass"}),
}
SLIP_FIELDS: Final = frozenset({"notation", "late", "blank_not_circled", "void", "other_notations"})
DEVICE_SOURCE: Final = "escáner"  # a device's slip is a scan, whatever it says


@bp.get("/games")
def games() -> Response:
    records = services().games.store.games()
    return jsonify([{"id": r.id, "mode": r.mode, "name": r.name, "created_at": r.created_at.isoformat(),
                     "events": r.event_count, "summary": r.snapshot} for r in records])  # fmt: skip


@bp.get("/games/<game_id>")
def game(game_id: str) -> Response:
    game_record(game_id)
    found = services()
    message = screen_message(found.games, game_id, found.cameras.screen_note, notices_of())
    return Response(message, mimetype="application/json")


@bp.get("/games/<game_id>/stream")
def stream(game_id: str) -> Response:
    """The game's screen messages as Server-Sent Events, for as long as the client listens.

    Streams are capped in all (503) and per client address (429); the screen retries."""
    game_record(game_id)
    found = services()
    address = request.remote_addr or ""
    if not found.streams.acquire(address):
        if found.streams.per_address and found.streams.open_from(address) >= found.streams.per_address:
            abort(429, description=_("demasiadas pantallas conectadas desde esta dirección; se reintentará"))
        abort(503, description=_("demasiadas pantallas conectadas; se reintentará"))
    config = current_app.config
    note = found.cameras.screen_note if len(found.cameras) else None
    gone = request.environ.get("waitress.client_disconnected") or _never
    body = _events(found.games, game_id, float(config["LIVE_PING_SECONDS"]), float(config["LIVE_STREAM_SECONDS"]), note,
                   gone, notices_of())  # fmt: skip
    response = Response(ClosingIterator(body, [lambda: found.streams.release(address)]), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # a proxy in front must not buffer it
    return response


def _never() -> bool:
    return False


def _events(games: LiveGames, game_id: str, ping: float, lifetime: float, note: CameraNote | None = None,
            gone: Callable[[], bool] = _never, notices: Notices | None = None) -> Iterator[bytes]:  # fmt: skip
    """A notice to the room posted or removed (``notices``) wakes the stream and is sent at once.
    With cameras (``note``), their signal is looked at every ``CAMERA_POLL`` seconds too:
    a camera that loses its signal changes the screen without any new event. ``gone()`` (the
    server's word that the client closed the connection) is looked at every ``LEAVE_CHECK``
    seconds, so that a screen that left frees its thread and slot at once, not at the next ping.
    A burst of changes (slips entered quickly) is sent as one state every ``STATE_GAP``
    seconds: hundreds of screens then cost the server a few states a second each."""
    yield b"retry: 1000\n\n"
    seen, shown, told = -1, None, -1
    deadline = time.monotonic() + lifetime
    pinged = time.monotonic()
    sent = pinged - STATE_GAP  # when the last state went
    step = min(ping, LEAVE_CHECK, CAMERA_POLL if note else ping)
    while not games.closing and time.monotonic() < deadline and not gone():
        version = games.wait(game_id, seen, step)
        camera = note(game_id) if note else None
        room = notices.version if notices else 0
        if version == seen and camera == shown and room == told:
            if time.monotonic() - pinged >= ping * 0.99:
                pinged = time.monotonic()
                yield PING
            continue
        wait = sent + STATE_GAP - time.monotonic()
        if wait > 0:
            time.sleep(wait)
            version = games.version(game_id)
        seen, shown, told, pinged = version, camera, room, time.monotonic()
        yield f"id: {version}\nevent: state\ndata: {screen_message(games, game_id, note, notices)}\n\n".encode()
        sent = time.monotonic()


@bp.post("/games/<game_id>/events")
@device_required("scanner", "camera")
def post_event(game_id: str) -> tuple[Response, int]:
    """One event of the kinds the device's role may send (``DEVICE_KINDS``)."""
    device = _device_for(game_id)
    body = json_object()
    kind, data = body.get("kind"), body.get("data")
    allowed = DEVICE_KINDS[str(device.role)]
    if kind not in allowed or not isinstance(data, dict):
        abort(400, description=_("un dispositivo de función %(r)s envía eventos de tipo %(kinds)s con 'data'",
                                 r=device.role, kinds=", ".join(sorted(allowed))))  # fmt: skip
    _check_files(game_id, data)
    if kind == "slip":
        data = _device_slip(game_id, data)
    version = _store(game_id, Event(str(kind), data, f"dispositivo:{device.name}"))
    return jsonify({"ok": True, "version": version}), 201


@bp.post("/games/<game_id>/clock")
@device_required("clock")
def post_clock(game_id: str) -> tuple[Response, int]:
    """The table's clock: ``{"action": "press", "player": 0}`` (or ``start``, or ``time``, the end
    on time); see ``display.clock_action``. The answer is the game's screen message."""
    device = _device_for(game_id)
    return clock_action(game_id, json_object(), f"dispositivo:{device.name}", DEVICE_CLOCK_ACTIONS)


@bp.post("/games/<game_id>/slips")
@device_required("scanner")
def post_slip(game_id: str) -> tuple[Response, int]:
    """A scanned slip: ``table``, ``notation`` and the facts noted (``late``, ``void``...)."""
    device = _device_for(game_id)
    body = json_object()
    games: LiveGames = services().games
    with games.reading(game_id) as live:
        if not isinstance(live, DuplicateGame):
            abort(409, description=_("la partida no es una duplicada"))
        player = _player_at(live, body.get("table"))
        current = live.current.number if live.current else 0
    number = positive_int(body["round"], "round") if body.get("round") is not None else current
    data = _device_slip(game_id, {"round": number, "player": player, "slip": body})
    version = _store(game_id, Event("slip", data, f"dispositivo:{device.name}"))
    with games.reading(game_id):
        result = live.round(number).results[player]
    scored = {"play": result.play, "score": result.score, "reason": result.reason}
    return jsonify({"ok": True, "version": version, "result": scored}), 201


def _device_for(game_id: str) -> Device:
    """The calling device, if it may write to ``game_id`` (else 403); the game must exist (else 404)."""
    game_record(game_id)
    device: Device = g.device
    if not device.may_write(game_id):
        abort(403, description=_("el dispositivo %(d)s no puede escribir en esta partida", d=device.name))
    return device


def _check_files(game_id: str, data: dict[str, Any]) -> None:
    """A file the event names must be one the server stored for this game: a frame of a camera attached to
    it, a page scanned and read into it (``stored_files``, issue 67); else 400 naming the field."""
    found = services()
    try:
        if "frame" in data:
            found.files.frame(data["frame"], found.cameras.cameras_of(game_id))
        if "scan" in data:
            found.files.page(data["scan"], scan_pages(scan_service().root, game_id))
    except NotStored as error:
        abort(400, description=str(error))


def _device_slip(game_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """A device's slip event data: the source set by the server, only for a round still in play.

    A slip for a round whose master is published, or for an ended game, is the
    arbiter's to enter, with a reason (``arbiter``); a device's is refused (409).
    """
    number = positive_int(data.get("round"), "round")
    slip = data.get("slip")
    if not isinstance(slip, dict):
        abort(400, description=_("falta 'slip' (un objeto)"))
    with services().games.reading(game_id) as live:
        if not isinstance(live, DuplicateGame):
            abort(409, description=_("la partida no es una duplicada"))
        if live.ended:
            abort(409, description=_("la partida ha terminado: las papeletas las introduce el árbitro"))
        if number > len(live.rounds) or live.round(number).master is not None:
            abort(409, description=_("la ronda %(n)s no está en juego: la papeleta la introduce el árbitro", n=number))
    fields = {k: v for k, v in slip.items() if k in SLIP_FIELDS}
    return {**data, "round": number, "slip": Slip.from_json({**fields, "source": DEVICE_SOURCE}).to_json()}


def _player_at(game: DuplicateGame, table: Any) -> str:
    for player in game.players.values():
        if isinstance(table, int) and player.table == table:
            return player.id
    abort(409, description=_("no hay ningún jugador en la mesa %(t)s", t=repr(table)))


def _store(game_id: str, event: Event) -> int:
    """Append ``event``; the game's new version. A refusal by the rules is a 409."""
    games: LiveGames = services().games
    try:
        games.append(game_id, event)
    except GameError as error:
        abort(409, description=str(error))
    return games.version(game_id)
