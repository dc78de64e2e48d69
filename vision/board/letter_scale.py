"""Tile sets with bigger letters than the classifier learnt: a still board read again zoomed out (issue 69).

The cell classifier learnt letters drawn 0.42-0.62 of a square high (the renders' tile maker, font size over the
square's side); a tile set whose letters are bigger reads worse: on the catalogue's kept-out families, Spanish
letters right fall from 96.4 % to 93.0 % at 0.72 and 87.7 % at 0.82 (``tests/benchmarks/bench_board.py
--catalogue-in heldout --letter-size S``). One set's letters are all one size, so a still photo's board is read
again with its squares drawn smaller (``scaled_crops``: the crop keeps ``CROP_PX`` pixels, a square spans
``CELL_PX * scale``), and the board's letters take the scale at which they read surest: the mean top probability
over the squares read as letters must gain ``MARGIN`` over the board as warped. Only the letters change: a square
read as a letter keeps its reading at the chosen scale where that reading is a letter too (empty squares, blanks,
those the tile's colour told too, ``tile_colour``, and hands stay as warped, which the classifier learnt).
``SCALES`` and ``MARGIN`` were set on the catalogue's calibration families (HISTORY.md, ninth session). The tracker does not do this (a frame's time); a camera's tile
set is read as a still by ``veedor read-board`` before the event.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from .cells import CELL_PX, CROP_PX, normalise_board, smoothed_when_noisy
from .classify import LETTER, CellClassifier
from .geometry import SIZE, FloatArray, board_to_canvas
from .orientation import turned_crops

SCALES: Final = (0.85, 0.72)  # a square's side in the crop, of ``CELL_PX``: letters read as 0.85 and 0.72 times as big
MARGIN: Final = 0.02  # mean top probability over the board's letters a scale must gain to be taken
MIN_LETTERS: Final = 5  # fewer letters say too little about the set's letter size
_MARGIN_PX: Final = CROP_PX  # canvas pixels around the board: every crop lies inside the canvas


def scaled_crops(image: NDArray[np.uint8], image_from_board: FloatArray, scale: float) -> NDArray[np.uint8]:
    """``225 x CROP_PX x CROP_PX x 3`` crops centred on each square as ``cells.board_crops`` cuts them, but with the
    board warped so that a square spans ``CELL_PX * scale`` pixels (row-major from A1, colours stretched per board)."""
    cell = CELL_PX * scale
    side = int(np.ceil(SIZE * cell + 2 * _MARGIN_PX))
    warp = board_to_canvas(cell, _MARGIN_PX / cell) @ np.linalg.inv(image_from_board)
    canvas = cv2.warpPerspective(image, warp, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    canvas = smoothed_when_noisy(normalise_board(np.asarray(canvas, np.uint8)))
    centres = _MARGIN_PX + (np.arange(SIZE) + 0.5) * cell - 0.5  # pixel centres: pixel i covers i-0.5..i+0.5
    crops = [cv2.getRectSubPix(canvas, (CROP_PX, CROP_PX), (float(x), float(y))) for y in centres for x in centres]
    return np.stack(crops).astype(np.uint8)


def letters_at_their_scale(image: NDArray[np.uint8], image_from_board: FloatArray, turn: int,
                           probabilities: NDArray[np.float32], classifier: CellClassifier) -> tuple[NDArray[np.float32], float]:  # fmt: skip
    """``probabilities`` (225 x classes, the board read as warped and turned ``turn`` quarter turns, ``image_from_board``
    being the finder's frame) with the letters read at the scale they read surest, and that scale (1.0: as warped)."""
    letters = LETTER[probabilities.argmax(axis=1)]
    if letters.sum() < MIN_LETTERS:
        return probabilities, 1.0
    best, best_scale, best_read = float(probabilities[letters].max(axis=1).mean()) + MARGIN, 1.0, None
    for scale in SCALES:
        read = classifier.probabilities(turned_crops(scaled_crops(image, image_from_board, scale), turn))
        sureness = float(read[letters].max(axis=1).mean())
        if sureness > best:
            best, best_scale, best_read = sureness, scale, read
    if best_read is None:
        return probabilities, 1.0
    out = probabilities.copy()
    kept = letters & LETTER[best_read.argmax(axis=1)]
    out[kept] = best_read[kept]
    return out, best_scale
