"""The empty board as a flat texture: what the camera's homography then warps into a frame.

``board_texture(style, rng)`` draws a square BGR uint8 image at ``CELL`` pixels per
cell: a light frame, a green margin, then the 15x15 grid with the premium layout
(``board.PREMIUMS``), the "teeth" around premium squares and the centre star, and
optionally ArUco markers in the frame's corners. The grid's top-left corner (row A,
column 1) lies ``offset`` pixels from the texture's top-left on both axes.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from rules_core.board import PREMIUMS, Premium

from ..geometry import SIZE
from .render_scene import CELL, BoardStyle, ImageU8


def _premium_colour(style: BoardStyle, premium: Premium) -> tuple[int, int, int]:
    return {
        Premium.TRIPLE_WORD: style.triple_word,
        Premium.DOUBLE_WORD: style.double_word,
        Premium.TRIPLE_LETTER: style.triple_letter,
        Premium.DOUBLE_LETTER: style.double_letter,
    }.get(premium, style.green)


def board_texture(style: BoardStyle, rng: np.random.Generator) -> tuple[ImageU8, float]:
    """The empty board, square, at ``CELL`` px per cell; returns (texture, grid offset in px)."""
    offset = (style.margin + style.frame_width) * CELL
    side = int(round(SIZE * CELL + 2 * offset))
    img = np.empty((side, side, 3), np.uint8)
    img[:] = style.frame
    inner0 = int(round(style.frame_width * CELL))
    img[inner0 : side - inner0, inner0 : side - inner0] = style.green if style.surround is None else style.surround
    o = int(round(offset))
    if style.surround is not None:
        img[o : o + SIZE * CELL, o : o + SIZE * CELL] = style.green
    for r in range(SIZE):
        for c in range(SIZE):
            premium = PREMIUMS[r][c]
            if premium is Premium.NONE:
                continue
            colour = _premium_colour(style, premium)
            x0, y0 = o + c * CELL, o + r * CELL
            img[y0 : y0 + CELL, x0 : x0 + CELL] = colour
            if style.teeth:
                _draw_teeth(img, x0, y0, colour)
    if style.teeth:
        _draw_star(img, o + 7 * CELL + CELL // 2, o + 7 * CELL + CELL // 2, style.line)
    if style.labels:
        _draw_labels(img, o, style)
    thickness = max(1, CELL // 24) if style.line_width is None else max(1, int(round(style.line_width * CELL)))
    for i in range(SIZE + 1):
        p = o + i * CELL
        cv2.line(img, (p, o), (p, o + SIZE * CELL), style.line, thickness, cv2.LINE_AA)
        cv2.line(img, (o, p), (o + SIZE * CELL, p), style.line, thickness, cv2.LINE_AA)
    if style.markers:
        _draw_markers(img, style)
    if style.coordinates:
        _draw_coordinates(img, o, style)
    if style.wood:
        img = _wood(img, rng)
    grain = rng.normal(0, 3.0, (side // 8 + 1, side // 8 + 1, 1)).astype(np.float32)
    grain = cv2.resize(grain, (side, side), interpolation=cv2.INTER_CUBIC)[..., None]
    return np.clip(img.astype(np.float32) + grain, 0, 255).astype(np.uint8), offset


def _draw_markers(img: ImageU8, style: BoardStyle) -> None:
    """Markers 0..3 in the frame's corners, clockwise from the one beside A1."""
    from ..markers import marker_image

    side = img.shape[0]
    size = int(style.frame_width * CELL * 0.8)
    pad = int(style.frame_width * CELL * 0.1)
    for k, (x, y) in enumerate(((pad, pad), (side - pad - size, pad), (side - pad - size, side - pad - size), (pad, side - pad - size))):
        img[y : y + size, x : x + size] = marker_image(k, size)[..., None]


