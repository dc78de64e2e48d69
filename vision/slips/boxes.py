"""What a slip's play boxes show: whether anything is written in a box at all, the rows of writing in a box, the part
left visible after a correction (the play given up clearly crossed out beside, above or below the one that stands,
D.III.20.2), and whether the play is spoilt (a blot, or the play crossed out with no other: illegible, D.III.20.4).

Images are grey crops of a box (H, W), uint8, dark ink on light paper, at ``layout.PX_PER_MM``; rows and columns in
pixels."""

from __future__ import annotations

import itertools
from typing import Final

import cv2
import numpy as np

from . import layout, light
from .lineimage import ink_of
from .spoilt import default_spoilt_net
from .strikes import (
    coordinate_crossed_out,
    coordinate_struck_out,
    marked_out,
    struck_before_gap,
    struck_in_part,
)

BLOT_RADIUS: Final = 0.2  # of a box's height: ink this thick is a blot (``blotted``); pen strokes reached 0.126 on 480
#                          calibration slips (fonts, real characters, UNIPEN writers), blots 0.27 or more
LOW_ROW: Final = 0.12  # of a box's height: a short play written small under a row given up is a row from this high
ROW_GAP: Final = 3  # px: pixel rows with little ink inside such a row (its letters' thin tops), closed
WORD_SPOILT: Final = 0.5  # the spoilt-box network's probability from which a word box is crossed out ...
MARK_CONTRAST: Final = 24.0  # grey levels under the paper: the faintest mark counted as a pen's (the reader reads
#                               less than ``lineimage.INK_FLOOR``, 45, as paper; the simulated scanner's noise, smoothed,
#                               reached 13 in empty boxes of 100 scans)
MARK_MM: Final = 1.0  # a pen's mark spans at least this, across or down; a scanner's specks and dust less
COORDINATE_SPOILT: Final = 0.98  # ... and a coordinate box, which every slip fills (chosen on calibration hands:
#                                  clean boxes reached 0.33 and 0.86, spoilt ones 0.73 and 0.997 at the least)


def marked(gray: np.ndarray, paper: float) -> bool:
    """Whether a box holds any mark of a pen: a stroke ``MARK_CONTRAST`` darker than ``paper`` (the slip's paper
    grey, measured outside the box: a box inked all over has no paper of its own), ``MARK_MM`` long or more.
    A box without one has nothing written in it, not even a faint digit. A dark band longer than the box is high,
    every way, is a shadow a phone's photo left, not a mark (``light.short_marks_lifted``)."""
    smooth = cv2.GaussianBlur(gray, (0, 0), 0.7).astype(np.float32)
    lifted = light.short_marks_lifted(gray, gray.shape[0])  # a shadow band across the box is no mark
    ink = (np.minimum(paper, lifted) - smooth >= MARK_CONTRAST).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    span = MARK_MM * layout.PX_PER_MM
    return any(max(stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]) >= span for i in range(1, count))


def blotted(gray: np.ndarray) -> bool:
    """Whether a box holds a blot of ink: solid ink whose inscribed circle has a radius of ``BLOT_RADIUS`` of the
    box's height or more, where no pen stroke comes near. A blot hides letters, and those left may spell another
    legal play (`E10 ÑENGO` blotted reads ÑO): the slip is illegible (D.III.20.4), the arbiter's to decide."""
    ink = (ink_of(gray) > 0.4).astype(np.uint8)
    if not ink.any():
        return False
    return float(cv2.distanceTransform(ink, cv2.DIST_L2, 5).max()) >= BLOT_RADIUS * gray.shape[0]


def struck(gray: np.ndarray) -> bool:
    """Whether the writing in a box is struck out with one line, crossed out with an X or scrawled through with a
    zigzag (``strikes.marked_out``). The line recogniser skips a long level line as a printed rule and reads the
    letters under an X or a zigzag: the slip is illegible (D.III.20.4)."""
    return marked_out(ink_of(gray) > 0.35)


def visible_part(gray: np.ndarray) -> np.ndarray:
    """The word box without a play given up: a row crossed out above or below the row that stands
    (``visible_row``), then a first word struck out beside the play written after it (``strikes.struck_in_part``,
    else ``strikes.struck_before_gap``): a correction, the play given up clearly crossed out and the one that stands
    left visible (D.III.20.2); the whole box otherwise."""
    gray = visible_row(gray)
    ink = ink_of(gray) > 0.35
    start = struck_in_part(ink)
    if start is None:  # a short word struck, its line short beside the correction's height
        start = struck_before_gap(ink)
    return gray if start is None else gray[:, start:]


def visible_coordinate(gray: np.ndarray) -> np.ndarray:
    """The coordinate box without a coordinate given up: a row crossed out above or below the row that stands
    (``visible_row``), then a coordinate struck out before the one written after it (``strikes.struck_before_gap``):
    a coordinate given up, most often written in the wrong order (D.III.25.c), and corrected, the one that stands
    left visible (D.III.20.2); the whole box otherwise."""
    gray = visible_row(gray)
    start = struck_before_gap(ink_of(gray) > 0.35)
    return gray if start is None else gray[:, start:]


