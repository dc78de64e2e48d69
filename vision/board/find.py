"""Finding the 15x15 grid in a camera frame, without markers.

``find_board(image)`` returns a ``BoardFind``: ``found`` is False with a ``reason``
when there is no board (an expected outcome, not an exception). When found,
``image_from_board`` maps board points to image pixels (see ``geometry`` for the
conventions: board (u, v) in cell units, u along columns, v along rows; image
(x, y) in pixels). The grid is labelled *upright*: row A is the grid edge that
faces the top of the image; ``orientation`` turns it to the real row A.

How: (1) the board's plain squares make a mask: first its green (the frame's main
saturated hue between yellow and cyan, a few candidates tried; the tournament board),
with the small patches of other strong colours that touch it (premium squares: a red
corner square would cut the outline's corner); then, for a board of any other colour
(beige, blue, black, wooden), each of the frame's main colours (``outline_colours``: a
k-means of the frame's Lab colours). Specks far smaller than the largest piece (a
table's texture) are dropped, pieces cut apart by tiles are joined, and the largest
region's hull gives the outline: the largest quadrilateral on its vertices, and the one
on its four longest sides. When that region reaches the frame's edge (a table of the
board's hue), the pieces inside the frame are tried too, and then a stricter mask
(saturation above the Otsu split of that hue). Then, for a board of several colours (lit
and shaded wooden squares), the part of the frame busy with sharp edges (``detail_mask``);
a frame the board fills is tried last.
(2) Each outline is warped square with some slack, the grid lines (darker than the
squares, or lighter on blue, black and beige boards, in the darkest channel or where not
clear there in another brightness or colour axis: whichever stand out; tiles, the
brightest things, count little) are fitted by the few best combs of 16 evenly spaced
lines on each axis; the two pairs whose premium layout matches best, then the outline
itself, are followed line by line, band by band, and the line crossings fit the
homography (RANSAC), looking wide and then close; the grid is moved up to two cells if
the layout says so. When no outline gives a grid, the first
``WIDE_QUADS`` are looked at again more widely: more combs and pairs, the canvas's light
evened out, the close look kept only if it fits as well (glare, a steep tilt, a crowded
board; issue 20). Then an outline that a shadow or dim light bent is straightened by the
grid's own lines: ``line_families`` finds the two families of straight segments about
each outline and their vanishing points, and gives the outline whose warp makes them
parallel; each such outline is looked at as above.
(3) Checks: the crossings must fit one grid, the premium layout
(squares unlike the plain ones where ``board.PREMIUMS`` has them, like them elsewhere,
whatever the colours: each square compared with the plain squares around it, so that a
shadow or glare across the board does not matter; ``premium_layout``) must match overall
and in each quarter, better than the grid shifted one cell and than the grid moved up
to two cells on the real colours there; a grid found from an outline must also stay put
when refitted from itself. A grid that passes them all but fits fewer than ``CLOSE_LINE_FIT``
of the crossings is kept while up to ``MORE_OUTLINES`` more outlines are tried: the first
grid fitting them closely is taken, or else the one fitting the most (a board whose squares
have an inner edge can hold a grid whose rows drift from the board's; issue 20).
A search that finds no board but ended on a grid nearly fitting (``LEVELLED_RETRY_FIT`` of its crossings or more) is
made once more on the frame with its light levelled (``light_levelled``: each pixel divided by the frame blurred
wide): a bright glare across part of the board washes its grid lines out there (issue 69).
``refine_board`` re-runs (2)-(3) from a known homography (a camera kept on the
same board: cheaper and steadier); the premium layout is judged again only when the grid
has moved from the one last judged (``checked``).

Step (1) is ``outline`` (and ``line_families``), step (2) ``grid_lines``, the premium layout of step (3)
``premium_layout``; this module holds the entry points and the checks on a grid's shape.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from .geometry import (
    GRID_CORNERS,
    SIZE,
    FloatArray,
    apply_homography,
    cell_pitch,
    image_corners,
    rotate_board_frame,
    upright_turn,
)
from .grid_lines import CANVAS_CELL, QUAD_SLACK, SMOOTH_PX, fit_grid_global, fit_grid_local
from .line_families import frame_segments, line_quad, quad_side
from .outline import MIN_BOARD_FRACTION, board_mask, detail_mask, green_candidates, outline_quads, stretch_channels
from .outline_colours import colour_masks
from .premium_layout import layout_match

WORK_SIDE: Final = 640  # the mask is made on the frame scaled to this longest side
SAME_GRID_CELLS: Final = 0.1  # a refit moving no grid corner further is the grid already checked
MAX_SETTLE: Final = 0.25  # cells a found grid may move when refitted from itself
LAYOUT_MIN_PREMIUM: Final = 0.8  # premium squares that must not look like the plain ones
LAYOUT_MIN_PLAIN: Final = 0.25  # plain squares that must look plain
LAYOUT_MIN_MARGIN: Final = 0.2  # best layout match ahead of the grid shifted by one cell
LAYOUT_MIN_OFFSET_MARGIN: Final = 0.08  # ahead of the grid moved up to OFFSET_RING cells, on real colours
LAYOUT_MIN_QUADRANT: Final = 0.6  # in each quarter of the board, premium squares not plain
MIN_LINE_FIT: Final = 0.7  # line crossings within an eighth of a cell of the fitted grid
LEVELLED_RETRY_FIT: Final = 0.5  # a failed search whose grid fitted this many is made again with the light levelled
LEVEL_BLUR: Final = 0.05  # ``light_levelled``'s blur (Gaussian sigma), a share of the frame's shorter side
CLOSE_LINE_FIT: Final = 0.95  # a grid found fitting fewer is kept while up to ...
MORE_OUTLINES: Final = 4  # ... this many more outlines are tried; the grid fitting most crossings is taken
WIDE_QUADS: Final = 12  # outlines looked at again more widely when none gave a grid
SAME_LINE_QUAD_CELLS: Final = 0.5  # line quads whose corners are all this close (cells) are one


@dataclass(frozen=True)
class BoardFind:
    """The grid found in a frame, or why not.

    ``image_from_board`` (3x3, board (u, v) cells -> image (x, y) pixels) is None
    when ``found`` is False. ``layout_score`` is how well the premium colours match
    (1.0 perfect); ``pitch`` the cell size in pixels.
    """

    found: bool
    reason: str = ""
    image_from_board: FloatArray | None = None
    layout_score: float = 0.0
    pitch: float = 0.0
    details: dict[str, float] = field(default_factory=dict)

    @property
    def corners(self) -> FloatArray | None:
        """Grid corners in the image, row A col 1 first, clockwise (``4 x 2``)."""
        return None if self.image_from_board is None else image_corners(self.image_from_board)


def not_found(reason: str, **details: float) -> BoardFind:
    return BoardFind(False, reason, details=dict(details))


def find_board(image: NDArray[np.uint8]) -> BoardFind:
    """Find the grid in a BGR frame, with no prior knowledge of where it is. A search that
    finds nothing is made again with the grid's lines followed on smoothed canvases
    (``grid_lines.SMOOTH_PX``): a dim, grainy frame (issue 20). A board found by the first
    search is found as before."""
    _check_image(image)
    sharp = _search(image, 0.0)
    if sharp.found:
        return sharp
    smoothed = _search(image, SMOOTH_PX)
    if smoothed.found:
        return smoothed
    if max(sharp.details.get("lines", 0.0), smoothed.details.get("lines", 0.0)) >= LEVELLED_RETRY_FIT:
        levelled = _search(light_levelled(image), 0.0)  # the same pixels, so the grid found is the frame's
        if levelled.found:
            return levelled
    return sharp


def light_levelled(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A BGR frame with uneven light evened out: each channel divided by itself blurred (sigma ``LEVEL_BLUR`` of the
    shorter side) and brought back to its mean; a glare's bright patch and a shadow's dark one become the level of
    the rest, lines and squares keep their contrast with what is around them."""
    pixels = image.astype(np.float32)
    sigma = LEVEL_BLUR * min(image.shape[:2])
    background = cv2.GaussianBlur(pixels, (0, 0), sigma)
    levelled = pixels / np.maximum(background, 1.0) * background.mean(axis=(0, 1))
    return np.asarray(np.clip(levelled, 0, 255), np.uint8)


