"""Finding the 15x15 grid in a camera frame, without markers.

``find_board(image)`` returns a ``BoardFind``: ``found`` is False with a ``reason``
when there is no board (an expected outcome, not an exception). When found,
``image_from_board`` maps board points to image pixels (see ``geometry`` for the
conventions: board (u, v) in cell units, u along columns, v along rows; image
(x, y) in pixels). The grid is labelled *upright*: row A is the grid edge that
faces the top of the image; ``orientation`` turns it to the real row A.

How: (1) the board's green (the frame's main saturated hue between yellow and
cyan, a few candidates tried) makes a mask, with the small patches of other strong
colours that touch it (premium squares: a red corner square would cut the outline's
corner); specks far smaller than the largest piece (a table's texture) are dropped,
pieces cut apart by tiles are joined, and the largest region's hull gives the
outline: the largest quadrilateral on its vertices, and the one on its four longest
sides. When that region reaches the frame's edge (a table of the board's hue), the
pieces inside the frame are tried too, and then a stricter mask (saturation above the
Otsu split of that hue); a frame the board fills is tried last. (2) Each outline is
warped square with some slack, the dark grid lines (tiles, the brightest things,
count little) are fitted by the few best combs of 16 evenly spaced lines on each axis;
the two pairs whose premium layout matches best, then the outline itself, are
followed line by line, band by band, and the line crossings fit the homography
(RANSAC), looking wide and then close; the grid is moved up to two cells if the layout
says so. (3) Checks: the crossings must fit one grid, the premium layout (coloured
squares where ``board.PREMIUMS`` has them, green elsewhere, judged by hue so that a
shadow or glare across the board does not matter) must match overall and in each
quarter, better than the grid shifted one cell and than the grid moved up to two cells
on the real colours there; a grid found from an outline must also stay put when
refitted from itself.
``refine_board`` re-runs (2)-(3) from a known homography (a camera kept on the
same board: cheaper and steadier); the premium layout is judged again only when the grid
has moved from the one last judged (``checked``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from rules_core.board import PREMIUMS, Premium

from .geometry import (
    GRID_CORNERS,
    SIZE,
    FloatArray,
    apply_homography,
    board_to_canvas,
    cell_pitch,
    image_corners,
    rotate_board_frame,
    upright_turn,
)
from .percentiles import row_percentiles

WORK_SIDE: Final = 640  # the mask is made on the frame scaled to this longest side
CANVAS_CELL: Final = 32  # pixels per cell when the grid is warped square for fitting
CANVAS_MARGIN: Final = 1.0  # cells of margin around the grid in that warp
SAME_GRID_CELLS: Final = 0.1  # a refit moving no grid corner further is the grid already checked
MIN_BOARD_FRACTION: Final = 0.02  # the board covers at least this much of the frame
QUAD_SLACK: Final = 0.12  # spare canvas around the green outline, as a fraction of it
PREMIUM_PATCH_MAX: Final = 0.01  # a premium square's patch is at most this much of the frame
GUESSES: Final = 2
MAX_SETTLE: Final = 0.25  # cells a found grid may move when refitted from itself  # grids from the outline that are followed and checked
BANDS: Final = 6  # pieces of each grid line followed separately
LAYOUT_MIN_PREMIUM: Final = 0.8  # premium squares that must not look like plain green
LAYOUT_MIN_PLAIN: Final = 0.25  # plain squares that must look green
LAYOUT_MIN_MARGIN: Final = 0.15
LAYOUT_MIN_OFFSET_MARGIN: Final = 0.05  # ahead of the grid moved up to OFFSET_RING cells, on real colours
OFFSET_RING: Final = 2
LAYOUT_MIN_QUADRANT: Final = 0.6  # in each quarter of the board, premium squares not green
MIN_LINE_FIT: Final = 0.7  # line crossings within an eighth of a cell of the fitted grid  # best layout match ahead of the grid shifted by one cell

_PREMIUM_MASK: Final = np.array([[p is not Premium.NONE for p in row] for row in PREMIUMS])


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
    """Find the grid in a BGR frame, with no prior knowledge of where it is."""
    _check_image(image)
    scale = min(1.0, WORK_SIDE / max(image.shape[:2]))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    stretched = stretch_channels(small)
    result = not_found("no se ve ninguna zona verde del tamaño de un tablero")
    for green in green_candidates(stretched):
        tried: list[FloatArray] = []
        for strict in (False, True):
            for quad in outline_quads(board_mask(stretched, green, strict=strict)):
                if any(np.abs(quad - q).max() <= 2.0 for q in tried):
                    continue
                tried.append(quad)
                attempt = _find_in_quad(image, quad / scale)
                if attempt.found:
                    return attempt
                result = attempt
    # Uneven light can break the green outline; a board filling the frame is tried too.
    h, w = image.shape[:2]
    if abs(w - h) < 0.25 * max(w, h):
        frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
        whole = _find_in_quad(image, frame)
        if whole.found:
            return whole
    return result


def _find_in_quad(image: NDArray[np.uint8], quad: FloatArray) -> BoardFind:
    """Fit the grid near ``quad`` (image points, clockwise): the quad is warped to a square
    of 15 canvas cells with ``QUAD_SLACK`` of it spare on each side, since the green
    outline may be larger (margin) or smaller (a corner cut) than the grid."""
    inner = CANVAS_CELL * SIZE
    pad = QUAD_SLACK * inner
    side = int(round(inner + 2 * pad))
    target = np.array([[pad, pad], [pad + inner, pad], [pad + inner, pad + inner], [pad, pad + inner]], np.float32)
    image_from_canvas = cv2.getPerspectiveTransform(target, quad.astype(np.float32)).astype(np.float64)
    result = not_found("no se encuentran las líneas de la cuadrícula de 15x15")
    for guess in _fit_grid_global(image, image_from_canvas, side):
        result = _confirmed(image, refine_board(image, guess))
        if result.found:
            return result
    return result


def _confirmed(image: NDArray[np.uint8], first: BoardFind) -> BoardFind:
    """A grid found from a guess, refitted once more from itself: a real grid stays where it
    is (within ``MAX_SETTLE`` cells) and passes the checks again; a grid bent onto the
    wrong lines does not."""
    if not first.found or first.image_from_board is None:
        return first
    again = refine_board(image, first.image_from_board)
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
) -> BoardFind:
    """Refit the grid near a known homography and check the premium layout.

    ``checked``: a grid that passed every check on an earlier frame of this camera. While
    the refit grid stays within ``SAME_GRID_CELLS`` of it, the same squares lie under the
    same lines and the layout is not judged again (~3 ms of a tracking frame); the result's
    ``details`` then say ``layout_kept``."""
    _check_image(image)
    current = np.asarray(image_from_board, np.float64)
    fit = 0.0
    for _ in range(passes):
        fitted = _fit_grid_local(image, current)
        if fitted is None:
            return not_found("las líneas de la cuadrícula no se siguen (tablero tapado o movido)")
        current, fit = fitted
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


# -- (1) the board's outline from its colours ---------------------------------------


def stretch_channels(image: NDArray[np.uint8], low: float = 1.0, high: float = 99.0) -> NDArray[np.uint8]:
    """Each channel stretched so its ``low``..``high`` percentiles span 0..255 (dim light, colour casts)."""
    sample = image[::4, ::4].reshape(-1, 3).astype(np.float32)
    lo = np.percentile(sample, low, axis=0)
    hi = np.percentile(sample, high, axis=0)
    scale = 255.0 / np.maximum(hi - lo, 8.0)
    out = (image.astype(np.float32) - lo) * scale
    return np.clip(out, 0, 255).astype(np.uint8)


def green_candidates(image: NDArray[np.uint8], count: int = 3) -> list[int]:
    """Hues (OpenCV 0..180) that may be the board's green: the main peaks of the
    saturated hues between yellow and cyan, largest first (a colour cast moves them)."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    chosen = hue[(sat > 50) & (val > 20) & (hue >= 25) & (hue <= 105)]
    if chosen.size < 0.02 * hue.size:
        return []
    histogram = np.convolve(np.bincount(chosen, minlength=181).astype(np.float64), np.ones(7), mode="same")
    peaks: list[int] = []
    for h in np.argsort(histogram)[::-1]:
        if histogram[h] < 0.1 * histogram.max() or len(peaks) == count:
            break
        if all(abs(int(h) - p) > 12 for p in peaks):
            peaks.append(int(h))
    return peaks


