"""The premium layout check (step (3) of ``find``): do the squares follow ``board.PREMIUMS``?

``cell_colours`` samples the middle of every cell through a grid: ``15 x 15 x 3``
float32 Lab (row, col, L/a/b; row A the grid's top row), or larger by a ``ring`` of
cells around the grid; ``cell_stats`` adds each middle's texture. ``plain_cells`` says
which cells look like the board's plain squares, whatever their colour (green, beige,
blue, black, wood): each is compared with the plain squares around it, so that a shadow,
dim light or glare across the board hardly matters; a tile on a board of the tiles'
colour is not judged. ``layout_match`` scores how well premium squares are unlike the
plain ones and plain squares are plain (1.0 perfect), overall, per quarter, and ahead
of the grid shifted one cell or moved up to ``OFFSET_RING`` cells.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from rules_core.board import PREMIUMS, Premium

from .geometry import SIZE, FloatArray, board_to_canvas

OFFSET_RING: Final = 2  # cells the grid is moved each way when judged on the real colours there

LOCAL: Final = 3  # cells each way whose plain squares a cell is compared with
MIN_TOLERANCE: Final = 7.0  # Lab distance (lightness weighing half) under which a cell looks plain, at least ...
MAX_TOLERANCE: Final = 18.0  # ... and at most
TEXTURED: Final = 2.0  # a cell whose lightness varies this many times more than a plain square's holds a letter
_WEIGHT: Final = np.array([0.5, 1.0, 1.0])
_PREMIUM_MASK: Final = np.array([[p is not Premium.NONE for p in row] for row in PREMIUMS])


def cell_colours(image: NDArray[np.uint8], image_from_board: FloatArray, cell: int = 12, ring: int = 0) -> NDArray[np.float32]:
    """Mean Lab colour of the middle of each cell: ``15 x 15 x 3`` (row, col, L/a/b), or
    ``(15 + 2 ring)`` square with ``ring`` cells more around the grid. Colours are
    stretched by the grid's own channel percentiles (as ``outline.stretch_channels`` does)."""
    return cell_stats(image, image_from_board, cell, ring)[0]


