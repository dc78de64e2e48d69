"""EloDI over the games a server holds: every ended duplicate game, in the order played,
on top of an imported list of earlier ratings.

A game counts when it has ended and has at least ``MIN_ROUNDS`` published rounds
(``rules_core.elodi``); its date is the day it was created, in the venue's time zone;
a player is known by name (``tournaments.person``). The earlier list is a CSV
``player,rating,volatility,games`` kept as ``elodi-previas.csv`` in the data folder
(``elodi_list``: checked whole when it is imported).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from rules_core.duplicate import DuplicateGame
from rules_core.elodi import Change, RatedGame, Rating, rate_games

from ..services.live import LiveGames
from .elodi_list import RatingInputError, previous_ratings
from .timezone import local_date


def rated_games(games: LiveGames) -> list[RatedGame]:
    """The ended duplicate games of the store as EloDI input, oldest first."""
    found = []
    for record in games.store.games():
        if record.mode != "duplicate" or not record.snapshot.get("ended"):
            continue
        with games.reading(record.id) as game:
            assert isinstance(game, DuplicateGame)
            rounds = sum(1 for r in game.rounds if r.master is not None)
            standings = tuple((" ".join(s.name.split()), s.rank) for s in game.standings())
        found.append(RatedGame(record.id, local_date(record.created_at).isoformat(), rounds, standings))
    return sorted(found, key=lambda g: g.date)


def ratings(games: LiveGames, data_dir: Path) -> tuple[dict[str, Rating], list[Change], list[RatedGame]]:
    """Everyone's rating now, each change, and the games rated (see the module docstring)."""
    history = rated_games(games)
    current, changes = rate_games(history, previous_ratings(data_dir))
    return current, changes, history


def history_jsonl(history: Iterable[RatedGame]) -> str:
    """The games in ``veedor rating --history`` form, one JSON object a line."""
    lines = [json.dumps({"game": g.game, "date": g.date, "rounds": g.rounds,
                         "standings": [{"player": p, "rank": r} for p, r in g.standings]}, ensure_ascii=False)
             for g in history]  # fmt: skip
    return "".join(line + "\n" for line in lines)


def read_history(path: Path) -> Iterator[RatedGame]:
    """The games of a JSON Lines history file, in file order (blank lines skipped)."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                try:
                    yield parse_game(json.loads(line))
                except (ValueError, TypeError, KeyError) as error:
                    raise RatingInputError(f"{path}, línea {number}: {error}") from None


def parse_game(value: Any) -> RatedGame:
    """One history line as a game; ValueError naming what is wrong."""
    if not isinstance(value, dict):
        raise ValueError("se esperaba un objeto JSON por línea")
    date.fromisoformat(str(value["date"]))
    rounds = value["rounds"]
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 0:
        raise ValueError(f"'rounds' debe ser un número entero, no {rounds!r}")
    standings = value["standings"]
    if not isinstance(standings, list) or not standings:
        raise ValueError("'standings' debe ser una lista de {'player', 'rank'}")
    pairs = tuple((_player(s), _rank(s)) for s in standings)
    if len({p for p, _r in pairs}) != len(pairs):
        raise ValueError("un jugador aparece dos veces en la clasificación")
    return RatedGame(str(value["game"]), str(value["date"]), rounds, pairs)


def _player(entry: Any) -> str:
    name = entry["player"] if isinstance(entry, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"cada puesto necesita 'player' (un nombre), no {entry!r}")
    return name.strip()


def _rank(entry: Mapping[str, Any]) -> int:
    rank = entry.get("rank")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ValueError(f"'rank' de {entry.get('player')!r} debe ser un entero >= 1, no {rank!r}")
    return rank
