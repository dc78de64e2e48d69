"""A play struck out with one line, how a player most often crosses out a play: illegible (D.III.20.4), the
arbiter's to decide, whatever the letters under the line still read.

Images are ink masks (H, W), non-zero where there is ink, the writing laid level (a word written down the board
turned across). Lengths in pixels unless said otherwise."""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

STRIKE_COVER: Final = 0.75  # of the writing's width: a level line this long across its middle strikes it out
STRIKE_BAND: Final = (0.33, 0.67)  # where that line runs, in fractions of the writing's height from its top
STRIKE_SLOPE: Final = 5  # px: a line that drifts this many rows is still level
STRIKE_GAP: Final = 2  # px: a gap in the line this wide is closed
STRIKE_LENGTH: Final = 1.3  # writing heights, at least: a narrow word's one crossbar is not a strike


def struck_out(ink: np.ndarray) -> bool:
    """Whether one level run of ink (``STRIKE_SLOPE`` of drift and ``STRIKE_GAP`` gaps allowed) crosses
    ``STRIKE_COVER`` of the writing's width, and ``STRIKE_LENGTH`` heights, in ``STRIKE_BAND`` of its height.

    A player strikes the whole play out; letters that touch join only some neighbours, and a letter open in the
    middle (O, C, D, U...) breaks any level run. On 2,500 written words (calibration hands and training fonts)
    such runs covered at most 0.60 of a word 1.3 heights long (models/slips/MODEL_CARD.md, nineteenth revision)."""
    mask = (ink > 0).astype(np.uint8)
    columns, rows = np.flatnonzero(mask.sum(axis=0) > 1), np.flatnonzero(mask.sum(axis=1) > 1)
    if len(columns) == 0 or len(rows) == 0:  # nothing written, or one hair-thin mark
        return False
    top, bottom = int(rows[0]), int(rows[-1])
    width, height = int(columns[-1] - columns[0] + 1), max(8, bottom - top + 1)
    level = cv2.morphologyEx(cv2.dilate(mask, np.ones((STRIKE_SLOPE, 1), np.uint8)), cv2.MORPH_CLOSE,
                             np.ones((1, STRIKE_GAP + 1), np.uint8))  # fmt: skip
    low, high = (top + round(f * (bottom - top)) for f in STRIKE_BAND)
    longest = max(_longest_run(level[y]) for y in range(low, high + 1))
    return longest >= STRIKE_COVER * width and longest >= STRIKE_LENGTH * height


def _longest_run(row: np.ndarray) -> int:
    """The length of the longest run of non-zero pixels in ``row`` (1-D)."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], (row > 0).astype(np.int8), [0]])))
    return int((edges[1::2] - edges[0::2]).max()) if len(edges) else 0
