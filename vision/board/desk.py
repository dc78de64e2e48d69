"""Camera plays into the classic games, and the arbiter's review queue.

A ``CameraDesk`` joins one camera's ``BoardTracker`` to one classic game of the
game management (``webapp.services.games.GameService``, game mode ``classic``):

* a ``play`` report becomes a ``play`` event of the player to move
  (``ClassicGame.play_event``, actor ``camera:<name>``);
* a ``withdrawn`` report (the last play's tiles lifted) becomes a ``challenge``
  event (C.39): the rules judge the play; if they find it valid the camera and the
  game disagree and the arbiter is asked;
* every ``doubt``, and any event the game refuses, goes to the ``ReviewQueue`` with
  the frame. The arbiter resolves an item in one action: ``confirm`` (the reading is
  right: record it; blanks named if needed), ``correct`` (record this play
  instead) or ``dismiss`` (nothing was played: the board is being fixed).

The game is the source of truth: after every change the desk sends the camera the
game's board (``sync_message``), and its tracker takes it (``apply_command``).

Nothing here shows a play that neither the rules nor the arbiter accepted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, Protocol

from rules_core.alphabet import Tile, as_blank, label, tile_from_label
from rules_core.board import Square, parse_square, square_name
from rules_core.events import Event, GameError
from rules_core.notation import Play
from rules_core.validation import PlacementError, play_from_placement

from .labels import BLANK
from .tracker import BoardTracker, Report


class Games(Protocol):
    """What the desk needs of the game management (``webapp.services.games.GameService``)."""

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
    """The doubts of every camera, oldest first.

    With a ``journal`` (a JSON-lines file) every doubt and every resolution is appended
    to it before it takes effect in memory, and a new queue on the same file replays it:
    a server restarted mid-round shows the arbiter the same open doubts, with their frames.
    """

    def __init__(self, journal: Path | None = None) -> None:
        self._items: list[ReviewItem] = []
        self._next = 1
        self.journal = journal
        if journal is not None:
            self._replay(journal)

    def add(self, camera: str, report: Report) -> ReviewItem:
        item = ReviewItem(self._next, camera, report)
        self._write({"op": "add", "id": item.id, "camera": camera, "created": item.created.isoformat(),
                     "report": report.to_json()})  # fmt: skip
        self._next += 1
        self._items.append(item)
        return item

    def resolve(self, item: ReviewItem, status: str, resolution: str) -> None:
        """Close ``item`` as ``status`` (confirmada, corregida, descartada) with what was done."""
        self._write({"op": "resolve", "id": item.id, "status": status, "resolution": resolution})
        item.status, item.resolution = status, resolution

    def items(self, cameras: Collection[str] | None = None) -> list[ReviewItem]:
        """Every doubt, settled or not (of ``cameras`` when given), oldest first."""
        return [i for i in self._items if cameras is None or i.camera in cameras]

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
            self.resolve(item, status, resolution)

    def _write(self, record: dict[str, Any]) -> None:
        if self.journal is None:
            return
        self.journal.parent.mkdir(parents=True, exist_ok=True)
        with open(self.journal, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def _replay(self, journal: Path) -> None:
        if not journal.exists():
            return
        text = journal.read_text(encoding="utf-8")
        if text and not text.endswith("\n"):
            with open(journal, "a", encoding="utf-8") as handle:
                handle.write("\n")  # close a line cut by a crash, so the next record starts clean
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a crash: its change never took effect
            if record.get("op") == "add":
                created = datetime.fromisoformat(record["created"])
                self._items.append(ReviewItem(record["id"], record["camera"], Report.from_json(record["report"]), created))
                self._next = max(self._next, record["id"] + 1)
            elif record.get("op") == "resolve":
                for item in self._items:
                    if item.id == record["id"]:
                        item.status, item.resolution = record["status"], record["resolution"]


@dataclass
class CameraDesk:
    """One camera feeding one classic game (see the module docstring).

    ``tracker`` is the camera's tracker when it runs in this process (the demo, the
    tests); a camera in a worker process or on a node has none, and ``link`` carries
    the desk's messages to it instead (``sync_message``: the game's board after every
    change, ``{"type": "accept"}``: the arbiter accepted the camera's reading as the
    position). ``name`` is the camera's name when there is no tracker; an empty
    ``game_id`` is a camera not attached to any game (its plays wait for the arbiter).
    """

    tracker: BoardTracker | None
    games: Games
    game_id: str
    queue: ReviewQueue = field(default_factory=ReviewQueue)
    shown: list[str] = field(default_factory=list)  # notations recorded from this camera
    link: Callable[[dict[str, Any]], None] | None = None
    name: str = ""

    @property
    def camera(self) -> str:
        return self.tracker.camera if self.tracker is not None else self.name

    def handle(self, report: Report) -> None:
        """Turn one tracker report into a game event or a review item."""
        if report.kind in ("play", "withdrawn", "doubt", "resolved"):
            self.queue.close_camera(self.camera, "descartada", "el tablero cambió de nuevo")
        if report.kind == "play" and report.notation:
            self._record_play(report, report.notation, f"camera:{self.camera}")
            self.resync()
        elif report.kind == "withdrawn":
            self._record_challenge(report)
            self.resync()
        elif report.kind == "doubt":
            self.queue.add(self.camera, report)

    def confirm(self, item_id: int, arbiter: str, blanks: dict[str, str] | None = None) -> str | None:
        """The reading is right: record its play (``blanks`` names blank letters, ``{"H8": "a"}``);
        a reading with no new tile (tiles moved or lifted) becomes the camera's position."""
        item = self._pending(item_id)
        play = self._reading_play(item.report, blanks or {})
        if play is None:
            self.queue.resolve(item, "confirmada", "posición aceptada")
            self._send({"type": "accept"})
            return None
        self._append_play(play.notation(), f"arbiter:{arbiter}", item.report.frame_path)
        self.queue.resolve(item, "confirmada", play.notation())
        self.resync()
        return play.notation()

    def correct(self, item_id: int, notation: str, arbiter: str) -> str:
        """Record ``notation`` as the play made (the reading was wrong)."""
        item = self._pending(item_id)
        play = Play.from_notation(notation)
        self._append_play(play.notation(), f"arbiter:{arbiter}", item.report.frame_path)
        self.queue.resolve(item, "corregida", play.notation())
        self.resync()
        return play.notation()

    def dismiss(self, item_id: int, arbiter: str) -> None:
        """Nothing to record: the players are putting the board right."""
        item = self._pending(item_id)
        self.queue.resolve(item, "descartada", f"por {arbiter}")

    def state(self) -> dict[str, Any]:
        """The camera's live state and its doubts, for the arbiter console."""
        live = self.tracker.status.to_json() if self.tracker is not None else {"camera": self.camera}
        return {**live, "game": self.game_id, "doubts": [i.to_json() for i in self.queue.pending(self.camera)]}

    def resync(self) -> None:
        """Send the game's board to the camera, so that its tracker follows the game."""
        if self.game_id:
            self._send(sync_message(self.games.open(self.game_id), self.game_id))

    # -- events -------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        if self.link is not None:
            self.link(message)
        elif self.tracker is not None:
            apply_command(self.tracker, message)

    def _pending(self, item_id: int) -> ReviewItem:
        item = self.queue.get(item_id)
        if item.status != "pendiente" or item.camera != self.camera:
            raise GameError(f"la duda {item_id} ya está resuelta o es de otra cámara")
        return item

    def _reading_play(self, report: Report, blanks: dict[str, str]) -> Play | None:
        """The play the camera read, placed on the game's board (blanks named by the arbiter)."""
        if report.reason in POSITION_DOUBTS:
            return None
        named = {parse_square(sq): letter for sq, letter in blanks.items()}
        placed: dict[Square, Tile] = {}
        for square, name in report.tiles:
            if name == BLANK:
                if square not in named:
                    raise GameError(f"diga qué letra es el comodín de {square_name(*square)}, o corrija la jugada")
                try:
                    placed[square] = as_blank(tile_from_label(named[square].strip().upper()))
                except ValueError as error:
                    raise GameError(f"comodín de {square_name(*square)}: {error}") from None
                continue
            try:  # a letter, or a blank named by a proposal (lowercase, ``unsure_play``)
                placed[square] = tile_from_label(name)
            except ValueError:
                raise GameError(f"en {square_name(*square)} se leyó {name!r}, que no es una ficha: corrija la jugada") from None
        if not placed:
            return Play.from_notation(report.notation) if report.notation else None
        if not self.game_id:
            raise GameError("la cámara no está asignada a ninguna partida")
        try:
            return play_from_placement(self.games.open(self.game_id).board, placed)
        except PlacementError as error:
            raise GameError(f"las fichas leídas no forman una jugada en la partida: {error}") from None

    def _record_play(self, report: Report, notation: str, actor: str) -> None:
        try:
            self._append_play(notation, actor, report.frame_path)
        except GameError as error:
            self.queue.add(self.camera, _as_doubt(report, f"la partida no acepta {notation}: {error}"))

    def _append_play(self, notation: str, actor: str, frame: str | None = None) -> None:
        """Record the play; its event names the frame it was seen in (``frame``: the evidence file keeps it)."""
        from rules_core.classic import ClassicGame

        if not self.game_id:
            raise GameError("la cámara no está asignada a ninguna partida")
        game = self.games.open(self.game_id)
        event = ClassicGame.play_event(game.to_move, notation, actor=actor)
        if frame:
            event = Event(event.kind, {**event.data, "frame": frame}, event.actor, event.at)
        self.games.append(self.game_id, event)
        self.shown.append(notation)

    def _record_challenge(self, report: Report) -> None:
        from rules_core.classic import INVALID, ClassicGame

        try:
            if not self.game_id:
                raise GameError("la cámara no está asignada a ninguna partida")
            self.games.append(self.game_id, ClassicGame.challenge_event(actor=f"camera:{self.camera}"))
        except GameError as error:
            self.queue.add(self.camera, _as_doubt(report, f"se retiraron fichas pero la partida no admite la impugnación: {error}"))
            return
        last = self.games.open(self.game_id).turns[-1]
        if last.verdict != INVALID:
            self.queue.add(self.camera, _as_doubt(report, f"se retiraron las fichas de {last.notation}, pero la jugada es válida"))


