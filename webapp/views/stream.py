"""The stream of the whole event: what a streamer adds beside one game's overlays (``overlay``).

* ``/overlay/escena/<game>`` and ``/overlay/escena/mesa/<n>``: a ready 1920x1080 scene, the parts
  of the game (or of the game table ``n`` plays now) laid out around room for a camera, for one
  browser source (``SCENES``; each part a transparent frame of its overlay page, placed by
  ``stream.css`` as a share of the source, so that the scene scales with it);
* ``/overlay/mesas/<1,2,3>/<part>``: one part of several tables at once, each named, in a grid
  that gives each the largest room the source allows;
* ``/overlay/torneo/<id>/estado``: the standings across the tournament's games as the ``tournament``
  part reads them (``records.stream_players.event_standings``);
* ``/overlay/<game>/tercio``: the lower third after a master (``?ronda=``, else the last
  published): the master, the round's top plays (``TOP_PLAYS``, by score, a word at one place once)
  and who found each;
* ``/overlay/foto/<file>``: a photo of the players' list, from the data folder's ``fotos/``.

Every view takes the overlays' delay (``?retraso=``, never under ``OVERLAY_DELAY_MINUTES``): the
standings and the lower third are of the games as they stood then.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from typing import Any, Final

from flask import Blueprint, abort, render_template, request, send_file, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from rules_core.alphabet import Tile
from rules_core.board import Board
from rules_core.cgp import Position
from rules_core.duplicate import DuplicateGame, Round
from rules_core.lexicon import Lexicon
from rules_core.movegen import ScoredPlay, generate_plays

from ..records.stream_players import PHOTOS, current_ratings, data_dir, event_standings
from ..records.tournaments import TournamentError, tournaments_of
from ..services.games import Game
from ..services.shared import services
from ..services.stored_files import NotStored
from .display import FEW_FINDERS, game_record
from .overlay import PARTS, game_at, overlay_delay, photo_src

bp = Blueprint("stream", __name__)

SIDE: Final = "side"  # the scene's column: the tournament's standings, else the game's (a duplicate game)
SCENES: Final = {  # the parts of a scene by the game's mode; stream.css places each on a 1920x1080 source
    "duplicate": ("notices", SIDE, "board", "scores", "clock", "rack", "lowerthird"),
    "classic": ("notices", SIDE, "board", "scores", "clock", "plays", "rack"),
}
ASPECTS: Final = {  # a part's width over its height, for the grid of tables
    "board": 1.0, "scores": 2.4, "clock": 3.0, "rack": 4.0, "plays": 1.2, "summary": 1.4, "standings": 0.8,
    "notices": 10.0, "tournament": 0.7, "lowerthird": 4.0,
}  # fmt: skip
PASSED: Final = ("retraso", "segundos", "alternar")  # a scene's or a grid's arguments, handed to its parts
MAX_TABLES: Final = 12
TOP_PLAYS: Final = 5
PHOTO: Final = re.compile(r"[\w.-]+\.(jpe?g|png|webp)", re.IGNORECASE)  # as ``rules_core.player_list`` takes it


def _passed() -> dict[str, Any]:
    return {key: request.args[key] for key in PASSED if key in request.args}


# -- the scene ----------------------------------------------------------------------------


@bp.get("/overlay/escena/<game_id>")
def scene(game_id: str) -> str:
    return _scene(game_id, None)


@bp.get("/overlay/escena/mesa/<int:number>")
def table_scene(number: int) -> str:
    from .screens import table_game

    game_id = table_game(number)
    follow = {"target": url_for("display.table_target", number=number), "screen": request.full_path.rstrip("?")}
    if game_id is None:
        return render_template("display/waiting.html", name=_("Mesa %(n)s", n=number), transparent=True, **follow)
    return _scene(game_id, number, follow)


def _scene(game_id: str, number: int | None, follow: dict[str, str] | None = None) -> str:
    """The scene of ``game_id``; its parts follow table ``number`` when given."""
    record = game_record(game_id)
    overlay_delay()  # a bad ?retraso= is said here, not in every frame
    side = "tournament" if tournaments_of().of_game(game_id) else ("standings" if record.mode == "duplicate" else None)
    frames = []
    for slot in SCENES[record.mode]:
        part = side if slot == SIDE else slot
        if part is None:
            continue
        src = url_for("overlay.table_overlay", number=number, part=part, **_passed()) if number is not None else \
            url_for("overlay.overlay", game_id=game_id, part=part, **_passed())  # fmt: skip
        frames.append({"slot": slot, "part": part, "src": src})
    return render_template("display/scene.html", game=record, frames=frames, follow=follow)


# -- several tables -------------------------------------------------------------------------


@bp.get("/overlay/mesas/<tables>/<part>")
def tables(tables: str, part: str) -> str:
    """One part of several tables (``1,2,3``), each followed from game to game, in a grid."""
    if part not in PARTS:
        abort(404)
    numbers = _table_numbers(tables)
    overlay_delay()
    cells = [{"number": n, "name": _("Mesa %(n)s", n=n),
              "src": url_for("overlay.table_overlay", number=n, part=part, **_passed())} for n in numbers]  # fmt: skip
    return render_template("display/tables.html", cells=cells, part=part, aspect=ASPECTS[part])


def _table_numbers(text: str) -> list[int]:
    """The tables of ``1,2,3``, in order; 400 naming the problem."""
    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() and 1 <= int(p) <= 9999 for p in parts):
        abort(400, description=_("mesas: números de mesa separados por comas, como 1,2,3"))
    numbers = [int(p) for p in parts]
    if len(set(numbers)) != len(numbers):
        abort(400, description=_("mesas: una mesa está repetida"))
    if len(numbers) > MAX_TABLES:
        abort(400, description=_("mesas: como mucho %(n)s a la vez", n=MAX_TABLES))
    return numbers


# -- the standings across the tournament's games ---------------------------------------------


@bp.get("/overlay/torneo/<tournament_id>/estado")
def tournament_state(tournament_id: str) -> Response:
    """The standings across the tournament's games (JSON), as they stood the overlays' delay ago."""
    try:
        tournament = tournaments_of().get(tournament_id)
    except TournamentError:
        abort(404)
    delay = overlay_delay()
    elodi = current_ratings(services().games, data_dir())
    games = services().games
    known = {record.id for record in games.store.games()}
    ids = [game_id for game_id in tournament.games if game_id in known]
    if delay > 0:
        now = datetime.now(timezone.utc)
        body = event_standings(tournament, [game_at(game_id, delay, now) for game_id in ids], elodi)
    else:
        with games.lock:  # the live games, read whole
            body = event_standings(tournament, [games.open(game_id) for game_id in ids], elodi)
    for line in body["lines"]:
        line["photo"] = photo_src(line["photo"])
    return _json(body)


def _json(body: Any) -> Response:
    response = Response(json.dumps(body, ensure_ascii=False), mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


# -- the lower third --------------------------------------------------------------------------


@bp.get("/overlay/<game_id>/tercio")
def lower_third(game_id: str) -> Response:
    """The lower third of round ``?ronda=`` (else the last published; null before any) as it stood the
    overlays' delay ago; 404 for a round whose master was not published then."""
    if game_record(game_id).mode != "duplicate":
        abort(404)
    asked = request.args.get("ronda", "")
    if asked and not asked.isdigit():
        abort(400, description=_("ronda: un número de ronda"))
    delay = overlay_delay()
    games = services().games
    if delay > 0:
        seen = _round_seen(game_at(game_id, delay, datetime.now(timezone.utc)), int(asked) if asked else None)
    else:
        with games.reading(game_id) as game:
            seen = _round_seen(game, int(asked) if asked else None)
    if seen is None:
        if asked:
            abort(404)
        return _json(None)
    return _json(seen.told())


