"""Reading one frame: the board found, oriented, and every cell classified.

``read_board(image)`` returns a ``BoardReading``; ``found`` False comes with a
``reason`` (no board is a value, not an exception). ``to_json`` is the object
``veedor read-board --json`` prints: ``found``, ``reason``, ``corners`` (row A
col 1 first, clockwise, image pixels), ``cells`` (15 rows of 15
``{"label", "confidence"}``, row A first), ``cgp`` (the board part of a CGP), ``turn``,
``settled`` (the squares, e.g. ``H8``, whose unsure letter the words on the board settled, issue 69:
``settle_letters``; each keeps the classifier's probability of its new label, below the doubt threshold)
``reads_as_game`` (whether the board's sure words were words of the lexicon given, so that it settled) and
``letter_scale`` (1.0, or the smaller scale a tile set's big letters were read at: ``letter_scale``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rules_core.board import Board, Square, square_name
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon

from .cells import board_crops
from .classify import CellClassifier, default_classifier, readings
from .covered import lone_covers_read_again
from .find import BoardFind, find_board
from .geometry import SIZE, FloatArray, image_corners, rotate_board_frame
from .labels import CLASSES, INDEX, tile_of
from .letter_scale import letters_at_their_scale
from .orientation import TurnGuess, infer_turn, turned_crops
from .settle_letters import settle_letters
from .tile_colour import blanks_of_tile_colour


@dataclass(frozen=True)
class BoardReading:
    """What a frame shows. ``labels``/``confidence`` are 15 x 15, row A first (``labels`` module)."""

    found: bool
    reason: str = ""
    image_from_board: FloatArray | None = None
    labels: tuple[tuple[str, ...], ...] = ()
    confidence: NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    probabilities: NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, len(CLASSES)), np.float32))
    turn: int = 0
    turn_guess: TurnGuess | None = None
    find: BoardFind | None = None
    settled: tuple[Square, ...] = ()
    reads_as_game: bool = False
    letter_scale: float = 1.0  # the scale the letters were read at (``letter_scale``: below 1, a set's big letters)

    @property
    def corners(self) -> FloatArray | None:
        return None if self.image_from_board is None else image_corners(self.image_from_board)

    def board(self) -> Board:
        """The Spanish letter tiles read (blanks, foreign letters and covered cells left empty)."""
        board = Board()
        for r, row in enumerate(self.labels):
            for c, name in enumerate(row):
                tile = tile_of(name)
                if tile:
                    board[r, c] = tile
        return board

    def cgp(self) -> str:
        """The board part of a CGP of ``board()``."""
        return Position(self.board()).cgp().split(" ")[0]

    def to_json(self) -> dict[str, Any]:
        if not self.found:
            return {"found": False, "reason": self.reason, "corners": None, "cells": None, "cgp": None}
        corners = self.corners
        assert corners is not None
        cells = [
            [{"label": self.labels[r][c], "confidence": round(float(self.confidence[r, c]), 4)} for c in range(SIZE)]
            for r in range(SIZE)
        ]
        return {
            "found": True,
            "reason": "",
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
            "cells": cells,
            "cgp": self.cgp(),
            "turn": self.turn,
            "settled": [square_name(r, c) for r, c in self.settled],
            "reads_as_game": self.reads_as_game,
            "letter_scale": self.letter_scale,
        }

    def text(self) -> str:
        """The board as an arbiter reads it: row letters, column numbers, one label per cell."""
        lines = ["    " + "".join(f"{c + 1:>3}" for c in range(SIZE))]
        for r, row in enumerate(self.labels):
            lines.append(f"  {'ABCDEFGHIJKLMNO'[r]} " + "".join(f"{name:>3}" for name in row))
        return "\n".join(lines)


def classify_board(
    image: NDArray[np.uint8], find: BoardFind, classifier: CellClassifier, turn: int | None = None
) -> BoardReading:
    """Classify the cells of a found board; ``turn`` None infers it (0 when the letters cannot tell); the letters
    are read at the scale they read surest (``letter_scale``: tile sets with big letters)."""
    assert find.image_from_board is not None
    crops = board_crops(image, find.image_from_board)
    probabilities = classifier.probabilities(crops)
    guess = None
    if turn is None:
        guess = infer_turn(crops, probabilities, classifier)
        turn = guess.turn if guess.turn is not None else 0
    if turn % 4:
        crops = turned_crops(crops, turn)
        probabilities = classifier.probabilities(crops)
    probabilities = blanks_of_tile_colour(crops, probabilities)  # blanks as warped: what the classifier learnt
    probabilities, scale = letters_at_their_scale(image, find.image_from_board, turn % 4, probabilities, classifier)
    return replace(from_probabilities(find, probabilities, turn % 4, guess), letter_scale=scale)


def from_probabilities(
    find: BoardFind, probabilities: NDArray[np.float32], turn: int, guess: TurnGuess | None = None
) -> BoardReading:
    assert find.image_from_board is not None
    probabilities = lone_covers_read_again(probabilities)
    cells = readings(probabilities)
    labels = tuple(tuple(cells[r * SIZE + c].label for c in range(SIZE)) for r in range(SIZE))
    confidence = np.array([cell.confidence for cell in cells], np.float32).reshape(SIZE, SIZE)
    return BoardReading(
        True, "", rotate_board_frame(find.image_from_board, turn), labels, confidence, probabilities, turn, guess, find
    )


def settled_by_words(reading: BoardReading, lexicon: Lexicon) -> BoardReading:
    """``reading`` with its unsure letters settled by the words they make (``settle_letters``)."""
    if not reading.found:
        return reading
    settled = settle_letters(reading.labels, reading.confidence, reading.probabilities, lexicon)
    confidence = reading.confidence.copy()
    for r, c in settled.changed:
        confidence[r, c] = reading.probabilities[r * SIZE + c, INDEX[settled.labels[r][c]]]
    return replace(reading, labels=settled.labels, confidence=confidence, settled=settled.changed, reads_as_game=settled.reads_as_game)


def read_board(
    image: NDArray[np.uint8],
    *,
    turn: int | None = None,
    classifier: CellClassifier | None = None,
    lexicon: Lexicon | None = None,
) -> BoardReading:
    """Find the board in a BGR frame and read every cell (see the module docstring); with a
    ``lexicon``, the unsure letters of a board that reads as a game's are settled by its words."""
    found = find_board(image)
    if not found.found:
        return BoardReading(False, found.reason, find=found)
    reading = classify_board(image, found, classifier or default_classifier(), turn)
    return reading if lexicon is None else settled_by_words(reading, lexicon)
