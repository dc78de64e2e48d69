"""A play struck out with one line, how a player most often crosses out a play, crossed out with an X, or scrawled
through with a zigzag: illegible (D.III.20.4), the arbiter's to decide, whatever the letters under the lines still
read.

Images are ink masks (H, W), non-zero where there is ink, the writing laid along x (a word written down the board
turned across). Lengths in pixels unless said otherwise; tilts in degrees."""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

STRIKE_COVER: Final = 0.75  # of the writing's width: a straight line this long across its middle strikes it out
STRIKE_BAND: Final = (0.33, 0.67)  # where that line runs, in fractions of the writing's height from its top
STRIKE_SLOPE: Final = 5  # px: a line that drifts this many rows is still straight
STRIKE_GAP: Final = 2  # px: a gap in the line this wide is closed
STRIKE_LENGTH: Final = 1.3  # writing heights, at least, for a level line: a narrow word's one crossbar is no strike
STRIKE_TILTS: Final = (0, 2, -2, 4, -4, 6, -6, 8, -8, 10, -10, 12, -12)  # the lines looked for, degrees off level
STRIKE_LENGTH_TILTED: Final = 1.6  # writing heights, at least, for a tilted line (twelve more looks, a longer line)
STRIKE_CLEAR: Final = 0.03  # of the line's length, at least: where nothing but the line is written (between letters)
STRIKE_HALF: Final = 0.15  # of the writing's height: the line's half-thickness, where other ink is not looked for
CROSS_RUN: Final = 0.7  # of the writing's width: an unbroken line along each diagonal of its box crosses it out (X)
CROSS_REACH: Final = 0.15  # of the writing's height: how far from a diagonal an X's line is followed
THROUGH_BAND: Final = 0.35  # of the writing's height either side of its middle: where a line scrawled through it runs
THROUGH_RUN: Final = 0.8  # of the writing's width: an unbroken line that long in that band scrawls the word out
THROUGH_STEP: Final = 2  # px a column such a line may rise or fall (a zigzag's strokes are steep)
THROUGH_WIDE: Final = 1.5  # writing heights, at least, of a word so judged: the two letters of a narrower one may touch


def marked_out(ink: np.ndarray) -> bool:
    """Whether the writing is struck out with one line (``struck_out``), crossed out with an X (``crossed_out``)
    or scrawled through with a zigzag (``scrawled_through``): any of the ways a player spoils a play with the
    pen, each illegible (D.III.20.4)."""
    mask = (ink > 0).astype(np.uint8)
    return struck_out(mask) or crossed_out(mask) or scrawled_through(mask)


def struck_out(ink: np.ndarray) -> bool:
    """Whether one straight run of ink, level or tilted by one of ``STRIKE_TILTS``, crosses ``STRIKE_COVER`` of
    the writing's width, in ``STRIKE_BAND`` of its height, long enough (``STRIKE_LENGTH``,
    ``STRIKE_LENGTH_TILTED``), with paper above and below it somewhere along it (``STRIKE_CLEAR``).

    A player strikes the whole play out; letters that touch join only some neighbours, a letter open in the middle
    (O, C, D, U...) breaks any such run, and a bold word whose letters run together leaves no paper beside it. On
    2,499 written words (calibration hands and training fonts) none passed; 444 level strikes and 222 tilted 4-12
    degrees were all caught (models/slips/MODEL_CARD.md, nineteenth revision)."""
    mask = (ink > 0).astype(np.uint8)
    return any(_straight_strike(_sheared(mask, tilt), STRIKE_LENGTH_TILTED if tilt else STRIKE_LENGTH)
               for tilt in STRIKE_TILTS)  # fmt: skip


def _sheared(mask: np.ndarray, tilt: float) -> np.ndarray:
    """``mask`` sheared along y so that a line ``tilt`` degrees off level lies level (columns kept whole)."""
    if not tilt:
        return mask
    slope = float(np.tan(np.deg2rad(tilt)))
    height, width = mask.shape
    extra = int(np.ceil(abs(slope) * width))
    shear = np.float32([[1, 0, 0], [-slope, 1, extra if slope > 0 else 0]])
    return cv2.warpAffine(mask, shear, (width, height + extra), flags=cv2.INTER_NEAREST)


def _straight_strike(mask: np.ndarray, length: float) -> bool:
    """The test of ``struck_out`` for a level line in ``mask`` (uint8 0/1), ``length`` writing heights long."""
    columns, rows = np.flatnonzero(mask.sum(axis=0) > 1), np.flatnonzero(mask.sum(axis=1) > 1)
    if len(columns) == 0 or len(rows) == 0:  # nothing written, or one hair-thin mark
        return False
    top, bottom = int(rows[0]), int(rows[-1])
    width, height = int(columns[-1] - columns[0] + 1), max(8, bottom - top + 1)
    level = cv2.morphologyEx(cv2.dilate(mask, np.ones((STRIKE_SLOPE, 1), np.uint8)), cv2.MORPH_CLOSE,
                             np.ones((1, STRIKE_GAP + 1), np.uint8))  # fmt: skip
    low, high = (top + round(f * (bottom - top)) for f in STRIKE_BAND)
    runs = [(y, _longest_run(level[y])) for y in range(low, high + 1)]
    y, run = max(runs, key=lambda found: found[1][1] - found[1][0])
    if run[1] - run[0] < max(STRIKE_COVER * width, length * height):
        return False
    half = max(3, int(STRIKE_HALF * height))
    beside = mask[top : bottom + 1, run[0] : run[1]].copy()
    beside[max(0, y - top - half) : y - top + half + 1] = 0
    return float((~beside.any(axis=0)).mean()) >= STRIKE_CLEAR


