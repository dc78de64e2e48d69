"""Fitting the 15x15 grid to its lines (step (2) of ``find``).

The frame is warped square onto a *canvas* (``CANVAS_CELL`` pixels per cell), where a
grid line is a thin ridge darker (or lighter) than what lies beside it in the per-pixel
minimum channel, or where it is not clear there, in Lab's lightness or colour axes or the
per-pixel maximum (``_greys``); tiles, the brightest things, count little. ``fit_grid_global`` makes the
first grids from an outline (the best combs of 16 evenly spaced lines on each axis);
``fit_grid_local`` follows the 16 + 16 lines near a known grid, band by band, and fits
the homography to their crossings (RANSAC). Homographies are 3x3 float64:
``image_from_board`` maps board (u, v) in cells to image (x, y) in pixels (see
``geometry``), ``image_from_canvas`` canvas pixels to image pixels.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Final, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from .geometry import SIZE, FloatArray, board_to_canvas
from .percentiles import row_percentiles
from .premium_layout import layout_and_offsets, layout_match

_T = TypeVar("_T")
GREYS: Final = 5  # brightnesses of a canvas the grid lines are looked for in (``_greys``)

CANVAS_CELL: Final = 32  # pixels per cell when the grid is warped square for fitting
CANVAS_MARGIN: Final = 1.0  # cells of margin around the grid in that warp
QUAD_SLACK: Final = 0.12  # spare canvas around the green outline, as a fraction of it
GUESSES: Final = 2  # grids from the outline that are followed and checked
COMBS: Final = 3  # best combs kept on each axis
WIDE_GUESSES: Final = 4  # the same in a wider look (``fit_grid_global(wide=True)``, issue 20)
WIDE_COMBS: Final = 4
EVEN_LIGHT_CELLS: Final = 2.0  # a wide look divides the canvas by its blur at this sigma (cells)
BANDS: Final = 6  # pieces of each grid line followed separately
SMOOTH_PX: Final = 1.2  # a search that finds nothing looks again on canvases blurred by this sigma (pixels; issue 20)
CLEAR_LINES: Final = 4.0  # lines standing out this much (``_peakiness`` of both axes) are the grid's


def _stretch_gray(gray: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Levels stretched so the 1st..99th percentiles span 0..255 (not clipped)."""
    sample = np.ascontiguousarray(gray[::3, ::3]).reshape(1, -1)
    lo, hi = row_percentiles(sample, 1.0, np.float64)[0], row_percentiles(sample, 99.0, np.float64)[0]
    return np.asarray((gray.astype(np.float32) - lo) * (255.0 / max(float(hi - lo), 8.0)), np.float32)


