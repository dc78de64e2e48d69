"""The projection screens (``/display``) and what they show, as JSON.

The state is language-neutral (the page words it) and built outside any request.
A screen loads its page once and then follows the game through the live stream of
the API (``/api/games/<id>/stream``): every message is ``screen_message``: the
game's ``screen_state`` (built once per version and shared) and the round clock
(``clock_state``), which changes with time rather than with events.

The state holds nothing private: no slip before its master, no reason an arbiter gave
(an annulled master is only ``annulled: true``), no note. After a master it carries the
round's summary (``round_summary``) and the standings (``standings_json``), which the
page shows in turn with the board (``?alternar=N`` seconds, ``DISPLAY_ALTERNATE_SECONDS``);
the rack is split as the judge announces it (``announced_rack``, D.III.17). A classic
table carries the unseen tiles and, at the end, the C.45 case and the adjustments, worded
by the page. ``/display/mesa/<n>`` follows the game table ``n`` plays now
(``screens.table_game``); the overlays and the delayed broadcast are in ``overlay``. Every message
also carries the director's notices to the room (``records.notices``), shown in a band the screen
makes room for; the room's screen shows a QR code to the event's results (``results_link``).

A classic table's clock (``rules_core.clock``) is in ``clock_state`` too, and
``/display/<game>/reloj`` (``/display/mesa/<n>/reloj``: the table's game) is the clock
itself, for a phone or tablet at the table: a press ends a turn (``clock_action``).
The tablet presses with a device token of role ``clock`` (``api.post_clock``); pausing
is the arbiter's, from a browser with an arbiter's session, as is everything else.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Collection
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, Final

import segno
from flask import Blueprint, abort, current_app, g, jsonify, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.alphabet import BLANK, full_bag, is_blank, label
from rules_core.board import SIZE, Board
from rules_core.classic import ClassicGame, Turn
from rules_core.classic_clock import time_is_up
from rules_core.duplicate import DuplicateGame, Round, rack_labels
from rules_core.events import Event, GameError
from rules_core.master import leave_after, placed_tiles

from ..records.notices import Notices, notices_of
from ..records.timezone import local
from ..records.tournaments import tournaments_of
from ..services.games import Game
from ..services.live import LiveGames
from ..services.shared import services
from ..services.store import GameRecord
from .auth import csrf_token, current_arbiter, login_required
from .inputs import json_object

bp = Blueprint("display", __name__, url_prefix="/display")
CameraNote = Callable[[str], "dict[str, Any] | None"]  # ``CameraRegistry.screen_note``

GAME_ID = re.compile(r"^[0-9a-f-]{36}$")


def game_record(game_id: str) -> GameRecord:
    """The stored game, or 404."""
    if not GAME_ID.match(game_id):
        abort(404)
    try:
        return services().games.store.game(game_id)
    except GameError:
        abort(404)


def game_list() -> list[dict[str, Any]]:
    """Every game for a list, newest first: id, name, mode, date (the venue's time), ended, table (a classic
    game named for its table, "Mesa 3...", or the venue table whose camera follows it)."""
    from .screens import TABLE_NAME, table_games

    cameras = {game: number for number, game in table_games().items()}
    rows = []
    for g in sorted(services().games.store.games(), key=lambda g: g.created_at, reverse=True):
        named = TABLE_NAME.search(g.name) if g.mode == "classic" else None
        table = cameras.get(g.id) or (int(named.group(1)) if named else None)
        ended = bool(g.snapshot.get("ended") or g.snapshot.get("finished"))
        rows.append({"id": g.id, "name": g.name, "mode": g.mode, "created_at": local(g.created_at), "ended": ended,
                     "table": table})  # fmt: skip
    return rows


def home() -> str:
    """The landing page: every game with its screen and results."""
    return render_template("home.html", games=game_list())


@bp.route("")
def index() -> str:
    from .screens import venue_screens

    return render_template("display/index.html", games=game_list(), venue_screens=venue_screens())


ALTERNATE_SECONDS = 8  # the board, then the round's summary, each this long (``DISPLAY_ALTERNATE_SECONDS``)


def alternate_seconds() -> int:
    """``?alternar=N`` (2 to 120 seconds), else the app's ``DISPLAY_ALTERNATE_SECONDS``, else
    ``$VEEDOR_DISPLAY_ALTERNATE_SECONDS``, else ``ALTERNATE_SECONDS``."""
    for wanted in (request.args.get("alternar"), current_app.config.get("DISPLAY_ALTERNATE_SECONDS"),
                   os.environ.get("VEEDOR_DISPLAY_ALTERNATE_SECONDS")):  # fmt: skip
        if wanted is not None and str(wanted).isdigit() and 2 <= int(wanted) <= 120:
            return int(wanted)
    return ALTERNATE_SECONDS


def render_screen(game_id: str, **page: Any) -> str:
    """The screen page of ``game_id``: the room's (live), an overlay's or the broadcast's."""
    record = game_record(game_id)
    initial = page.pop("initial", None)
    if initial is None:
        initial = json.loads(screen_message(services().games, game_id, services().cameras.screen_note, notices_of()))
    settings = {"view": "room", "part": None, "poll": None, "follow": None, "stream": None, **page}
    return render_template("display/screen.html", game=record, initial=initial, alternate=alternate_seconds(),
                           results=results_link(game_id), **settings)  # fmt: skip