def _search(image: NDArray[np.uint8], smooth: float) -> BoardFind:
    """``find_board``'s search, the lines followed on canvases blurred by ``smooth`` pixels."""
    small, scale = work_frame(image)
    stretched = stretch_channels(small)
    greens = green_candidates(stretched)
    tried: list[FloatArray] = []
    greens_masks = (board_mask(stretched, green, strict=strict) for green in greens for strict in (False, True))
    other_masks = (m for _ in (0,) for m in colour_masks(stretched, tuple(greens)))  # only if green fails
    busy_mask = (detail_mask(small) for _ in (0,))  # only if no colour gives the outline
    masks = itertools.chain(greens_masks, other_masks, busy_mask)  # green (the tournament board), any colour, edges
    result = _outline_search(image, masks, scale, smooth, tried)
    if result.found:
        return result
    # A second, wider look at the likeliest outlines (glare, a steep tilt, a crowded board: issue 20).
    for quad in tried[:WIDE_QUADS]:
        attempt = _find_in_quad(image, quad / scale, wide=True, smooth=smooth)
        if attempt.found:
            return attempt
    # An outline that a shadow or dim light bent: the one the grid's own lines give (issue 20).
    for quad in _line_quads(small, tried):
        for wide in (False, True):
            attempt = _find_in_quad(image, quad / scale, wide, smooth)
            if attempt.found:
                return attempt
    # Uneven light can break the green outline; a board filling the frame is tried too.
    h, w = image.shape[:2]
    if abs(w - h) < 0.25 * max(w, h):
        frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
        whole = _find_in_quad(image, frame, smooth=smooth)
        if whole.found:
            return whole
    return result


