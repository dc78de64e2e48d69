"""EloDI over the games a server holds: every ended duplicate game, in the order played,
on top of an imported list of earlier ratings.

A game counts when it has ended and has at least ``MIN_ROUNDS`` published rounds
(``rules_core.elodi``); its date is the day it was created, in the venue's time zone.
A player is known by their licence when the game's list gave one, else by name
(``elodi_list.elodi_key``): two namesakes with different licences are two players. The earlier
list is a CSV ``player,rating,volatility,games``, or the federation's form with licence and club,
kept as ``elodi-previas.csv`` in the data folder (``elodi_list``: checked whole when it is
imported); a player known there by name alone keeps that rating once they play with a licence,
unless two licences share the name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from rules_core.duplicate import DuplicateGame
from rules_core.elodi import Change, RatedGame, Rating, rate_games

from ..services.live import LiveGames
from .elodi_list import LICENCE_KEY, RatingInputError, elodi_key, previous_ratings
from .timezone import local_date


@dataclass(frozen=True)
class Person:
    """Who a rating belongs to, as the latest list or game names them."""

    name: str
    licence: str = ""
    club: str = ""


@dataclass(frozen=True)
class EloDI:
    """Everyone's rating now (by ``elodi_key``), each change, the games rated and who each key is."""

    current: dict[str, Rating]
    changes: list[Change]
    history: list[RatedGame]
    people: dict[str, Person]

    def person(self, key: str) -> Person:
        return self.people.get(key) or Person(key)

    def ordered(self) -> list[tuple[int, str, Person, Rating]]:
        """(place, key, person, rating), the best first."""
        ordered = sorted(self.current.items(), key=lambda item: (-item[1].rating, self.person(item[0]).name, item[0]))
        return [(place, key, self.person(key), rating) for place, (key, rating) in enumerate(ordered, start=1)]


def rated_games(games: LiveGames) -> tuple[list[RatedGame], dict[str, Person]]:
    """The ended duplicate games of the store as EloDI input, oldest first, and who each player is."""
    found: list[RatedGame] = []
    people: dict[str, Person] = {}
    for record in games.store.games():
        if record.mode != "duplicate" or not record.snapshot.get("ended"):
            continue
        with games.reading(record.id) as game:
            assert isinstance(game, DuplicateGame)
            rounds = sum(1 for r in game.rounds if r.master is not None)
            keys = _keys(game, people)
            standings = tuple((keys[s.player], s.rank) for s in game.standings())
        found.append(RatedGame(record.id, local_date(record.created_at).isoformat(), rounds, standings))
    return sorted(found, key=lambda g: g.date), people


def _keys(game: DuplicateGame, people: dict[str, Person]) -> dict[str, str]:
    """Each player of ``game`` -> their EloDI key (noting who they are in ``people``); one key per player."""
    keys: dict[str, str] = {}
    for event in game.events:
        if event.kind != "player_added":
            continue
        data = event.data
        name, licence = " ".join(str(data["name"]).split()), str(data.get("federation_id") or "")
        key = elodi_key(name, licence)
        if key in keys.values():  # namesakes without a licence in one game: told apart by table
            key = f"{key} (mesa {data['table']})"
        keys[str(data["player"])] = key
        people[key] = Person(name, licence, str(data.get("club") or ""))
    return keys


def ratings(games: LiveGames, data_dir: Path) -> EloDI:
    """Everyone's rating now, each change, and the games rated (see the module docstring)."""
    history, people = rated_games(games)
    listed = previous_ratings(data_dir)
    previous = _carried({item.key: item.rating for item in listed}, people)
    known = {item.key: Person(item.name, item.licence, item.club) for item in listed}
    current, changes = rate_games(history, previous)
    return EloDI(current, changes, history, {**known, **people})


def _carried(previous: dict[str, Rating], people: Mapping[str, Person]) -> dict[str, Rating]:
    """The earlier ratings with each one known by name moved to the licence its player now plays with,
    when exactly one licence has that name."""
    licences: dict[str, list[str]] = {}
    for key, who in people.items():
        if key.startswith(LICENCE_KEY):
            licences.setdefault(who.name.casefold(), []).append(key)
    carried = dict(previous)
    for key in list(previous):
        found = licences.get(key.casefold(), []) if not key.startswith(LICENCE_KEY) else []
        if len(found) == 1 and found[0] not in carried:
            carried[found[0]] = carried.pop(key)
    return carried


def history_jsonl(history: Iterable[RatedGame], people: Mapping[str, Person] | None = None) -> str:
    """The games in ``veedor rating --history`` form, one JSON object a line (a player with a licence
    has ``licence`` beside the name)."""
    known = people or {}

    def entry(key: str, rank: int) -> dict[str, Any]:
        who = known.get(key) or Person(key)
        return {"player": who.name, **({"licence": who.licence} if who.licence else {}), "rank": rank}

    lines = [json.dumps({"game": g.game, "date": g.date, "rounds": g.rounds,
                         "standings": [entry(p, r) for p, r in g.standings]}, ensure_ascii=False)
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
    pairs = tuple((elodi_key(_player(s), str(s.get("licence") or "")), _rank(s)) for s in standings)
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