def results_link(game_id: str) -> dict[str, str]:
    """Where a player reads the event's results on their phone: the tournament's page when the game is
    part of one, else the game's; as an absolute address (the organiser's ``PUBLIC_URL``, else
    ``$VEEDOR_PUBLIC_URL``, else the address the screen asked) and its QR code (an SVG data URI)."""
    found = tournaments_of().of_game(game_id)
    path = url_for("tournaments.public", tournament_id=found[0]) if found else url_for("results.game", game_id=game_id)
    base = str(current_app.config.get("PUBLIC_URL") or os.environ.get("VEEDOR_PUBLIC_URL") or request.host_url)
    url = base.rstrip("/") + path
    return {"url": url, "qr": _qr(url)}


@lru_cache(maxsize=64)
def _qr(url: str) -> str:
    return str(segno.make(url, error="m").svg_data_uri(scale=1, border=2, dark="#0b1622", light="#ffffff"))


@bp.route("/<game_id>")
def show(game_id: str) -> str | Response:
    return render_screen(game_id)


@bp.get("/mesa/<int:number>")
def table(number: int) -> str:
    """A table's stable screen: the game the table plays now, followed from game to game."""
    from .screens import table_game

    follow = {"target": url_for("display.table_target", number=number), "screen": url_for("display.table", number=number)}
    game_id = table_game(number)
    if game_id is None:
        name = _("Mesa %(n)s", n=number)
        return render_template("display/waiting.html", name=name, target=follow["target"], screen=follow["screen"],
                               notices=notices_of().json())  # fmt: skip
    return render_screen(game_id, follow=follow)


@bp.get("/mesa/<int:number>/objetivo")
def table_target(number: int) -> Response:
    """The game table ``number`` plays now: ``{"game": id or null}``, with the room's notices (its
    waiting screen shows them)."""
    from .screens import FOLLOW_SECONDS, table_game

    return jsonify({"game": table_game(number), "follow_seconds": FOLLOW_SECONDS, "notices": notices_of().json()})


# -- what the screen shows ----------------------------------------------------------


def screen_message(games: LiveGames, game_id: str, note: CameraNote | None = None,
                   notices: Notices | None = None) -> str:  # fmt: skip
    """One live message, as JSON text: version, clock, the shared screen state, the notices to the
    room (``records.notices``) and, for a game followed by a camera, ``camera`` (``signal`` false:
    "cámara sin señal", see ``cameras``)."""
    version, state = games.view(game_id, "screen", screen_state_json)
    with games.reading(game_id) as game:
        clock = clock_state(game, datetime.now(timezone.utc))
    camera = json.dumps(note(game_id) if note else None, ensure_ascii=False)
    shown = json.dumps(notices.json() if notices else [], ensure_ascii=False)
    return (f'{{"version": {version}, "clock": {json.dumps(clock)}, "camera": {camera}, "notices": {shown}, '
            f'"state": {state}}}')


def screen_state_json(game: Game) -> str:
    return json.dumps(screen_state(game), ensure_ascii=False, separators=(",", ":"))


def screen_state(game: Game) -> dict[str, Any]:
    """What a projection screen shows of ``game`` (no clock)."""
    if isinstance(game, DuplicateGame):
        return duplicate_state(game)
    return classic_state(game)


def board_labels(board: Board) -> list[list[str]]:
    """The board as 15 rows of labels ('' empty, lowercase for a blank)."""
    return [[label(board[r, c]) if board[r, c] else "" for c in range(SIZE)] for r in range(SIZE)]