def play_spoilt(whole_word: np.ndarray, word: np.ndarray, coordinate: np.ndarray | None = None,
                whole_coordinate: np.ndarray | None = None, *, network: bool = True) -> bool:  # fmt: skip
    """Whether the play written in a slip's boxes is spoilt (D.III.20.4): a blot anywhere in the coordinate box
    (``whole_coordinate``; ``coordinate`` when not given) or the word box (``whole_word``), the word box struck out
    whole unless it holds a row crossed out above or below the row that stands (``visible_row``: a correction; a line
    of its X may run across the middle of the two rows, and the row that stands is not struck), the coordinate box,
    with no correction in it, struck out with one line or crossed out with an X
    (``strikes.coordinate_struck_out``, ``coordinate_crossed_out``: the new coordinate written elsewhere is the
    arbiter's to read), or the ``word`` or ``coordinate`` left visible after a correction (``visible_part``,
    ``visible_coordinate``) struck out too. With a coordinate box, a box with no correction found in it is also
    judged by the spoilt-box network (``spoilt``, ``WORD_SPOILT``, ``COORDINATE_SPOILT``): it sees a zigzag over a
    coordinate, which the rules take for a written M or N, and one over two letters whose path bends with them
    (``network`` False: the rules alone)."""
    if blotted(whole_word) or (word is not whole_word and struck(word)):
        return True
    judged = network and coordinate is not None and word is whole_word  # it knows a slip's two boxes, whole
    crossed = struck(whole_word) or (judged and _looks_spoilt(whole_word, WORD_SPOILT))
    if crossed and visible_row(whole_word) is whole_word:
        return True
    if coordinate is None:
        return False
    whole_coordinate = coordinate if whole_coordinate is None else whole_coordinate
    if blotted(whole_coordinate):
        return True
    if coordinate is not whole_coordinate:  # corrected: the coordinate left visible
        return struck(coordinate)
    mask = ink_of(coordinate) > 0.35
    ruled = coordinate_struck_out(mask) or coordinate_crossed_out(mask)
    return ruled or (network and _looks_spoilt(coordinate, COORDINATE_SPOILT))


def _looks_spoilt(gray: np.ndarray, least: float) -> bool:
    """Whether the spoilt-box network gives a box with writing in it (``text_rows``) at least ``least``: it was
    trained on written boxes only, and a box with nothing written in it is not crossed out."""
    return text_rows(gray) > 0 and default_spoilt_net().probability(gray) >= least


def text_rows(gray: np.ndarray) -> int:
    """How many separate rows of writing a box holds (two rows: two plays written, D.III.20.2)."""
    return len(_text_bands(gray))


def _text_bands(gray: np.ndarray, least: float = 0.2, share: float = 0.5, gap: int = 0) -> list[tuple[int, int]]:
    """The rows of writing in a box, top first: (first, end) pixel rows each, end exclusive.

    A row is a band of inked pixel rows at least ``least`` of the box high and at least ``share`` of the tallest
    band: the tilde of an Ñ, drawn apart above its N, is a band of its own but a low one. Runs of up to ``gap``
    pixel rows with little ink inside a band are closed (the thin tops of a short word's letters).
    """
    ink = ink_of(gray) > 0.4
    profile = list(ink.sum(axis=1) > max(2, 0.01 * ink.shape[1]))
    inked = [row for row, on in enumerate(profile) if on]
    for above, below in itertools.pairwise(inked):
        if 1 < below - above <= gap + 1:
            profile[above + 1 : below] = [True] * (below - above - 1)
    bands, run = [], 0
    for row, on in enumerate(profile + [False]):
        if on:
            run += 1
        else:
            if run >= least * len(profile):
                bands.append((row - run, row))
            run = 0
    tallest = max((end - first for first, end in bands), default=0)
    return [(first, end) for first, end in bands if end - first >= share * tallest]


def visible_row(gray: np.ndarray) -> np.ndarray:
    """A box of two rows of writing, one crossed out (``struck``: a line, an X or a zigzag) and the other not: the
    row that stands, cut at the middle of the paper between them (a correction written above or below the play
    given up, D.III.20.2) and enlarged to the box's height, so that its writing is the size the strike tests and the
    recogniser expect of a box; the whole box otherwise (two rows both standing are two plays, ``text_rows``). Under
    a single row, a lower one counts too (``LOW_ROW`` high, gaps of ``ROW_GAP`` closed): a short play written small
    under the word given up is lower than that word and its X, and an Ñ's tilde is never under its letter."""
    bands = _text_bands(gray)
    if len(bands) == 1:  # a short play written small under the row given up: lower than that row and its X
        under = _text_bands(gray, LOW_ROW, 0.0, ROW_GAP)
        bands = under if len(under) == 2 and under[0][0] <= bands[0][0] < under[0][1] else bands
    if len(bands) != 2:
        return gray
    cut = (bands[0][1] + bands[1][0]) // 2
    top, bottom = (_to_height(part, gray.shape[0]) for part in (gray[:cut], gray[cut:]))
    top_struck, bottom_struck = struck(top), struck(bottom)
    if top_struck == bottom_struck:
        return gray
    return bottom if top_struck else top


def _to_height(gray: np.ndarray, height: int) -> np.ndarray:
    """``gray`` resized to ``height`` rows, its width in proportion."""
    width = max(1, round(gray.shape[1] * height / max(1, gray.shape[0])))
    return cv2.resize(gray, (width, height), interpolation=cv2.INTER_LINEAR)
