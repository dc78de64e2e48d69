"""Board outlines whatever the board's colour (issue 20): step (1) of ``find`` for boards
that are not green.

``colour_masks(image)`` clusters the frame's colours (k-means in Lab on a sample, a fixed
seed) and gives, largest first, one mask per cluster big enough to be a board's plain
squares: ``H x W`` uint8, 255 on that colour, cleaned of specks. ``outline.outline_quads``
turns each into quadrilaterals as for the green mask; the grid fit and the premium
layout check that follow decide (a beige, blue, black or wooden board's plain squares
are one colour, as a green board's are).
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from .outline import MIN_BOARD_FRACTION

CLUSTERS: Final = 6  # colours the frame is split into
MAX_MASKS: Final = 6  # clusters tried, largest first
SAMPLE_STEP: Final = 4  # every 4th pixel each way is clustered


def colour_masks(image: NDArray[np.uint8], skip_hues: tuple[int, ...] = ()) -> list[NDArray[np.uint8]]:
    """Masks of the frame's main colours (see the module docstring), largest first; a
    cluster whose hue (OpenCV 0..180) is within 8 of one of ``skip_hues`` and is
    saturated (already tried as a green) is left out."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    sample = np.ascontiguousarray(lab[::SAMPLE_STEP, ::SAMPLE_STEP].reshape(-1, 3), np.float32)
    if len(sample) < CLUSTERS * 10:
        return []
    cv2.setRNGSeed(20)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 12, 1.0)
    _, _, centres = cv2.kmeans(sample, CLUSTERS, np.zeros((len(sample), 1), np.int32), criteria, 1, cv2.KMEANS_PP_CENTERS)
    pixels = lab.reshape(-1, 3).astype(np.float32)
    distances = ((pixels[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    labels = distances.argmin(axis=1).reshape(image.shape[:2])
    counts = np.bincount(labels.ravel(), minlength=CLUSTERS)
    hsv_centres = cv2.cvtColor(np.clip(centres, 0, 255).astype(np.uint8)[None], cv2.COLOR_LAB2BGR)
    hsv_centres = cv2.cvtColor(hsv_centres, cv2.COLOR_BGR2HSV)[0]
    masks = []
    for k in np.argsort(counts)[::-1]:
        if counts[k] < MIN_BOARD_FRACTION * labels.size or len(masks) == MAX_MASKS:
            break
        hue, sat = int(hsv_centres[k, 0]), int(hsv_centres[k, 1])
        if sat > 50 and any(min(abs(hue - h), 180 - abs(hue - h)) <= 8 for h in skip_hues):
            continue
        mask = (labels == k).astype(np.uint8) * 255
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        masks.append(np.asarray(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), np.uint8))
    return masks
