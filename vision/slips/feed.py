"""Scanned slips into a duplicate game: read slips become ``slip`` events, doubtful ones are queued.

``GameFeed.read_page`` is the ``ingest.Ingestor`` callback for one game: every
slip on the page is read with the game's players and rounds; an accepted or
invalid reading with no flag is entered at once (``enter``: source ``escáner``, the
page's content address in ``scan``); a printed slip with nothing written on it
(``LocatedSlip.unused``: one of a pad no one used) is no slip, and only noted
``unused`` in the page's outcome; anything flagged, or refused by the game (a
second slip of the same player and round, a slip of another game), goes to the
``ReviewQueue`` with its crops, for the arbiter of this game. A slip from another
game's pad is never read into this one: ``hold`` queues it unread, flagged
``other_game``, with no player and no proposal, its note naming the game
(``describe``); the server routes slips by their QR code first
(``webapp.services.scanning``), so only slips of no running game are held.
``resolve`` enters the arbiter's decision; one that would replace a slip the player
already has needs the arbiter's reason for it (``rules_core.slip_entry``). Every slip
is entered through ``enter``, the server's one path (``GameService.enter_slip``).
``round_status`` says per player: read, flagged or missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from rules_core.duplicate import DuplicateGame
from rules_core.events import GameError
from rules_core.slips import Slip

from . import layout
from .ingest import Page
from .reader import LocatedSlip, PlayerRef, Position, SlipReader, SlipResult, locate_slips
from .register import PlainTemplate
from .review import ReviewItem, ReviewQueue, proposal_for


class Enter(Protocol):
    """Stores ``slip`` for ``player`` in round ``number`` (``GameService.enter_slip`` bound to the game):
    GameError when the game refuses it, ``ReplacementNeedsReason`` when it would replace one without ``reason``."""

    def __call__(self, number: int, player: str, slip: Slip, actor: str, reason: str | None = None,
                 **data: Any) -> object: ...  # fmt: skip


PLAY_BOX = layout.FIELDS["coordenada"].pixels()[:2] + layout.FIELDS["palabra"].pixels()[2:]  # on a rectified slip


def short_game(game_id: str) -> str:
    """A game the server does not know, as the arbiter reads it: ``otra partida (código 1a2b3c4d)``."""
    return f"otra partida (código {game_id[:8]})"


@dataclass
class GameFeed:
    """Slips of game ``game_id`` (the id printed in their QR codes) into ``enter``."""

    game_id: str
    game: Callable[[], DuplicateGame]  # the live game (rebuilt by the service as needed)
    enter: Enter
    reader: SlipReader
    queue: ReviewQueue
    actor: str = "escáner"
    template: PlainTemplate | None = None  # plain slips: registered to this template instead of markers
    lock: AbstractContextManager[Any] = field(default_factory=nullcontext)  # held while the game is read or changed

    describe: Callable[[str], str] = short_game  # another game's id -> its name, for the arbiter

    def read_page(self, page: Page, gray: np.ndarray) -> list[dict[str, Any]]:
        """Read every slip of a stored page; returns what happened to each, for the ingest journal.

        The game is only held (``lock``) to copy what the reader needs and to submit:
        the handwriting is read meanwhile, so screens and cameras never wait on it."""
        if self.template is None:
            return self.read_slips(page, list(enumerate(locate_slips(gray))))
        with self.lock:
            view = _GameView.of(self.game())
        plain = self.reader.read_plain(gray, self.template, view.position, view.players, view.rounds, view.current,
                                       relative_notation=view.relative_notation)  # fmt: skip
        return self._submit_all(page, view, [(0, plain)] if plain.found else [])

    def read_slips(self, page: Page, slips: Sequence[tuple[int, LocatedSlip]]) -> list[dict[str, Any]]:
        """Read some slips of a page (each with its index on the page) into this game (none: "no slip found")."""
        with self.lock:
            view = _GameView.of(self.game())
        results = [(index, self.reader.read_located(slip, view.position, view.players, view.rounds, view.current,
                                                    relative_notation=view.relative_notation))
                   for index, slip in slips]  # fmt: skip
        return self._submit_all(page, view, results)

    def hold(self, page: Page, slips: Sequence[tuple[int, LocatedSlip, str]]) -> list[dict[str, Any]]:
        """Queue slips of another game unread (each with its index on the page and the note that names the game)."""
        with self.lock:
            outcome = []
            for index, slip, note in slips:
                game = slip.qr[0] if slip.qr else None
                if slip.unused:
                    outcome.append({"status": "unused", "other_game": game})
                    continue
                result = SlipResult(True, flags=("other_game",), game=game, rectified=slip.rectified, play_box=PLAY_BOX)
                item = self._queue(page, index, result, note)
                outcome.append({"status": "flagged", "review": item.id, "note": note, "other_game": game})
            return outcome

    def _submit_all(self, page: Page, view: _GameView, results: list[tuple[int, SlipResult]]) -> list[dict[str, Any]]:
        with self.lock:
            if not results:
                item = self._queue(page, 0, SlipResult(False, flags=("position_unknown",)),
                                   "no se encontró ninguna papeleta")  # fmt: skip
                return [{"status": "flagged", "review": item.id, "note": item.note}]
            outcome = []
            for index, result in results:
                if result.round is None and result.decision is not None and view.current is not None:
                    result.round = view.current
                outcome.append(self._submit(page, index, result))
            return outcome

    def _submit(self, page: Page, index: int, result: SlipResult) -> dict[str, Any]:
        summary = result.to_json()
        if result.unused:  # nothing written: no slip handed in, nothing to store or to ask
            return {"status": "unused", **_brief(summary)}
        if result.game is not None and result.game != self.game_id:  # never read into a game it is not of
            note = f"la papeleta es de {self.describe(result.game)}; no se anota aquí sin su decisión"
            result = SlipResult(True, flags=("other_game",), game=result.game, rectified=result.rectified,
                                play_box=result.play_box)  # fmt: skip
            item = self._queue(page, index, result, note)
            return {"status": "flagged", "review": item.id, "note": note, "other_game": result.game}
        decision = result.decision
        if result.verdict == "flagged" or decision is None:
            item = self._queue(page, index, result)
            return {"status": "flagged", "review": item.id, **_brief(summary)}
        slip = decision.slip(self.actor)
        assert slip is not None and result.player is not None and result.round is not None
        try:
            self.enter(result.round, result.player, slip, self.actor, scan=page.sha,
                       confidence=round(decision.confidence, 4))  # fmt: skip
        except GameError as error:
            item = self._queue(page, index, result, str(error))
            return {"status": "flagged", "review": item.id, **_brief(summary)}
        return {"status": "submitted", **_brief(summary)}

    def _queue(self, page: Page, index: int, result: SlipResult, note: str = "") -> ReviewItem:
        item_id = f"{page.sha[:16]}-{index}"
        decision = result.decision
        crop = slip_image = ""
        if result.rectified is not None:
            slip_image = self.queue.save_crop(f"{item_id}-papeleta", result.rectified)
            if result.play_box is not None:
                x0, y0, x1, y1 = result.play_box
                crop = self.queue.save_crop(item_id, result.rectified[max(0, y0 - 4) : y1 + 4, max(0, x0 - 4) : x1 + 4])
        reading = decision.reading if decision else ""
        top_play = decision.play if decision else None
        if top_play is None and decision and decision.options and decision.options[0].kind != "reading":
            top_play = decision.options[0].text
        flags = result.flags or (("illegible",) if note else ())
        proposal = proposal_for(flags, reading, top_play)
        item = ReviewItem(
            item_id, page.sha, self.game_id, result.round, result.player, result.table, reading,
            tuple(flags), decision.confidence if decision else 0.0,
            tuple(o.to_json() for o in decision.options) if decision else (),
            proposal.to_json() if proposal else None, crop, slip_image, note,
        )  # fmt: skip
        return self.queue.add(item)

    def resolve(self, item_id: str, action: str, actor: str, notation: str | None = None, reason: str | None = None,
                player: str | None = None, round_number: int | None = None,
                replacing: str | None = None) -> ReviewItem:  # fmt: skip
        """Enter the arbiter's accept / correct / void (ValueError or GameError when it cannot be done;
        ``ReplacementNeedsReason`` when the player already has a slip of the round and ``replacing``, the
        reason for replacing it, is missing). ``reason`` is a void's."""
        item = self.queue.items.get(item_id)
        if item is None:
            raise ValueError(f"no hay papeleta en revisión con id {item_id!r}")

        def submit(slip: Slip, target_player: str, target_round: int) -> None:
            self.enter(target_round, target_player, slip, actor, replacing, scan=item.page, review=action)

        resolved, _ = self.queue.resolve(item_id, action, actor, notation, reason, player, round_number, submit)
        return resolved


