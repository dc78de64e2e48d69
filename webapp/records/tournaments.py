"""Tournaments: games grouped by an arbiter; the duplicate ones ranked by the criteria of D.IV.31,
the classic ones (the top tables of the same event) by wins, then spread.

Stored beside the games (tables ``tournaments`` and ``tournament_games``). A player is
the same person in every game of a tournament when the name is the same, spaces and
case aside (the player lists of a tournament are typed from one registration list).
``ranking`` builds ``rules_core.tournament.GameResult`` from each game's published
rounds (places from the standings, points per round, bonuses not counted in the
percentage), so an absent player is counted as the rules say: the last place of the
game (criterion 1) and 0 points in its rounds (criteria 2 and 3).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final, cast

from flask import Flask, current_app
from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, delete, insert, select
from sqlalchemy.engine import Engine

from rules_core.classic import ClassicGame
from rules_core.duplicate import NO_SLIP, DuplicateGame
from rules_core.tournament import GameResult, Ranking, average_percentage, average_place, deviation

from ..services.shared import services

CRITERIA: Final = {  # D.IV.31, the director chooses one
    "average_place": "puesto medio",
    "average_percentage": "porcentaje medio sobre la jugada maestra",
    "deviation": "desviación respecto a la jugada maestra",
}

EXTENSION: Final = "veedor.tournaments"
metadata = MetaData()
tournaments = Table(
    "tournaments", metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("criterion", String(32), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)  # fmt: skip
tournament_games = Table(
    "tournament_games", metadata,
    Column("tournament", String(16), primary_key=True),
    Column("game", String(36), primary_key=True),
    Column("position", Integer, nullable=False),
)  # fmt: skip


class TournamentError(ValueError):
    """A tournament that cannot be made or changed; the message says why, in Spanish."""


@dataclass(frozen=True)
class Tournament:
    id: str
    name: str
    criterion: str
    created_at: datetime
    games: tuple[str, ...]


@dataclass(frozen=True)
class Line:
    """A player's line: the chosen criterion's rank, and the three criteria's values."""

    name: str
    rank: int
    place: float
    percentage: float
    deviation: float
    games: int


class Tournaments:
    """The tournaments of one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        metadata.create_all(engine)

    def create(self, name: str, criterion: str) -> str:
        name = " ".join(name.split())
        if not 1 <= len(name) <= 200:
            raise TournamentError("el torneo necesita un nombre de 1 a 200 caracteres")
        if criterion not in CRITERIA:
            raise TournamentError(f"criterio desconocido: {criterion!r}")
        tournament_id = secrets.token_hex(4)
        with self.engine.begin() as connection:
            connection.execute(insert(tournaments).values(id=tournament_id, name=name, criterion=criterion,
                                                          created_at=datetime.now(timezone.utc)))  # fmt: skip
        return tournament_id

    def add_game(self, tournament_id: str, game_id: str) -> None:
        found = self.get(tournament_id)
        if game_id in found.games:
            return
        with self.engine.begin() as connection:
            connection.execute(insert(tournament_games).values(tournament=tournament_id, game=game_id,
                                                               position=len(found.games)))  # fmt: skip

    def remove_game(self, tournament_id: str, game_id: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(delete(tournament_games).where(tournament_games.c.tournament == tournament_id,
                                                              tournament_games.c.game == game_id))  # fmt: skip

    def all(self) -> list[Tournament]:
        with self.engine.connect() as connection:
            ids = [row.id for row in connection.execute(select(tournaments.c.id).order_by(tournaments.c.created_at))]
        return [self.get(tournament_id) for tournament_id in reversed(ids)]

    def get(self, tournament_id: str) -> Tournament:
        with self.engine.connect() as connection:
            row = connection.execute(select(tournaments).where(tournaments.c.id == tournament_id)).first()
            if row is None:
                raise TournamentError(f"no existe el torneo {tournament_id!r}")
            games = connection.execute(select(tournament_games.c.game).where(tournament_games.c.tournament == tournament_id)
                                       .order_by(tournament_games.c.position)).scalars().all()  # fmt: skip
        return Tournament(row.id, row.name, row.criterion, row.created_at, tuple(games))


def tournaments_of(app: Flask | None = None) -> Tournaments:
    """The app's tournaments, on the games' database (made once per app)."""
    app = app or current_app
    found = app.extensions.get(EXTENSION)
    if found is None:
        found = app.extensions[EXTENSION] = Tournaments(services(app).games.store.engine)
    return cast(Tournaments, found)


def person(name: str) -> str:
    """The key that makes one person of a name typed in several games."""
    return " ".join(name.split()).casefold()


def game_result(game: DuplicateGame) -> tuple[GameResult, dict[str, str]]:
    """One game as ``GameResult`` (published rounds only) and each person key's name as written."""
    rounds = [r for r in game.rounds if r.master is not None]
    names = {person(p.name): p.name for p in game.players.values()}
    places = {person(s.name): s.rank for s in game.standings()}
    points = {person(p.name): [r.results.get(p.id, NO_SLIP).score for r in rounds] for p in game.players.values()}
    return GameResult(places, [r.master_score for r in rounds], points), names


def ranking(games: Sequence[DuplicateGame], criterion: str) -> list[Line]:
    """Every player of the tournament ranked by ``criterion``, with all three criteria's values."""
    results, names = [], {}
    for game in games:
        if not any(r.master is not None for r in game.rounds):
            continue  # nothing published yet: the game does not count
        result, written = game_result(game)
        results.append(result)
        names.update({key: value for key, value in written.items() if key not in names})
    if not results:
        return []
    by: dict[str, dict[str, Ranking]] = {
        "average_place": {r.player: r for r in average_place(results)},
        "average_percentage": {r.player: r for r in average_percentage(results)},
        "deviation": {r.player: r for r in deviation(results)},
    }
    chosen = by[criterion]
    lines = [Line(names[key], chosen[key].rank, by["average_place"][key].value, by["average_percentage"][key].value,
                  by["deviation"][key].value, sum(1 for g in results if key in g.places)) for key in chosen]  # fmt: skip
    return sorted(lines, key=lambda line: (line.rank, line.name))


@dataclass(frozen=True)
class ClassicLine:
    """A player of the tournament's classic games: games, wins (a tie is half), spread."""

    name: str
    rank: int
    games: int
    wins: float
    spread: int


def classic_ranking(games: Sequence[ClassicGame]) -> list[ClassicLine]:
    """Players of the finished classic games by wins, then spread (points for minus against)."""
    played: dict[str, list[tuple[float, int]]] = {}
    names: dict[str, str] = {}
    for game in games:
        if not game.finished:
            continue
        scores = game.scores
        for me, name in enumerate(game.players):
            key = person(name)
            names.setdefault(key, name)
            spread = scores[me] - scores[1 - me]
            played.setdefault(key, []).append((1.0 if spread > 0 else 0.5 if spread == 0 else 0.0, spread))
    totals = sorted(((sum(w for w, _ in r), sum(s for _, s in r), key) for key, r in played.items()),
                    key=lambda t: (-t[0], -t[1], names[t[2]]))  # fmt: skip
    lines: list[ClassicLine] = []
    for index, (wins, spread, key) in enumerate(totals):
        tied = lines and (lines[-1].wins, lines[-1].spread) == (wins, spread)
        lines.append(ClassicLine(names[key], lines[-1].rank if tied else index + 1, len(played[key]), wins, spread))
    return lines