POSITION_DOUBTS: Final = frozenset({"changed", "moved", "removed"})  # no new tile to record


def sync_message(game: Any, game_id: str = "") -> dict[str, Any]:
    """The game's board for a camera: ``cgp`` (the board part), ``last``, the tiles of the
    last play still on the board (lifting them is a withdrawal, C.39), and ``hold``: the
    table's clock is in play, so a play waits for its press (``{"type": "press"}``)."""
    from rules_core.cgp import Position
    from rules_core.clock import GameClock

    last: list[list[str]] = []
    turns = getattr(game, "turns", [])
    if turns and turns[-1].action == "play" and not turns[-1].withdrawn:
        last = [[square_name(r, c), label(t)] for r, c, t in turns[-1].placed]
    timer = getattr(getattr(game, "state", None), "timer", None)
    hold = isinstance(timer, GameClock) and timer.in_play
    return {"type": "sync", "game": game_id, "cgp": Position(game.board).cgp().split(" ")[0], "last": last, "hold": hold}


def apply_command(tracker: BoardTracker, message: dict[str, Any]) -> bool:
    """Apply a message of the server to a camera's tracker; True when it changed something."""
    kind = message.get("type")
    if kind == "press":  # the table's clock was pressed: the play is finished
        tracker.press()
        return True
    if kind == "sync":
        from rules_core.cgp import Position

        tracker.hold = bool(message.get("hold"))
        board = Position.from_cgp(f"{message['cgp']} / 0/0 0").board
        last = {parse_square(sq): tile_from_label(name) for sq, name in message.get("last") or []}
        return tracker.sync(board, last or None)
    if kind == "accept":
        if tracker.proposal is not None and not tracker.proposal.placed:
            tracker.accept_proposal()
            return True
    return False


def _as_doubt(report: Report, message: str) -> Report:
    from dataclasses import replace

    return replace(report, kind="doubt", reason="game", message=message)
