"""The projection screens (``/display``) and what they show, as JSON.

The state is language-neutral (the page words it) and built outside any request.
A screen loads its page once and then follows the game through the live stream of
the API (``/api/games/<id>/stream``): every message is ``screen_message``: the
game's ``screen_state`` (built once per version and shared) and the round clock
(``clock_state``), which changes with time rather than with events.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from flask import Blueprint, abort, render_template
from werkzeug.wrappers import Response

from rules_core.alphabet import is_blank, label
from rules_core.board import SIZE, Board
from rules_core.classic import ClassicGame, Turn
from rules_core.duplicate import DuplicateGame, Round, rack_labels
from rules_core.events import GameError
from rules_core.master import placed_tiles

from ..services.games import Game
from ..services.live import LiveGames
from ..services.shared import services
from ..services.store import GameRecord

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


def home() -> str:
    """The landing page: every game with its screen and results."""
    games = services().games.store.games()
    return render_template("home.html", games=list(reversed(games)))


@bp.route("")
def index() -> str:
    from .screens import venue_screens

    games = services().games.store.games()
    return render_template("display/index.html", games=list(reversed(games)), venue_screens=venue_screens())


@bp.route("/<game_id>")
def show(game_id: str) -> str | Response:
    record = game_record(game_id)
    games: LiveGames = services().games
    note = services().cameras.screen_note
    return render_template("display/screen.html", game=record, initial=json.loads(screen_message(games, game_id, note)))


# -- what the screen shows ----------------------------------------------------------


def screen_message(games: LiveGames, game_id: str, note: CameraNote | None = None) -> str:
    """One live message, as JSON text: version, clock, the shared screen state and, for a
    game followed by a camera, ``camera`` (``signal`` false: "cámara sin señal", see ``cameras``)."""
    version, state = games.view(game_id, "screen", screen_state_json)
    with games.reading(game_id) as game:
        clock = clock_state(game, datetime.now(timezone.utc))
    camera = json.dumps(note(game_id) if note else None, ensure_ascii=False)
    return f'{{"version": {version}, "clock": {json.dumps(clock)}, "camera": {camera}, "state": {state}}}'


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
    return {
        "mode": "duplicate",
        "name": _game_name(game),
        "phase": phase,
        "board": board_labels(game.board),
        "last": master_squares(last),
        "round": current.number if current else 0,
        "rounds": game.settings.rounds,
        "rack": rack_labels(current.rack) if current else [],
        "redraws": current.redraws if current else 0,
        "master": _master_json(last),
        "master_total": game.master_total,
        "submitted": len(current.slips) if current and current.master is None else 0,
        "players": len(game.players),
        "bag": len(game.bag),
        "ended": game.end_reason,
        "leaders": _leaders(game) if game.ended else [],
    }


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
            "blank": uses_blank, "annulled": r.annulled}  # fmt: skip


def _leaders(game: DuplicateGame) -> list[dict[str, Any]]:
    return [{"rank": s.rank, "name": s.name, "total": s.total} for s in game.standings()[:10]]


def clock_state(game: Game, now: datetime) -> dict[str, Any]:
    """The open round's clock (D.III.13): ``state`` idle, running, paused, closed; seconds left."""
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


LAST_TURNS = 6


def classic_state(game: Game) -> dict[str, Any]:
    """A classic table: board, players, scores and last turns (``rules_core.classic``)."""
    assert isinstance(game, ClassicGame)
    names = game.players
    turns = game.turns
    played = [t for t in turns if t.action == "play" and not t.withdrawn]
    last = [[row, col] for row, col, _tile in played[-1].placed] if played else []
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
        "ended": game.finished,
        "ending": game.ending,
        "winner": game.winner() if game.finished else None,
        "last_plays": [_turn_json(t, names) for t in reversed(turns[-LAST_TURNS:])],
    }


def _turn_json(turn: Turn, names: tuple[str, str]) -> dict[str, Any]:
    """A turn as the screen lists it; the screen words ``pass`` and ``exchange`` in its language."""
    points = turn.points if turn.action == "play" else None
    return {"player": names[turn.player], "kind": turn.action, "text": turn.notation,
            "count": turn.exchanged, "points": points, "withdrawn": turn.withdrawn}  # fmt: skip
