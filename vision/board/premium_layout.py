"""The premium layout check (step (3) of ``find``): do the squares' colours follow ``board.PREMIUMS``?

``cell_colours`` samples the middle of every cell through a grid: ``15 x 15 x 3``
float32 Lab (row, col, L/a/b; row A the grid's top row), or larger by a ``ring`` of
cells around the grid. ``green_cells`` says which cells have the plain squares' green,
judged by hue so that a shadow or glare across the board hardly matters.
``layout_match`` scores how well premium squares are not green and plain squares are
(1.0 perfect), overall, per quarter, and ahead of the grid shifted one cell or moved up
to ``OFFSET_RING`` cells.
"""

from __future__ import annotations

import itertools
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from rules_core.board import PREMIUMS, Premium

from .geometry import SIZE, FloatArray, board_to_canvas

OFFSET_RING: Final = 2  # cells the grid is moved each way when judged on the real colours there

_PREMIUM_MASK: Final = np.array([[p is not Premium.NONE for p in row] for row in PREMIUMS])


def cell_colours(image: NDArray[np.uint8], image_from_board: FloatArray, cell: int = 12, ring: int = 0) -> NDArray[np.float32]:
    """Mean Lab colour of the middle of each cell: ``15 x 15 x 3`` (row, col, L/a/b), or
    ``(15 + 2 ring)`` square with ``ring`` cells more around the grid. Colours are
    stretched by the grid's own channel percentiles (as ``outline.stretch_channels`` does)."""
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
    ``layout_and_offsets``).
    """
    details, _ = layout_and_offsets(image, image_from_board)
    return details["score"], details


def layout_and_offsets(image: NDArray[np.uint8], image_from_board: FloatArray) -> tuple[dict[str, float], dict[tuple[int, int], float]]:
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
