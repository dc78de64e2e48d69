"""The letter of a blank tile, taken from the lexicon when only one letter makes the play valid.

A blank shows no letter, so the camera sees ``?``. ``blank_letters`` tries every
letter (28, C.10.2: never K or W) for each blank of a placement and keeps the
assignments under which every word formed is in the lexicon.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from rules_core.alphabet import LETTERS, Tile, as_blank
from rules_core.board import Board, Square
from rules_core.lexicon import Lexicon
from rules_core.validation import PlacementError, check_play, play_from_placement

MAX_BLANKS: Final = 2  # C.10: a set has two


@dataclass(frozen=True)
class BlankChoice:
    """The assignments (square -> blank tile) that make a legal play, with their notation and score."""

    assignments: tuple[dict[Square, Tile], ...]
    notations: tuple[str, ...]
    scores: tuple[int, ...]

    @property
    def unique(self) -> bool:
        return len(self.assignments) == 1


def blank_letters(board: Board, placed: Mapping[Square, Tile], blanks: list[Square], lexicon: Lexicon) -> BlankChoice:
    """Every way to name the ``blanks`` squares (placed blanks, letters unknown) so that
    ``placed`` plus them is a legal play on ``board``."""
    if len(blanks) > MAX_BLANKS:
        raise ValueError(f"{len(blanks)} comodines en una jugada: un juego tiene {MAX_BLANKS}")
    found: list[dict[Square, Tile]] = []
    notations: list[str] = []
    scores: list[int] = []
    for letters in itertools.product([letter.tile for letter in LETTERS], repeat=len(blanks)):
        assignment = {sq: as_blank(t) for sq, t in zip(blanks, letters)}
        tiles = {**placed, **assignment}
        try:
            play = play_from_placement(board, tiles)
        except PlacementError:
            return BlankChoice((), (), ())
        verdict = check_play(board, play, lexicon)
        if verdict.legal:
            found.append(assignment)
            notations.append(verdict.play.notation())
            scores.append(verdict.points)
    return BlankChoice(tuple(found), tuple(notations), tuple(scores))