def _longest_run(row: np.ndarray) -> tuple[int, int]:
    """The longest run of non-zero pixels in ``row`` (1-D): (start, end), end exclusive; (0, 0) when none."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], (row > 0).astype(np.int8), [0]])))
    if not len(edges):
        return 0, 0
    k = int(np.argmax(edges[1::2] - edges[0::2]))
    return int(edges[2 * k]), int(edges[2 * k + 1])


def crossed_out(ink: np.ndarray) -> bool:
    """Whether the writing is crossed out with an X: along each diagonal of the writing's box, one unbroken line of
    ink (within ``CROSS_REACH`` of the writing's height of the diagonal, rising or falling at most a pixel a column)
    across ``CROSS_RUN`` of the box's width. Written letters break any such line, between them and inside them; a
    letter's own diagonal crosses one letter, not the word. On calibration hands and fonts 1 written word of 2,499
    passed (a tight calibration face) and no written absolute board of 1,495; of X's drawn as a hand draws them
    (``synthetic.cross_out``) it caught 96 % in word boxes, and with ``struck_out`` 98.5 % on boards
    (models/slips/MODEL_CARD.md, twentieth revision)."""
    mask = (ink > 0).astype(np.uint8)
    extent = _writing_box(mask)
    if extent is None:
        return False
    left, right, top, bottom = extent
    box = mask[top : bottom + 1, left : right + 1]
    slope, height = (bottom - top) / max(1, right - left), bottom - top
    return all(_unbroken_path(_sheared_about(box, sign * slope), CROSS_REACH * height) >= CROSS_RUN * box.shape[1]
               for sign in (1, -1))  # fmt: skip


def _writing_box(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """(left, right, top, bottom), inclusive, of the columns and rows of ``mask`` holding more than one pixel of
    ink; None when fewer than two of either do (nothing written, or one hair-thin mark)."""
    columns, rows = np.flatnonzero(mask.sum(axis=0) > 1), np.flatnonzero(mask.sum(axis=1) > 1)
    if len(columns) < 2 or len(rows) < 2:
        return None
    return int(columns[0]), int(columns[-1]), int(rows[0]), int(rows[-1])


def _sheared_about(box: np.ndarray, slope: float) -> np.ndarray:
    """``box`` sheared along y so that its diagonal of ``slope`` (rows per column; > 0 falling) runs level through
    its middle row."""
    height, width = box.shape
    shear = np.float32([[1, 0, 0], [-slope, 1, slope * (width - 1) / 2]])
    return cv2.warpAffine(box, shear, (width, height), flags=cv2.INTER_NEAREST)


def _unbroken_path(mask: np.ndarray, reach: float, step: int = 1) -> int:
    """The most columns an unbroken path of ink crosses in ``mask``, left to right, within ``reach`` rows of its
    middle row and moving at most ``step`` rows a column (dynamic programming over the rows)."""
    middle = mask.shape[0] // 2
    band = mask[max(0, middle - int(reach)) : middle + int(reach) + 1].astype(np.int32)
    run = band[:, 0].copy()
    longest = int(run.max())
    for column in range(1, band.shape[1]):
        reached = run.copy()
        for shift in range(1, step + 1):
            reached = np.maximum(reached, np.maximum(np.r_[run[shift:], [0] * shift], np.r_[[0] * shift, run[:-shift]]))
        run = np.where(band[:, column] > 0, reached + 1, 0)
        longest = max(longest, int(run.max()))
    return longest


def scrawled_through(ink: np.ndarray) -> bool:
    """Whether one unbroken line runs through the middle of the writing from end to end, however it wavers: a
    zigzag or a wavy line scrawled along the word. The line stays within ``THROUGH_BAND`` of the writing's middle,
    rises or falls at most ``THROUGH_STEP`` px a column, and crosses ``THROUGH_RUN`` of the width. Only writing at
    least ``THROUGH_WIDE`` heights wide is judged: the letters of a word do not all touch in its middle, those of
    a narrow two-letter word may. On 1,600 written words of calibration hands none passed, and 3 of 600 by
    training faces (OH, SEGO, DEL: bold letters that touch); none of 900 written absolute boards. With the X and
    strike tests it caught 97-98 % of zigzags (``synthetic.scrawl_through``) in word boxes (74 % with the first
    bounds, a band of 0.3 and 2.5 heights) and 74 % on boards (65 %) (models/slips/MODEL_CARD.md, twenty-first
    revision)."""
    mask = (ink > 0).astype(np.uint8)
    extent = _writing_box(mask)
    if extent is None:
        return False
    left, right, top, bottom = extent
    width, height = right - left + 1, bottom - top
    if width < THROUGH_WIDE * max(1, height):
        return False
    middle = (top + bottom) // 2
    band = mask[middle - int(THROUGH_BAND * height) : middle + int(THROUGH_BAND * height) + 1, left : right + 1]
    return _unbroken_path(band, band.shape[0] / 2, THROUGH_STEP) >= THROUGH_RUN * width
