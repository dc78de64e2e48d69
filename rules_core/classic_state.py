"""The state of a classic game: its turns, end adjustments and score sheet rows.

A ``Turn`` keeps a play's rules score even when the play is withdrawn after a
challenge (C.39); a challenged play's verdict is ``VALID`` or ``INVALID`` (C.40).
An ``Adjustment`` is points added at the end: rack values (C.45) or overtime (C.35).
Only the number of tiles on each rack and in the bag is kept (7 per rack, C.6).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Final

from .alphabet import Tile
from .board import Board
from .classic_racks import TOTAL_TILES
from .clock import GameClock
from .notation import Play
from .scoring import RACK_SIZE

VALID: Final = "jugada correcta"  # the only two verdicts (C.40)
INVALID: Final = "jugada no válida"

ACTION_LABELS: Final = {
    "play": "jugada",
    "withdrawn": "jugada retirada",
    "exchange": "cambio",
    "pass": "paso",
    "rack": "fichas restantes",
    "time": "tiempo excedido",
}


@dataclass(frozen=True)
class Turn:
    """One turn: a play (its rules score kept even when withdrawn), an exchange or a pass.

    ``placed`` holds (row, col, tile) of the tiles put down; ``drawn`` how many were
    taken from the bag after it; ``verdict`` is set when the play was challenged (C.40);
    ``invalid_words`` are the words not in the lexicon, for the arbiter only.
    """

    number: int
    player: int
    action: str
    notation: str = ""
    points: int = 0
    claimed: int | None = None
    rack: str | None = None
    placed: tuple[tuple[int, int, Tile], ...] = ()
    drawn: int = 0
    invalid_words: tuple[str, ...] = ()
    verdict: str | None = None
    exchanged: int = 0
    exchanged_tiles: str | None = None
    play: Play | None = None  # the play's tiles: its notation can be ambiguous (L+LL is LLL)

    @property
    def withdrawn(self) -> bool:
        """True for a play taken back after a challenge (C.39)."""
        return self.verdict == INVALID

    @property
    def scored(self) -> int:
        """Points this turn adds to the player's score."""
        return self.points if self.action == "play" and not self.withdrawn else 0

    @property
    def counts_as_pass(self) -> bool:
        """A pass, or a play withdrawn as invalid (C.45.2); an exchange is not."""
        return self.action == "pass" or self.withdrawn

    @property
    def scoreless(self) -> bool:
        """A pass, a withdrawn play or an exchange (C.45.3)."""
        return self.counts_as_pass or self.action == "exchange"


@dataclass(frozen=True)
class Adjustment:
    """Points added at the end: rack values (``kind="rack"``, C.45), overtime (``"time"``, C.35)."""

    player: int
    kind: str
    points: int
    rack: str = ""


@dataclass(frozen=True)
class ScoreRow:
    """A line of the score sheet: ``total`` is the player's score after it."""

    player: int
    action: str
    notation: str
    points: int
    total: int
    note: str = ""


@dataclass
class GameState:
    """Everything a classic game knows; equal states mean equal games."""

    created: bool = False
    players: tuple[str, str] = ("", "")
    nicknames: tuple[str, str] | None = None
    lexicon_name: str | None = None
    title: str | None = None
    clock: str | None = None
    minutes: int | None = None
    first: int = 0
    start_cgp: str | None = None
    start_scores: tuple[int, int] = (0, 0)
    start_scoreless: int = 0
    board: Board = field(default_factory=Board)
    scores: list[int] = field(default_factory=lambda: [0, 0])
    rack_counts: list[int] = field(default_factory=lambda: [RACK_SIZE, RACK_SIZE])
    bag: int = TOTAL_TILES - 2 * RACK_SIZE
    to_move: int = 0
    turns: list[Turn] = field(default_factory=list)
    ending: str | None = None
    finished: bool = False
    end_racks: tuple[str, str] | None = None
    adjustments: list[Adjustment] = field(default_factory=list)
    timer: GameClock | None = None  # the table's clock (``classic_clock``), when the game has one

    def copy(self) -> GameState:
        return replace(
            self,
            board=self.board.copy(),
            scores=list(self.scores),
            rack_counts=list(self.rack_counts),
            turns=list(self.turns),
            adjustments=list(self.adjustments),
        )


def turn_row(turn: Turn, total: int) -> ScoreRow:
    """The score sheet line of a turn; ``total`` is the player's score after it."""
    if turn.action == "exchange":
        what = turn.exchanged_tiles or str(turn.exchanged)
        return ScoreRow(turn.player, "exchange", f"-{what}", 0, total)
    if turn.action == "pass":
        return ScoreRow(turn.player, "pass", "-", 0, total)
    action = "withdrawn" if turn.withdrawn else "play"
    notes = [turn.verdict] if turn.verdict else []
    if turn.claimed is not None and turn.claimed != turn.points:
        notes.append(f"anotados {turn.claimed}")
    return ScoreRow(turn.player, action, turn.notation, turn.scored, total, "; ".join(notes))
