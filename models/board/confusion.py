"""Draw the held-out confusion matrix: ``python -m models.board.confusion BENCH.json OUT.png``.

Reads the JSON written by ``tests/benchmarks/bench_board.py --json`` and draws the
real photos' and the renders' confusion matrices side by side (rows: truth,
columns: reading; counts on a log colour scale), with OpenCV only.
"""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np

from vision.board.labels import CLASSES

CELL = 22


def draw(matrix: np.ndarray, title: str) -> np.ndarray:
    n = len(CLASSES)
    margin = 60
    img = np.full((margin + n * CELL + 10, margin + n * CELL + 10, 3), 255, np.uint8)
    scale = np.log1p(matrix) / max(np.log1p(matrix).max(), 1e-9)
    for r in range(n):
        for c in range(n):
            if matrix[r, c] == 0:
                continue
            shade = int(255 * (1 - scale[r, c]))
            colour = (shade, shade, 255) if r != c else (shade, 255, shade)
            x, y = margin + c * CELL, margin + r * CELL
            cv2.rectangle(img, (x, y), (x + CELL - 1, y + CELL - 1), colour, -1)
            if r != c:
                cv2.putText(img, str(int(matrix[r, c])), (x + 2, y + 15), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
    for i, name in enumerate(CLASSES):
        text = name.replace("Ñ", "NY")
        cv2.putText(img, text, (4, margin + i * CELL + 15), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1)
        cv2.putText(img, text, (margin + i * CELL + 2, margin - 6), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
    cv2.putText(img, title, (4, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 1, cv2.LINE_AA)
    return img


def main() -> None:
    figures = json.loads(open(sys.argv[1], encoding="utf-8").read())
    panels = [draw(np.array(figures["photos"]["confusion"]), "real photos, held-out games (rows truth, cols read)")]
    if "confusion" in figures.get("renders", {}):
        panels.append(draw(np.array(figures["renders"]["confusion"]), "renders, held-out settings"))
    cv2.imwrite(sys.argv[2], np.hstack(panels))


if __name__ == "__main__":
    main()