def board_mask(image: NDArray[np.uint8], green: int, strict: bool = False) -> NDArray[np.uint8]:
    """255 where a pixel has the hue ``green``, or belongs to a small patch of another strong
    colour touching it (a premium square); tiles are holes in it. ``strict`` also asks for
    a saturation above the Otsu split of that hue's pixels (a paler table of the same hue)."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0].astype(np.int16), hsv[..., 1], hsv[..., 2]
    same = (np.abs(hue - green) <= 8) & (sat > 50) & (val > 20)
    green_sat = float(np.median(sat[same])) if same.any() else 100.0
    hued = np.abs(hue - green) <= 16
    floor = max(35.0, 0.35 * green_sat)
    if strict and hued.any():
        split, _ = cv2.threshold(np.ascontiguousarray(sat[hued]).reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        floor = max(floor, float(split))
    near_green = hued & (sat > floor) & (val > 15)
    closed = cv2.morphologyEx(near_green.astype(np.uint8) * 255, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    mask = np.asarray(cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
    return np.maximum(mask, _premium_squares(mask, ~near_green & (sat > max(60.0, 0.5 * green_sat)) & (val > 30)))


def _premium_squares(green: NDArray[np.uint8], coloured: NDArray[np.bool_]) -> NDArray[np.uint8]:
    """Small patches of another strong colour that touch the green (premium squares: a
    red corner square would otherwise cut the outline's corner); large ones (a coloured
    table) are left out."""
    patches = cv2.morphologyEx(coloured.astype(np.uint8) * 255, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(patches, connectivity=8)
    if count < 2:
        return np.zeros_like(green)
    near = cv2.dilate(green, np.ones((5, 5), np.uint8)) > 0
    touching = np.bincount(labels[near & (patches > 0)], minlength=count) > 0
    keep = touching & (stats[:, cv2.CC_STAT_AREA] <= PREMIUM_PATCH_MAX * green.size)
    keep[0] = False
    return np.where(keep[labels], np.uint8(255), np.uint8(0))


def outline_quad(mask: NDArray[np.uint8]) -> FloatArray | None:
    """The quadrilateral around the largest board-coloured region (``4 x 2``), or None
    (the first of ``outline_quads``)."""
    quads = outline_quads(mask)
    return quads[0] if quads else None


def outline_quads(mask: NDArray[np.uint8]) -> list[FloatArray]:
    """Quadrilaterals (``4 x 2``, clockwise) that may be the board's outline, likeliest first.

    Specks of board colour far smaller than the largest piece (a table's texture) are
    dropped; the pieces left, cut apart by tiles, are joined (dilation) and the largest
    region is taken. When that region reaches the frame's edge (a table of the board's
    colour) the largest region inside the frame is tried too. Each region gives the
    largest quadrilateral on its hull's vertices and the one whose sides extend the
    hull's four longest sides (a corner square that is not green cuts the hull's corner).
    """
    clean = _drop_specks(mask)
    reach = max(3, int(round(max(mask.shape) / 50)))  # bridges green cut apart by rows of tiles
    grown = np.asarray(cv2.dilate(clean, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1,) * 2)), np.uint8)
    hulls = [hull for hull in (_largest_region(grown, clean),) if hull is not None]
    if hulls and _touches_edge(hulls[0], mask.shape):
        hulls += [hull for hull in (_inside_region(mask),) if hull is not None]
    quads: list[FloatArray] = []
    for hull in hulls:
        if cv2.contourArea(hull.astype(np.float32)) < MIN_BOARD_FRACTION * mask.size:
            continue
        for quad in (_largest_inscribed_quad(hull), _extended_sides_quad(hull)):
            if quad is not None and all(np.abs(quad - q).max() > 2.0 for q in quads):
                quads.append(quad)
    return quads


def _drop_specks(mask: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The mask without pieces under a twentieth of the largest piece's area."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count < 3:
        return mask
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = np.concatenate([[False], areas >= areas.max() / 20])
    return np.where(keep[labels], np.uint8(255), np.uint8(0))


def _largest_region(grown: NDArray[np.uint8], mask: NDArray[np.uint8]) -> FloatArray | None:
    """The convex hull (``n x 2``) of the mask pixels of the largest region of ``grown``, or None."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    if count < 2:
        return None
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return _hull((labels == biggest) & (mask > 0))


