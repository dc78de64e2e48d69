"""Calibrating a board camera: the grid's homography and which edge is row A, with a preview.

``calibrate(images, turn)`` finds the board (``find.find_board``) in the first frame
that shows it and, when ``turn`` is not given (the venue's ``orientation`` in
degrees / 90), infers it from the upright letters (``orientation.infer_turn``); the
result is a ``Calibration``: ``image_from_board`` *upright* (row A towards the image
top, as the tracker keeps it) and ``turn`` (quarter turns to the real row A, None
when unknown). ``straightened`` draws the board warped square with the real row A
at the top and the grid, row letters and column numbers on it, so that the arbiter
can see at a glance that the grid sits on the lines; ``warning`` tells the arbiter when the squares are too small in
the frame to be read well (``cells.MIN_READ_PITCH``). Calibrations are stored as
``<folder>/<camera>.json`` with the preview ``<folder>/<camera>.png``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
from numpy.typing import NDArray

from .cells import board_crops, small_squares_warning
from .classify import CellClassifier, default_classifier
from .find import BoardFind, find_board
from .geometry import SIZE, FloatArray, board_to_canvas, rotate_board_frame
from .orientation import infer_turn

PREVIEW_CELL: Final = 40  # pixels per cell in the preview
PREVIEW_MARGIN: Final = 0.7  # cells of margin for the row letters and column numbers
ROWS: Final = "ABCDEFGHIJKLMNO"


@dataclass(frozen=True)
class Calibration:
    """One camera's calibration, or why it failed (``found`` False, ``reason``)."""

    camera: str
    found: bool
    reason: str = ""
    image_from_board: tuple[tuple[float, ...], ...] | None = None  # upright
    turn: int | None = None
    frame_size: tuple[int, int] = (0, 0)  # width, height
    layout_score: float = 0.0
    created: str = ""
    pitch: float = 0.0  # image pixels per square (``geometry.cell_pitch``)
    warning: str = ""  # squares too small to read well (``cells.small_squares_warning``)

    @property
    def homography(self) -> FloatArray | None:
        return None if self.image_from_board is None else np.array(self.image_from_board, np.float64)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        matrix = data.get("image_from_board")
        turn = data.get("turn")
        size = data.get("frame_size") or (0, 0)
        return cls(
            str(data["camera"]), bool(data["found"]), str(data.get("reason", "")),
            tuple(tuple(float(x) for x in row) for row in matrix) if matrix else None,
            int(turn) if turn is not None else None, (int(size[0]), int(size[1])),
            float(data.get("layout_score", 0.0)), str(data.get("created", "")),
            float(data.get("pitch", 0.0)), str(data.get("warning", "")),
        )


def calibrate(
    camera: str, images: Iterable[NDArray[np.uint8]], turn: int | None = None, classifier: CellClassifier | None = None,
) -> tuple[Calibration, NDArray[np.uint8] | None]:
    """The calibration from the images showing the board, and its preview (None when not found).

    With ``turn`` unknown, the first image whose letters tell it is used; failing that,
    the first image showing the board, with ``turn`` None (the tracker infers it later).
    """
    reason = "no llegó ninguna imagen de la cámara"
    first: tuple[NDArray[np.uint8], BoardFind] | None = None
    for image in images:
        found = find_board(image)
        if not found.found or found.image_from_board is None:
            reason = found.reason
            continue
        first = first or (image, found)
        guess = turn if turn is not None else _inferred_turn(image, found.image_from_board, classifier or default_classifier())
        if guess is not None:
            return _result(camera, image, found, guess)
    if first is None:
        return Calibration(camera, False, f"no se encuentra el tablero: {reason}"), None
    return _result(camera, first[0], first[1], None)


def _result(camera: str, image: NDArray[np.uint8], found: BoardFind, turn: int | None) -> tuple[Calibration, NDArray[np.uint8]]:
    assert found.image_from_board is not None
    upright = found.image_from_board
    h, w = image.shape[:2]
    matrix = tuple(tuple(float(x) for x in row) for row in upright)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    pitch = round(found.pitch, 1)
    result = Calibration(camera, True, "", matrix, turn, (w, h), round(found.layout_score, 3), now, pitch,
                         small_squares_warning(pitch))  # fmt: skip
    return result, straightened(image, upright, turn or 0)


def _inferred_turn(image: NDArray[np.uint8], upright: FloatArray, classifier: CellClassifier) -> int | None:
    crops = board_crops(image, upright)
    guess = infer_turn(crops, classifier.probabilities(crops), classifier)
    return guess.turn


def straightened(image: NDArray[np.uint8], upright: FloatArray, turn: int) -> NDArray[np.uint8]:
    """The board warped square, real row A on top, with the grid and its names drawn."""
    canvas_from_board = board_to_canvas(PREVIEW_CELL, PREVIEW_MARGIN)
    image_from_board = rotate_board_frame(upright, turn)
    canvas_from_image = canvas_from_board @ np.linalg.inv(image_from_board)
    side = int(round(PREVIEW_CELL * (SIZE + 2 * PREVIEW_MARGIN)))
    out = cv2.warpPerspective(image, canvas_from_image, (side, side), flags=cv2.INTER_LINEAR, borderValue=(40, 40, 40))
    offset = PREVIEW_MARGIN * PREVIEW_CELL
    end = offset + SIZE * PREVIEW_CELL
    for k in range(SIZE + 1):
        p = int(round(offset + k * PREVIEW_CELL))
        cv2.line(out, (p, int(offset)), (p, int(end)), (0, 0, 255), 1, cv2.LINE_AA)
        cv2.line(out, (int(offset), p), (int(end), p), (0, 0, 255), 1, cv2.LINE_AA)
    for k in range(SIZE):
        centre = int(round(offset + (k + 0.5) * PREVIEW_CELL))
        cv2.putText(out, ROWS[k], (4, centre + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
        cv2.putText(out, str(k + 1), (centre - 8, int(offset) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def calibration_paths(folder: Path, camera: str) -> tuple[Path, Path]:
    """(JSON, preview PNG) of a camera's calibration."""
    return folder / f"{camera}.json", folder / f"{camera}.png"


def save_calibration(folder: Path, calibration: Calibration, preview: NDArray[np.uint8] | None) -> Path:
    """Write the calibration (and its preview) atomically; returns the JSON's path."""
    folder.mkdir(parents=True, exist_ok=True)
    json_path, png_path = calibration_paths(folder, calibration.camera)
    if preview is not None:
        ok, encoded = cv2.imencode(".png", preview)
        if ok:
            _write_atomic(png_path, encoded.tobytes())
    _write_atomic(json_path, json.dumps(calibration.to_json(), ensure_ascii=False, indent=1).encode())
    return json_path


def load_calibration(folder: Path, camera: str) -> Calibration | None:
    """The camera's stored calibration (None when there is none or it is unreadable)."""
    json_path, _ = calibration_paths(folder, camera)
    try:
        return Calibration.from_json(json.loads(json_path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