class _RoundSeen:
    """A published round, copied out of the game so that its plays are found outside the games' lock."""

    def __init__(self, game: DuplicateGame, r: Round) -> None:
        assert r.master is not None
        self.number, self.board, self.rack, self.lexicon = r.number, r.board, r.rack, r.lexicon
        self.master, self.score, self.annulled = r.master.notation, r.master.score, r.annulled is not None
        names = {p.id: p.name for p in game.players.values()}
        self.found = [(names.get(p, p), s.play or "", s.score) for p, s in r.results.items()]
        self.players = len(game.players)

    def told(self) -> dict[str, Any]:
        """The lower third: the round, its master and its top plays, each with who found it (up to
        ``FEW_FINDERS`` names, else how many): a player found a play who handed in that word at that
        place for its score (an annulled master: who played it, D.III.29)."""
        plays = []
        for play in top_plays(self.board, self.rack, self.lexicon, self.master):
            same = sorted(name for name, written, score in self.found
                          if written.upper() == play.notation.upper() and (score == play.score or self._annulled_master(play)))  # fmt: skip
            plays.append({"play": play.notation, "score": play.score, "master": play.notation == self.master,
                          "found": len(same), "names": same if len(same) <= FEW_FINDERS else []})  # fmt: skip
        return {"round": self.number, "master": self.master, "score": self.score, "annulled": self.annulled,
                "players": self.players, "plays": plays}  # fmt: skip

    def _annulled_master(self, play: ScoredPlay) -> bool:
        return self.annulled and play.notation == self.master


def _round_seen(game: Game, number: int | None) -> _RoundSeen | None:
    if not isinstance(game, DuplicateGame):
        return None
    published = [r for r in game.rounds if r.master is not None and (number is None or r.number == number)]
    return _RoundSeen(game, published[-1]) if published else None


_top: OrderedDict[tuple[str, str], list[ScoredPlay]] = OrderedDict()
_top_lock = threading.Lock()
TOP_CACHE: Final = 32


def top_plays(board: Board, rack: tuple[Tile, ...], lexicon: Lexicon, master: str) -> list[ScoredPlay]:
    """The position's ``TOP_PLAYS`` best plays by score, the master first among its equals, a word at
    one place once (the same word with its blank on another letter is the same play, at its best score);
    found once per position and lexicon."""
    key = (Position(board, (rack, ())).cgp(), lexicon.sha256)
    with _top_lock:
        if key in _top:
            _top.move_to_end(key)
            return _top[key]
    best: list[ScoredPlay] = []
    seen: set[str] = set()
    for play in sorted(generate_plays(board, rack, lexicon), key=lambda p: (-p.score, p.notation != master, p.notation)):
        if play.notation.upper() not in seen:
            seen.add(play.notation.upper())
            best.append(play)
        if len(best) == TOP_PLAYS:
            break
    with _top_lock:
        _top[key] = best
        while len(_top) > TOP_CACHE:
            _top.popitem(last=False)
    return best


# -- the photos ---------------------------------------------------------------------------------


@bp.get("/overlay/foto/<photo>")
def photo(photo: str) -> Response:
    """A photo the players' list names by file, from ``<data folder>/fotos/``: a regular file inside
    that folder, never one of the server's own (``stored_files``: a link to the database is refused)."""
    folder = data_dir() / PHOTOS
    if not PHOTO.fullmatch(photo):
        abort(404)
    try:
        found = services().files.inside(folder / photo, folder, "foto")
    except NotStored:
        abort(404)
    return send_file(found, max_age=300)