def _inside_region(mask: NDArray[np.uint8]) -> FloatArray | None:
    """The hull of the board-coloured pieces clear of the frame's edge, once thin bridges
    are cut (a table of the board's colour touching the board's green through gaps in
    its light frame), or None."""
    opened = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    h, w = mask.shape
    x, y, bw, bh, area = (stats[:, i] for i in range(5))
    inside = (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
    inside[0] = False
    if not inside.any():
        return None
    keep = inside & (area >= area[inside].max() / 20)
    return _hull(keep[labels])


def _hull(pixels: NDArray[np.bool_]) -> FloatArray | None:
    ys, xs = np.nonzero(pixels)
    if len(xs) < 4:
        return None
    hull = cv2.convexHull(np.stack([xs, ys], axis=1).astype(np.int32))
    return np.asarray(hull.reshape(-1, 2), np.float64)


def _touches_edge(hull: FloatArray, shape: tuple[int, ...]) -> bool:
    h, w = shape[:2]
    return bool(hull[:, 0].min() <= 1 or hull[:, 1].min() <= 1 or hull[:, 0].max() >= w - 2 or hull[:, 1].max() >= h - 2)


def _extended_sides_quad(hull: FloatArray) -> FloatArray | None:
    """The quadrilateral whose sides lie on the hull's four longest sides, or None when
    that is not a sensible outline (not convex, or far larger than the hull)."""
    perimeter = cv2.arcLength(hull.astype(np.float32), True)
    poly = cv2.approxPolyDP(hull.astype(np.float32), 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64)
    if len(poly) <= 4:
        return None
    lengths = np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)
    sides = sorted(np.argsort(lengths)[-4:])
    corners = []
    for a, b in zip(sides, sides[1:] + sides[:1]):
        p1, p2 = poly[a], poly[(a + 1) % len(poly)]
        q1, q2 = poly[b], poly[(b + 1) % len(poly)]
        d1, d2 = p2 - p1, q2 - q1
        det = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(det) < 1e-6 * (np.linalg.norm(d1) * np.linalg.norm(d2) + 1e-9):
            return None
        t = ((q1[0] - p1[0]) * d2[1] - (q1[1] - p1[1]) * d2[0]) / det
        corners.append(p1 + t * d1)
    quad = np.array(corners, np.float64)
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    hull_area = abs(cv2.contourArea(hull.astype(np.float32)))
    if not cv2.isContourConvex(quad.astype(np.float32)) or area > 1.3 * hull_area or area < hull_area:
        return None
    return _clockwise(quad)


