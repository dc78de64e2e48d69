"""Even light: a straightened slip's paper made one white before anything on it is read.

A scanner lights a slip evenly; a phone does not: the light falls off across the slip and into its corners, a
hand, a phone or a lamp's arm casts a soft shadow band over it, a lamp's reflection washes part of it white
(glare). Everything the reader measures against "the paper" (whether a box is marked, a line's ink, the written
squares of an absolute slip's board) would take a shadow for ink: an edge of a shadow read as a letter, a
coordinate lost under a band, every square of a shadowed board written.

``even`` divides the slip by the light that falls on it (``paper_light``), so that the paper is one grey, the
slip's own paper level ``PAPER_QUANTILE``, wherever it lies, and ink keeps its contrast with the paper around it.
The light is the paper's grey with the pen's strokes and the printed text taken away (a grey closing wider than any
stroke, ``STROKE_MM``), at ``LIGHT_PX_PER_MM``; where that still leaves a dark patch enclosed by lighter paper (a blot
of ink, a marker, the QR code, a tinted square, a shadow of something lying on the slip) the patch is ink or print,
not light: it is filled to the grey of the paper around it (a grey "fill holes", the morphological reconstruction of
the closing from the slip's edge), so a blot stays a blot. A shadow reaches the slip from outside it: it touches
the slip's edge, and is followed. On a scan the light is even and the slip is returned nearly as it was.

Glare is light too: the paper it washes out to white is evened like the rest, and the ink under it stays as faint
as the photo left it; the recognisers read it less surely, and a play they cannot read surely goes to the arbiter.

Images are grey uint8 (H, W) of a straightened slip at ``px_per_mm`` (``layout.PX_PER_MM``), dark ink on light
paper.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from . import layout

LIGHT_PX_PER_MM: Final = 4.0  # the light is estimated at this resolution (it changes over millimetres, not pixels)
STROKE_MM: Final = 2.5  # a closing this wide takes away every pen stroke and printed letter (strokes reach ~1 mm)
PAPER_QUANTILE: Final = 90.0  # the evened paper's grey: this percentile of the light (a scan keeps its own)
LINE_DIRECTIONS: Final = 8  # directions a shadow band is looked for along (``short_marks_lifted``)
FILL_CHECK_EVERY: Final = 8  # steps of the reconstruction between two checks whether it has settled


def paper_light(gray: np.ndarray, px_per_mm: float = layout.PX_PER_MM) -> np.ndarray:
    """The light on the slip's paper at every pixel of ``gray`` (float32, grey levels): its paper with the strokes
    taken away by a closing (``STROKE_MM``) and every dark patch enclosed by lighter paper filled from it (see the
    module), estimated at ``LIGHT_PX_PER_MM`` and brought back to ``gray``'s size."""
    h, w = gray.shape
    scale = min(1.0, LIGHT_PX_PER_MM / px_per_mm)
    small = cv2.resize(gray, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    side = max(3, int(round(STROKE_MM * px_per_mm * scale)) | 1)
    closed = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))
    light = _fill_holes(closed)
    return cv2.resize(light.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def _fill_holes(gray: np.ndarray) -> np.ndarray:
    """``gray`` with every dark patch not reaching the image's edge raised to the lowest grey around it (grey
    reconstruction by erosion from the edge: each pixel the least, over the paths from the edge to it, of the
    lightest grey along the path). Each step carries the edge's greys a pixel further; a shadow entering at one
    side of an absolute slip and lying along it is followed across the whole frame (``max_fill_steps``)."""
    filled = np.full_like(gray, 255)
    filled[0, :], filled[-1, :], filled[:, 0], filled[:, -1] = gray[0, :], gray[-1, :], gray[:, 0], gray[:, -1]
    kernel = np.ones((3, 3), np.uint8)
    for _ in range(0, max_fill_steps(gray.shape), FILL_CHECK_EVERY):
        before = filled
        for _ in range(FILL_CHECK_EVERY):
            filled = np.maximum(cv2.erode(filled, kernel), gray)
        if np.array_equal(before, filled):
            break
    return filled


def max_fill_steps(shape: tuple[int, ...]) -> int:
    """The most steps ``_fill_holes`` takes on an image of ``shape``: its height and width together, more than the
    path from the edge along any shadow takes (400 steps, a fixed cap before, stopped a shadow halfway across an
    absolute slip's frame, 760 px wide at ``LIGHT_PX_PER_MM``, and left its board in the shade)."""
    return int(shape[0] + shape[1])


def even(gray: np.ndarray, px_per_mm: float = layout.PX_PER_MM) -> np.ndarray:
    """``gray`` under even light: divided by its ``paper_light`` and brought to its paper's grey
    (``PAPER_QUANTILE`` of the light), grey uint8 of the same size."""
    light = paper_light(gray, px_per_mm)
    paper = float(np.percentile(light, PAPER_QUANTILE))
    out = gray.astype(np.float32) * (paper / np.maximum(light, 1.0))
    return np.clip(out, 0, 255).astype(np.uint8)


def short_marks_lifted(gray: np.ndarray, length_px: int) -> np.ndarray:
    """(H, W) float32: ``gray`` with every dark thing shorter than ``length_px`` in every direction lifted to the grey
    around it: the least of grey closings by lines of that length in ``LINE_DIRECTIONS`` directions, at half the
    resolution. A pen's letter, shorter than that every way, goes; a shadow band or a shadow's edge, which runs on
    across the slip, stays. Ink is what is darker than this as well as darker than the paper: a shadow ``even`` left
    (a band as thin as a stroke, or a shadow lying inside the slip) is then not taken for ink."""
    h, w = gray.shape
    small = cv2.resize(gray, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
    length = max(3, length_px // 2) | 1
    lifted = np.full_like(small, 255)
    for angle in np.arange(LINE_DIRECTIONS) * np.pi / LINE_DIRECTIONS:
        lifted = np.minimum(lifted, cv2.morphologyEx(small, cv2.MORPH_CLOSE, line_kernel(length, float(angle))))
    return cv2.resize(lifted, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def line_kernel(length: int, angle: float) -> np.ndarray:
    """A ``length`` x ``length`` uint8 structuring element: a one-pixel line through its centre at ``angle`` radians
    (0: across)."""
    kernel = np.zeros((length, length), np.uint8)
    c, r = length // 2, (length - 1) / 2
    dx, dy = r * np.cos(angle), r * np.sin(angle)
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1, 1)
    return kernel
