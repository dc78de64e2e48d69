"""The likeliest legal play among the look-alikes of a placement's unsure tiles (issue 69).

A new tile the tracker reads below its doubt threshold makes a doubt for the arbiter, never a play.
What the arbiter is shown to confirm is the likeliest assignment of the unsure tiles' candidate letters
(``settle_letters.candidates``: the letter read and its likeliest look-alikes) under which the new tiles
make a legal play on the game's board, a new blank taking the only letter that makes it legal
(``blanks``); the arbiter confirms it with one key or corrects it. Squares are
(row, col) from A1 = (0, 0); ``probabilities`` are (225, len(CLASSES)), row-major, row A first.
"""

from __future__ import annotations

import itertools
from typing import Final

import numpy as np
from numpy.typing import NDArray

from rules_core.alphabet import Tile, tile_from_label
from rules_core.board import Board, Square
from rules_core.lexicon import Lexicon
from rules_core.notation import Play
from rules_core.validation import PlacementError, check_play, play_from_placement

from .blanks import blank_letters
from .geometry import SIZE
from .label_grids import Labels
from .settle_letters import GROUP_LIMIT, candidates

BLANK_LIMIT: Final = 2  # unsure squares tried when a new blank's letter is tried too (each assignment: 28 letters)


def likeliest_play(
    board: Board,
    placed: dict[Square, Tile],
    unsure: list[Square],
    labels: Labels,
    probabilities: NDArray[np.float32],
    lexicon: Lexicon,
    blanks: tuple[Square, ...] = (),
) -> tuple[Play, dict[Square, Tile]] | None:
    """The legal play of highest probability when the ``unsure`` squares of ``placed`` (new letter
    tiles) take their candidate letters and the new ``blanks`` the only letter that makes it legal,
    with its tiles; None when no assignment makes one legal play, more than ``GROUP_LIMIT`` squares
    are unsure, or (a blank's letters are tried for each assignment) more than ``BLANK_LIMIT``
    squares with a blank among the new tiles or more than one blank."""
    if len(unsure) > (GROUP_LIMIT if not blanks else BLANK_LIMIT) or len(blanks) > 1:
        return None
    choices = [candidates(probabilities[r * SIZE + c], labels[r][c], empty=False) for r, c in unsure]
    best: tuple[Play, dict[Square, Tile]] | None = None
    best_p = 0.0
    for assignment in itertools.product(*choices):
        p = float(np.prod([q for _, q in assignment]))
        if p <= best_p:
            continue
        trial = {**placed, **{sq: tile_from_label(name) for sq, (name, _) in zip(unsure, assignment)}}
        found = _legal(board, trial, blanks, lexicon)
        if found is not None:
            best, best_p = found, p
    return best


def _legal(board: Board, placed: dict[Square, Tile], blanks: tuple[Square, ...], lexicon: Lexicon) -> tuple[Play, dict[Square, Tile]] | None:
    """The legal play ``placed`` makes, its blanks named by the lexicon when only one letter fits."""
    if blanks:
        choice = blank_letters(board, placed, list(blanks), lexicon)
        if not choice.unique:
            return None
        placed = {**placed, **choice.assignments[0]}
    try:
        verdict = check_play(board, play_from_placement(board, placed), lexicon)
    except PlacementError:
        return None
    return (verdict.play, dict(verdict.placed)) if verdict.legal else None
