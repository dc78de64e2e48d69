"""A blank is a tile: a cell read as a blank must show the colour of the board's tiles.

On a board design the classifier never saw (the brown squares of a wooden board) an
empty square and a blank look alike to it: neither shows a letter. Their colours tell
them apart. All the tiles of a set are one colour (C.10: the blanks are tiles of the
set), and an empty square has the colour of the empty squares of its kind (plain or one
premium, C.13-C.16). So each cell read as a blank is compared with the tiles read with
confidence near it and with the empty squares of its kind near it (the light changes
over a board; those read surely empty, else those read empty): when almost none of its
pixels are nearer the tiles' colour, its blank probability goes to empty. The other way,
a cell read empty that the classifier gives some chance of being a blank, most of whose
pixels are nearer the tiles' colour, is a blank, provided the empty squares of its kind
near it are not nearer the tiles' colour themselves (a cream blank on a cream square, where
the classifier leans to empty; a blank missed can let a shorter play through, a blank
seen where there is none makes a play that does not fit, a doubt). Where the references
are too few, the reading is left as is; but on a board where no cell reads as a lettered
tile, a blank read unsurely is an empty square (a blank is laid with lettered tiles). First of
all, a board read with many more blanks than a set has (C.10: two) has its blanks judged by their
colour, and if still too many keeps only the two surest: there the classifier takes the squares
themselves for blanks (a white board under white tiles).

Colours are CIE Lab of the normalised crops (``cells``), every other pixel each way;
lightness weighs a third, as the light changes it most. A tile's colour is its lighter
half's (the ink is dark). Crops are ``225 x CROP_PX x CROP_PX x 3`` BGR, row-major from
A1; the premium layout is the same under every quarter turn, so the crops may be in any
turn.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from rules_core.board import PREMIUMS

from .cells import CELL_PX, CONTEXT_PX
from .geometry import SIZE
from .labels import BLANK, COVERED, EMPTY, INDEX

RADIUS: Final = 3  # cells: the references are taken within this many rows and columns
MIN_REFERENCES: Final = 2  # of each kind near the cell, else over the whole board
SURE: Final = 0.9  # probability of a reading used as a reference
LIGHTNESS_WEIGHT: Final = 1 / 3
MIN_TILE_SHARE: Final = 0.2  # a blank shows at least this share of tile-coloured pixels
BLANK_CHANCE: Final = 0.1  # a cell read empty with at least this blank probability may be a blank,
MIN_BLANK_SHARE: Final = 0.6  # and is one when at least this share of its pixels is tile-coloured
MAX_SQUARE_SHARE: Final = 0.5  # and the empty squares of its kind near it show at most this share
MIN_SQUARES: Final = 3  # of such squares, else the colours are not trusted to make a blank
STRIDE: Final = 2  # every other pixel of a cell, each way, is compared (a quarter of them)
CENTRE_MARGIN: Final = 3  # compared pixels, at each side of a cell, left out of the reference colours
MAX_BLANKS: Final = 2  # C.10: a set has two blanks ...
MAX_BLANK_SHARE: Final = 0.25  # ... and more than this share of the lettered readings is not a board's blanks

_NOT_LETTERS: Final = [INDEX[EMPTY], INDEX[BLANK], INDEX[COVERED]]
_KIND: Final = np.array([PREMIUMS[r][c].name for r in range(SIZE) for c in range(SIZE)])
_ROW_COL: Final = np.indices((SIZE, SIZE)).reshape(2, -1).T


def blanks_of_tile_colour(crops: NDArray[np.uint8], probabilities: NDArray[np.float32]) -> NDArray[np.float32]:
    """``probabilities`` (225 x classes) with the blank readings that do not show the tiles'
    colour moved to empty, and the empty readings that may be a blank (``BLANK_CHANCE``) and
    show it (``MIN_BLANK_SHARE``) moved to blank: a new array, or the same one when no cell
    is either. On a board read with more blanks than a set has (``_beyond_the_set``), the
    blanks are judged by their colour before the surest are kept: a square the classifier
    takes for a blank more surely than it takes a true blank must not push the true one out."""
    if _beyond_the_set(probabilities):
        probabilities = _blanks_beyond_the_set(_judged_by_colour(crops, probabilities, find_blanks=False))
    return _judged_by_colour(crops, probabilities, find_blanks=True)


def _judged_by_colour(
    crops: NDArray[np.uint8], probabilities: NDArray[np.float32], find_blanks: bool
) -> NDArray[np.float32]:
    """The blank readings that do not show the tiles' colour moved to empty and, with
    ``find_blanks``, the empty readings that show it moved to blank (``blanks_of_tile_colour``)."""
    best = probabilities.argmax(axis=1)
    blanks = np.flatnonzero(best == INDEX[BLANK])
    may_be_blank = (best == INDEX[EMPTY]) & (probabilities[:, INDEX[BLANK]] >= BLANK_CHANCE)
    maybe = np.flatnonzero(may_be_blank & find_blanks)
    if len(blanks) == 0 and len(maybe) == 0:
        return probabilities
    lettered = ~np.isin(best, _NOT_LETTERS)
    if not lettered.any():
        return _unsure_blanks_emptied(probabilities, blanks)
    sure = probabilities.max(axis=1) >= SURE
    letters = sure & lettered
    empties = best == INDEX[EMPTY]
    cells = _cell_lab(crops)
    m = CENTRE_MARGIN
    centres = cells[:, m:-m, m:-m].reshape(len(cells), -1, 3)
    faces = _lighter_halves(centres, letters)
    squares = np.full((len(centres), 3), np.nan, np.float32)
    squares[empties] = np.median(centres[empties], axis=1)

    def colours(k: int) -> tuple[NDArray[np.float32], NDArray[np.float32]] | None:
        """The tiles' colour and the colour of the empty squares of cell ``k``'s kind, near it."""
        near = _near(k)
        kind = _KIND == _KIND[k]
        tiles = _references([letters], near)
        empty = _references([sure & empties & kind, empties & kind], near)
        if tiles is None or empty is None:
            return None
        return np.median(faces[tiles], axis=0), np.median(squares[empty], axis=0)

    to_empty, to_blank = [], []
    for k in blanks.tolist():
        found = colours(k)
        if found is not None and _tile_share(cells[k], *found) < MIN_TILE_SHARE:
            to_empty.append(k)
    for k in maybe.tolist():  # a cream blank on a cream square: the classifier leans to empty
        found = colours(k)
        if (
            found is not None
            and _tile_share(cells[k], *found) >= MIN_BLANK_SHARE
            and _squares_unlike_tiles(cells, _sure_squares_near(k, sure & empties), *found)
        ):
            to_blank.append(k)
    out = _moved(probabilities, to_empty, BLANK, EMPTY)
    return _moved(out, to_blank, EMPTY, BLANK)


def _beyond_the_set(probabilities: NDArray[np.float32]) -> bool:
    """A set has two blanks (C.10). More blank readings than ``MAX_BLANKS`` and than
    ``MAX_BLANK_SHARE`` of the lettered readings say that the classifier takes this board's
    squares for blanks (white squares under white tiles, a design it never saw)."""
    best = probabilities.argmax(axis=1)
    lettered = int((~np.isin(best, _NOT_LETTERS)).sum())
    return int((best == INDEX[BLANK]).sum()) > max(MAX_BLANKS, MAX_BLANK_SHARE * lettered)


def _blanks_beyond_the_set(probabilities: NDArray[np.float32]) -> NDArray[np.float32]:
    """On a board read ``_beyond_the_set``, only the ``MAX_BLANKS`` surest blank readings stay
    blanks, the others are empty squares."""
    if not _beyond_the_set(probabilities):
        return probabilities
    blanks = np.flatnonzero(probabilities.argmax(axis=1) == INDEX[BLANK])
    surest_first = blanks[np.argsort(-probabilities[blanks, INDEX[BLANK]], kind="stable")]
    return _moved(probabilities, surest_first[MAX_BLANKS:].tolist(), BLANK, EMPTY)


def _unsure_blanks_emptied(probabilities: NDArray[np.float32], blanks: NDArray[np.intp]) -> NDArray[np.float32]:
    """A board without one lettered tile shows no tile colour to judge a blank by. A blank is one
    of a play's tiles (C.10: two blanks in a set of 100), laid with lettered tiles (a first play
    of blanks alone is possible in principle, never seen), so a blank read there with less than
    ``SURE`` is a pale empty square (the salmon double-word squares of an empty green board)."""
    return _moved(probabilities, blanks[probabilities[blanks].max(axis=1) < SURE].tolist(), BLANK, EMPTY)


def _moved(probabilities: NDArray[np.float32], cells: list[int], source: str, target: str) -> NDArray[np.float32]:
    """``probabilities`` with the ``source`` probability of ``cells`` added to ``target`` (none lost):
    a new array, or the same one when ``cells`` is empty."""
    if not cells:
        return probabilities
    out = probabilities.copy()
    out[cells, INDEX[target]] += out[cells, INDEX[source]]
    out[cells, INDEX[source]] = 0.0
    return out


def _near(k: int) -> NDArray[np.bool_]:
    """The cells within ``RADIUS`` rows and columns of cell ``k``."""
    return np.asarray(np.abs(_ROW_COL - _ROW_COL[k]).max(axis=1) <= RADIUS)


def _sure_squares_near(k: int, sure_empty: NDArray[np.bool_]) -> NDArray[np.intp]:
    """The other cells of cell ``k``'s kind within ``RADIUS`` of it that are read surely empty."""
    others = np.flatnonzero(sure_empty & (_KIND == _KIND[k]) & _near(k))
    return np.asarray(others[others != k], np.intp)


