"""Hand-drawn variants of capitals and digits that the training fonts do not draw (training only).

People write some characters in shapes no training font has: an E with a round back (like
a C with a bar), an O left open at the top, an L whose corner is a curve, a G with no spur
but a bar or a tail turned in, an A with its bar high, low or short, a 1 with a long flag,
a 7 or a Z crossed as many European hands cross them, a J with a cap. ``AllographWriter``
lends a writer such glyphs now and then, drawn as wobbling pen strokes.

Strokes are polylines in a glyph box of unit height: x right (0 .. the glyph's width in
cap heights), y down (0 the cap line, 1 the baseline). ``draw`` renders them as an ink
mask (float32, 1 = ink) ``HEIGHT`` px high, the pen ``pen`` times a random base width.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np

from vision.slips.synthetic import handwriting as hw

HEIGHT: Final = 48  # px: the cap height the strokes are drawn at (glyphs are rescaled when a line is laid out)
Strokes = list[np.ndarray]  # each (n, 2): x, y in cap heights


def _arc(cx: float, cy: float, rx: float, ry: float, start: float, end: float, n: int = 24) -> np.ndarray:
    """Points of an elliptic arc, angles in degrees (0 = right, 90 = down, as y grows downwards)."""
    t = np.deg2rad(np.linspace(start, end, n))
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], 1)


def _line(*points: tuple[float, float]) -> np.ndarray:
    return np.array(points, np.float64)


def _round_e(rng: np.random.Generator) -> Strokes:
    w = rng.uniform(0.5, 0.75)
    gap = rng.uniform(25, 60)
    bar = rng.uniform(0.45, 0.85)
    back = _arc(w / 2, 0.5, w / 2, 0.5, -gap, -360 + gap)[::-1]
    return [back, _line((0.05, 0.5), (w * bar, 0.5 + rng.normal(0, 0.03)))]


def _two_bowl_e(rng: np.random.Generator) -> Strokes:
    """An E drawn as a 3 reversed (two small round bowls, like an epsilon)."""
    w = rng.uniform(0.45, 0.65)
    return [_arc(w * 0.55, 0.27, w * 0.5, 0.27, -40, -270), _arc(w * 0.55, 0.74, w * 0.55, 0.26, -90, -320)]


def _open_o(rng: np.random.Generator) -> Strokes:
    w = rng.uniform(0.6, 0.9)
    start = rng.uniform(-120, -40)
    sweep = rng.uniform(290, 330) * rng.choice([-1, 1])
    return [_arc(w / 2, 0.5, w / 2, 0.5, start, start + sweep, 32)]


def _round_l(rng: np.random.Generator) -> Strokes:
    w, r = rng.uniform(0.45, 0.65), rng.uniform(0.12, 0.3)
    spine = _line((0.02, 0.0), (0.0, 1 - r))
    corner = _arc(r, 1 - r, r, r, 180, 90, 10)
    return [np.vstack([spine, corner, _line((w, 1.0 - rng.uniform(0, 0.08)))])]


def _plain_g(rng: np.random.Generator) -> Strokes:
    w = rng.uniform(0.6, 0.85)
    body = _arc(w / 2, 0.5, w / 2, 0.5, -rng.uniform(20, 50), -rng.uniform(330, 360), 30)[::-1]
    if rng.random() < 0.5:  # a bar in from the right at mid height
        return [body, _line((w, 0.55), (w * rng.uniform(0.45, 0.7), 0.55 + rng.normal(0, 0.03)))]
    return [np.vstack([body, _line((w * rng.uniform(0.55, 0.75), 0.6 + rng.normal(0, 0.04)))])]  # a tail turned in


def _a(rng: np.random.Generator) -> Strokes:
    w = rng.uniform(0.55, 0.85)
    top = w * rng.uniform(0.4, 0.6)
    bar_y = rng.uniform(0.4, 0.75)
    left_x, right_x = top * bar_y, top + (w - top) * bar_y
    shrink = rng.uniform(0.0, 0.3)
    bar = _line((left_x + shrink * (right_x - left_x), bar_y), (right_x - shrink * (right_x - left_x), bar_y))
    return [_line((0.0, 1.0), (top, 0.0), (w, 1.0)), bar]


def _flag_one(rng: np.random.Generator) -> Strokes:
    x = rng.uniform(0.25, 0.35)
    flag = _line((0.0, rng.uniform(0.3, 0.45)), (x, 0.0), (x + rng.normal(0, 0.03), 1.0))
    return [flag] + ([_line((0.02, 1.0), (x * 2, 1.0))] if rng.random() < 0.4 else [])


def _crossed_seven(rng: np.random.Generator) -> Strokes:
    w = rng.uniform(0.5, 0.7)
    foot = w * rng.uniform(0.2, 0.5)
    return [_line((0.0, 0.0), (w, 0.0), (foot, 1.0)), _line((foot + 0.1, 0.52), (foot + w * 0.55, 0.48))]


def _crossed_z(rng: np.random.Generator) -> Strokes:
    w = rng.uniform(0.55, 0.75)
    return [_line((0.0, 0.0), (w, 0.0), (0.0, 1.0), (w, 1.0)), _line((w * 0.2, 0.5), (w * 0.8, 0.5))]


def _capped_j(rng: np.random.Generator) -> Strokes:
    w = rng.uniform(0.45, 0.6)
    x = w * rng.uniform(0.6, 0.8)
    stem = np.vstack([_line((x, 0.0), (x, 0.75)), _arc(x / 2, 0.75, x / 2, 0.25, 0, 180, 12)])
    return [stem, _line((x - 0.22, 0.0), (min(w, x + 0.2), 0.0))]


SHAPES: Final[dict[str, tuple[Callable[[np.random.Generator], Strokes], ...]]] = {
    "E": (_round_e, _two_bowl_e),
    "O": (_open_o,),
    "L": (_round_l,),
    "G": (_plain_g,),
    "A": (_a,),
    "1": (_flag_one,),
    "7": (_crossed_seven,),
    "Z": (_crossed_z,),
    "J": (_capped_j,),
}
ALL_CHARS: Final = "".join(SHAPES)  # every character that has a hand-drawn variant


def draw(strokes: Strokes, rng: np.random.Generator, pen: float) -> hw.Mask:
    """The strokes as an ink mask ``HEIGHT`` px high, each point shaken a little, cropped to the ink."""
    margin = 8
    width = int(max(float(s[:, 0].max()) for s in strokes) * HEIGHT) + 2 * margin + 2
    canvas = np.zeros((HEIGHT + 2 * margin, width), np.float32)
    thickness = max(1.0, float(rng.uniform(3.0, 6.0)) * pen)
    for stroke in strokes:
        dense = _resample(stroke * HEIGHT + margin, 24)
        hw.polyline(canvas, hw.wobble(dense, rng, HEIGHT * 0.015), thickness)
    return hw.tight(canvas, 0.05)


def _resample(points: np.ndarray, n: int) -> np.ndarray:
    """At least ``n`` points along a polyline, so the tremor bends its straight parts too."""
    if len(points) >= n:
        return points
    lengths = np.r_[0, np.cumsum(np.hypot(*np.diff(points, axis=0).T))]
    t = np.linspace(0, lengths[-1], n)
    return np.stack([np.interp(t, lengths, points[:, 0]), np.interp(t, lengths, points[:, 1])], 1)


@dataclass(eq=False)
class AllographWriter:
    """``writer``, but each of ``chars`` that has a hand-drawn variant is drawn so with probability ``share``."""

    writer: hw.Writer
    share: float = 0.5
    chars: str = ALL_CHARS  # the characters whose variants are drawn
    name: str = "allographs"

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> hw.Mask:
        shapes = SHAPES.get(char) if char in self.chars else None
        if shapes and rng.random() < self.share:
            return draw(shapes[int(rng.integers(len(shapes)))](rng), rng, pen)
        return self.writer.glyph(char, rng, pen)