def _outline_search(
    image: NDArray[np.uint8], masks: Iterator[NDArray[np.uint8]], scale: float, smooth: float, tried: list[FloatArray]
) -> BoardFind:
    """The grid found from the masks' outlines (work-frame points, each new one appended to
    ``tried``), or the last failure. A grid whose lines fit loosely (under ``CLOSE_LINE_FIT``) is
    kept while up to ``MORE_OUTLINES`` more outlines are tried (``_closer_fit``)."""
    result = not_found("no se ve ninguna zona del tamaño de un tablero")
    loose: BoardFind | None = None
    after_loose = 0
    for mask in masks:
        for quad in outline_quads(mask):
            if any(np.abs(quad - q).max() <= 2.0 for q in tried):
                continue
            tried.append(quad)
            attempt = _find_in_quad(image, quad / scale, smooth=smooth)
            after_loose += loose is not None
            if attempt.found:
                loose = _closer_fit(loose, attempt)
                if loose.details.get("lines", 1.0) >= CLOSE_LINE_FIT:
                    return loose
            elif loose is None:
                result = attempt
            if loose is not None and after_loose >= MORE_OUTLINES:
                return loose
    return loose if loose is not None else result


def _closer_fit(kept: BoardFind | None, found: BoardFind) -> BoardFind:
    """Of a grid kept and one just found (both passed every check), the one whose lines fit
    more crossings; the kept one on a tie."""
    if kept is None or found.details.get("lines", 0.0) > kept.details.get("lines", 0.0):
        return found
    return kept


