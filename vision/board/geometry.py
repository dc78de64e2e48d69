"""Homographies between a camera image and the board grid, named by frame.

Conventions (every module of ``vision.board`` uses them):

* Images are ``numpy`` arrays ``H x W x 3``, ``uint8``, BGR (OpenCV order).
* An image point is ``(x, y)`` in pixels, x to the right, y down.
* A board point is ``(u, v)`` in cell units: u along the columns, v along the rows,
  both 0..15. Cell (row r, col c) covers ``u in [c, c+1]``, ``v in [r, r+1]``; the
  grid's outer corners are (0, 0), (15, 0), (15, 15), (0, 15).
* ``image_from_board`` is a 3x3 homography taking homogeneous ``(u, v, 1)`` to
  ``(x, y, 1)``; ``board_from_image`` is its inverse. A homography is applied with
  ``apply_homography(H, points)``, points as an ``N x 2`` array.
* A quarter turn ``k`` (0..3) relabels the board: the board read with ``k`` quarter
  turns has, as its row A, the grid edge that was the ``k``-th edge clockwise from
  the top (``rotate_board_frame``).
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

SIZE: Final = 15
FloatArray = NDArray[np.float64]

GRID_CORNERS: Final = np.array([[0.0, 0.0], [15.0, 0.0], [15.0, 15.0], [0.0, 15.0]])
"""Board points of the grid corners: row A col 1 first, then clockwise."""


def apply_homography(matrix: FloatArray, points: FloatArray) -> FloatArray:
    """Map ``N x 2`` points through a 3x3 homography; returns ``N x 2``."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    homogeneous = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(matrix, np.float64).T
    return homogeneous[:, :2] / homogeneous[:, 2:3]


def quarter_turn_matrix(k: int) -> FloatArray:
    """``old_from_new`` board coordinates for a board relabelled by ``k`` clockwise quarter turns.

    With ``k = 1`` the new row A is the old right edge (column 15), read top to bottom:
    new (u, v) = (c, r) lies at old (15 - v, u).
    """
    k %= 4
    if k == 0:
        return np.eye(3)
    if k == 1:
        return np.array([[0.0, -1.0, 15.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    if k == 2:
        return np.array([[-1.0, 0.0, 15.0], [0.0, -1.0, 15.0], [0.0, 0.0, 1.0]])
    return np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 15.0], [0.0, 0.0, 1.0]])


def rotate_board_frame(image_from_board: FloatArray, k: int) -> FloatArray:
    """The homography of the same grid with row A moved ``k`` quarter turns clockwise."""
    return np.asarray(image_from_board, np.float64) @ quarter_turn_matrix(k)


def upright_turn(image_from_board: FloatArray) -> int:
    """The quarter turn that puts row A on the grid edge facing the image top.

    That is the turn whose row A runs left to right in the image, its direction
    within 45 degrees of the x axis.
    """
    best_k, best = 0, -np.inf
    for k in range(4):
        corners = apply_homography(rotate_board_frame(image_from_board, k), GRID_CORNERS[:2])
        dx, dy = corners[1] - corners[0]
        cosine = dx / max(float(np.hypot(dx, dy)), 1e-9)
        if cosine > best:
            best_k, best = k, cosine
    return best_k


def image_corners(image_from_board: FloatArray) -> FloatArray:
    """The four grid corners in the image, row A col 1 first, clockwise (``4 x 2``)."""
    return apply_homography(image_from_board, GRID_CORNERS)


def cell_pitch(image_from_board: FloatArray) -> float:
    """Mean size of a cell in image pixels (side of the grid / 15)."""
    c = image_corners(image_from_board)
    sides = [np.hypot(*(c[(i + 1) % 4] - c[i])) for i in range(4)]
    return float(np.mean(sides)) / SIZE


def board_to_canvas(cell_px: float, margin_cells: float) -> FloatArray:
    """``canvas_from_board``: scale to ``cell_px`` pixels per cell, with a margin in cells."""
    offset = margin_cells * cell_px
    return np.array([[cell_px, 0.0, offset], [0.0, cell_px, offset], [0.0, 0.0, 1.0]])
