"""Tournaments: a name, the criterion of D.IV.31 the director chose, the player list, the arbiters
and the games, duplicate or classic, played in it.

Stored beside the games (tables ``tournaments``, ``tournament_games``, ``tournament_players``,
``tournament_arbiters``). A tournament's player has a stable id (``TournamentPlayer.id``: the
licence when given, else one made up when listed, ``tournament_players``); each game made from the
tournament carries it in its events, so the ranking (``tournament_standings``), EloDI and the exports
know a player by it, never by the spelling of a name. Games added by hand from before are matched by
licence, then by name (``tournament_players.game_keys``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final, cast

from flask import Flask, current_app
from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, delete, func, insert, select
from sqlalchemy.engine import Connection, Engine

from ..services.shared import services

CRITERIA: Final = {  # D.IV.31, the director chooses one
    "average_place": "puesto medio",
    "average_percentage": "porcentaje medio sobre la jugada maestra",
    "deviation": "desviación respecto a la jugada maestra",
}
MAX_ARBITERS: Final = 12
MAX_ARBITER_NAME: Final = 100

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
tournament_players = Table(
    "tournament_players", metadata,
    Column("tournament", String(16), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("position", Integer, nullable=False),
    Column("seat", Integer, nullable=False),  # the table the list gives
    Column("name", String(100), nullable=False),
    Column("club", String(60), nullable=False),
    Column("licence", String(60), nullable=False),
    Column("photo", String(300), nullable=False),
)  # fmt: skip
tournament_arbiters = Table(
    "tournament_arbiters", metadata,
    Column("tournament", String(16), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("name", String(MAX_ARBITER_NAME), nullable=False),
)  # fmt: skip


class TournamentError(ValueError):
    """A tournament that cannot be made or changed; the message says why, in Spanish."""


@dataclass(frozen=True)
class TournamentPlayer:
    """A player of the tournament's list: ``id`` is theirs in every game of it; ``table`` the list's."""

    id: str
    name: str
    table: int
    club: str = ""
    licence: str = ""
    photo: str = ""


@dataclass(frozen=True)
class Tournament:
    id: str
    name: str
    criterion: str
    created_at: datetime
    games: tuple[str, ...]
    players: tuple[TournamentPlayer, ...] = ()
    arbiters: tuple[str, ...] = ()  # the Juez Árbitro first

    def player(self, player_id: str) -> TournamentPlayer | None:
        return next((p for p in self.players if p.id == player_id), None)


class Tournaments:
    """The tournaments of one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        metadata.create_all(engine)

    def create(self, name: str, criterion: str, players: Sequence[TournamentPlayer] = (),
               arbiters: Sequence[str] = ()) -> str:  # fmt: skip
        """A new tournament with its player list (ids checked by ``tournament_players.listed``); its id."""
        name = " ".join(name.split())
        if not 1 <= len(name) <= 200:
            raise TournamentError("el torneo necesita un nombre de 1 a 200 caracteres")
        if criterion not in CRITERIA:
            raise TournamentError(f"criterio desconocido: {criterion!r}")
        names = _arbiters(arbiters)
        tournament_id = secrets.token_hex(4)
        with self.engine.begin() as connection:
            connection.execute(insert(tournaments).values(id=tournament_id, name=name, criterion=criterion,
                                                          created_at=datetime.now(timezone.utc)))  # fmt: skip
            _insert_players(connection, tournament_id, players, 0)
            _insert_arbiters(connection, tournament_id, names)
        return tournament_id

    def add_players(self, tournament_id: str, players: Sequence[TournamentPlayer]) -> None:
        """Players added to the list (a late registration); the list's ids and tables stay."""
        found = self.get(tournament_id)
        with self.engine.begin() as connection:
            _insert_players(connection, tournament_id, players, len(found.players))

    def set_arbiters(self, tournament_id: str, names: Sequence[str]) -> None:
        """The tournament's arbiters, the Juez Árbitro first (printed on its sheets)."""
        self.get(tournament_id)
        checked = _arbiters(names)
        with self.engine.begin() as connection:
            connection.execute(delete(tournament_arbiters).where(tournament_arbiters.c.tournament == tournament_id))
            _insert_arbiters(connection, tournament_id, checked)

    def add_game(self, tournament_id: str, game_id: str) -> None:
        found = self.get(tournament_id)
        if game_id in found.games:
            return
        with self.engine.begin() as connection:
            last = connection.execute(select(func.max(tournament_games.c.position))
                                      .where(tournament_games.c.tournament == tournament_id)).scalar()  # fmt: skip
            connection.execute(insert(tournament_games).values(tournament=tournament_id, game=game_id,
                                                               position=(last or 0) + 1))  # fmt: skip

    def remove_game(self, tournament_id: str, game_id: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(delete(tournament_games).where(tournament_games.c.tournament == tournament_id,
                                                              tournament_games.c.game == game_id))  # fmt: skip

    def all(self) -> list[Tournament]:
        with self.engine.connect() as connection:
            ids = [row.id for row in connection.execute(select(tournaments.c.id).order_by(tournaments.c.created_at))]
        return [self.get(tournament_id) for tournament_id in reversed(ids)]

    def of_game(self, game_id: str) -> list[str]:
        """The tournaments ``game_id`` is part of (usually one)."""
        with self.engine.connect() as connection:
            return list(connection.execute(select(tournament_games.c.tournament)
                                           .where(tournament_games.c.game == game_id)).scalars())  # fmt: skip

    def get(self, tournament_id: str) -> Tournament:
        with self.engine.connect() as connection:
            row = connection.execute(select(tournaments).where(tournaments.c.id == tournament_id)).first()
            if row is None:
                raise TournamentError(f"no existe el torneo {tournament_id!r}")
            games = connection.execute(select(tournament_games.c.game).where(tournament_games.c.tournament == tournament_id)
                                       .order_by(tournament_games.c.position)).scalars().all()  # fmt: skip
            players = connection.execute(select(tournament_players).where(tournament_players.c.tournament == tournament_id)
                                         .order_by(tournament_players.c.position)).all()  # fmt: skip
            arbiters = connection.execute(select(tournament_arbiters.c.name)
                                          .where(tournament_arbiters.c.tournament == tournament_id)
                                          .order_by(tournament_arbiters.c.position)).scalars().all()  # fmt: skip
        listed = tuple(TournamentPlayer(p.id, p.name, p.seat, p.club, p.licence, p.photo) for p in players)
        return Tournament(row.id, row.name, row.criterion, row.created_at, tuple(games), listed, tuple(arbiters))


def _insert_players(connection: Connection, tournament_id: str, players: Sequence[TournamentPlayer], first: int) -> None:
    for position, p in enumerate(players, start=first):
        connection.execute(insert(tournament_players).values(
            tournament=tournament_id, id=p.id, position=position, seat=p.table, name=p.name, club=p.club,
            licence=p.licence, photo=p.photo))  # fmt: skip


def _insert_arbiters(connection: Connection, tournament_id: str, names: Sequence[str]) -> None:
    for position, name in enumerate(names):
        connection.execute(insert(tournament_arbiters).values(tournament=tournament_id, position=position, name=name))


def _arbiters(names: Sequence[str]) -> list[str]:
    """The arbiters' names, spaces tidied, empty lines left out; TournamentError naming a bad one."""
    found = [" ".join(name.split()) for name in names if name.strip()]
    if len(found) > MAX_ARBITERS:
        raise TournamentError(f"como mucho {MAX_ARBITERS} árbitros")
    for name in found:
        if len(name) > MAX_ARBITER_NAME or not name.isprintable():
            raise TournamentError(f"el nombre de árbitro {name[:40]!r} tiene más de {MAX_ARBITER_NAME} caracteres "
                                  "o un carácter de control")  # fmt: skip
    return found


def tournaments_of(app: Flask | None = None) -> Tournaments:
    """The app's tournaments, on the games' database (made once per app)."""
    app = app or current_app
    found = app.extensions.get(EXTENSION)
    if found is None:
        found = app.extensions[EXTENSION] = Tournaments(services(app).games.store.engine)
    return cast(Tournaments, found)


def person(name: str) -> str:
    """The key that makes one person of a name typed in several games (games from before a tournament
    had its list, and EloDI players without a licence)."""
    return " ".join(name.split()).casefold()
