"""Scoring a placement (FILE classic rules C.12-C.19).

Each word formed counts the values of its letters (C.12); a newly covered double or
triple letter square doubles or triples that tile (C.13); a newly covered double or
triple word square doubles or triples the word, two of them multiply (C.14, C.15,
x4 and x9); premiums count only when first covered (C.17); a tile shared by two new
words counts in both, premium included (C.18); blanks are worth 0 (C.10.1); playing
all seven rack tiles adds 50 after the multipliers (C.19), blanks included (C.10.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from .alphabet import Tile, tile_value
from .board import PREMIUMS, Board, Square

RACK_SIZE: Final = 7  # C.6
BINGO_BONUS: Final = 50  # C.19


@dataclass(frozen=True)
class FormedWord:
    """A word made by a play: its tiles, first square, direction and points."""

    tiles: tuple[Tile, ...]
    start: Square
    down: bool
    points: int


@dataclass(frozen=True)
class Score:
    """The words a play forms (main word first), the bonus and the total."""

    words: tuple[FormedWord, ...]
    bonus: int

    @property
    def total(self) -> int:
        return sum(word.points for word in self.words) + self.bonus


def word_extent(
    board: Board, placed: Mapping[Square, Tile], square: Square, down: bool
) -> list[Square]:
    """The squares of the contiguous line of tiles through ``square`` (board or placed)."""
    dr, dc = (1, 0) if down else (0, 1)

    def filled(r: int, c: int) -> bool:
        return bool(board.get(r, c)) or (r, c) in placed

    r, c = square
    while filled(r - dr, c - dc):
        r, c = r - dr, c - dc
    squares = []
    while filled(r, c):
        squares.append((r, c))
        r, c = r + dr, c + dc
    return squares


def _word_score(board: Board, placed: Mapping[Square, Tile], squares: list[Square]) -> int:
    total = 0
    multiplier = 1
    for square in squares:
        if square in placed:
            premium = PREMIUMS[square[0]][square[1]]
            total += tile_value(placed[square]) * premium.letter_multiplier
            multiplier *= premium.word_multiplier
        else:
            total += tile_value(board[square])
    return total * multiplier


def formed_words(
    board: Board, placed: Mapping[Square, Tile], down: bool
) -> list[tuple[list[Square], bool]]:
    """The squares of every word of 2+ letters a placement forms, main word first."""
    if not placed:
        return []
    first = min(placed)
    words = []
    main = word_extent(board, placed, first, down)
    if len(main) >= 2:
        words.append((main, down))
    for square in sorted(placed):
        cross = word_extent(board, placed, square, not down)
        if len(cross) >= 2:
            words.append((cross, not down))
    return words


def score_placement(
    board: Board,
    placed: Mapping[Square, Tile],
    down: bool,
    *,
    bingo_tiles: int = RACK_SIZE,
    bingo_bonus: int = BINGO_BONUS,
) -> Score:
    """Score tiles placed on empty squares of ``board`` along one line.

    ``placed`` maps squares to tiles (blanks with their blank bit); ``down`` is the
    line of play. Legality is not checked here (see ``validation``).
    """
    words = tuple(
        FormedWord(
            tuple(placed.get(sq) or board[sq] for sq in squares),
            squares[0],
            word_down,
            _word_score(board, placed, squares),
        )
        for squares, word_down in formed_words(board, placed, down)
    )
    bonus = bingo_bonus if len(placed) == bingo_tiles else 0
    return Score(words, bonus)
