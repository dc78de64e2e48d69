"""Every legal placement play for a board and a rack, with canonical notation and score.

The search is the C kernel ``_movegen`` (Appel & Jacobson on the lexicon's word
graph). Plays come sorted by score descending, then by the notation's UTF-8 bytes
ascending. A one-tile play is listed once: horizontally when it forms a horizontal
word of 2+ letters, otherwise vertically; on an empty board plays through H8 are
listed in both directions (C.6). Exchanges and passes are not plays here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from . import _movegen
from .alphabet import ALPHABET_SIZE, LETTERS, Tile
from .board import PREMIUMS, Board
from .lexicon import Lexicon
from .notation import Play
from .scoring import BINGO_BONUS, RACK_SIZE

_LETTER_MULT: Final = bytes(p.letter_multiplier for row in PREMIUMS for p in row)
_WORD_MULT: Final = bytes(p.word_multiplier for row in PREMIUMS for p in row)
_VALUES: Final = bytes([0] + [letter.value for letter in LETTERS])
_UPPER: Final = (b"",) + tuple(letter.label.encode() for letter in LETTERS)
_LOWER: Final = (b"",) + tuple(letter.label.lower().encode() for letter in LETTERS)


class ScoredPlay(NamedTuple):
    """A generated play: notation, score, and where it lies (``word`` as tile bytes)."""

    notation: str
    score: int
    row: int
    col: int
    down: bool
    word: bytes

    @property
    def play(self) -> Play:
        return Play(self.row, self.col, self.down, tuple(self.word))


def generate_plays(board: Board, rack: Sequence[Tile], lexicon: Lexicon) -> list[ScoredPlay]:
    """All legal placement plays of ``rack`` (tiles, 0 for a blank) on ``board``."""
    if len(rack) > RACK_SIZE:
        raise ValueError(f"un atril tiene como mucho {RACK_SIZE} fichas, no {len(rack)}")
    if any(not 0 <= t <= ALPHABET_SIZE for t in rack):
        raise ValueError("el atril solo lleva letras y comodines sin asignar")
    raw = _movegen.generate(
        lexicon.edges,
        board.to_bytes(),
        bytes(rack),
        _LETTER_MULT,
        _WORD_MULT,
        _VALUES,
        _UPPER,
        _LOWER,
        RACK_SIZE,
        BINGO_BONUS,
    )
    return [ScoredPlay._make(item) for item in raw]
