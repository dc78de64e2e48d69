"""A whole board as a camera reads it: a grid of cell labels, and what changed between two.

``Labels`` is 15 rows of 15 class names (``labels``: ``.`` empty, a letter, ``?`` a
blank, ``*`` a foreign letter, ``#`` covered), row A first, as tuples so that readings
compare and hash. Squares are rules-core ``(row, col)`` pairs, 0-based.
"""

from __future__ import annotations

from typing import Final

from rules_core.alphabet import label
from rules_core.board import SIZE, Board, Square

from .labels import BLANK, EMPTY, is_tile

Labels = tuple[tuple[str, ...], ...]
EMPTY_LABELS: Final[Labels] = tuple(tuple(EMPTY for _ in range(SIZE)) for _ in range(SIZE))


def differences(old: Labels, new: Labels) -> tuple[list[Square], list[Square], list[Square]]:
    """(added, removed, changed) squares between two readings."""
    added, removed, changed = [], [], []
    for r in range(SIZE):
        for c in range(SIZE):
            a, b = old[r][c], new[r][c]
            if a == b:
                continue
            if not is_tile(a) and is_tile(b):
                added.append((r, c))
            elif is_tile(a) and not is_tile(b):
                removed.append((r, c))
            else:
                changed.append((r, c))
    return added, removed, changed


def labels_of(board: Board) -> Labels:
    """The labels a camera reads for ``board``: blanks as ``?``."""
    return tuple(tuple(EMPTY if not board[r, c] else (BLANK if board[r, c] & 0x80 else label(board[r, c])) for c in range(SIZE)) for r in range(SIZE))


def occupancy(labels: Labels) -> tuple[tuple[bool, ...], ...]:
    """Which squares hold a tile (a letter, a blank or a foreign letter)."""
    return tuple(tuple(is_tile(cell) for cell in row) for row in labels)


def tile_list(labels: Labels, squares: list[Square]) -> tuple[tuple[Square, str], ...]:
    """``(square, label)`` of ``squares``, in square order."""
    return tuple((sq, labels[sq[0]][sq[1]]) for sq in sorted(squares))