def _line_responses(
    canvas: NDArray[np.float32], cell: float, weight: NDArray[np.float32], bright: bool = False
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(vertical, horizontal): how much darker a thin line is than what lies beside it, or
    with ``bright`` how much lighter (the light lines of blue, black and beige boards);
    times ``weight`` (``_tile_weight``)."""
    k = _kernel(cell)
    row, col = np.ones((1, k), np.uint8), np.ones((k, 1), np.uint8)
    if bright:
        vertical = canvas - cv2.morphologyEx(canvas, cv2.MORPH_OPEN, row)
        horizontal = canvas - cv2.morphologyEx(canvas, cv2.MORPH_OPEN, col)
    else:
        vertical = cv2.morphologyEx(canvas, cv2.MORPH_CLOSE, row) - canvas
        horizontal = cv2.morphologyEx(canvas, cv2.MORPH_CLOSE, col) - canvas
    return vertical * weight, horizontal * weight


def _kernel(cell: float) -> int:
    """The odd width (canvas pixels) of what a grid line is compared with: a quarter cell."""
    return max(3, int(round(cell / 4)) | 1)


def _tile_weight(canvas: NDArray[np.float32], cell: float) -> NDArray[np.float32]:
    """0.25 on and about the tiles, 1 elsewhere: tiles (the brightest things, in the darkest
    channel) and their letters say nothing of the grid."""
    k = _kernel(cell)
    ceiling = max(60.0, 3.0 * float(np.percentile(canvas[::3, ::3], 30)))
    tiles = cv2.dilate((canvas > ceiling).astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    return np.where(tiles, np.float32(0.25), np.float32(1.0))


def _clearest(candidates: Iterable[_T], evidence: Callable[[_T], float]) -> _T:
    """The first candidate whose lines stand out ``CLEAR_LINES`` (by ``evidence``), else the
    one whose stand out most; candidates after a clear one are not made."""
    best: _T | None = None
    best_evidence = -np.inf
    for candidate in candidates:
        found = evidence(candidate)
        if found >= CLEAR_LINES:
            return candidate
        if found > best_evidence:
            best, best_evidence = candidate, found
    assert best is not None, "no candidate lines"
    return best


def _all_responses(
    warped: NDArray[np.uint8], cell: float, even: float = 0.0, greys: int = GREYS
) -> Iterator[tuple[NDArray[np.float32], NDArray[np.float32]]]:
    """The dark-line responses, then the light-line ones, in each of the first ``greys``
    brightnesses of ``_greys`` (the tiles weighed down where each shows them brightest)."""
    for grey in itertools.islice(_greys(warped, even), greys):
        weight = _tile_weight(grey, cell)
        yield _line_responses(grey, cell, weight)
        yield _line_responses(grey, cell, weight, bright=True)


def _peakiness(profile: NDArray[np.float64], positions: NDArray[np.float64]) -> float:
    """How far the profile stands out at ``positions`` (the best within a pixel) over its median."""
    idx = np.clip(np.round(positions).astype(int)[:, None] + np.arange(-1, 2)[None, :], 0, len(profile) - 1)
    return float(profile[idx].max(axis=1).mean() / (np.median(profile) + 1e-3))


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


def _warped(image: NDArray[np.uint8], canvas_from_image: FloatArray, side: int) -> NDArray[np.uint8]:
    """The frame warped to a ``side`` square BGR canvas (only the canvas is processed)."""
    flags, border = cv2.INTER_LINEAR, cv2.BORDER_REPLICATE
    return np.asarray(cv2.warpPerspective(image, canvas_from_image, (side, side), flags=flags, borderMode=border), np.uint8)


def _smoothed(canvas: NDArray[np.uint8], sigma: float) -> NDArray[np.uint8]:
    """The canvas blurred by ``sigma`` pixels (0: itself)."""
    return np.asarray(cv2.GaussianBlur(canvas, (0, 0), sigma), np.uint8) if sigma else canvas


def _greys(warped: NDArray[np.uint8], even: float = 0.0) -> Iterator[NDArray[np.float32]]:
    """The brightnesses the grid lines are looked for in, made one by one as asked for: the
    per-pixel darkest channel first (tiles are the brightest things), then Lab's lightness
    and its two colour axes (a light blue line on a cream board stands out only in its
    colour, issue 20), then the brightest channel. Each stretched; with ``even`` (cells) first
    divided by its own blur, so that uneven light is evened out."""
    b, g, r = cv2.split(warped)
    yield _grey(np.asarray(cv2.min(cv2.min(b, g), r), np.uint8), even)
    for channel in cv2.split(cv2.cvtColor(warped, cv2.COLOR_BGR2LAB)):
        yield _grey(np.asarray(channel, np.uint8), even)
    yield _grey(np.asarray(cv2.max(cv2.max(b, g), r), np.uint8), even)


def _grey(channel: NDArray[np.uint8], even: float) -> NDArray[np.float32]:
    if even:  # divided by its light: glare and a dim corner no longer outweigh the lines
        light = cv2.GaussianBlur(channel.astype(np.float32), (0, 0), even * channel.shape[0] / SIZE) + 8.0
        channel = np.clip(channel.astype(np.float32) * (128.0 / light), 0, 255).astype(np.uint8)
    return _stretch_gray(channel)


def fit_grid_global(image: NDArray[np.uint8], image_from_canvas: FloatArray, side: int,
                    wide: bool = False, smooth: float = 0.0) -> Iterator[FloatArray]:  # fmt: skip
    """First grids from the outline, likeliest first (made one by one, as they are asked
    for): of the best ``COMBS`` combs on each axis, the ``GUESSES`` pairs whose premium layout
    matches best, then the outline itself taken as the grid; each with its lines
    followed (``fit_grid_local``) and moved up to two cells if the layout says so
    (``_best_shift``). The combs are looked for in the darkest channel; ``wide``: in every
    brightness of ``_greys`` until lines stand out clearly, ``WIDE_COMBS`` and ``WIDE_GUESSES``
    instead, on a canvas whose light is evened out (``EVEN_LIGHT_CELLS``: glare, a dim corner);
    more work, for the outlines worth a second look. ``smooth``: every canvas blurred by that
    many pixels (``fit_grid_local``)."""
    combs_kept, guesses = (WIDE_COMBS, WIDE_GUESSES) if wide else (COMBS, GUESSES)
    warped = _smoothed(_warped(image, np.asarray(np.linalg.inv(image_from_canvas), np.float64), side), smooth)
    inner = side / (1 + 2 * QUAD_SLACK)

    def combed(responses: tuple[NDArray[np.float32], NDArray[np.float32]]) -> tuple[list[list[tuple[float, float]]], float]:
        found, evidence = [], 0.0
        for response, axis in zip(responses, (0, 1)):
            profile = response.mean(axis=axis).astype(np.float64)
            found.append(_comb(profile, 0.72 * inner / SIZE, 1.2 * inner / SIZE, combs_kept))
            if found[-1]:
                offset, pitch = found[-1][0]
                evidence += _peakiness(profile, offset + pitch * np.arange(SIZE + 1.0))
        return found, evidence

    # dark lines, light lines, in each brightness in turn: the first clear ones, else the clearest
    even = EVEN_LIGHT_CELLS if wide else 0.0
    greys = GREYS if wide else 1  # a first look at an outline combs the darkest channel only (the others are slow)
    combs, _ = _clearest((combed(r) for r in _all_responses(warped, side / SIZE, even, greys)), lambda c: c[1])
    scored = []
    for ox, px in combs[0]:
        for oy, py in combs[1]:
            guess = image_from_canvas @ np.array([[px, 0.0, ox], [0.0, py, oy], [0.0, 0.0, 1.0]])
            scored.append((layout_match(image, guess)[0], guess))
    pad, pitch = (side - inner) / 2, inner / SIZE
    outline = image_from_canvas @ np.array([[pitch, 0.0, pad], [0.0, pitch, pad], [0.0, 0.0, 1.0]])
    for guess in [g for _, g in sorted(scored, key=lambda item: -item[0])[:guesses]] + [outline]:
        # the first guess may be far off at a corner: look wide, accept loosely, then look again;
        # in a wide look, the closer look is kept only when it fits its lines about as well (tiles
        # and glare can pull it off lines the first look had)
        loose = fit_grid_local(image, guess, reach=0.45, tolerance=0.3, smooth=smooth)
        if loose is None:
            continue
        close = fit_grid_local(image, loose[0], reach=0.35, tolerance=0.2, smooth=smooth)
        if close is None:
            continue
        yield _best_shift(image, loose[0] if wide and close[1] < loose[1] - 0.1 else close[0], smooth)


def _best_shift(image: NDArray[np.uint8], image_from_board: FloatArray, smooth: float = 0.0) -> FloatArray:
    """The grid moved by up to ``premium_layout.OFFSET_RING`` cells along each axis so that the premium
    layout matches best (a comb may take lines outside the board), refitted."""
    _, scores = layout_and_offsets(image, image_from_board)
    du, dv = max(scores, key=lambda key: scores[key])
    if scores[du, dv] <= scores[0, 0] + 0.05:
        return image_from_board
    moved = image_from_board @ np.array([[1.0, 0.0, du], [0.0, 1.0, dv], [0.0, 0.0, 1.0]])
    fitted = fit_grid_local(image, moved, smooth=smooth)
    return moved if fitted is None else fitted[0]


def fit_grid_local(
    image: NDArray[np.uint8],
    image_from_board: FloatArray,
    reach: float = 0.3,
    tolerance: float = 0.125,
    smooth: float = 0.0,
) -> tuple[FloatArray, float] | None:
    """Follow each of the 16+16 lines near where ``image_from_board`` puts them; refit.

    Returns the new homography and the fraction of the line crossings it fits within
    ``tolerance`` cells, or None when too few lines are seen. Lines are looked for
    within ``reach`` cells of where they are expected, on the canvas blurred by ``smooth``
    pixels (0: as it is; ``SMOOTH_PX``: in a dim frame the camera's grain moves each faint
    line's peak more than the line's own contrast does, issue 20)."""
    cell = float(CANVAS_CELL)
    canvas_from_board = board_to_canvas(cell, CANVAS_MARGIN)
    side = int(round((SIZE + 2 * CANVAS_MARGIN) * cell))
    canvas_from_image = canvas_from_board @ np.linalg.inv(image_from_board)
    origin = CANVAS_MARGIN * cell
    expected = origin + cell * np.arange(SIZE + 1.0)
    warped = _smoothed(_warped(image, canvas_from_image, side), smooth)

    def evidence(vh: tuple[NDArray[np.float32], NDArray[np.float32]]) -> float:
        return _peakiness(vh[0].mean(axis=0).astype(np.float64), expected) + _peakiness(vh[1].mean(axis=1).astype(np.float64), expected)

    # dark lines, or light lines, or lines in another brightness, where the grid is: the first clear ones
    vertical, horizontal = _clearest(_all_responses(warped, cell), evidence)
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
