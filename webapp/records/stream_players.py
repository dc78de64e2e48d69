"""What the stream shows beside a player's name, and the standings across a tournament's games.

* ``people``: each player of a game (a duplicate game's player id, a classic game's ``"0"`` and ``"1"``)
  -> ``{"club", "photo", "rating"}``: the club and photo of the game's own events, else of the list of
  the tournament the game is part of (``tournament_players.game_keys``); the EloDI rating (a whole
  number, None for a player never rated) by licence, else by name (``elodi_list.elodi_key``).
* ``current_ratings``: ``elodi.ratings`` over the server's ended games, computed again only when an
  ended game or the earlier list changes (the overlays ask at every page they open).
* ``event_standings``: a tournament's standings (``tournament_standings``: its duplicate games by the
  criterion of D.IV.31, else its finished classic games by wins) as the overlays' JSON, each line with
  the player's club, photo and rating.

A photo is what the list holds: an ``http(s)://`` address, or a file name the stream serves from the
data folder's ``fotos/`` (``PHOTOS``). Nothing here is private: the tournament's public page shows it all.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from flask import current_app

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateGame
from rules_core.events import Event

from ..services.games import Game
from ..services.live import LiveGames
from .elodi import EloDI, ratings
from .elodi_list import PREVIOUS_FILE, elodi_key
from .tournament_players import game_keys
from .tournament_standings import classic_ranking, ranking
from .tournaments import Tournament

PHOTOS: Final = "fotos"  # the stream's photos, in the data folder
EXTENSION: Final = "veedor.stream_ratings"
_lock = threading.Lock()


def data_dir() -> Path:
    """The app's data folder (``DATA_DIR``, else its instance folder)."""
    return Path(current_app.config.get("DATA_DIR") or current_app.instance_path)


def current_ratings(games: LiveGames, folder: Path) -> EloDI:
    """Everyone's EloDI now (``elodi.ratings``), kept until an ended game or the earlier list changes."""
    previous = folder / PREVIOUS_FILE
    key = (tuple(sorted((r.id, r.event_count) for r in games.store.games() if r.mode == "duplicate" and r.snapshot.get("ended"))),
           previous.stat().st_mtime_ns if previous.exists() else None)  # fmt: skip
    with _lock:
        kept = current_app.extensions.get(EXTENSION)
        if kept is not None and kept[0] == key:
            return kept[1]  # type: ignore[no-any-return]
    found = ratings(games, folder)
    with _lock:
        current_app.extensions[EXTENSION] = (key, found)
    return found


def rating_of(elodi: EloDI, name: str, licence: str) -> int | None:
    """The player's rating as a whole number, None when they have none."""
    found = elodi.current.get(elodi_key(name, licence))
    return round(found.rating) if found is not None else None


def people(game: Game, tournament: Tournament | None, elodi: EloDI) -> dict[str, dict[str, Any]]:
    """Each player of ``game`` -> club, photo, rating (see the module docstring)."""
    keys = game_keys(tournament, game.events) if tournament is not None else {}
    found = {}
    for player, (name, club, licence, photo) in _players(game.events).items():
        listed = tournament.player(keys.get(player, "")) if tournament is not None else None
        if listed is not None:
            name, club, licence, photo = listed.name, club or listed.club, licence or listed.licence, photo or listed.photo
        found[player] = {"club": club, "photo": photo, "rating": rating_of(elodi, name, licence)}
    return found


def _players(events: Sequence[Event]) -> dict[str, tuple[str, str, str, str]]:
    """A game's players as its events give them: id -> (name, club, licence, photo)."""
    found: dict[str, tuple[str, str, str, str]] = {}
    for event in events:
        data = event.data
        if event.kind == "player_added":
            found[str(data["player"])] = (str(data["name"]), str(data.get("club") or ""),
                                          str(data.get("federation_id") or ""), str(data.get("photo") or ""))  # fmt: skip
        elif event.kind == "game_created" and "players" in data:  # a classic game
            for index, name in enumerate(data["players"][:2]):
                found[str(index)] = (str(name), "", "", "")
    return found


def event_standings(tournament: Tournament, games: Sequence[Game], elodi: EloDI) -> dict[str, Any]:
    """The standings across the tournament's ``games`` (see the module docstring): ``kind`` duplicate
    (rank, the chosen criterion's ``value``, total, % of the masters' total, games) or classic (rank,
    games, wins, spread), or ``kind`` None before any game counts."""
    duplicate = [g for g in games if isinstance(g, DuplicateGame)]
    classic = [g for g in games if isinstance(g, ClassicGame)]
    head = {"name": tournament.name, "criterion": tournament.criterion, "games": len(games)}
    lines = ranking(tournament, duplicate)
    if lines:
        value = {"average_place": "place", "average_percentage": "percentage", "deviation": "deviation"}[tournament.criterion]
        return {**head, "kind": "duplicate", "lines": [
            {**_who(tournament, line.key, line.name, elodi), "rank": line.rank, "value": round(getattr(line, value), 3),
             "total": line.total, "pct": round(line.percent, 1), "played": line.games}
            for line in lines]}  # fmt: skip
    wins = classic_ranking(tournament, classic)
    if wins:
        return {**head, "kind": "classic", "lines": [
            {**_who(tournament, line.key, line.name, elodi), "rank": line.rank, "played": line.games,
             "wins": line.wins, "spread": line.spread}
            for line in wins]}  # fmt: skip
    return {**head, "kind": None, "lines": []}


def _who(tournament: Tournament, key: str, name: str, elodi: EloDI) -> dict[str, Any]:
    listed = tournament.player(key)
    if listed is None:  # a guest of one game, known by name
        return {"name": name, "club": "", "photo": "", "rating": rating_of(elodi, name, "")}
    return {"name": listed.name, "club": listed.club, "photo": listed.photo,
            "rating": rating_of(elodi, listed.name, listed.licence)}  # fmt: skip
