"""Blank tiles made from the training photos' letter tiles: ``python -m models.board.real_blanks [--count 1000]``.

The training games' photos hold 63 blanks; the cell classifier learns what a blank looks like in a real photo
mostly from renders, and finds the held-out photos' blanks unsteadily (issue 69). A real letter tile with its
letter and value painted out is a blank of that set, in that light, beside those neighbours: ``paint_out`` finds the
ink on the tile's face (pixels darker than the face by a fifth of its range, in compact marks, not the long lines
of the tile's edge or the gap beside it, nor a neighbour's marks in the crop's outer 4 px) and fills it from around
(OpenCV's Telea inpainting). A value that touches the tile's edge in the crop is taken for the edge and left, with a
smudge where the fill meets it (about a quarter of the blanks looked at; the figures in HISTORY.md were made so).
Reads the ``photos_train`` shard of the crop cache (``crop_cache.py``: training games only, never the held-out ones)
and writes ``real_blanks.npz`` beside it: ``--count`` of them, drawn with ``--seed`` among all painted, labelled
blank (``?``), source 1 (real), for ``finetune.py`` or ``train.py`` to draw as real crops.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from vision.board.labels import CLASSES, INDEX, SPANISH

from .crop_cache import CACHE

EDGE: Final = 4  # px of the 40 px crop that are the neighbours' (``vision.board.cells.board_crops``)
INK_SHARE: Final = 0.2  # a mark is ink where it is darker than the face by this share of the crop's range
FACE_PERCENTILE: Final = 75  # the face's grey: this percentile of the crop's middle


def ink_mask(crop: np.ndarray) -> np.ndarray:
    """(40, 40) uint8, 255 where a 40 x 40 BGR crop of a letter tile holds its letter's or value's ink."""
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    size = gray.shape[0]
    face = float(np.percentile(gray[2 * EDGE : size - 2 * EDGE, 2 * EDGE : size - 2 * EDGE], FACE_PERCENTILE))
    inside = gray[EDGE : size - EDGE, EDGE : size - EDGE]
    dark = np.zeros(gray.shape, np.uint8)
    dark[EDGE : size - EDGE, EDGE : size - EDGE] = inside < face - INK_SHARE * max(face - float(inside.min()), 20.0)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    mask = np.zeros_like(dark)
    for k in range(1, count):
        x, y, w, h, _ = stats[k]
        line = max(w, h) > 12 and min(w, h) <= 3
        if w > 24 or h > 24 or line or x <= EDGE or y <= EDGE:
            continue  # the tile's edge, the gap beside it, or a neighbour's mark
        mask[labels == k] = 255
    return mask


def paint_out(crop: np.ndarray) -> np.ndarray | None:
    """The crop with its tile's letter and value painted out: the same tile, blank (None: no ink found)."""
    mask = ink_mask(crop)
    if not mask.any():
        return None
    return np.asarray(cv2.inpaint(crop, cv2.dilate(mask, np.ones((5, 5), np.uint8)), 3, cv2.INPAINT_TELEA))


def real_blanks(crops: np.ndarray, classes: np.ndarray, count: int, seed: int) -> np.ndarray:
    """``count`` blanks painted from the letter tiles (classes A-Z, CH, LL, Ñ, RR) among ``crops`` (N x 40 x 40 x 3),
    drawn with ``seed`` among every one painted."""
    letters = [i for i, k in enumerate(classes) if CLASSES[k] in SPANISH]
    painted = [blank for blank in (paint_out(crops[i]) for i in letters) if blank is not None]
    chosen = np.random.default_rng(seed).choice(len(painted), size=min(count, len(painted)), replace=False)
    return np.stack([painted[i] for i in chosen])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, default=CACHE / "real_blanks.npz")
    args = parser.parse_args()
    source = np.load(CACHE / "photos_train.npz")
    blanks = real_blanks(source["x"], source["y"], args.count, args.seed)
    np.savez_compressed(args.out, x=blanks, y=np.full(len(blanks), INDEX["?"], np.int64),
                        source=np.ones(len(blanks), np.int8))  # fmt: skip
    print(f"{len(blanks)} blanks painted from the training photos' letter tiles -> {args.out}")


if __name__ == "__main__":
    main()