def duplicate_state(game: DuplicateGame) -> dict[str, Any]:
    """The duplicate game as the room sees it: nothing private (no slip, no reason given by an
    arbiter, no note): an annulled master or slip is only said to be annulled."""
    current = game.current
    announced = [r for r in game.rounds if r.master is not None]
    last = announced[-1] if announced else None
    if game.ended:
        phase = "fin"
    elif current is None:
        phase = "espera"
    elif current.master is None:
        phase = "ronda"
    else:
        phase = "maestra"
    kept, new = announced_rack(game, current) if current else ([], [])
    return {
        "mode": "duplicate",
        "name": _game_name(game),
        "phase": phase,
        "board": board_labels(game.board),
        "last": master_squares(last),
        "round": current.number if current else 0,
        "rounds": game.settings.rounds,
        "rack": rack_labels(current.rack) if current else [],
        "rack_kept": kept,
        "rack_new": new,
        "redraws": current.redraws if current else 0,
        "master": _master_json(last),
        "master_total": game.master_total,
        "submitted": len(current.slips) if current and current.master is None else 0,
        "players": len(game.players),
        "bag": len(game.bag),
        "ended": game.ended,
        "summary": round_summary(game, last),
        "standings": standings_json(game),
        "tie_breaks": game.settings.tie_breaks,
    }


def announced_rack(game: DuplicateGame, r: Round) -> tuple[list[str], list[str]]:
    """The rack as the judge announces it (D.III.17): the tiles kept from the previous round,
    in alphabetical order, then the new ones (also in order)."""
    index = game.rounds.index(r)
    if index == 0:
        return [], rack_labels(r.rack)
    before = game.rounds[index - 1]
    if before.master is None:
        return [], rack_labels(r.rack)
    leave = Counter(leave_after(before.rack, placed_tiles(before.board, before.master)))
    kept = Counter(r.rack) & leave
    new = Counter(r.rack) - kept
    return rack_labels(kept.elements()), rack_labels(new.elements())


FEW_FINDERS = 3  # up to this many players who found the master are named


def round_summary(game: DuplicateGame, r: Round | None) -> dict[str, Any] | None:
    """The last published round told to the room: the master, who found it, the bonus,
    the room's best play when it was not the master; an annulled master (D.III.29) with how
    many played it (they score 0: they found nothing), all of it from the scores as they stand."""
    if r is None or r.master is None:
        return None
    names = {p.id: p.name for p in game.players.values()}
    scores = {p: r.results[p] for p in game.players if p in r.results}
    found = sorted(names[p] for p, s in scores.items() if s.score == r.master_score and r.master_score > 0)
    best_score = max((s.score for s in scores.values()), default=0)
    best = None
    if 0 < best_score < r.master_score:
        who = sorted(names[p] for p, s in scores.items() if s.score == best_score)
        play = next(s.play for s in scores.values() if s.score == best_score)
        best = {"play": play or "", "score": best_score, "count": len(who), "names": who[:FEW_FINDERS]}
    bonus = [{"name": names[p], "points": points} for p, points in game.bonuses(r).items()]
    return {
        "round": r.number, "play": r.master.notation, "score": r.master_score,
        "annulled": r.annulled is not None, "annulled_players": len(r.annulled_players()), "found": len(found),
        "finders": found if len(found) <= FEW_FINDERS else [],
        "bonus": bonus, "best": best,
    }  # fmt: skip


def standings_json(game: DuplicateGame) -> list[dict[str, Any]]:
    """Every player: rank, id (``player``), name, total, % of the masters' total, the last round's score
    and, for the tie-breaks (D.III.28), masters matched, solo tops and the largest deficit."""
    announced = [r for r in game.rounds if r.master is not None]
    last = announced[-1] if announced else None
    masters = game.master_total
    lines = []
    for s in game.standings():
        scored = last.results.get(s.player) if last else None
        lines.append({
            "rank": s.rank, "player": s.player, "name": s.name, "total": s.total,
            "pct": round(100 * s.total / masters, 1) if masters else 0.0,
            "round": scored.score if scored else 0, "bonus": s.bonus,
            "masters": s.masters_matched, "solos": s.solo_tops, "deficit": s.max_deficit,
        })  # fmt: skip
    return lines


def _game_name(game: Game) -> str:
    first = game.events[0] if game.events else None
    return str(first.data.get("name", "")) if first else ""


def master_squares(r: Round | None) -> list[list[int]]:
    if r is None or r.master is None:
        return []
    squares = [sq for sq in r.master.play.squares() if not r.board[sq]]
    return [[row, col] for row, col in squares]