@dataclass(frozen=True)
class _GameView:
    """What the reader needs of a duplicate game, copied so that it can read without the game."""

    players: list[PlayerRef]
    rounds: list[int]
    current: int | None
    positions: dict[int, Position]
    relative_notation: bool  # the director allows relative-board notation (D.III.20.1.d)

    @classmethod
    def of(cls, game: DuplicateGame) -> _GameView:
        players = [PlayerRef(p.id, p.name, p.table) for p in game.players.values()]
        positions = {r.number: (r.board.copy(), r.rack) for r in game.rounds}
        current = game.current.number if game.current else None
        return cls(players, list(positions), current, positions, "relativa" in game.settings.notations)

    def position(self, number: int | None) -> Position | None:
        """The board and rack of round ``number`` (None: the current round)."""
        number = self.current if number is None else number
        return None if number is None else self.positions.get(number)


def _brief(summary: dict[str, Any]) -> dict[str, Any]:
    keys = ("reading", "play", "score", "verdict", "flags", "confidence", "player", "round")
    return {k: summary.get(k) for k in keys}


def round_status(game: DuplicateGame, queue: ReviewQueue, number: int, game_id: str | None = None) -> dict[str, str]:
    """Per player id: ``read`` (a slip is in the game), ``flagged`` (waiting in the queue) or ``missing``.

    ``game_id``: count only that game's waiting slips (a queue shared by several games).
    """
    r = game.round(number)
    waiting = {i.player for i in queue.pending(game_id, round_number=number) if i.player}
    status = {}
    for player in game.players:
        if player in r.slips:
            status[player] = "read"
        elif player in waiting:
            status[player] = "flagged"
        else:
            status[player] = "missing"
    return status