def _squares_unlike_tiles(
    cells: NDArray[np.float32], others: NDArray[np.intp], tile: NDArray[np.float32], square: NDArray[np.float32]
) -> bool:
    """At least ``MIN_SQUARES`` squares ``others`` and nearly all of them (90th percentile) show the
    tiles' colour in at most ``MAX_SQUARE_SHARE`` of their pixels: the colours tell a tile from them."""
    if len(others) < MIN_SQUARES:
        return False
    shares = [_tile_share(cells[j], tile, square) for j in others.tolist()]
    return float(np.percentile(shares, 90)) <= MAX_SQUARE_SHARE


def _cell_lab(crops: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Every ``STRIDE``-th pixel of the cells without their context, as Lab with lightness
    weighed down: ``225 x CELL_PX / STRIDE x CELL_PX / STRIDE x 3`` float."""
    inside = slice(CONTEXT_PX, CONTEXT_PX + CELL_PX, STRIDE)
    cells = np.ascontiguousarray(crops[:, inside, inside])
    side = cells.shape[1]
    lab = cv2.cvtColor(cells.reshape(-1, side, 3), cv2.COLOR_BGR2Lab).reshape(-1, side, side, 3)
    return lab.astype(np.float32) * np.array([LIGHTNESS_WEIGHT, 1.0, 1.0], np.float32)


def _lighter_halves(centres: NDArray[np.float32], chosen: NDArray[np.bool_]) -> NDArray[np.float32]:
    """Per chosen cell (``N x pixels x 3``), the median colour of the lighter half of its pixels
    (a tile's face, not its ink); NaN elsewhere."""
    faces = np.full((len(centres), 3), np.nan, np.float32)
    if chosen.any():
        pixels = centres[chosen]
        order = np.argsort(pixels[:, :, 0], axis=1)[:, pixels.shape[1] // 2 :]
        faces[chosen] = np.median(np.take_along_axis(pixels, order[:, :, None], axis=1), axis=1)
    return faces


def _references(choices: list[NDArray[np.bool_]], near: NDArray[np.bool_]) -> NDArray[np.intp] | None:
    """The cells of the first choice with enough of them near the cell, or else on the whole
    board; None when no choice has enough."""
    for chosen in choices:
        for mask in (chosen & near, chosen):
            found = np.flatnonzero(mask)
            if len(found) >= MIN_REFERENCES:
                return found
    return None


def _tile_share(cell: NDArray[np.float32], tile: NDArray[np.float32], square: NDArray[np.float32]) -> float:
    """The share of a cell's pixels (``H x W x 3``) nearer the tiles' colour than the square's."""
    pixels = cell.reshape(-1, 3)
    return float(np.mean(np.linalg.norm(pixels - tile, axis=1) < np.linalg.norm(pixels - square, axis=1)))
