"""The event store: every game's events appended to a SQL database (SQLAlchemy 2).

SQLite by default (``sqlite:///veedor.db``); any SQLAlchemy URL works, PostgreSQL
(``postgresql+psycopg://user:pass@host/veedor``) included. Two tables:

* ``games``: id, mode (``duplicate`` or ``classic``), name, created_at, the number
  of events and a JSON snapshot of the state (for listings and screens);
* ``events``: (game_id, seq) and the event's kind, data (JSON), actor and time.

``append`` writes the event and the new snapshot in one transaction: either both
are stored or neither.

Durability: ``append`` returns once the transaction is committed, and only then does a
caller answer 201 or "guardada". SQLite runs in WAL mode with ``synchronous=FULL`` (the
WAL is synced at every commit: a commit survives ``kill -9`` and a power cut); PostgreSQL
commits durably by default. SQLite's WAL is safe only while every process that has the
database open holds its POSIX locks: Linux drops all of a process's locks on a file when
it closes *any* descriptor of that file, so the server must never open ``veedor.db``, its
``-wal`` or ``-shm`` as plain files. Doing so (the evidence zip copying a "frame" that
named the database) let another process delete the WAL under the server, and later
acknowledged writes were lost at the next ``kill -9`` (issue 67; ``stored_files`` keeps
every file the server reads back to the ones it stored itself).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from rules_core.events import Event, GameError

metadata = MetaData()

games = Table(
    "games",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("mode", String(16), nullable=False),
    Column("name", String(200), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("event_count", Integer, nullable=False, default=0),
    Column("snapshot", JSON, nullable=False, default=dict),
)

events = Table(
    "events",
    metadata,
    Column("game_id", String(36), ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("kind", String(40), nullable=False),
    Column("data", JSON, nullable=False),
    Column("actor", String(100), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)


class StoreError(RuntimeError):
    """The database refused a write (a concurrent writer, a full disk...); nothing was stored."""


@dataclass(frozen=True)
class GameRecord:
    id: str
    mode: str
    name: str
    created_at: datetime
    event_count: int
    snapshot: Mapping[str, Any]


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Every connection: WAL, synced at each commit (see the module docstring), foreign keys on."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class EventStore:
    """Games and their events in one database."""

    def __init__(self, url: str = "sqlite:///veedor.db") -> None:
        self.url = url
        self.engine: Engine = create_engine(url)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        metadata.create_all(self.engine)

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        try:
            with self.engine.begin() as connection:
                yield connection
        except IntegrityError as error:
            raise StoreError(f"la base de datos rechazó la escritura: {error.orig}") from error

    def create_game(self, mode: str, name: str, first: Event, snapshot: Mapping[str, Any]) -> str:
        """A new game whose first event is ``first``; returns its id."""
        game_id = str(uuid.uuid4())
        with self._transaction() as connection:
            connection.execute(
                insert(games).values(
                    id=game_id,
                    mode=mode,
                    name=name,
                    created_at=datetime.now(timezone.utc),
                    event_count=1,
                    snapshot=dict(snapshot),
                )
            )
            connection.execute(insert(events).values(game_id=game_id, seq=1, **_row(first)))
        return game_id

    def append(self, game_id: str, event_: Event, snapshot: Mapping[str, Any], expected_seq: int) -> None:
        """Store ``event_`` as event number ``expected_seq`` with the new snapshot, atomically.

        Raises StoreError when another writer stored that number first.
        """
        with self._transaction() as connection:
            done = connection.execute(
                update(games)
                .where(games.c.id == game_id, games.c.event_count == expected_seq - 1)
                .values(event_count=expected_seq, snapshot=dict(snapshot))
            )
            if done.rowcount != 1:
                raise StoreError(f"la partida {game_id} cambió mientras se escribía; reintente")
            connection.execute(insert(events).values(game_id=game_id, seq=expected_seq, **_row(event_)))

    def events(self, game_id: str) -> list[Event]:
        """Every event of a game, in order."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(events).where(events.c.game_id == game_id).order_by(events.c.seq)
            ).all()
        return [Event(r.kind, r.data, r.actor, _utc(r.at)) for r in rows]

    def game(self, game_id: str) -> GameRecord:
        with self.engine.connect() as connection:
            row = connection.execute(select(games).where(games.c.id == game_id)).first()
        if row is None:
            raise GameError(f"no existe la partida {game_id}")
        return GameRecord(row.id, row.mode, row.name, _utc(row.created_at), row.event_count, row.snapshot)

    def games(self) -> list[GameRecord]:
        with self.engine.connect() as connection:
            rows = connection.execute(select(games).order_by(games.c.created_at)).all()
        return [GameRecord(r.id, r.mode, r.name, _utc(r.created_at), r.event_count, r.snapshot) for r in rows]


def _row(event_: Event) -> dict[str, Any]:
    return {"kind": event_.kind, "data": dict(event_.data), "actor": event_.actor, "at": event_.at}


def _utc(moment: datetime) -> datetime:
    """SQLite returns naive datetimes; they were stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
