"""Which grid edge is row A: set once per camera, or inferred from the upright letters.

The premium layout looks the same from all four sides, so only the letters tell.
The classifier was trained on upright tiles: read with the right turn, letter
tiles get confident letter classes; turned a quarter or half, they look unlike
any letter. ``infer_turn`` reads the tile cells under each of the four turns and
keeps the most confident; with no letter on the board it says it cannot tell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray

from .cells import rotate_crops
from .classify import CellClassifier
from .labels import CLASSES, SPANISH

LETTER_COLUMNS: Final = np.array([i for i, name in enumerate(CLASSES) if name in SPANISH or name == "*"])
TILE_COLUMNS: Final = np.array([i for i, name in enumerate(CLASSES) if name not in (".", "#")])
MIN_LETTERS: Final = 2
MIN_MARGIN: Final = 0.1  # best turn's mean letter confidence ahead of the next


@dataclass(frozen=True)
class TurnGuess:
    """The quarter turn (``geometry``) that puts row A in place, or None when the letters cannot tell;
    ``scores`` is the mean letter confidence under each turn."""

    turn: int | None
    scores: tuple[float, float, float, float]
    letters: int


def letter_cells(probabilities: NDArray[np.float32]) -> NDArray[np.intp]:
    """Indices of the cells that hold a tile with a letter (not empty, covered or blank)."""
    tile = probabilities[:, TILE_COLUMNS].sum(axis=1)
    letter = probabilities[:, LETTER_COLUMNS].sum(axis=1)
    return np.nonzero((tile > 0.5) & (letter > 0.5))[0]


def infer_turn(crops: NDArray[np.uint8], probabilities: NDArray[np.float32], classifier: CellClassifier) -> TurnGuess:
    """Guess the turn from the tiles of a board read upright (``probabilities`` of ``crops``)."""
    cells = letter_cells(probabilities)
    if len(cells) < MIN_LETTERS:
        return TurnGuess(None, (0.0, 0.0, 0.0, 0.0), int(len(cells)))
    tiles = crops[cells]
    # the model's own reading: the lean to ``*`` of unsure readings would flatter a wrong turn
    scores = [float(classifier.model_probabilities(tiles)[:, LETTER_COLUMNS].max(axis=1).mean())]
    turned = np.concatenate([np.rot90(tiles, k=k, axes=(1, 2)) for k in (1, 2, 3)])
    probs = classifier.model_probabilities(np.ascontiguousarray(turned)).reshape(3, len(cells), -1)
    scores += [float(p[:, LETTER_COLUMNS].max(axis=1).mean()) for p in probs]
    order = np.argsort(scores)[::-1]
    best, second = int(order[0]), int(order[1])
    turn = best if scores[best] - scores[second] >= MIN_MARGIN else None
    return TurnGuess(turn, (scores[0], scores[1], scores[2], scores[3]), int(len(cells)))


def turned_crops(crops: NDArray[np.uint8], turn: int) -> NDArray[np.uint8]:
    """The crops relabelled with ``turn`` (see ``cells.rotate_crops``)."""
    return rotate_crops(crops, turn)
