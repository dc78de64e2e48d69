"""Notices to the room: a short text the director posts ("Pausa de 10 minutos"), shown on every
screen of the room and of the stream until it is removed.

Stored beside the games (table ``notices``), so a restart keeps them; read once per process and
kept in memory with a ``version`` that each change bumps, so a live stream can tell at no cost
whether its last message still holds them. A change wakes every stream at once
(``LiveGames.touch_room``). At most ``MAX_NOTICES`` at a time, each of 1 to ``MAX_TEXT``
characters, with no control or invisible character.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Final, cast

from flask import Flask, current_app
from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, delete, insert, select
from sqlalchemy.engine import Engine

from ..services.shared import services

MAX_TEXT: Final = 120
MAX_NOTICES: Final = 3
EXTENSION: Final = "veedor.notices"
_MAKING: Final = threading.Lock()  # one ``Notices`` per app, whichever request comes first
_HIDDEN: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})

metadata = MetaData()
notices = Table(
    "notices", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("text", String(MAX_TEXT), nullable=False),
    Column("actor", String(100), nullable=False),
    Column("posted_at", DateTime(timezone=True), nullable=False),
)  # fmt: skip


class NoticeError(ValueError):
    """A notice that cannot be posted; the message says why, in Spanish."""


@dataclass(frozen=True)
class Notice:
    id: int
    text: str
    actor: str
    posted_at: datetime

    def to_json(self) -> dict[str, Any]:
        """What the screens receive: the id and the text, never who posted it."""
        return {"id": self.id, "text": self.text}


class Notices:
    """The notices of one database, kept in memory (see the module docstring)."""

    def __init__(self, engine: Engine, changed: Callable[[], None] = lambda: None) -> None:
        self.engine = engine
        self._changed = changed
        self._lock = threading.Lock()
        metadata.create_all(engine)
        self._current = self._read()
        self.version = 0

    def current(self) -> list[Notice]:
        with self._lock:
            return list(self._current)

    def json(self) -> list[dict[str, Any]]:
        return [notice.to_json() for notice in self.current()]

    def post(self, text: str, actor: str) -> Notice:
        """A new notice, shown at once; NoticeError naming the problem, and nothing stored."""
        text = checked(text)
        with self._lock:
            if len(self._current) >= MAX_NOTICES:
                raise NoticeError(f"ya hay {MAX_NOTICES} avisos en pantalla: quite uno antes de poner otro")
            with self.engine.begin() as connection:
                posted = datetime.now(timezone.utc)
                inserted = connection.execute(insert(notices).values(text=text, actor=actor[:100], posted_at=posted))
                new_id = inserted.inserted_primary_key[0] if inserted.inserted_primary_key else 0
            notice = Notice(int(new_id), text, actor, posted)
            self._current.append(notice)
            self.version += 1
        self._changed()
        return notice

    def remove(self, notice_id: int) -> bool:
        """Take a notice off the screens; False when there was none of that id."""
        with self._lock:
            with self.engine.begin() as connection:
                done = connection.execute(delete(notices).where(notices.c.id == notice_id)).rowcount
            self._current = [n for n in self._current if n.id != notice_id]
            self.version += 1
        self._changed()
        return bool(done)

    def _read(self) -> list[Notice]:
        with self.engine.connect() as connection:
            rows = connection.execute(select(notices).order_by(notices.c.id)).all()
        return [Notice(r.id, r.text, r.actor, r.posted_at) for r in rows]


def checked(text: str) -> str:
    """``text`` with its spaces tidied, or NoticeError saying what is wrong with it."""
    hidden = next((ch for ch in text if unicodedata.category(ch) in _HIDDEN and ch not in "\r\n\t"), None)
    if hidden is not None:
        raise NoticeError(f"el aviso lleva un carácter de control o invisible (U+{ord(hidden):04X})")
    tidy = " ".join(text.split())
    if not tidy:
        raise NoticeError("el aviso está vacío")
    if len(tidy) > MAX_TEXT:
        raise NoticeError(f"el aviso tiene {len(tidy)} caracteres; como mucho {MAX_TEXT}")
    return tidy


def notices_of(app: Flask | None = None) -> Notices:
    """The app's notices, on the games' database (made once per app); a change wakes the live screens."""
    app = app or current_app
    with _MAKING:
        found = app.extensions.get(EXTENSION)
        if found is None:
            games = services(app).games
            found = app.extensions[EXTENSION] = Notices(games.store.engine, games.touch_room)
    return cast(Notices, found)
