"""A hand is not one square: a lone covered reading inside the board is a misreading.

A hand or sleeve over the board reaches it from the player's side and is wider than a
square (about 2 cm): the cells it covers touch one another. The classifier's covered
class (``#``), read on one cell inside the board while none of its eight neighbours is
read covered, is a tile or a square it could not read (a dim tile, a glare), never a
hand. The tracker waits while any cell is covered (``tracker``), so such a reading,
stable on a still board, would hold the board on the screen back for as long as it
lasts. Its covered probability is dropped and the rest renormalised: the cell is read
as what it most likely is if it is not covered (its confidence then tells the tracker
whether to ask the arbiter). A lone covered cell on the board's edge is kept: a
fingertip can just reach the first row.

Probabilities are ``225 x classes``, row-major from A1, in any quarter turn.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

from .geometry import SIZE
from .labels import COVERED, INDEX

_COVERED: Final = INDEX[COVERED]
_INSIDE: Final = np.pad(np.ones((SIZE - 2, SIZE - 2), bool), 1)  # the cells off the board's edge


def lone_covers_read_again(probabilities: NDArray[np.float32]) -> NDArray[np.float32]:
    """``probabilities`` with every lone covered reading inside the board read without the
    covered class: a new array, or the same one when there is none."""
    covered = (probabilities.argmax(axis=1) == _COVERED).reshape(SIZE, SIZE)
    padded = np.pad(covered, 1).astype(np.int8)
    neighbours = sum(padded[1 + dr : 1 + dr + SIZE, 1 + dc : 1 + dc + SIZE] for dr in (-1, 0, 1) for dc in (-1, 0, 1)) - covered
    lone = np.flatnonzero(covered & (neighbours == 0) & _INSIDE)
    if len(lone) == 0:
        return probabilities
    out = probabilities.copy()
    out[lone, _COVERED] = 0.0
    out[lone] /= np.maximum(out[lone].sum(axis=1, keepdims=True), np.float32(1e-12))
    return out