def _largest_inscribed_quad(hull: FloatArray) -> FloatArray:
    """The four hull vertices that enclose the largest area, clockwise (a hidden corner
    is cut, not extended: the grid fit that follows has slack for it)."""
    perimeter = cv2.arcLength(hull.astype(np.float32), True)
    poly = hull
    for eps in (0.002, 0.005, 0.01, 0.02, 0.04):
        poly = cv2.approxPolyDP(hull.astype(np.float32), eps * perimeter, True).reshape(-1, 2).astype(np.float64)
        if len(poly) <= 24:
            break
    if len(poly) < 4:
        rect = cv2.boxPoints(cv2.minAreaRect(hull.astype(np.float32)))
        return _clockwise(np.asarray(rect, np.float64))
    idx = np.array(list(itertools.combinations(range(len(poly)), 4)))
    quads = poly[idx]  # n x 4 x 2, in hull order
    x, y = quads[..., 0], quads[..., 1]
    area = 0.5 * np.abs((x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1))
    return _clockwise(quads[int(np.argmax(area))])


def _clockwise(points: FloatArray) -> FloatArray:
    """Order points clockwise in the image (y down), starting top-left-most."""
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]
    start = int(np.argmin(ordered.sum(axis=1)))
    return np.roll(ordered, -start, axis=0)


# -- (2) the grid lines --------------------------------------------------------------


