"""Games kept live in memory, every change stored first as an event (see ``store``).

``GameService.append`` checks an event against the game's state (the rules refuse
it with GameError and nothing is written), stores it with the new snapshot in one
transaction, and only then keeps the new state. After a crash or a restart,
``open`` rebuilds each game from its stored events: nothing acknowledged is lost.

``enter_slip`` is the one way a duplicate slip is stored or replaced, whoever sends it
(the console, the scanned-slips panel, the command line): replacing a stored slip needs
the arbiter's reason (``rules_core.slip_entry``).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol

from rules_core.duplicate import DuplicateGame, DuplicateSettings
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon
from rules_core.slip_entry import StoredSlip, slip_event, stored_slip
from rules_core.slips import Slip

from .store import EventStore


class Game(Protocol):
    """What every game mode offers the service."""

    @property
    def events(self) -> list[Event]: ...

    def apply(self, event: Event) -> None: ...

    def summary(self) -> dict[str, Any]: ...


def _replay(mode: str, events: Iterable[Event], lexicon: Lexicon) -> Game:
    if mode == "duplicate":
        return DuplicateGame.replay(events, lexicon)
    if mode == "classic":
        from rules_core.classic import ClassicGame

        return ClassicGame.replay(events, lexicon)
    raise GameError(f"modalidad de partida desconocida: {mode!r}")


class GameService:
    """The games of one database, rebuilt from their events on first use."""

    def __init__(self, store: EventStore, lexicon: Lexicon) -> None:
        self.store = store
        self.lexicon = lexicon
        self._live: dict[str, Game] = {}
        self.lock: AbstractContextManager[Any] = nullcontext()  # held while a game is read or changed

    def create(self, mode: str, name: str, first: Event) -> str:
        """Start a game whose first event is ``first`` (``game_created``); returns its id."""
        game = _replay(mode, [first], self.lexicon)
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
            game = _replay(record.mode, self.store.events(game_id), self.lexicon)
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
            self.store.append(game_id, event, game.summary(), len(game.events))
        except BaseException:
            self._live.pop(game_id, None)
            raise

    def enter_slip(self, game_id: str, number: int, player: str, slip: Slip, actor: str, reason: str | None = None,
                   **data: Any) -> StoredSlip:  # fmt: skip
        """Store ``slip`` for ``player`` in round ``number``, or replace the one stored with ``reason``
        (``ReplacementNeedsReason``, carrying what is stored, without it; GameError when the rules refuse).
        Returns what is stored afterwards."""
        with self.lock:
            game = self.duplicate(game_id)
            self.append(game_id, slip_event(game, number, player, slip, actor, reason, **data))
            stored = stored_slip(game, number, player)
        assert stored is not None
        return stored