def _master_json(r: Round | None) -> dict[str, Any] | None:
    if r is None or r.master is None:
        return None
    uses_blank = any(is_blank(t) for t in placed_tiles(r.board, r.master))
    return {"round": r.number, "play": r.master.notation, "score": r.master.score,
            "blank": uses_blank, "annulled": r.annulled is not None}  # fmt: skip


def clock_state(game: Game, now: datetime) -> dict[str, Any]:
    """The open round's clock (D.III.13): ``state`` idle, running, paused, closed; seconds left.
    A classic table's: ``classic_clock_state``."""
    if isinstance(game, ClassicGame):
        return classic_clock_state(game, now)
    if not isinstance(game, DuplicateGame):
        return {"state": "none"}
    r = game.current
    if r is None or r.master is not None:
        return {"state": "none"}
    total = game.settings.round_seconds
    actions = [action for action, _at in r.timer]
    if not actions:
        state = "idle"
    elif "close" in actions:
        state = "closed"
    else:
        state = "running" if r.timer_running else "paused"
    return {"state": state, "remaining": round(r.remaining_seconds(total, now), 2), "total": total}


def classic_clock_state(game: ClassicGame, now: datetime) -> dict[str, Any]:
    """The table's clock at ``now`` (``GameClock.to_json``; ``state`` none without one), with
    ``even`` (both have had as many turns, C.30), ``time_up`` (it may end on time, C.45.5) and the
    game's ``ending`` (C.45; "45.5": it ended on time)."""
    timer = game.state.timer
    if timer is None:
        return {"state": "none"}
    turns = [sum(1 for t in game.turns if t.player == p) for p in (0, 1)]
    return {**timer.to_json(now), "even": turns[0] == turns[1], "time_up": time_is_up(game.state, now), "ending": game.ending}


LAST_TURNS = 6


def classic_state(game: Game) -> dict[str, Any]:
    """A classic table: board, players, scores and spread, last turns, the unseen tiles
    (bag and racks: every tile not on the board, by letter) and, at the end, the ending
    reached (C.45) and the adjustments (racks left, overtime) the screen words."""
    assert isinstance(game, ClassicGame)
    names = game.players
    turns = game.turns
    played = [t for t in turns if t.action == "play" and not t.withdrawn]
    last = [[row, col] for row, col, _tile in played[-1].placed] if played else []
    unseen = unseen_tiles(game.board)
    return {
        "mode": "classic",
        "name": game.state.title or f"{names[0]} – {names[1]}",
        "title": game.state.title or "",
        "phase": "fin" if game.finished else "juego",
        "board": board_labels(game.board),
        "last": last,
        "players": [{"name": names[i], "score": game.scores[i]} for i in (0, 1)],
        "to_move": game.to_move,
        "bag": game.bag,
        "unseen": unseen,
        "unseen_count": sum(count for _label, count in unseen),
        "ended": game.finished,
        "ending": game.ending,
        "winner": game.winner() if game.finished else None,
        "adjustments": [{"player": a.player, "kind": a.kind, "points": a.points, "rack": a.rack}
                        for a in game.state.adjustments],  # fmt: skip
        "last_plays": [_turn_json(t, names) for t in reversed(turns[-LAST_TURNS:])],
    }


def unseen_tiles(board: Board) -> list[tuple[str, int]]:
    """The tiles not on the board (in the bag or on a rack), by letter in alphabetical
    order, ``?`` the blanks last."""
    left = Counter(full_bag())
    for r in range(SIZE):
        for c in range(SIZE):
            tile = board[r, c]
            if tile:
                left[BLANK if is_blank(tile) else tile] -= 1
    tiles = sorted((t for t, n in left.items() if n > 0), key=lambda t: (t == BLANK, t))
    return [(label(t), left[t]) for t in tiles]


def _turn_json(turn: Turn, names: tuple[str, str]) -> dict[str, Any]:
    """A turn as the screen lists it; the screen words ``pass`` and ``exchange`` in its language."""
    points = turn.points if turn.action == "play" else None
    return {"player": names[turn.player], "kind": turn.action, "text": turn.notation,
            "count": turn.exchanged, "points": points, "withdrawn": turn.withdrawn}  # fmt: skip


# -- the table's clock ----------------------------------------------------------------


# time: the end on time (C.45.5); set: the arbiter's correction of a player's time (C.36)
CLOCK_ACTIONS: Final = frozenset({"start", "press", "pause", "resume", "time", "set"})
DEVICE_CLOCK_ACTIONS: Final = frozenset({"start", "press", "time"})  # a pause or a correction is the arbiter's (C.34, C.36)