def _stretch_gray(gray: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Levels stretched so the 1st..99th percentiles span 0..255 (not clipped)."""
    sample = np.ascontiguousarray(gray[::3, ::3]).reshape(1, -1)
    lo, hi = row_percentiles(sample, 1.0, np.float64)[0], row_percentiles(sample, 99.0, np.float64)[0]
    return np.asarray((gray.astype(np.float32) - lo) * (255.0 / max(float(hi - lo), 8.0)), np.float32)


def _line_responses(canvas: NDArray[np.float32], cell: float) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(vertical, horizontal): how much darker a thin line is than what lies beside it."""
    k = max(3, int(round(cell / 4)) | 1)
    vertical = cv2.morphologyEx(canvas, cv2.MORPH_CLOSE, np.ones((1, k), np.uint8)) - canvas
    horizontal = cv2.morphologyEx(canvas, cv2.MORPH_CLOSE, np.ones((k, 1), np.uint8)) - canvas
    # Tiles (the brightest things on the board) and their letters say nothing of the grid.
    ceiling = max(60.0, 3.0 * float(np.percentile(canvas[::3, ::3], 30)))
    tiles = cv2.dilate((canvas > ceiling).astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    weight = np.where(tiles, np.float32(0.25), np.float32(1.0))
    return vertical * weight, horizontal * weight


def _comb(profile: NDArray[np.float64], lo_pitch: float, hi_pitch: float, count: int = 3) -> list[tuple[float, float]]:
    """The ``count`` best (offset, pitch) of 16 evenly spaced peaks in a 1-D profile,
    best first, each at least a quarter cell away from the others in offset or pitch."""
    n = len(profile)
    xs = np.arange(n, dtype=np.float64)
    lines = np.arange(SIZE + 1, dtype=np.float64)
    candidates: list[tuple[float, float, float]] = []
    for pitch in np.arange(lo_pitch, hi_pitch, 0.25):
        offsets = np.arange(0.0, n - 1 - pitch * SIZE, 0.5)
        if len(offsets) == 0:
            continue
        positions = offsets[:, None] + pitch * lines[None, :]
        scores = np.interp(positions, xs, profile).sum(axis=1)
        for i in np.argsort(scores)[-count:]:
            candidates.append((float(scores[i]), float(offsets[i]), float(pitch)))
    candidates.sort(reverse=True)
    chosen: list[tuple[float, float]] = []
    for _, offset, pitch in candidates:
        if all(abs(offset - o) > 0.25 * p or abs(pitch - p) * SIZE > 0.25 * p for o, p in chosen):
            chosen.append((offset, pitch))
            if len(chosen) == count:
                break
    return chosen


def _canvas_lines(image: NDArray[np.uint8], canvas_from_image: FloatArray, side: int) -> NDArray[np.float32]:
    """The frame warped to a ``side`` square canvas, as the brightness the grid lines are
    found in: the per-pixel minimum channel, stretched (only the canvas is processed)."""
    canvas = cv2.warpPerspective(image, canvas_from_image, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    b, g, r = cv2.split(canvas)
    return _stretch_gray(np.asarray(cv2.min(cv2.min(b, g), r), np.uint8))


def _fit_grid_global(image: NDArray[np.uint8], image_from_canvas: FloatArray, side: int) -> Iterator[FloatArray]:
    """First grids from the outline, likeliest first (made one by one, as they are asked
    for): of the best few combs on each axis, the ``GUESSES`` pairs whose premium layout
    matches best, then the outline itself taken as the grid; each with its lines
    followed (``_fit_grid_local``) and moved up to two cells if the layout says so
    (``_best_shift``)."""
    canvas = _canvas_lines(image, np.linalg.inv(image_from_canvas), side)
    vertical, horizontal = _line_responses(canvas, side / SIZE)
    inner = side / (1 + 2 * QUAD_SLACK)
    combs = []
    for response, axis in ((vertical, 0), (horizontal, 1)):
        profile = response.mean(axis=axis).astype(np.float64)
        combs.append(_comb(profile, 0.72 * inner / SIZE, 1.2 * inner / SIZE))
    scored = []
    for ox, px in combs[0]:
        for oy, py in combs[1]:
            guess = image_from_canvas @ np.array([[px, 0.0, ox], [0.0, py, oy], [0.0, 0.0, 1.0]])
            scored.append((layout_match(image, guess)[0], guess))
    pad, pitch = (side - inner) / 2, inner / SIZE
    outline = image_from_canvas @ np.array([[pitch, 0.0, pad], [0.0, pitch, pad], [0.0, 0.0, 1.0]])
    for guess in [g for _, g in sorted(scored, key=lambda item: -item[0])[:GUESSES]] + [outline]:
        # the first guess may be far off at a corner: look wide, accept loosely, then look again
        for reach, tolerance in ((0.45, 0.3), (0.35, 0.2)):
            fitted = _fit_grid_local(image, guess, reach=reach, tolerance=tolerance)
            if fitted is None:
                break
            guess = fitted[0]
        else:
            yield _best_shift(image, guess)


def _best_shift(image: NDArray[np.uint8], image_from_board: FloatArray) -> FloatArray:
    """The grid moved by up to ``OFFSET_RING`` cells along each axis so that the premium
    layout matches best (a comb may take lines outside the board), refitted."""
    _, scores = _layout_and_offsets(image, image_from_board)
    du, dv = max(scores, key=lambda key: scores[key])
    if scores[du, dv] <= scores[0, 0] + 0.05:
        return image_from_board
    moved = image_from_board @ np.array([[1.0, 0.0, du], [0.0, 1.0, dv], [0.0, 0.0, 1.0]])
    fitted = _fit_grid_local(image, moved)
    return moved if fitted is None else fitted[0]


def _fit_grid_local(
    image: NDArray[np.uint8], image_from_board: FloatArray, reach: float = 0.3, tolerance: float = 0.125
) -> tuple[FloatArray, float] | None:
    """Follow each of the 16+16 lines near where ``image_from_board`` puts them; refit.

    Returns the new homography and the fraction of the line crossings it fits within
    ``tolerance`` cells, or None when too few lines are seen. Lines are looked for
    within ``reach`` cells of where they are expected."""
    cell = float(CANVAS_CELL)
    canvas_from_board = board_to_canvas(cell, CANVAS_MARGIN)
    side = int(round((SIZE + 2 * CANVAS_MARGIN) * cell))
    canvas_from_image = canvas_from_board @ np.linalg.inv(image_from_board)
    vertical, horizontal = _line_responses(_canvas_lines(image, canvas_from_image, side), cell)
    origin = CANVAS_MARGIN * cell
    v_lines = _follow_lines(vertical, origin, cell, reach)
    h_lines = _follow_lines(horizontal.T, origin, cell, reach)
    if v_lines is None or h_lines is None:
        return None
    board_pts, canvas_pts = [], []
    for i, v in enumerate(v_lines):  # x = mv * y + bv
        for j, h in enumerate(h_lines):  # y = mh * x + bh
            if v is None or h is None or abs(1.0 - v[0] * h[0]) < 1e-6:
                continue
            y = (h[0] * v[1] + h[1]) / (1.0 - v[0] * h[0])
            board_pts.append((i, j))
            canvas_pts.append((v[0] * y + v[1], y))
    board_arr = np.array(board_pts, np.float64)
    canvas_arr = np.array(canvas_pts, np.float64)
    matrix, inliers = cv2.findHomography(board_arr, canvas_arr, cv2.RANSAC, cell * tolerance)
    if matrix is None or inliers is None or inliers.sum() < 0.4 * len(board_arr):
        return None
    return np.asarray(np.linalg.inv(canvas_from_image) @ matrix, np.float64), float(inliers.mean())


def _follow_lines(
    response: NDArray[np.float32], origin: float, cell: float, reach_cells: float = 0.3
) -> list[tuple[float, float] | None] | None:
    """For each of the 16 lines near ``origin + i * cell`` (x in columns of ``response``),
    ``(m, b)`` of ``x = m * y + b`` through its positions found band by band along y,
    or None for a line not seen; None when fewer than half the lines are seen."""
    width = response.shape[1]
    reach = int(round(cell * reach_cells))
    edges = np.round(origin + SIZE * cell / BANDS * np.arange(BANDS + 1)).astype(int)
    profiles = np.stack([response[edges[b] : edges[b + 1]].mean(axis=0) for b in range(BANDS)])  # BANDS x W
    centres = np.round(origin + cell * np.arange(SIZE + 1)).astype(int)  # 16
    offsets = np.arange(-reach - 1, reach + 2)  # K, one spare sample each side
    windows = profiles[:, np.clip(centres[:, None] + offsets[None, :], 0, width - 1)]  # BANDS x 16 x K
    k = windows[..., 1:-1].argmax(axis=2) + 1  # BANDS x 16
    peak = np.take_along_axis(windows, k[..., None], 2)[..., 0]
    left = np.take_along_axis(windows, (k - 1)[..., None], 2)[..., 0]
    right = np.take_along_axis(windows, (k + 1)[..., None], 2)[..., 0]
    strength = peak - np.median(windows, axis=2)
    curvature = left - 2 * peak + right
    safe = np.where(curvature < 0, curvature, -1.0)
    shift = np.clip(np.where(curvature < 0, 0.5 * (left - right) / safe, 0.0), -0.5, 0.5)
    xs = centres[None, :] + offsets[k] + shift  # BANDS x 16
    ys = 0.5 * (edges[:-1] + edges[1:])  # BANDS
    seen = strength > 1.0  # BANDS x 16
    keep = seen & (np.abs(xs - _column_medians(xs, seen)) < cell * max(0.2, reach_cells * 0.6))
    m, b = _weighted_lines(ys, xs, np.where(keep, strength, 0.0).astype(np.float64))
    fitted = (seen.sum(axis=0) >= 2) & (keep.sum(axis=0) >= 2)
    lines = [(float(m[i]), float(b[i])) if fitted[i] else None for i in range(SIZE + 1)]
    return lines if int(fitted.sum()) > SIZE // 2 else None


def _column_medians(values: NDArray[np.float64], chosen: NDArray[np.bool_]) -> NDArray[np.float64]:
    """The median of each column's ``chosen`` values (``np.median``'s; any value for a column with none)."""
    count = chosen.sum(axis=0)
    ordered = np.sort(np.where(chosen, values, np.inf), axis=0)
    columns = np.arange(values.shape[1])
    low, high = np.maximum((count - 1) // 2, 0), np.minimum(count // 2, len(values) - 1)
    return np.asarray(0.5 * (ordered[low, columns] + ordered[high, columns]), np.float64)


def _weighted_lines(
    y: NDArray[np.float64], x: NDArray[np.float64], weight: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per column, ``(m, b)`` of ``x = m * y + b`` by least squares weighted by ``weight`` (what
    ``np.polyfit(y, x, 1, w=sqrt(weight))`` gives); ``y`` is shared by the columns. Columns with
    fewer than two weighted points get meaningless values."""
    with np.errstate(divide="ignore", invalid="ignore"):
        s = weight.sum(axis=0)
        y_mean = (weight * y[:, None]).sum(axis=0) / s
        x_mean = (weight * x).sum(axis=0) / s
        dy, dx = y[:, None] - y_mean, x - x_mean  # centred: no cancellation
        m = (weight * dx * dy).sum(axis=0) / (weight * dy * dy).sum(axis=0)
        b = x_mean - m * y_mean
    return m, b


# -- (3) checks ----------------------------------------------------------------------


def _plausible(image_from_board: FloatArray, shape: tuple[int, ...]) -> bool:
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


def cell_colours(image: NDArray[np.uint8], image_from_board: FloatArray, cell: int = 12, ring: int = 0) -> NDArray[np.float32]:
    """Mean Lab colour of the middle of each cell: ``15 x 15 x 3`` (row, col, L/a/b), or
    ``(15 + 2 ring)`` square with ``ring`` cells more around the grid. Colours are
    stretched by the grid's own channel percentiles (as ``stretch_channels`` does)."""
    n = SIZE + 2 * ring
    warp = board_to_canvas(cell, float(ring)) @ np.linalg.inv(image_from_board)
    side = cell * n
    canvas = cv2.warpPerspective(image, warp, (side, side), flags=cv2.INTER_AREA)
    inner = canvas[ring * cell : (n - ring) * cell : 4, ring * cell : (n - ring) * cell : 4].reshape(-1, 3).astype(np.float32)
    lo, hi = np.percentile(inner, 1.0, axis=0), np.percentile(inner, 99.0, axis=0)
    stretched = np.clip((canvas.astype(np.float32) - lo) * (255.0 / np.maximum(hi - lo, 8.0)), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(stretched, cv2.COLOR_BGR2LAB).astype(np.float32)
    middle = lab.reshape(n, cell, n, cell, 3)[:, cell // 4 : cell - cell // 4, :, cell // 4 : cell - cell // 4]
    return np.asarray(middle.mean(axis=(1, 3)), np.float32)


def green_cells(colours: NDArray[np.float32], ring: int = 0) -> NDArray[np.bool_]:
    """Which cells (from ``cell_colours``, ``ring`` cells around the grid) have the grid's
    plain squares' green.

    Judged by hue (the angle of Lab a/b), which a shadow, dim light or glare across the
    board hardly moves, unlike the a/b distance; a cell needs some chroma too (tiles are
    cream). The reference is the hue of the most colourful plain squares (cream tiles
    may cover most of them)."""
    ab = colours[..., 1:].astype(np.float64) - 128.0
    hue = np.arctan2(ab[..., 1], ab[..., 0])
    chroma = np.hypot(ab[..., 0], ab[..., 1])
    grid = (slice(ring, ring + SIZE),) * 2
    plain_hue, plain_chroma = hue[grid][~_PREMIUM_MASK], chroma[grid][~_PREMIUM_MASK]
    coloured = plain_chroma > max(4.0, float(np.percentile(plain_chroma, 90)) * 0.5)
    if not coloured.any():
        return np.zeros(colours.shape[:2], np.bool_)
    ref = float(np.angle(np.exp(1j * plain_hue[coloured]).sum()))
    near = coloured
    for _ in range(2):  # re-centre on the closer half
        off = np.abs(np.angle(np.exp(1j * (plain_hue - ref))))
        near = coloured & (off <= np.percentile(off[coloured], 50))
        ref = float(np.angle(np.exp(1j * plain_hue[near]).sum()))
    off = np.abs(np.angle(np.exp(1j * (hue - ref))))
    spread = float(np.percentile(off[grid][~_PREMIUM_MASK], 25))
    tolerance = float(np.clip(3.0 * spread, np.radians(12), np.radians(30)))
    min_chroma = max(5.0, 0.3 * float(np.median(plain_chroma[near])))
    return np.asarray((off < tolerance) & (chroma > min_chroma), np.bool_)


def layout_match(image: NDArray[np.uint8], image_from_board: FloatArray) -> tuple[float, dict[str, float]]:
    """How well the cell colours follow the premium layout, and the same for the grid one cell off.

    A cell is *green* as ``green_cells`` judges it. Returns
    ``(score, details)`` with ``premium`` (premium squares not green), ``plain``
    (plain squares green), ``score`` their mean, and ``margin``: score minus the best
    score of the layout shifted one cell in any direction; and ``offset_margin`` (see
    ``_layout_and_offsets``).
    """
    details, _ = _layout_and_offsets(image, image_from_board)
    return details["score"], details


def _layout_and_offsets(image: NDArray[np.uint8], image_from_board: FloatArray) -> tuple[dict[str, float], dict[tuple[int, int], float]]:
    """``layout_match``'s figures, with ``offset_margin`` (the score minus the best score of
    the grid moved up to ``OFFSET_RING`` cells, judged on the real colours there), and the
    score of each move ``(du, dv)``."""
    k = OFFSET_RING
    green = green_cells(cell_colours(image, image_from_board, ring=k), ring=k)
    details = _layout_details(green[k : k + SIZE, k : k + SIZE])
    scores = {}
    for du, dv in itertools.product(range(-k, k + 1), repeat=2):
        moved = green[k + dv : k + dv + SIZE, k + du : k + du + SIZE]
        scores[du, dv] = 0.5 * (float((~moved[_PREMIUM_MASK]).mean()) + float(moved[~_PREMIUM_MASK].mean()))
    details["offset_margin"] = scores[0, 0] - max(v for key, v in scores.items() if key != (0, 0))
    return details, scores


def _layout_details(green: NDArray[np.bool_]) -> dict[str, float]:
    """``layout_match``'s figures from the cells judged green."""

    def score(premium_mask: NDArray[np.bool_]) -> tuple[float, float]:
        return float((~green[premium_mask]).mean()), float(green[~premium_mask].mean())

    premium, plain = score(_PREMIUM_MASK)
    base = 0.5 * (premium + plain)
    quadrants = []
    for rows in (slice(0, 8), slice(7, SIZE)):
        for cols in (slice(0, 8), slice(7, SIZE)):
            quadrants.append(float((~green[rows, cols][_PREMIUM_MASK[rows, cols]]).mean()))
    shifted = []
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        moved = np.zeros_like(_PREMIUM_MASK)
        src = _PREMIUM_MASK[max(0, -dr) : SIZE - max(0, dr), max(0, -dc) : SIZE - max(0, dc)]
        moved[max(0, dr) : SIZE - max(0, -dr), max(0, dc) : SIZE - max(0, -dc)] = src
        p, q = score(moved)
        shifted.append(0.5 * (p + q))
    margin = base - max(shifted)
    return {"premium": premium, "plain": plain, "score": base, "margin": margin, "worst_quadrant": min(quadrants)}


def grid_points(image_from_board: FloatArray) -> FloatArray:
    """The 16 x 16 grid crossings in the image, ``256 x 2``, row-major over v then u."""
    u, v = np.meshgrid(np.arange(SIZE + 1.0), np.arange(SIZE + 1.0))
    return apply_homography(image_from_board, np.stack([u.ravel(), v.ravel()], axis=1))
