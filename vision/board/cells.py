"""Warping the board square and cutting one crop per cell, as the cell classifier sees them.

The board is warped so that a cell is ``CELL_PX`` pixels and every crop keeps
``CONTEXT_PX`` pixels of its neighbours on each side (tiles lie off-centre, and
their tops lean away from the camera's axis), giving ``CROP_PX`` square crops.
Crop ``r * 15 + c`` is cell (row r, col c) of the board as ``image_from_board``
labels it (row A first). Colours are stretched per board (``normalise_board``) so
dim light and colour casts reach the classifier as a standard board; a board seen in
such dim light that the stretch leaves it grainy is smoothed (``smoothed_when_noisy``).
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from .geometry import SIZE, FloatArray, board_to_canvas
from .percentiles import channel_percentiles

CELL_PX: Final = 32
CONTEXT_PX: Final = 4
CROP_PX: Final = CELL_PX + 2 * CONTEXT_PX  # 40
CANVAS_PX: Final = SIZE * CELL_PX + 2 * CONTEXT_PX  # 488
NOISY: Final = 8.0  # grey levels of pixel noise (``pixel_noise``) above which a normalised board is smoothed
SMOOTHING_PX: Final = 0.7  # the smoothing's Gaussian sigma, canvas pixels (a cell is ``CELL_PX``)
# Image pixels a square must span to be read as the benchmarks measure. On calibration renders (Lato, Cantarell;
# 320 boards at four frame sizes): 0.04 % of letters misread from 28 px up, 0.7 % at 24-28 px, 1.4 % at 20-24
# and 10 % under 20 (a USB camera left at 640x480), and empty squares read covered only under 28 px. The
# arbiter is warned below it (``small_squares_warning``).
MIN_READ_PITCH: Final = 28.0


def small_squares_warning(pitch: float) -> str:
    """What the arbiter is told when the board's squares span ``pitch`` image pixels, fewer than
    ``MIN_READ_PITCH`` (empty otherwise): the camera is too far or sends too small a frame."""
    if pitch >= MIN_READ_PITCH:
        return ""
    return (f"las casillas miden {pitch:.0f} px en la imagen y se leen bien desde {MIN_READ_PITCH:.0f}: "
            "acerque la cámara o póngala a 1920x1080; hasta entonces habrá más dudas y letras mal leídas")


def canvas_from_board() -> FloatArray:
    """Board (u, v) cells -> canvas pixels of ``warp_board``."""
    return board_to_canvas(CELL_PX, CONTEXT_PX / CELL_PX)


def warp_board(image: NDArray[np.uint8], image_from_board: FloatArray) -> NDArray[np.uint8]:
    """The board warped square: ``CANVAS_PX x CANVAS_PX x 3`` BGR, row A at the top."""
    warp = canvas_from_board() @ np.linalg.inv(image_from_board)
    canvas = cv2.warpPerspective(image, warp, (CANVAS_PX, CANVAS_PX), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    return np.asarray(canvas, np.uint8)


def normalise_board(canvas: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Each colour channel stretched so its 1st..99th percentiles over the board span 0..255."""
    sample = canvas[CONTEXT_PX:-CONTEXT_PX:5, CONTEXT_PX:-CONTEXT_PX:5].reshape(-1, 3)
    lo = channel_percentiles(sample, 1.0)
    hi = channel_percentiles(sample, 99.0)
    lut = np.empty((256, 1, 3), np.uint8)  # level -> the three channels' new levels (cv2.LUT)
    levels = np.arange(256, dtype=np.float32)
    for ch in range(3):
        lut[:, 0, ch] = np.clip((levels - lo[ch]) * 255.0 / max(float(hi[ch] - lo[ch]), 8.0), 0, 255).astype(np.uint8)
    return np.asarray(cv2.LUT(np.ascontiguousarray(canvas), lut), np.uint8)


def pixel_noise(canvas: NDArray[np.uint8]) -> float:
    """A robust sigma of a canvas's pixel noise, in grey levels: the median absolute difference between
    the grey canvas and its 1 px Gaussian blur, over 0.6745 (every second row and column is enough).
    Letters and tile edges are a small share of the pixels, so the median is the sensor's grain (and a
    wooden board's). Real venue photos measure 2-4; a dim board stretched by ``normalise_board``, 10-30."""
    grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY).astype(np.float32)
    detail = grey - cv2.GaussianBlur(grey, (0, 0), 1.0)
    return float(np.median(np.abs(detail[::2, ::2]))) / 0.6745


def smoothed_when_noisy(canvas: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The canvas blurred by ``SMOOTHING_PX`` when its ``pixel_noise`` is above ``NOISY``, else itself.

    A board in dim light, stretched to full contrast, reaches the classifier grainier than any crop it
    was trained on: the grain turns plain letters into foreign ones and tiles into doubts. A slight blur
    takes most of the grain and keeps the strokes (a letter's stroke is 3-5 canvas pixels wide)."""
    if pixel_noise(canvas) <= NOISY:
        return canvas
    return np.asarray(cv2.GaussianBlur(canvas, (0, 0), SMOOTHING_PX), np.uint8)


def cut_cells(canvas: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The 225 crops of a warped board, ``225 x CROP_PX x CROP_PX x 3``, row-major from A1."""
    if canvas.shape[:2] != (CANVAS_PX, CANVAS_PX):
        raise ValueError(f"se esperaba un tablero de {CANVAS_PX}x{CANVAS_PX}, no {canvas.shape[1]}x{canvas.shape[0]}")
    strides = canvas.strides
    view = np.lib.stride_tricks.as_strided(
        canvas,
        shape=(SIZE, SIZE, CROP_PX, CROP_PX, 3),
        strides=(strides[0] * CELL_PX, strides[1] * CELL_PX, strides[0], strides[1], strides[2]),
        writeable=False,
    )
    return np.ascontiguousarray(view.reshape(SIZE * SIZE, CROP_PX, CROP_PX, 3))


def board_crops(image: NDArray[np.uint8], image_from_board: FloatArray) -> NDArray[np.uint8]:
    """Warp, normalise, smooth when grainy and cut: the classifier's input for one frame."""
    return cut_cells(smoothed_when_noisy(normalise_board(warp_board(image, image_from_board))))


def rotate_crops(crops: NDArray[np.uint8], k: int) -> NDArray[np.uint8]:
    """The crops of the same board relabelled ``k`` quarter turns clockwise (``geometry``):
    the grid of crops is turned and so is each crop."""
    k %= 4
    if k == 0:
        return crops
    grid = crops.reshape(SIZE, SIZE, CROP_PX, CROP_PX, 3)
    # a clockwise relabelling shows the image turned counter-clockwise
    turned = np.rot90(grid, k=k, axes=(0, 1))
    turned = np.rot90(turned, k=k, axes=(2, 3))
    return np.ascontiguousarray(turned.reshape(SIZE * SIZE, CROP_PX, CROP_PX, 3))
