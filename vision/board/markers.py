"""Optional ArUco markers on the board's frame: a faster, sturdier find, and row A known.

``veedor print-markers`` writes a sheet of four markers (``DICT_4X4_50``, ids 0..3)
to stick on the frame just outside the grid corners: id 0 beside A1, 1 beside
A15, 2 beside O15, 3 beside O1. ``find_with_markers`` takes the quadrilateral of
their centres as the first guess of the grid (the grid search has slack for the
frame between markers and grid), then turns the result so that row A is where
marker 0 says.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from .find import BoardFind, _find_in_quad, not_found
from .geometry import FloatArray, image_corners, rotate_board_frame

DICTIONARY: Final = cv2.aruco.DICT_4X4_50
CORNER_NAMES: Final = ("A1", "A15", "O15", "O1")


def _detector() -> cv2.aruco.ArucoDetector:
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())


def marker_image(marker_id: int, side: int) -> NDArray[np.uint8]:
    """One marker, ``side`` pixels square, black on white (single channel)."""
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, side), np.uint8)


def marker_sheet(side: int = 500, gap: int = 160) -> NDArray[np.uint8]:
    """A printable sheet (BGR) with the four markers and the corner each one marks."""
    width = 2 * side + 3 * gap
    sheet = np.full((width + 60, width, 3), 255, np.uint8)
    for k, name in enumerate(CORNER_NAMES):
        row, col = divmod(k, 2) if k < 2 else (1, 3 - k)
        x, y = gap + col * (side + gap), gap + row * (side + gap)
        sheet[y : y + side, x : x + side] = marker_image(k, side)[..., None]
        cv2.putText(sheet, f"{k}: junto a {name}", (x, y - 30), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(sheet, "Veedor: pegue cada marcador en el marco, junto a la esquina indicada", (gap // 2, width + 30),
                cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2, cv2.LINE_AA)
    return sheet


def detect_markers(image: NDArray[np.uint8]) -> dict[int, FloatArray]:
    """Centres (x, y) of the markers 0..3 seen in a BGR frame."""
    corners, ids, _ = _detector().detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    found: dict[int, FloatArray] = {}
    if ids is None:
        return found
    for quad, marker in zip(corners, ids.ravel()):
        if 0 <= int(marker) < 4:
            found[int(marker)] = np.asarray(quad, np.float64).reshape(4, 2).mean(axis=0)
    return found


def find_with_markers(image: NDArray[np.uint8]) -> tuple[BoardFind, int | None]:
    """The grid found from the four markers, and the quarter turn that puts row A at marker 0.

    Returns ``(not found, None)`` when fewer than four markers are seen."""
    centres = detect_markers(image)
    if len(centres) < 4:
        return not_found(f"se ven {len(centres)} de los 4 marcadores"), None
    quad = np.array([centres[k] for k in range(4)])
    found = _find_in_quad(image, quad)
    if not found.found or found.image_from_board is None:
        return found, None
    best, turn = np.inf, 0
    for k in range(4):
        corner = image_corners(rotate_board_frame(found.image_from_board, k))[0]
        distance = float(np.linalg.norm(corner - centres[0]))
        if distance < best:
            best, turn = distance, k
    return found, turn