def _line_quads(small: NDArray[np.uint8], outlines: list[FloatArray]) -> Iterator[FloatArray]:
    """The distinct outlines (work-frame points) that the grid's two line families give about
    ``outlines`` (``line_families``), in their order; the frame's segments are found only if
    asked for."""
    segments = frame_segments(small)
    given: list[FloatArray] = []
    for outline in outlines:
        quad = line_quad(segments, outline)
        if quad is None:
            continue
        if any(np.abs(quad - q).max() < SAME_LINE_QUAD_CELLS * quad_side(quad) / SIZE for q in given):
            continue
        given.append(quad)
        yield quad


def work_frame(image: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    """The frame the outline masks are made on: scaled down to ``WORK_SIDE`` on its longest side
    (never up), and that scale (work pixels per frame pixel)."""
    scale = min(1.0, WORK_SIDE / max(image.shape[:2]))
    if scale == 1.0:
        return image, scale
    return np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8), scale


def _find_in_quad(image: NDArray[np.uint8], quad: FloatArray, wide: bool = False, smooth: float = 0.0) -> BoardFind:
    """Fit the grid near ``quad`` (image points, clockwise): the quad is warped to a square
    of 15 canvas cells with ``QUAD_SLACK`` of it spare on each side, since the green
    outline may be larger (margin) or smaller (a corner cut) than the grid. ``wide``: more
    first guesses (``fit_grid_global``); ``smooth``: the lines followed on canvases blurred by
    that many pixels."""
    inner = CANVAS_CELL * SIZE
    pad = QUAD_SLACK * inner
    side = int(round(inner + 2 * pad))
    target = np.array([[pad, pad], [pad + inner, pad], [pad + inner, pad + inner], [pad, pad + inner]], np.float32)
    image_from_canvas = cv2.getPerspectiveTransform(target, quad.astype(np.float32)).astype(np.float64)
    result = not_found("no se encuentran las líneas de la cuadrícula de 15x15")
    for guess in fit_grid_global(image, image_from_canvas, side, wide, smooth):
        result = _confirmed(image, refine_board(image, guess, smooth=smooth), smooth)
        if result.found:
            return result
    return result


def _confirmed(image: NDArray[np.uint8], first: BoardFind, smooth: float) -> BoardFind:
    """A grid found from a guess, refitted once more from itself: a real grid stays where it
    is (within ``MAX_SETTLE`` cells) and passes the checks again; a grid bent onto the
    wrong lines does not."""
    if not first.found or first.image_from_board is None:
        return first
    again = refine_board(image, first.image_from_board, smooth=smooth)
    if not again.found or again.image_from_board is None:
        return again
    moved = np.abs(image_corners(again.image_from_board) - image_corners(first.image_from_board)).max()
    if moved > MAX_SETTLE * again.pitch:
        return not_found("la cuadrícula hallada no es estable", moved=float(moved / again.pitch))
    return again


