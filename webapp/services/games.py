"""Games kept live in memory, every change stored first as an event (see ``store``).

``GameService.append`` checks an event against the game's state (the rules refuse
it with GameError and nothing is written), stores it with the new snapshot in one
transaction, and only then keeps the new state. After a crash or a restart,
``open`` rebuilds each game from its stored events: nothing acknowledged is lost.

``enter_slip`` is the one way a duplicate slip is stored or replaced, whoever sends it
(the console, the scanned-slips panel, the command line): replacing a stored slip needs
the arbiter's reason (``rules_core.slip_entry``).

A game is created recording the service's lexicon as its word list (a copy of the list
kept first, ``lexicons``) and is always replayed with its own list (``replay``).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from rules_core.duplicate import DuplicateGame, DuplicateSettings
from rules_core.events import Event, GameError
from rules_core.slip_entry import StoredSlip, slip_event, stored_slip
from rules_core.slips import Slip
from rules_core.lexicon import FindLexicon, Lexicon

from .lexicons import LexiconShelf, lexicon_folders, with_word_list
from .store import EventStore, StoreError

STORE_ATTEMPTS = 3  # tries of a slip's write when another writer got there first


class Game(Protocol):
    """What every game mode offers the service."""

    lexicon: Lexicon  # the lexicon in force

    @property
    def events(self) -> list[Event]: ...

    def apply(self, event: Event) -> None: ...

    def summary(self) -> dict[str, Any]: ...


def _replay(mode: str, events: Iterable[Event], lexicon: Lexicon, find: FindLexicon | None = None) -> Game:
    if mode == "duplicate":
        return DuplicateGame.replay(events, lexicon, find)
    if mode == "classic":
        from rules_core.classic import ClassicGame

        return ClassicGame.replay(events, lexicon, find)
    raise GameError(f"modalidad de partida desconocida: {mode!r}")


class GameService:
    """The games of one database, rebuilt from their events on first use.

    ``lexicon`` is the server's own list: new games record it, older games without a
    recorded list are replayed with it; ``shelf`` finds the other lists (default: none).
    """

    def __init__(self, store: EventStore, lexicon: Lexicon, shelf: LexiconShelf | None = None) -> None:
        self.store = store
        self.lexicon = lexicon
        self.shelf = shelf or LexiconShelf(lexicon)
        self._live: dict[str, Game] = {}
        self.lock: AbstractContextManager[Any] = nullcontext()  # held while a game is read or changed

    def replay(self, mode: str, events: Iterable[Event]) -> Game:
        """A game rebuilt from ``events`` with its own word list; MissingLexicon when it is nowhere."""
        return _replay(mode, events, self.lexicon, self.shelf.find)

    def create(self, mode: str, name: str, first: Event) -> str:
        """Start a game whose first event is ``first`` (``game_created``); returns its id."""
        first = with_word_list(first, self.lexicon)
        game = self.replay(mode, [first])
        self.shelf.keep(game.lexicon)
        game_id = self.store.create_game(mode, name, first, game.summary())
        self._live[game_id] = game
        return game_id

    def create_duplicate(self, name: str, settings: DuplicateSettings, actor: str = "system") -> str:
        first = Event("game_created", {"settings": settings.to_json(), "name": name}, actor)
        return self.create("duplicate", name, first)

    def open(self, game_id: str) -> Game:
        """The live game, replayed from the store if this process has not seen it yet."""
        game = self._live.get(game_id)
        if game is None:
            record = self.store.game(game_id)
            game = self.replay(record.mode, self.store.events(game_id))
            self.shelf.keep_quietly(game.lexicon)
            self._live[game_id] = game
        return game

    def duplicate(self, game_id: str) -> DuplicateGame:
        game = self.open(game_id)
        if not isinstance(game, DuplicateGame):
            raise GameError(f"la partida {game_id} no es una duplicada")
        return game

    def append(self, game_id: str, event: Event) -> None:
        """Apply and store ``event``, all or nothing.

        A GameError from the rules leaves the game as it was (``apply`` is atomic); any
        other failure, in the rules or in storage, drops the live state, so the next
        ``open`` rebuilds it from what was stored.
        """
        game = self.open(game_id)
        try:
            game.apply(event)
        except GameError:
            raise
        except BaseException:
            self._live.pop(game_id, None)
            raise
        try:
            if event.kind == "lexicon_changed":
                self.shelf.keep(game.lexicon)
            self.store.append(game_id, event, game.summary(), len(game.events))
        except BaseException:
            self._live.pop(game_id, None)
            raise

    def enter_slip(self, game_id: str, number: int, player: str, slip: Slip, actor: str, reason: str | None = None,
                   replaces: datetime | None = None, **data: Any) -> StoredSlip:  # fmt: skip
        """Store ``slip`` for ``player`` in round ``number``, or replace the one stored with ``reason``
        (``ReplacementNeedsReason``, carrying what is stored, without it; ``StoredSlipChanged`` when
        ``replaces`` names another than the one stored; GameError when the rules refuse).
        Returns what is stored afterwards.

        When another writer (another process on the database) stored an event first, the store refuses
        the write (StoreError); the game is then read again from the store and the slip judged again
        against it, up to ``STORE_ATTEMPTS`` times: a slip stored meanwhile for the same player is shown
        (ReplacementNeedsReason), never replaced unseen nor stored twice."""
        for attempt in range(1, STORE_ATTEMPTS + 1):
            with self.lock:
                game = self.duplicate(game_id)
                event = slip_event(game, number, player, slip, actor, reason, replaces, **data)
                try:
                    self.append(game_id, event)  # a StoreError drops the live game: read again next time
                except StoreError:
                    if attempt == STORE_ATTEMPTS:
                        raise
                    continue
                stored = stored_slip(game, number, player)
            assert stored is not None
            return stored
        raise AssertionError("unreachable")


def open_games(database_url: str, lexicon: Lexicon, data: str | Path | None = None) -> GameService:
    """The games of a database for a command: ``lexicon`` the command's list, the other lists
    from ``<data>/lexicons`` and beside a SQLite database file (``lexicons.lexicon_folders``)."""
    folders = lexicon_folders(database_url, Path(data).resolve() if data else None)
    return GameService(EventStore(database_url), lexicon, LexiconShelf(lexicon, folders))
