"""A play struck out with one line, how a player most often crosses out a play, crossed out with an X, or scrawled
through with a zigzag: illegible (D.III.20.4), the arbiter's to decide, whatever the letters under the lines still
read. A first word struck out with the play written after it is a correction, not a spoilt play
(``struck_in_part``): the play left visible is read (D.III.20.2).

Images are ink masks (H, W), non-zero where there is ink, the writing laid along x (a word written down the board
turned across). Lengths in pixels unless said otherwise; tilts in degrees."""

from __future__ import annotations

from collections.abc import Iterator
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
THROUGH_SWINGS: Final = 2  # times, at least, such a line crosses the writing's middle row: it swings, touching letters do not
THROUGH_WIDE: Final = 1.5  # writing heights, at least, of a word so judged: the two letters of a narrower one may touch
# narrower writing (two letters) is judged stricter: the line runs across it all, in a few straight strokes
NARROW_RUN: Final = 0.95  # of the writing's width: the line runs from end to end
NARROW_STROKES: Final = 3  # straight strokes, at most, of a zigzag over two letters (a turn every 0.4 heights or more)
NARROW_STRAIGHT: Final = 0.028  # writing heights: the line's rows off those strokes (RMS), at most; letters bend
COORDINATE_STRIKE: Final = (1.9, 2.2)  # writing heights, at least, of a level and a tilted line struck out through a
#                                       coordinate: its 4's and H's crossbars, joined to the next character, reach 1.6
COORDINATE_CROSS_STRAIGHT: Final = 0.034  # writing heights: each line of an X over a coordinate lies this close to a
#                                           straight one (RMS), at most; a path round a D's or an 8's bowl bends
PART_CROSSED: Final = 0.3  # of a partial strike's length, at least: where it crosses a letter's other strokes
PAST_END: Final = 0.1  # writing heights: a line struck past a coordinate's ends crosses nothing for this long at each
#                        end, and leaves no more of the writing beyond it
PAST_TILT: Final = 10  # degrees off level, at most, of such a line: a 4's slanted crossbar into an H's may pass at 12
PART_GAP: Final = 0.2  # writing heights of paper, at least, between the struck word and the play after it
PART_REST: Final = 1.0  # writing heights, at least, written after a struck first word: the play that stands


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
    degrees were all caught (models/slips/HISTORY.md, nineteenth revision)."""
    return _struck_through((ink > 0).astype(np.uint8), STRIKE_LENGTH, STRIKE_LENGTH_TILTED)


def _struck_through(mask: np.ndarray, level: float, tilted: float, crossed: float = 0.0) -> bool:
    """``_straight_strike`` for a line level (``level`` writing heights long at least) or tilted by one of
    ``STRIKE_TILTS`` (``tilted`` heights), crossing letters along ``crossed`` of it or more."""
    return any(_straight_strike(_sheared(mask, tilt), tilted if tilt else level, crossed) for tilt in STRIKE_TILTS)


def struck_in_part(ink: np.ndarray) -> int | None:
    """Where the writing left visible begins (a column of ``ink``) when its first word is struck out with one line
    and a play is written after it, past a gap (a correction beside the play given up); None when not so.

    The line is one straight run of ink, level or tilted by one of ``STRIKE_TILTS``, in ``STRIKE_BAND`` of the
    writing's height, from the writing's first columns (within ``STRIKE_HALF`` of its height) and as long as a
    strike (``STRIKE_LENGTH``, ``STRIKE_LENGTH_TILTED``). It crosses letters (ink above or below it along at least
    ``PART_CROSSED`` of it) with paper between them (``STRIKE_CLEAR``), and stops before writing that goes on
    after a column of paper for at least ``PART_REST`` heights: a word's arrow starts no word, a crossbar is no
    strike's length. ``PART_GAP`` heights of paper, at least, lie between the two: a gap between letters is not a
    gap between words. On 2,200 written words (calibration hands, training faces) none passed; of 300 corrections
    by calibration hands 267 were found (models/slips/HISTORY.md, twenty-second revision)."""
    mask = (ink > 0).astype(np.uint8)
    for tilt in STRIKE_TILTS:
        start = _partial_strike(_sheared(mask, tilt), STRIKE_LENGTH_TILTED if tilt else STRIKE_LENGTH)
        if start is not None:
            return start
    return None


def struck_before_gap(ink: np.ndarray) -> int | None:
    """Where the writing left visible begins (a column of ``ink``, the first inked after the gap) when the writing
    before a gap of paper, judged on its own, is struck out with one line and more is written after the gap: a
    short play given up (a coordinate written in the wrong order) corrected beside it. Such a strike is short beside
    the correction's height, and ``struck_in_part``, which measures it against the whole writing, misses it. None
    when not so.

    A gap is a run of paper columns at least ``PART_GAP`` of the height of the writing before it, with writing
    ``PART_REST`` of its own height wide after it; the writing before it is struck when one straight line, level
    or tilted by one of ``STRIKE_TILTS``, crosses ``STRIKE_COVER`` of its width in its ``STRIKE_BAND``, as long as
    a strike (``STRIKE_LENGTH``, ``STRIKE_LENGTH_TILTED`` of its height), crossing its letters along
    ``PART_CROSSED`` of the line with paper between them (``STRIKE_CLEAR``). On calibration hands: 383 of 400
    coordinate corrections found (229 by ``struck_in_part``), and 1 of 12,000 written coordinates (a crossed 7
    before a K) and 3 of 11,200 written words (a flat X, Y or script J before the next letter) taken for one
    (models/slips/HISTORY.md, twenty-fourth revision)."""
    mask = (ink > 0).astype(np.uint8)
    extent = _writing_box(mask)
    if extent is None:
        return None
    inked = mask.sum(axis=0) > 1
    for gap, after in _paper_runs(inked[: extent[1] + 1], extent[0]):
        before_box, after_box = _writing_box(mask[:, :gap]), _writing_box(mask[:, after:])
        if before_box is None or after_box is None:
            continue
        if after - gap < PART_GAP * _height(before_box) or _width(after_box) < PART_REST * _height(after_box):
            continue
        if _struck_through(mask[:, :gap], STRIKE_LENGTH, STRIKE_LENGTH_TILTED, PART_CROSSED):
            return after
    return None


def _paper_runs(inked: np.ndarray, start: int) -> list[tuple[int, int]]:
    """The runs of columns without ink in ``inked`` (one bool a column) from ``start`` on, between inked columns:
    (first, end) each, end exclusive."""
    edges = np.flatnonzero(np.diff(inked[start:].astype(np.int8))) + start + 1
    return [(int(a), int(b)) for a, b in zip(edges[0::2], edges[1::2])]


def _height(box: tuple[int, int, int, int]) -> int:
    """Rows of a ``_writing_box`` (left, right, top, bottom; inclusive)."""
    return box[3] - box[2] + 1


def _width(box: tuple[int, int, int, int]) -> int:
    """Columns of a ``_writing_box`` (left, right, top, bottom; inclusive)."""
    return box[1] - box[0] + 1


def _partial_strike(mask: np.ndarray, length: float) -> int | None:
    """The test of ``struck_in_part`` for a level line in ``mask`` (uint8 0/1): the first column of the writing
    after the struck part, or None."""
    band = _band_runs(mask)
    if band is None:
        return None
    (left, right, top, bottom), height, runs = band
    inked = mask.sum(axis=0) > 1
    for y, (begin, end) in runs:
        if begin > left + STRIKE_HALF * height or end - begin < length * height:
            continue
        paper = np.flatnonzero(~inked[end:])
        if not len(paper):
            continue
        gap, rest = end + int(paper[0]), np.flatnonzero(inked[end + int(paper[0]) :])
        if not len(rest) or right - (gap + int(rest[0])) < PART_REST * height or rest[0] < PART_GAP * height:
            continue
        others = _off_the_line(mask[top : bottom + 1, begin:end], y - top, height)
        if float(others.mean()) >= PART_CROSSED and float((~others).mean()) >= STRIKE_CLEAR:
            return gap
    return None


def _band_runs(mask: np.ndarray) -> tuple[tuple[int, int, int, int], int, list[tuple[int, tuple[int, int]]]] | None:
    """The writing's box (``_writing_box``), its height in px (8 at least), and for each row of ``STRIKE_BAND`` the
    longest level run of ink (``_longest_run``), gaps of ``STRIKE_GAP`` closed and a drift of ``STRIKE_SLOPE``
    rows allowed; None when nothing is written."""
    extent = _writing_box(mask)
    if extent is None:
        return None
    top, bottom = extent[2], extent[3]
    level = cv2.morphologyEx(cv2.dilate(mask, np.ones((STRIKE_SLOPE, 1), np.uint8)), cv2.MORPH_CLOSE,
                             np.ones((1, STRIKE_GAP + 1), np.uint8))  # fmt: skip
    low, high = (top + round(f * (bottom - top)) for f in STRIKE_BAND)
    return extent, max(8, bottom - top + 1), [(y, _longest_run(level[y])) for y in range(low, high + 1)]


def coordinate_struck_out(ink: np.ndarray) -> bool:
    """Whether a coordinate is struck out with one line: ``struck_out``'s test with the line at least
    ``COORDINATE_STRIKE`` writing heights long and crossing its characters along ``PART_CROSSED`` of it. A
    coordinate's two or three characters are short, and a 4's or an H's crossbar joined to the next character passes
    ``struck_out`` (20 of 5,600 written coordinates by calibration hands and training faces). With these bounds: 1
    and 0 of two such sets of 5,600, and 619 and 619 of 800 struck coordinates (models/slips/HISTORY.md,
    twenty-fourth revision). An X over a coordinate: ``coordinate_crossed_out``. A zigzag over one is not judged:
    its test fires on 0.3 % of written coordinates, and no bound tried kept most zigzags and no written one.

    A shorter line (``struck_out``'s lengths) strikes it out too when it is struck past the characters at both ends
    (``_past_ends``, tilted ``PAST_TILT`` degrees at most), as a player strikes a coordinate out: a crossbar
    joined to the next character ends at a character. With it, 1 and 0 written coordinates of those sets, and 719
    and 726 of 800 struck ones (models/slips/HISTORY.md, twenty-fifth revision)."""
    mask = (ink > 0).astype(np.uint8)
    for tilt in STRIKE_TILTS:
        line = _level_line(_sheared(mask, tilt), STRIKE_LENGTH_TILTED if tilt else STRIKE_LENGTH)
        if line is None:
            continue
        others, _, height = line
        if len(others) >= COORDINATE_STRIKE[1 if tilt else 0] * height and _crosses(others, PART_CROSSED):
            return True
        if abs(tilt) <= PAST_TILT and _past_ends(*line):
            return True
    return False


def _off_the_line(under: np.ndarray, line: int, height: int) -> np.ndarray:
    """For each column of ``under`` (the writing's rows along a line), whether it holds ink off the line at row
    ``line`` (beyond ``STRIKE_HALF`` of the writing's ``height`` from it): a letter the line crosses."""
    half = max(3, int(STRIKE_HALF * height))
    beside = under.copy()
    beside[max(0, line - half) : line + half + 1] = 0
    return np.asarray(beside.any(axis=0))


def _sheared(mask: np.ndarray, tilt: float) -> np.ndarray:
    """``mask`` sheared along y so that a line ``tilt`` degrees off level lies level (columns kept whole)."""
    if not tilt:
        return mask
    slope = float(np.tan(np.deg2rad(tilt)))
    height, width = mask.shape
    extra = int(np.ceil(abs(slope) * width))
    shear = np.float32([[1, 0, 0], [-slope, 1, extra if slope > 0 else 0]])
    return cv2.warpAffine(mask, shear, (width, height + extra), flags=cv2.INTER_NEAREST)


def _straight_strike(mask: np.ndarray, length: float, crossed: float = 0.0) -> bool:
    """The test of ``struck_out`` for a level line in ``mask`` (uint8 0/1), ``length`` writing heights long,
    crossing letters along ``crossed`` of it or more."""
    line = _level_line(mask, length)
    return line is not None and _crosses(line[0], crossed)


def _crosses(others: np.ndarray, crossed: float) -> bool:
    """Whether a line whose columns are crossed by letters where ``others`` is true (``_level_line``) crosses them
    along ``crossed`` of it or more, with paper beside it along ``STRIKE_CLEAR`` of it."""
    return float(others.mean()) >= crossed and float((~others).mean()) >= STRIKE_CLEAR


def _past_ends(others: np.ndarray, beyond: int, height: int) -> bool:
    """Whether a line (``_level_line``) is struck past the writing at both ends: it crosses letters along
    ``PART_CROSSED`` of it, crosses none along its first and last ``PAST_END`` writing heights, and no more than
    ``PAST_END`` heights of the writing lie beyond it."""
    crossing, past = np.flatnonzero(others), PAST_END * height
    return (float(others.mean()) >= PART_CROSSED and crossing[0] >= past
            and len(others) - 1 - crossing[-1] >= past and beyond <= past)  # fmt: skip


def _level_line(mask: np.ndarray, length: float) -> tuple[np.ndarray, int, int] | None:
    """The longest level line through the middle of the writing in ``mask`` (``_band_runs``) when it covers
    ``STRIKE_COVER`` of the writing's width and ``length`` writing heights: for each of its columns whether a letter
    crosses it (``_off_the_line``), how many columns of writing lie beyond its ends, and the writing's height (px);
    None when there is no such line."""
    band = _band_runs(mask)
    if band is None:  # nothing written, or one hair-thin mark
        return None
    (left, right, top, bottom), height, runs = band
    y, (begin, end) = max(runs, key=lambda found: found[1][1] - found[1][0])
    if end - begin < max(STRIKE_COVER * (right - left + 1), length * height):
        return None
    written = np.flatnonzero(mask[top : bottom + 1].any(axis=0))
    beyond = int(np.sum(written < begin) + np.sum(written >= end))
    return _off_the_line(mask[top : bottom + 1, begin:end], y - top, height), beyond, height


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
    (``synthetic.drawn.cross_out``) it caught 96 % in word boxes, and with ``struck_out`` 98.5 % on boards
    (models/slips/HISTORY.md, twentieth revision)."""
    box = _written_part(ink)
    return box is not None and all(len(line) >= CROSS_RUN * box.shape[1] for line in _diagonal_lines(box))


def coordinate_crossed_out(ink: np.ndarray) -> bool:
    """Whether a coordinate is crossed out with an X: ``crossed_out``'s test, with each line also within
    ``COORDINATE_CROSS_STRAIGHT`` writing heights of a straight one. Two or three round characters (B4, D8, 6D) leave
    a path along their bowls from corner to corner of so small a box: 6 and 9 of two sets of 5,600 written
    coordinates by calibration hands and training faces passed ``crossed_out``, 0 and 1 pass this, and 684 and 702
    of 800 X's over a coordinate are caught (models/slips/HISTORY.md, twenty-fifth revision)."""
    box = _written_part(ink)
    if box is None:
        return False
    straight = COORDINATE_CROSS_STRAIGHT * max(1, box.shape[0] - 1)
    return all(len(line) >= CROSS_RUN * box.shape[1] and len(line) > 3 and _off_strokes(line, 1) <= straight
               for line in _diagonal_lines(box))  # fmt: skip


def _written_part(ink: np.ndarray) -> np.ndarray | None:
    """The writing's box (``_writing_box``) cut from ``ink`` as a uint8 0/1 mask; None when nothing is written."""
    mask = (ink > 0).astype(np.uint8)
    extent = _writing_box(mask)
    if extent is None:
        return None
    left, right, top, bottom = extent
    return mask[top : bottom + 1, left : right + 1]


def _diagonal_lines(box: np.ndarray) -> Iterator[np.ndarray]:
    """Along each diagonal of the writing's ``box`` (``_written_part``; falling, then rising, one at a time): the
    rows of the longest unbroken line of ink within ``CROSS_REACH`` of the writing's height of it
    (``_longest_path``, the box sheared so that the diagonal lies level)."""
    height, width = box.shape[0] - 1, box.shape[1] - 1
    for sign in (1, -1):
        yield _longest_path(_sheared_about(box, sign * height / max(1, width)), CROSS_REACH * height)


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


def _longest_path(mask: np.ndarray, reach: float, step: int = 1) -> np.ndarray:
    """The rows of ``mask`` (one a column, left to right) of the longest unbroken path of ink within ``reach`` rows
    of its middle row, moving at most ``step`` rows a column (dynamic programming over the rows, then back along
    the path); empty when no ink."""
    top = max(0, mask.shape[0] // 2 - int(reach))
    band = mask[top : mask.shape[0] // 2 + int(reach) + 1] > 0
    rows = np.arange(band.shape[0])
    run = band[:, 0].astype(np.int32)
    came_from = np.full(band.shape, -1, np.int32)
    best = (int(run.max()), 0, int(run.argmax()))
    for column in range(1, band.shape[1]):
        reached, source = run.copy(), rows.copy()
        for shift in (k * sign for k in range(1, step + 1) for sign in (1, -1)):
            moved = np.roll(run, -shift)
            if shift > 0:
                moved[-shift:] = 0
            else:
                moved[:-shift] = 0
            better = moved > reached
            reached, source = np.where(better, moved, reached), np.where(better, rows + shift, source)
        run = np.where(band[:, column], reached + 1, 0)
        came_from[:, column] = np.where(band[:, column] & (reached > 0), source, -1)
        if run.max() > best[0]:
            best = (int(run.max()), column, int(run.argmax()))
    length, column, row = best
    path = []
    while row >= 0 and len(path) < length:
        path.append(row + top)
        row, column = int(came_from[row, column]), column - 1
    return np.array(path[::-1], np.int64)


def _middle_crossings(path: np.ndarray, middle: float) -> int:
    """How many times a path (its rows) goes from one side of the row ``middle`` to the other."""
    side = np.sign(path - middle)
    side = side[side != 0]
    return int((np.diff(side) != 0).sum())


def scrawled_through(ink: np.ndarray) -> bool:
    """Whether one unbroken line runs through the middle of the writing from end to end, swinging across it: a
    zigzag or a wavy line scrawled along the word. The line stays within ``THROUGH_BAND`` of the writing's middle,
    rises or falls at most ``THROUGH_STEP`` px a column, crosses ``THROUGH_RUN`` of the width, and crosses the
    middle row ``THROUGH_SWINGS`` times or more (a path along touching letters, an O's arc into an H's crossbar,
    rarely does). On 1,600 written words of calibration hands and 600 by training faces none passed (3 training
    words, OH, SEGO and DEL, before the swings were asked for); none of 900 written absolute boards. With the X and
    strike tests it caught 96-97 % of zigzags (``synthetic.drawn.scrawl_through``) in word boxes (74 % with the first
    bounds, a band of 0.3 and 2.5 heights) and 74 % on boards (65 %).

    Writing narrower than ``THROUGH_WIDE`` heights (two letters, which may touch) is judged stricter: the line
    runs across ``NARROW_RUN`` of it, and lies within ``NARROW_STRAIGHT`` of ``NARROW_STROKES`` straight strokes
    (``_off_strokes``), where a path along letters bends. Two-letter zigzags caught 75 -> 91 % on calibration hands
    and training faces, none of 2,755 written two-letter words more flagged (models/slips/HISTORY.md,
    twenty-first to twenty-third revisions)."""
    mask = (ink > 0).astype(np.uint8)
    extent = _writing_box(mask)
    if extent is None:
        return False
    left, right, top, bottom = extent
    width, height = right - left + 1, bottom - top
    narrow = width < THROUGH_WIDE * max(1, height)
    middle = (top + bottom) // 2
    band = mask[middle - int(THROUGH_BAND * height) : middle + int(THROUGH_BAND * height) + 1, left : right + 1]
    path = _longest_path(band, band.shape[0] / 2, THROUGH_STEP)
    if len(path) < (NARROW_RUN if narrow else THROUGH_RUN) * width:
        return False
    if _middle_crossings(path, band.shape[0] // 2) < THROUGH_SWINGS:
        return False
    return not narrow or _off_strokes(path, NARROW_STROKES) <= NARROW_STRAIGHT * max(1, height)


def _off_strokes(rows: np.ndarray, strokes: int) -> float:
    """How far, in px (root mean square), a path's ``rows`` (one a column) lie off the ``strokes`` straight lines
    that fit them best end to end (least squares; dynamic programming over where each line ends)."""
    count = len(rows)
    x, y = np.arange(count, dtype=np.float64), rows.astype(np.float64)
    sums = [np.concatenate([[0.0], np.cumsum(v)]) for v in (np.ones(count), x, y, x * x, x * y, y * y)]
    start, end = np.arange(count + 1)[:, None], np.arange(count + 1)[None, :]
    n, sx, sy, sxx, sxy, syy = (total[end] - total[start] for total in sums)
    with np.errstate(divide="ignore", invalid="ignore"):  # a line's squared residual from start to end (exclusive)
        spread = sxx - sx * sx / n
        residual = syy - sy * sy / n - np.where(spread > 0, (sxy - sx * sy / n) ** 2 / spread, 0.0)
    residual = np.where(n >= 1, np.maximum(residual, 0.0), np.inf)
    best = residual[0]
    for _ in range(strokes - 1):
        best = np.minimum(best, np.min(best[:, None] + residual, axis=0))
    return float(np.sqrt(best[count] / max(1, count)))
