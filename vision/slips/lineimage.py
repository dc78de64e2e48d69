"""The recogniser's input: a grey image of one handwritten line, normalised.

``prepare_line`` maps a grey uint8 image (rows = y down, columns = x right; dark ink
on light paper) to float32 of shape (32, W): ink 1.0, paper 0.0, printed rules
(long straight box borders) removed, cropped to the ink with a margin and scaled
to height 32 keeping the aspect ratio (W at most ``MAX_WIDTH``, squeezed beyond).
Training and reading both go through it, so they see the same input.
``variants`` gives other views of a prepared line (narrower, wider, sheared, thinner
or thicker strokes) for test-time augmentation.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

HEIGHT: Final = 32
MAX_WIDTH: Final = 480
MIN_WIDTH: Final = 32
INK_FLOOR: Final = 45.0  # grey levels: contrast below this is paper, not a faint pen
PHOTO_SIDE: Final = 400  # px: an image this large on both sides is a photo, not a field cut from a scan
MARGIN: Final = 0.12  # of the ink's height, paper kept around it ...
END_MARGIN: Final = 3.0  # ... and this many times more after the last letter (see ``prepare_ink``) ...
BOARD_END_MARGIN: Final = 1.0  # ... but not after the letters of an absolute slip's board (see ``prepare_ink``)


def ink_of(gray: np.ndarray) -> np.ndarray:
    """Ink in 0..1 of a grey image: the background grey 0, the darkest strokes 1.

    A field cut from a scan has evenly lit paper: its background is one grey. A photo
    (``PHOTO_SIDE``) is lit unevenly: its background is estimated around each pixel."""
    image = gray.astype(np.float32)
    if min(gray.shape) >= PHOTO_SIDE:
        return _ink_of_photo(image)
    background = float(np.percentile(image, 60))
    darkest = float(np.percentile(image, 0.5))
    ink = (background - image) / max(background - darkest, INK_FLOOR)
    return np.clip(ink, 0.0, 1.0)


def _ink_of_photo(image: np.ndarray) -> np.ndarray:
    """Ink against the local paper grey: a grey closing wider than any stroke, smoothed."""
    k = max(15, min(image.shape) // 8) | 1
    paper = cv2.morphologyEx(image, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contrast = cv2.GaussianBlur(paper, (0, 0), k / 2) - image
    darkest = float(np.percentile(contrast, 99.5))
    return np.clip(contrast / max(darkest, INK_FLOOR), 0.0, 1.0).astype(np.float32)


def remove_rules(ink: np.ndarray) -> np.ndarray:
    """Erase long straight horizontal and vertical lines (printed box borders)."""
    h, w = ink.shape
    binary = (ink > 0.35).astype(np.uint8)
    horizontal = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((1, max(15, int(w * 0.4))), np.uint8))
    vertical = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((max(15, int(h * 0.8)), 1), np.uint8))
    rules = cv2.dilate(horizontal | vertical, np.ones((3, 3), np.uint8))
    return np.where(rules > 0, 0.0, ink).astype(np.float32)


def ink_box(ink: np.ndarray, threshold: float = 0.3, min_pixels: int = 3) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) of the ink, x1/y1 exclusive, ignoring specks; None when blank."""
    binary = (ink > threshold).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    keep = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= min_pixels]
    if not keep:
        return None
    x0 = min(int(stats[i, cv2.CC_STAT_LEFT]) for i in keep)
    y0 = min(int(stats[i, cv2.CC_STAT_TOP]) for i in keep)
    x1 = max(int(stats[i, cv2.CC_STAT_LEFT] + stats[i, cv2.CC_STAT_WIDTH]) for i in keep)
    y1 = max(int(stats[i, cv2.CC_STAT_TOP] + stats[i, cv2.CC_STAT_HEIGHT]) for i in keep)
    return x0, y0, x1, y1


def prepare_ink(ink: np.ndarray, end_margin: float = END_MARGIN) -> np.ndarray:
    """An ink image (1 = ink) cropped, margined and scaled to (32, W) float32.

    The margin after the last letter is ``end_margin`` times the others. With ``END_MARGIN`` the
    line recogniser drops fewer last letters that end where the image ends (a bare I, a faint O:
    `11J ALI` read AL, `12H CASEO` read CASE); the board recognisers read the calibration boards
    better with ``BOARD_END_MARGIN``, the margin they were trained with (issue 21, models/slips/HISTORY.md)."""
    box = ink_box(ink, min_pixels=max(3, ink.shape[0] // 12))
    if box is not None:
        x0, y0, x1, y1 = box
        ink = ink[y0:y1, x0:x1]
    h, w = ink.shape
    margin = max(2, int(MARGIN * h))
    end = int(round(end_margin * margin))
    ink = cv2.copyMakeBorder(ink, margin, margin, margin, end, cv2.BORDER_CONSTANT, value=0)
    h, w = ink.shape
    inner = HEIGHT
    width = int(round(w * inner / max(h, 1)))
    width = min(MAX_WIDTH, max(MIN_WIDTH, width))
    return cv2.resize(ink, (width, inner), interpolation=cv2.INTER_AREA).astype(np.float32)


def prepare_line(gray: np.ndarray, end_margin: float = END_MARGIN) -> np.ndarray:
    """A grey uint8 line image as the recogniser's (32, W) float32 input (see module doc and ``prepare_ink``)."""
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    return prepare_ink(remove_rules(ink_of(gray)), end_margin)


def _stretch(image: np.ndarray, factor: float) -> np.ndarray:
    width = min(MAX_WIDTH, max(MIN_WIDTH, int(round(image.shape[1] * factor))))
    return cv2.resize(image, (width, HEIGHT), interpolation=cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR)


def _shear(image: np.ndarray, amount: float) -> np.ndarray:
    """x += amount * (centre row - y), widened so nothing is cut."""
    pad = int(np.ceil(abs(amount) * HEIGHT / 2)) + 1
    wide = cv2.copyMakeBorder(image, 0, 0, pad, pad, cv2.BORDER_CONSTANT, value=0)
    matrix = np.array([[1, amount, -amount * HEIGHT / 2], [0, 1, 0]], np.float32)
    return cv2.warpAffine(wide, matrix, (wide.shape[1], HEIGHT), flags=cv2.INTER_LINEAR)


def _pen(image: np.ndarray, thicker: bool) -> np.ndarray:
    kernel = np.ones((2, 2), np.uint8)
    return cv2.dilate(image, kernel) if thicker else cv2.erode(cv2.GaussianBlur(image, (3, 3), 0.6), kernel)


VIEWS: Final = ("narrow", "wide", "shear_left", "shear_right", "thin", "thick")


def variant(prepared: np.ndarray, view: str) -> np.ndarray:
    """One view of a prepared (32, W) line (``VIEWS``), float32 of height 32."""
    out = {
        "narrow": lambda: _stretch(prepared, 0.85),
        "wide": lambda: _stretch(prepared, 1.15),
        "shear_left": lambda: _shear(prepared, -0.15),
        "shear_right": lambda: _shear(prepared, 0.15),
        "thin": lambda: _pen(prepared, False),
        "thick": lambda: _pen(prepared, True),
    }[view]()
    return np.ascontiguousarray(out, dtype=np.float32)


def variants(prepared: np.ndarray, count: int, views: tuple[str, ...] = VIEWS) -> list[np.ndarray]:
    """The first ``count`` views of ``views`` of a prepared line (test-time augmentation)."""
    return [variant(prepared, v) for v in views[:count]]