@bp.get("/<game_id>/reloj")
def clock(game_id: str) -> str:
    return render_clock(game_id)


@bp.get("/mesa/<int:number>/reloj")
def table_clock(number: int) -> str:
    """The clock of the game table ``number`` plays now, followed from game to game."""
    from .screens import table_game

    follow = {"target": url_for("display.table_target", number=number), "screen": url_for("display.table_clock", number=number)}
    game_id = table_game(number)
    if game_id is None:
        return render_template("display/waiting.html", name=_("Reloj de la mesa %(n)s", n=number),
                               notices=notices_of().json(), **follow)  # fmt: skip
    return render_clock(game_id, follow=follow)


def render_clock(game_id: str, follow: dict[str, str] | None = None) -> str:
    record = game_record(game_id)
    if record.mode != "classic":
        abort(404)
    initial = json.loads(screen_message(services().games, game_id))
    arbiter = current_arbiter() is not None
    config = {"game": game_id, "arbiter": arbiter, "csrf": csrf_token() if arbiter else None,
              "device_url": url_for("api.post_clock", game_id=game_id), "arbiter_url": url_for("display.clock_by_arbiter", game_id=game_id),
              "state_url": url_for("api.game", game_id=game_id)}  # fmt: skip
    return render_template("display/clock.html", game=record, initial=initial, config=config, follow=follow)


@bp.post("/<game_id>/reloj")
@login_required
def clock_by_arbiter(game_id: str) -> tuple[Response, int]:
    """Any action on the clock, by an arbiter (JSON, with the session's CSRF token)."""
    return clock_action(game_id, json_object(), f"arbiter:{g.arbiter}", CLOCK_ACTIONS)


def clock_action(game_id: str, body: dict[str, Any], actor: str, allowed: Collection[str]) -> tuple[Response, int]:
    """``{"action", "player", "delay_ms"}``: the clock's event at the server's time (``time``: the
    end on time, stored by the server once ``time_is_up``, see ``LiveGames.settle``; ``set``: with
    ``remaining``, seconds, and ``reason``); the game's screen message after it (201)."""
    if game_record(game_id).mode != "classic":
        abort(404)
    action, player, delay = body.get("action"), body.get("player"), body.get("delay_ms")
    if action in CLOCK_ACTIONS and action not in allowed:
        abort(403, description=_("solo un árbitro pausa o corrige el reloj (C.34, C.36)"))
    if action not in allowed:
        abort(400, description=_("acción del reloj: una de %(a)s", a=", ".join(sorted(allowed))))
    if player not in (None, 0, 1) or isinstance(player, bool):
        abort(400, description=_("'player' es 0 o 1"))
    if delay is not None and (isinstance(delay, bool) or not isinstance(delay, int) or delay < 0):
        abort(400, description=_("'delay_ms' es un número de milisegundos, 0 o más"))
    games = services().games
    if action == "time":
        with games.reading(game_id) as game:  # settled on reading: ended now if its time is up
            if not isinstance(game, ClassicGame) or game.ending != "45.5":
                abort(409, description=_("la partida aún no puede terminar por tiempo (C.30, C.45.5)"))
        return Response(screen_message(games, game_id), mimetype="application/json"), 201
    event = _correction(body, actor) if action == "set" else \
        ClassicGame.clock_event(str(action), player, delay_ms=delay, actor=actor)  # fmt: skip
    try:
        games.append(game_id, event)
    except GameError as error:
        abort(409, description=str(error))
    return Response(screen_message(games, game_id), mimetype="application/json"), 201


def _correction(body: dict[str, Any], actor: str) -> Event:
    """The arbiter's ``clock_set`` (C.36): ``player``, ``remaining`` seconds (under zero: over) and ``reason``."""
    player, remaining, reason = body.get("player"), body.get("remaining"), body.get("reason")
    if player not in (0, 1) or isinstance(player, bool):
        abort(400, description=_("una corrección del reloj dice de qué jugador: 'player', 0 o 1"))
    if isinstance(remaining, bool) or not isinstance(remaining, (int, float)) or not math.isfinite(remaining):
        abort(400, description=_("'remaining' es el tiempo que le queda al jugador, en segundos"))
    if not isinstance(reason, str) or not reason.strip():
        abort(400, description=_("una corrección del reloj necesita un motivo"))
    return ClassicGame.clock_set_event(player, round(remaining * 1000), reason.strip()[:200], actor=actor)