def refine_board(
    image: NDArray[np.uint8],
    image_from_board: FloatArray,
    *,
    passes: int = 2,
    checked: BoardFind | None = None,
    smooth: float | None = None,
) -> BoardFind:
    """Refit the grid near a known homography and check the premium layout.

    ``checked``: a grid that passed every check on an earlier frame of this camera. While
    the refit grid stays within ``SAME_GRID_CELLS`` of it, the same squares lie under the
    same lines and the layout is not judged again (~3 ms of a tracking frame); the result's
    ``details`` then say ``layout_kept``. ``smooth``: the lines followed on the canvas blurred by
    that many pixels; None (tracking): as it is, and if they do not fit, blurred by ``SMOOTH_PX``."""
    _check_image(image)
    followed = _followed(image, image_from_board, passes, smooth or 0.0)
    if smooth is None and (followed is None or followed[1] < MIN_LINE_FIT):
        smoothed = _followed(image, image_from_board, passes, SMOOTH_PX)
        if smoothed is not None and (followed is None or smoothed[1] > followed[1]):
            followed = smoothed
    if followed is None:
        return not_found("las líneas de la cuadrícula no se siguen (tablero tapado o movido)")
    current, fit = followed
    if fit < MIN_LINE_FIT:
        return not_found("las líneas de la cuadrícula no forman una cuadrícula regular", lines=fit)
    current = rotate_board_frame(current, upright_turn(current))
    if not _plausible(current, image.shape):
        return not_found("la cuadrícula hallada no tiene forma de tablero")
    if (
        checked is not None
        and checked.image_from_board is not None
        and grid_shift(checked.image_from_board, current) < SAME_GRID_CELLS
    ):
        kept = {**checked.details, "lines": fit, "layout_kept": 1.0}
        return BoardFind(True, "", current, checked.layout_score, cell_pitch(current), kept)
    score, details = layout_match(image, current)
    if details["premium"] < LAYOUT_MIN_PREMIUM or details["plain"] < LAYOUT_MIN_PLAIN:
        return not_found("los colores de las casillas no siguen el diseño del tablero", **details)
    details["lines"] = fit
    if details["worst_quadrant"] < LAYOUT_MIN_QUADRANT:
        return not_found("una parte del tablero no sigue el diseño de casillas", **details)
    if details["margin"] < LAYOUT_MIN_MARGIN or details["offset_margin"] < LAYOUT_MIN_OFFSET_MARGIN:
        return not_found("la cuadrícula podría estar desplazada una casilla", **details)
    return BoardFind(True, "", current, score, cell_pitch(current), details)


def _followed(
    image: NDArray[np.uint8], image_from_board: FloatArray, passes: int, smooth: float
) -> tuple[FloatArray, float] | None:
    """The grid refitted ``passes`` times to its lines (``fit_grid_local``) and the fraction of
    crossings it fits, or None where its lines are not seen."""
    current, fit = np.asarray(image_from_board, np.float64), 0.0
    for _ in range(passes):
        fitted = fit_grid_local(image, current, smooth=smooth)
        if fitted is None:
            return None
        current, fit = fitted
    return current, fit


def grid_shift(before: FloatArray, after: FloatArray) -> float:
    """How far (in cells, the largest over the grid's four corners) ``after`` puts the
    grid from where ``before`` puts it."""
    moved = apply_homography(np.linalg.inv(before) @ after, GRID_CORNERS)
    return float(np.abs(moved - GRID_CORNERS).max())


def _check_image(image: NDArray[np.uint8]) -> None:
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        raise ValueError(f"se esperaba una imagen BGR de H x W x 3, no {shape}")
    if image.dtype != np.uint8:
        raise ValueError(f"se esperaba una imagen uint8, no {image.dtype}")
    if min(image.shape[:2]) < 64:
        raise ValueError(f"imagen demasiado pequeña: {image.shape[1]}x{image.shape[0]}")


def _plausible(image_from_board: FloatArray, shape: tuple[int, ...]) -> bool:
    """The grid has a board's shape in the frame: big enough, no side far shorter than
    another, convex."""
    corners = image_corners(image_from_board)
    area = abs(cv2.contourArea(corners.astype(np.float32)))
    if area < MIN_BOARD_FRACTION * 0.5 * shape[0] * shape[1]:
        return False
    sides = [np.hypot(*(corners[(i + 1) % 4] - corners[i])) for i in range(4)]
    if min(sides) < 0.4 * max(sides):
        return False
    # convex, in clockwise order
    cross = []
    for i in range(4):
        a, b, c = corners[i], corners[(i + 1) % 4], corners[(i + 2) % 4]
        cross.append((b - a)[0] * (c - b)[1] - (b - a)[1] * (c - b)[0])
    return all(x > 0 for x in cross) or all(x < 0 for x in cross)


def grid_points(image_from_board: FloatArray) -> FloatArray:
    """The 16 x 16 grid crossings in the image, ``256 x 2``, row-major over v then u."""
    u, v = np.meshgrid(np.arange(SIZE + 1.0), np.arange(SIZE + 1.0))
    return apply_homography(image_from_board, np.stack([u.ravel(), v.ravel()], axis=1))
