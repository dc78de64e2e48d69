"""Camera plays into the classic games, and the arbiter's review queue.

A ``CameraDesk`` joins one camera's ``BoardTracker`` to one classic game of the
game management (``webapp.games.GameService``, game mode ``classic``):

* a ``play`` report becomes a ``play`` event of the player to move
  (``ClassicGame.play_event``, actor ``camera:<name>``);
* a ``withdrawn`` report (the last play's tiles lifted) becomes a ``challenge``
  event (C.39): the rules judge the play; if they find it valid the camera and the
  game disagree and the arbiter is asked;
* every ``doubt``, and any event the game refuses, goes to the ``ReviewQueue`` with
  the frame. The arbiter resolves an item in one action: ``confirm`` (the reading is
  right: record it; blanks named if needed), ``correct`` (record this play
  instead) or ``dismiss`` (nothing was played: the board is being fixed).

Nothing here shows a play that neither the rules nor the arbiter accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Protocol

from rules_core.alphabet import Tile, as_blank, tile_from_label
from rules_core.board import Square, parse_square
from rules_core.events import Event, GameError
from rules_core.notation import Play

from .tracker import BoardTracker, Report


class Games(Protocol):
    """What the desk needs of the game management (``webapp.games.GameService``)."""

    def open(self, game_id: str) -> Any: ...

    def append(self, game_id: str, event: Event) -> None: ...


@dataclass
class ReviewItem:
    """One doubt waiting for the arbiter: the report (with ``frame_path``) and what became of it."""

    id: int
    camera: str
    report: Report
    created: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    status: str = "pendiente"  # pendiente, confirmada, corregida, descartada
    resolution: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "camera": self.camera, "status": self.status, "resolution": self.resolution,
            "created": self.created.isoformat(), "report": self.report.to_json(),
        }


class ReviewQueue:
    """The doubts of every camera, oldest first."""

    def __init__(self) -> None:
        self._items: list[ReviewItem] = []
        self._next = 1

    def add(self, camera: str, report: Report) -> ReviewItem:
        item = ReviewItem(self._next, camera, report)
        self._next += 1
        self._items.append(item)
        return item

    def pending(self, camera: str | None = None) -> list[ReviewItem]:
        return [i for i in self._items if i.status == "pendiente" and (camera is None or i.camera == camera)]

    def get(self, item_id: int) -> ReviewItem:
        for item in self._items:
            if item.id == item_id:
                return item
        raise KeyError(f"no hay ninguna duda número {item_id}")

    def close_camera(self, camera: str, status: str, resolution: str) -> None:
        """Mark every pending item of a camera resolved (a newer reading replaced them)."""
        for item in self.pending(camera):
            item.status, item.resolution = status, resolution


@dataclass
class CameraDesk:
    """One camera feeding one classic game (see the module docstring)."""

    tracker: BoardTracker
    games: Games
    game_id: str
    queue: ReviewQueue = field(default_factory=ReviewQueue)
    shown: list[str] = field(default_factory=list)  # notations recorded from this camera

    @property
    def camera(self) -> str:
        return self.tracker.camera

    def handle(self, report: Report) -> None:
        """Turn one tracker report into a game event or a review item."""
        if report.kind in ("play", "withdrawn", "doubt", "resolved"):
            self.queue.close_camera(self.camera, "descartada", "el tablero cambió de nuevo")
        if report.kind == "play" and report.notation:
            self._record_play(report, report.notation, f"camera:{self.camera}")
        elif report.kind == "withdrawn":
            self._record_challenge(report)
        elif report.kind == "doubt":
            self.queue.add(self.camera, report)

    def confirm(self, item_id: int, arbiter: str, blanks: dict[str, str] | None = None) -> str | None:
        """The reading is right: record its play (``blanks`` names blank letters, ``{"H8": "a"}``)."""
        item = self._pending(item_id)
        named: dict[Square, Tile] = {parse_square(sq): as_blank(tile_from_label(letter.upper())) for sq, letter in (blanks or {}).items()}
        play = self.tracker.accept_proposal(named or None)
        item.status, item.resolution = "confirmada", play.notation() if play else "posición aceptada"
        if play is not None:
            self._append_play(play.notation(), f"arbiter:{arbiter}")
        return play.notation() if play else None

    def correct(self, item_id: int, notation: str, arbiter: str) -> str:
        """Record ``notation`` as the play made (the reading was wrong)."""
        item = self._pending(item_id)
        play = Play.from_notation(notation)
        self.tracker.correct(play)
        item.status, item.resolution = "corregida", play.notation()
        self._append_play(play.notation(), f"arbiter:{arbiter}")
        return play.notation()

    def dismiss(self, item_id: int, arbiter: str) -> None:
        """Nothing to record: the players are putting the board right."""
        item = self._pending(item_id)
        item.status, item.resolution = "descartada", f"por {arbiter}"

    def state(self) -> dict[str, Any]:
        """The camera's live state and its doubts, for the arbiter console."""
        return {**self.tracker.status.to_json(), "game": self.game_id, "doubts": [i.to_json() for i in self.queue.pending(self.camera)]}

    # -- events -------------------------------------------------------------------

    def _pending(self, item_id: int) -> ReviewItem:
        item = self.queue.get(item_id)
        if item.status != "pendiente" or item.camera != self.camera:
            raise GameError(f"la duda {item_id} ya está resuelta o es de otra cámara")
        return item

    def _record_play(self, report: Report, notation: str, actor: str) -> None:
        try:
            self._append_play(notation, actor)
        except GameError as error:
            self.queue.add(self.camera, _as_doubt(report, f"la partida no acepta {notation}: {error}"))

    def _append_play(self, notation: str, actor: str) -> None:
        from rules_core.classic import ClassicGame

        game = self.games.open(self.game_id)
        self.games.append(self.game_id, ClassicGame.play_event(game.to_move, notation, actor=actor))
        self.shown.append(notation)

    def _record_challenge(self, report: Report) -> None:
        from rules_core.classic import INVALID, ClassicGame

        try:
            self.games.append(self.game_id, ClassicGame.challenge_event(actor=f"camera:{self.camera}"))
        except GameError as error:
            self.queue.add(self.camera, _as_doubt(report, f"se retiraron fichas pero la partida no admite la impugnación: {error}"))
            return
        last = self.games.open(self.game_id).turns[-1]
        if last.verdict != INVALID:
            self.queue.add(self.camera, _as_doubt(report, f"se retiraron las fichas de {last.notation}, pero la jugada es válida"))


def _as_doubt(report: Report, message: str) -> Report:
    from dataclasses import replace

    return replace(report, kind="doubt", reason="game", message=message)