def cell_stats(
    image: NDArray[np.uint8], image_from_board: FloatArray, cell: int = 12, ring: int = 0
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """``cell_colours`` and each cell middle's texture (the spread of its lightness: a letter, a label)."""
    n = SIZE + 2 * ring
    warp = board_to_canvas(cell, float(ring)) @ np.linalg.inv(image_from_board)
    side = cell * n
    canvas = cv2.warpPerspective(image, warp, (side, side), flags=cv2.INTER_AREA)
    inner = canvas[ring * cell : (n - ring) * cell : 4, ring * cell : (n - ring) * cell : 4].reshape(-1, 3).astype(np.float32)
    lo, hi = np.percentile(inner, 1.0, axis=0), np.percentile(inner, 99.0, axis=0)
    stretched = np.clip((canvas.astype(np.float32) - lo) * (255.0 / np.maximum(hi - lo, 8.0)), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(stretched, cv2.COLOR_BGR2LAB).astype(np.float32)
    middle = lab.reshape(n, cell, n, cell, 3)[:, cell // 4 : cell - cell // 4, :, cell // 4 : cell - cell // 4]
    return np.asarray(middle.mean(axis=(1, 3)), np.float32), np.asarray(middle[..., 0].std(axis=(1, 3)), np.float32)


def _centre(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """The median of ``values`` (``k x 3``), re-taken twice on the closer half (tiles, shade)."""
    ref = np.median(values, axis=0)
    for _ in range(2):
        d = np.linalg.norm((values - ref) * _WEIGHT, axis=1)
        ref = np.median(values[d <= np.percentile(d, 50)], axis=0)
    return np.asarray(ref, np.float64)


def plain_cells(
    colours: NDArray[np.float32], texture: NDArray[np.float32], ring: int = 0
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Which cells (from ``cell_stats``, ``ring`` cells around the grid) look like the grid's
    plain squares, whatever their colour, and which are judged at all.

    Each cell is compared with the plain squares around it (the median of those within
    ``LOCAL`` cells, textured ones (tiles) left out: a shadow or a light gradient across the board moves
    both alike), by Lab distance with lightness weighing half. A textured cell (a letter)
    that looks plain is a tile on a board of the tiles' colour: not judged."""
    lab = colours.astype(np.float64)
    grid = lab[ring : ring + SIZE, ring : ring + SIZE]
    plain = grid[~_PREMIUM_MASK]
    ref = _centre(plain)
    tex_grid = texture[ring : ring + SIZE, ring : ring + SIZE]
    textured = texture > max(6.0, TEXTURED * float(np.median(tex_grid[~_PREMIUM_MASK])))
    usable = ~_PREMIUM_MASK & ~textured[ring : ring + SIZE, ring : ring + SIZE]  # no tile (a letter) as reference
    if usable.sum() < 20:
        usable = ~_PREMIUM_MASK
    padded = np.full((SIZE + 2 * LOCAL, SIZE + 2 * LOCAL, 3), np.nan)
    padded[LOCAL:-LOCAL, LOCAL:-LOCAL] = np.where(usable[..., None], grid, np.nan)
    windows = np.lib.stride_tricks.sliding_window_view(padded, (2 * LOCAL + 1, 2 * LOCAL + 1), axis=(0, 1))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        local = np.nanmedian(windows.reshape(SIZE, SIZE, 3, -1), axis=3)
    local = np.where(np.isnan(local), ref, local)
    idx = np.clip(np.arange(SIZE + 2 * ring) - ring, 0, SIZE - 1)
    local_all = local[idx][:, idx]
    d = np.linalg.norm((lab - local_all) * _WEIGHT, axis=2)
    inner = d[ring : ring + SIZE, ring : ring + SIZE]
    spread = float(np.percentile(inner[~_PREMIUM_MASK], 25))
    tolerance = float(np.clip(3.0 * spread, MIN_TOLERANCE, MAX_TOLERANCE))
    looks_plain = d < tolerance
    return np.asarray(looks_plain, np.bool_), np.asarray(~(textured & looks_plain), np.bool_)


def _mean(values: NDArray[np.bool_], known: NDArray[np.bool_]) -> float:
    return float(values[known].mean()) if known.any() else 0.0


def layout_match(image: NDArray[np.uint8], image_from_board: FloatArray) -> tuple[float, dict[str, float]]:
    """How well the cell colours follow the premium layout, and the same for the grid one cell off.

    A cell is *plain* as ``plain_cells`` judges it. Returns ``(score, details)`` with
    ``premium`` (premium squares not plain), ``plain`` (plain squares plain), ``score``
    their mean, and ``margin``: score minus the best score of the layout shifted one cell
    in any direction; and ``offset_margin`` (see ``layout_and_offsets``).
    """
    details, _ = layout_and_offsets(image, image_from_board)
    return details["score"], details


def layout_and_offsets(image: NDArray[np.uint8], image_from_board: FloatArray) -> tuple[dict[str, float], dict[tuple[int, int], float]]:
    """``layout_match``'s figures, with ``offset_margin`` (the score minus the best score of
    the grid moved up to ``OFFSET_RING`` cells, judged on the real colours there), and the
    score of each move ``(du, dv)``."""
    k = OFFSET_RING
    colours, texture = cell_stats(image, image_from_board, ring=k)
    plain, known = plain_cells(colours, texture, ring=k)
    details = _layout_details(plain[k : k + SIZE, k : k + SIZE], known[k : k + SIZE, k : k + SIZE])
    scores = {}
    for du, dv in itertools.product(range(-k, k + 1), repeat=2):
        moved = plain[k + dv : k + dv + SIZE, k + du : k + du + SIZE]
        seen = known[k + dv : k + dv + SIZE, k + du : k + du + SIZE]
        scores[du, dv] = 0.5 * (_mean(~moved[_PREMIUM_MASK], seen[_PREMIUM_MASK]) + _mean(moved[~_PREMIUM_MASK], seen[~_PREMIUM_MASK]))
    details["offset_margin"] = scores[0, 0] - max(v for key, v in scores.items() if key != (0, 0))
    return details, scores


def _layout_details(green: NDArray[np.bool_], known: NDArray[np.bool_]) -> dict[str, float]:
    """``layout_match``'s figures from the cells judged plain (``green``) among those judged (``known``)."""

    def score(premium_mask: NDArray[np.bool_]) -> tuple[float, float]:
        return _mean(~green[premium_mask], known[premium_mask]), _mean(green[~premium_mask], known[~premium_mask])

    premium, plain = score(_PREMIUM_MASK)
    base = 0.5 * (premium + plain)
    quadrants = []
    for rows in (slice(0, 8), slice(7, SIZE)):
        for cols in (slice(0, 8), slice(7, SIZE)):
            quadrants.append(_mean(~green[rows, cols][_PREMIUM_MASK[rows, cols]], known[rows, cols][_PREMIUM_MASK[rows, cols]]))
    shifted = []
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        moved = np.zeros_like(_PREMIUM_MASK)
        src = _PREMIUM_MASK[max(0, -dr) : SIZE - max(0, dr), max(0, -dc) : SIZE - max(0, dc)]
        moved[max(0, dr) : SIZE - max(0, -dr), max(0, dc) : SIZE - max(0, -dc)] = src
        p, q = score(moved)
        shifted.append(0.5 * (p + q))
    margin = base - max(shifted)
    return {"premium": premium, "plain": plain, "score": base, "margin": margin, "worst_quadrant": min(quadrants)}
