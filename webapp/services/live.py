"""Live games: the game service that wakes the screens when a game changes.

``LiveGames`` is the ``GameService`` every request of the web app uses. It lets one
writer at a time change the games (the server runs a thread per request), and after
each stored event it bumps the game's *version* (its number of events) and wakes
every Server-Sent Events stream waiting on that game. Screens then read one snapshot
per version, built once under the lock by ``view`` and shared by every client.

Every source of events (the arbiter console, later the slip scanner and the
cameras through the device API) goes through ``append``, so they all reach the
screens the same way. The live state lives in one process: serve a database from
one server process.

A classic game whose total time is over ends on time (C.45.5) without anyone pressing:
every read (``reading``, ``view``) and every stream's wait first ``settle``s the game,
which stores its ``end`` once the state at the server's now says so.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Final, TypeVar

from rules_core.classic import ClassicGame
from rules_core.classic_clock import time_is_up
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon

from .games import Game, GameService
from .lexicons import LexiconShelf
from .store import EventStore

T = TypeVar("T")
Listener = Callable[[str, Event], None]
ON_TIME_ACTOR: Final = "servidor"  # who stores the end on time (C.45.5) nobody asked for
log = logging.getLogger(__name__)


class LiveGames(GameService):
    """A ``GameService`` whose changes are serialised and announced to waiting streams."""

    def __init__(self, store: EventStore, lexicon: Lexicon, shelf: LexiconShelf | None = None) -> None:
        super().__init__(store, lexicon, shelf)
        self.lock = threading.RLock()  # held while a game is read or changed
        self._changed = threading.Condition(threading.Lock())
        self._versions: dict[str, int] = {}
        self._views: dict[tuple[str, str], tuple[int, Any]] = {}
        self._listeners: list[Listener] = []
        self._closing = False
        self._room = 0  # bumped when something every screen shows changes (a notice)

    # -- changes -----------------------------------------------------------

    def create(self, mode: str, name: str, first: Event) -> str:
        with self.lock:
            game_id = super().create(mode, name, first)
            stored = self._live[game_id].events[0]  # ``first`` with its word list
        self._announce(game_id, stored)
        return game_id

    def open(self, game_id: str) -> Game:
        with self.lock:
            return super().open(game_id)

    def append(self, game_id: str, event: Event) -> None:
        """Apply and store ``event`` (see ``GameService.append``), then wake the streams."""
        with self.lock:
            super().append(game_id, event)
        self._announce(game_id, event)

    def settle(self, game_id: str) -> None:
        """End a classic game on time (C.45.5) if, at the server's now, its time is up: the end
        is stored once (the check and the append under one lock; after it the game is over).
        Lazy and so restart-safe: the clock stops when the game's time ran out (C.30), however
        late this is noted (``classic_clock.close_clock``); the event bears that moment."""
        with self.lock:
            game = self.open(game_id)
            now = datetime.now(timezone.utc)
            if not isinstance(game, ClassicGame) or not time_is_up(game.state, now):
                return
            event = ClassicGame.end_event(reason="45.5", actor=ON_TIME_ACTOR, at=_time_ran_out(game, now))
            try:
                super().append(game_id, event)
            except GameError as error:  # the rules refused it: the game stays as it was, and is shown
                log.warning("la partida %s no pudo terminar por tiempo: %s", game_id, error)
                return
        self._announce(game_id, event)

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(game_id, event)`` after every stored event (outside the lock)."""
        self._listeners.append(listener)

    def touch_room(self) -> None:
        """Wake every waiting stream: what all screens show besides their game changed (a notice)."""
        with self._changed:
            self._room += 1
            self._changed.notify_all()

    def _announce(self, game_id: str, event: Event) -> None:
        with self.lock:
            version = len(self.open(game_id).events)
        with self._changed:
            self._versions[game_id] = version
            self._changed.notify_all()
        for listener in list(self._listeners):
            listener(game_id, event)

    # -- reading -----------------------------------------------------------

    @contextmanager
    def reading(self, game_id: str) -> Iterator[Game]:
        """The live game (settled first: ``settle``), held so that no change happens while it is read."""
        self.settle(game_id)
        with self.lock:
            yield self.open(game_id)

    def version(self, game_id: str) -> int:
        """The game's number of stored events (loads the game if needed)."""
        with self.lock:
            version = len(self.open(game_id).events)
        with self._changed:
            self._versions.setdefault(game_id, version)
            return self._versions[game_id]

    def wait(self, game_id: str, seen: int, timeout: float) -> int:
        """Block until the game's version differs from ``seen``, the room is touched or ``timeout``
        passes; the version. A classic game is ``settle``d first, so a stream sees the end on time."""
        self.settle(game_id)
        current = self.version(game_id)
        if current != seen:
            return current
        with self._changed:
            room = self._room
            self._changed.wait_for(
                lambda: self._closing or self._versions.get(game_id, 0) != seen or self._room != room, timeout
            )
            return self._versions.get(game_id, 0)

    def view(self, game_id: str, name: str, build: Callable[[Game], T]) -> tuple[int, T]:
        """``build(game)`` for the game's current version (settled first), built once and shared."""
        self.settle(game_id)
        with self.lock:
            game = self.open(game_id)
            version = len(game.events)
            cached = self._views.get((game_id, name))
            if cached is not None and cached[0] == version:
                return version, cached[1]
            value = build(game)
            self._views[(game_id, name)] = (version, value)
            return version, value

    # -- shutting down -------------------------------------------------------

    @property
    def closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        """Wake every waiting stream so that it ends (the server is stopping)."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()


class StreamSlots:
    """A cap on open event streams, in all (``limit``) and from one client address
    (``per_address``, 0: none), so that streams never take every server thread and one
    client never takes every stream."""

    def __init__(self, limit: int, per_address: int = 0) -> None:
        self.limit = limit
        self.per_address = per_address
        self._open = 0
        self._by_address: Counter[str] = Counter()
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        return self._open

    def open_from(self, address: str) -> int:
        """Streams open from ``address``."""
        with self._lock:
            return self._by_address[address]

    def acquire(self, address: str = "") -> bool:
        """Take a slot for a stream from ``address``; False when the cap in all or the address's is reached."""
        with self._lock:
            if self._open >= self.limit or (self.per_address and self._by_address[address] >= self.per_address):
                return False
            self._open += 1
            self._by_address[address] += 1
            return True

    def release(self, address: str = "") -> None:
        """Give back a slot taken for ``address``."""
        with self._lock:
            self._open -= 1
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]


def _time_ran_out(game: ClassicGame, now: datetime) -> datetime:
    """When a game whose time is up ended on time: its time's end (C.30), or the last event
    after it (the turn that evened the turns), never after ``now``."""
    left = game.state.timer.game_left(now) if game.state.timer is not None else None
    ran_out = now + left if left is not None else now
    return min(now, max(ran_out, game.events[-1].at))