def _draw_teeth(img: ImageU8, x0: int, y0: int, colour: tuple[int, int, int]) -> None:
    tooth = max(2, CELL // 10)
    for k in (0.3, 0.5, 0.7):
        t = int(k * CELL) - tooth // 2
        for x, y in ((x0 + t, y0 - tooth - 1), (x0 + t, y0 + CELL + 1), (x0 - tooth - 1, y0 + t), (x0 + CELL + 1, y0 + t)):
            img[max(0, y) : y + tooth, max(0, x) : x + tooth] = colour


def _draw_star(img: ImageU8, cx: int, cy: int, colour: tuple[int, int, int]) -> None:
    r1, r2 = CELL * 0.32, CELL * 0.13
    pts = []
    for i in range(10):
        r = r1 if i % 2 == 0 else r2
        a = -math.pi / 2 + i * math.pi / 5
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    cv2.fillPoly(img, [np.array(pts, np.int32)], colour, cv2.LINE_AA)


_LABELS = {  # premium labels as printed on Spanish boards: long, short, digits
    Premium.TRIPLE_WORD: ("TRIPLE|PALABRA", "TP", "3P"),
    Premium.DOUBLE_WORD: ("DOBLE|PALABRA", "DP", "2P"),
    Premium.TRIPLE_LETTER: ("TRIPLE|LETRA", "TL", "3L"),
    Premium.DOUBLE_LETTER: ("DOBLE|LETRA", "DL", "2L"),
}


def _draw_labels(img: ImageU8, o: int, style: BoardStyle) -> None:
    """The premium squares' printed labels (Hershey faces: a board's print, not a tile's font)."""
    kind = ("long", "short", "digits").index(style.labels)
    for r in range(SIZE):
        for c in range(SIZE):
            premium = PREMIUMS[r][c]
            if premium is Premium.NONE or (r, c) == (7, 7):
                continue
            lines = _LABELS[premium][kind].split("|")
            scale = (0.22 if kind == 0 else 0.55) * CELL / 48
            thick = 1 if kind == 0 else 2
            for k, text in enumerate(lines):
                (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
                x = o + c * CELL + (CELL - w) // 2
                y = o + r * CELL + CELL // 2 + h // 2 + int((k - (len(lines) - 1) / 2) * h * 1.8)
                cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, style.label_ink, thick, cv2.LINE_AA)


def _draw_coordinates(img: ImageU8, o: int, style: BoardStyle) -> None:
    """Columns 1..15 above and below the grid, rows A..O left and right, in the margin."""
    ink = style.line if sum(style.line) < sum(style.surround or style.green) else style.label_ink
    scale = 0.45 * CELL / 48
    gap = int(0.35 * CELL)
    for i in range(SIZE):
        for text, horizontal in ((str(i + 1), True), ("ABCDEFGHIJKLMNO"[i], False)):
            (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
            mid = o + i * CELL + CELL // 2
            spots = ((mid - w // 2, o - gap + h // 2), (mid - w // 2, o + SIZE * CELL + gap + h // 2)) if horizontal else (
                (o - gap - w // 2, mid + h // 2), (o + SIZE * CELL + gap - w // 2, mid + h // 2))
            for x, y in spots:
                cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, 1, cv2.LINE_AA)


def _wood(img: ImageU8, rng: np.random.Generator) -> ImageU8:
    """Wood grain: stretched noise rings along one axis, light and dark."""
    side = img.shape[0]
    noise = rng.normal(0, 1, (side // 16 + 2, 6)).astype(np.float32)
    streaks = cv2.resize(noise, (side, side), interpolation=cv2.INTER_CUBIC)
    yy = np.arange(side, dtype=np.float32)[:, None]
    grain = np.sin(yy * rng.uniform(0.15, 0.3) + 3.0 * streaks) * 0.08 + streaks * 0.04
    out = img.astype(np.float32) * (1.0 + grain[..., None])
    return np.clip(out, 0, 255).astype(np.uint8)
