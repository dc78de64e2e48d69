"""Slips filled in by hand, spoilt and scanned, drawn: for training, tests, the benchmark and the demo's scanner.

``fill_slip`` writes field texts by hand (``handwriting.render_line``) into the boxes
of a printed slip image (slip frame at ``px_per_mm``); ``fill_grid`` writes a play
one letter a square on an absolute slip's board (D.III.20.1.c); ``scribble_over``,
``blot``, ``strike_through``, ``cross_out``, ``scrawl_through`` spoil a box and
``correct_beside`` / ``correct_below`` correct one; ``scan`` lays a slip on a
scanner bed at any rotation, with a little perspective, blur, noise and JPEG, at
``dpi``. Randomness comes only from the caller's ``numpy.random.Generator``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import cv2
import numpy as np

from rules_core.alphabet import label
from rules_core.notation import Play

from .. import absolute, layout
from . import handwriting as hw


def write_in_box(image: np.ndarray, box: tuple[int, int, int, int], text: str, writer: hw.Writer,
                 rng: np.random.Generator, ink: float = 40.0, style: hw.Style | None = None) -> None:  # fmt: skip
    """Handwrite ``text`` inside ``box`` (x0, y0, x1, y1 px) of a grey image, in place, in ``style`` (drawn
    when None)."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    style = style or hw.Style.random(rng)
    mask = hw.render_line(text, writer, rng, style)
    if rng.random() < 0.5:
        mask = hw.elastic(mask, rng, style.height * float(rng.uniform(0.02, 0.06)), style.height * 0.25)
    # the cap height drawn is style.height; make it 40-65 % of the box height
    scale = bh * float(rng.uniform(0.4, 0.62)) / style.height
    scale = min(scale, (bw - 6) / mask.shape[1], (bh - 4) / mask.shape[0])
    mh, mw = max(1, int(mask.shape[0] * scale)), max(1, int(mask.shape[1] * scale))
    mask = cv2.resize(mask, (mw, mh), interpolation=cv2.INTER_AREA)
    left = x0 + 3 + int(rng.integers(0, max(1, min(bw - mw - 5, int(0.25 * bw)))))
    top = y0 + (bh - mh) // 2 + int(rng.integers(-max(1, (bh - mh) // 4), max(2, (bh - mh) // 4)))
    top = min(max(y0 + 1, top), y1 - mh - 1)
    region = image[top : top + mh, left : left + mw].astype(np.float32)
    image[top : top + mh, left : left + mw] = np.clip(region - mask * (region - ink), 0, 255).astype(np.uint8)


def fill_slip(printed: np.ndarray, fields: Mapping[str, str], writer: hw.Writer, rng: np.random.Generator,
              px_per_mm: float = layout.PX_PER_MM) -> np.ndarray:  # fmt: skip
    """A copy of the printed slip with ``fields`` (``ronda``, ``mesa``, ``coordenada``, ``palabra``) handwritten."""
    image = printed.copy()
    ink = float(rng.uniform(10, 90))
    for name, text in fields.items():
        if text:
            write_in_box(image, layout.FIELDS[name].pixels(px_per_mm, 0.6), text, writer, rng, ink)
    return image


def scribble_over(image: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator,
                  ink: float = 40.0) -> None:  # fmt: skip
    """A zigzag of pen strokes across ``box`` (x0, y0, x1, y1 px) of a grey image, in place: what a player
    draws over a play they give up (the play under it is no longer legible, D.III.20.4). A box taller than
    wide (a vertical word on an absolute slip's board) is scribbled along its height."""
    if _along_height(image, box, rng, ink, scribble_over):
        return
    x0, y0, x1, y1 = box
    h = y1 - y0
    points, x, down = [], float(x0 + 4), False
    while x < x1 - 4:
        low, high = (0.6, 0.88) if down else (0.12, 0.4)
        points.append((int(x), int(y0 + h * rng.uniform(low, high))))
        x, down = x + float(rng.uniform(0.05, 0.14)) * h, not down
    if len(points) > 1:
        cv2.polylines(image, [np.array(points, np.int32)], False, int(ink), int(rng.integers(2, 5)), cv2.LINE_AA)


def blot(image: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator, ink: float = 40.0) -> None:
    """A blot of ink over part of the writing in ``box`` (x0, y0, x1, y1 px), in place: a spilt pen or a thumb
    on wet ink. It hides a third to a half of the box's height and one to three letters' width, somewhere
    along the written columns (the box's middle when nothing is written; along the rows of a box taller than
    wide)."""
    if _along_height(image, box, rng, ink, blot):
        return
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    written, _ = _written(image, box)
    first, last = (int(written[0]), int(written[-1])) if len(written) else (w // 3, 2 * w // 3)
    centre = (x0 + int(rng.uniform(first, last + 1)), int((y0 + y1) / 2 + h * rng.uniform(-0.1, 0.1)))
    axes = (int(h * rng.uniform(0.3, 0.7)), int(h * rng.uniform(0.25, 0.4)))
    cv2.ellipse(image, centre, axes, float(rng.uniform(-25, 25)), 0, 360, int(ink), -1, cv2.LINE_AA)


def correct_beside(image: np.ndarray, box: tuple[int, int, int, int], given_up: str, kept: str,
                   writer: hw.Writer, rng: np.random.Generator, ink: float | None = None) -> int:  # fmt: skip
    """A correction in ``box`` (x0, y0, x1, y1 px), in place: ``given_up`` written in the box's first part, as wide
    as its share of the letters, and struck out with one line across it (``strike_through``, at ``ink``; drawn
    when None), then ``kept`` written after it, 8 px on. Returns the column where the first part ends."""
    x0, y0, x1, y1 = box
    split = x0 + (x1 - x0) * len(given_up) // (len(given_up) + len(kept) + 1)
    write_in_box(image, (x0, y0, split, y1), given_up, writer, rng)
    part = (x0, y0, split, y1)
    if y1 - y0 > split - x0:  # a short part (a coordinate, a two-letter word) is struck across, not along the box
        _, _, top, bottom = _written_span(image, part)
        part = (x0, y0 + max(0, top - 2), split, y0 + min(y1 - y0, bottom + 3))
    strike_through(image, part, rng, float(rng.uniform(10, 90)) if ink is None else ink)
    write_in_box(image, (split + 8, y0, x1, y1), kept, writer, rng)
    return split


def correct_below(image: np.ndarray, box: tuple[int, int, int, int], given_up: str, kept: str, writer: hw.Writer,
                  rng: np.random.Generator, spoil: Callable[..., None] | None = None, ink: float = 40.0) -> int:  # fmt: skip
    """A correction in ``box`` (x0, y0, x1, y1 px), in place: ``given_up`` written in the box's upper half and
    crossed out (``spoil``: ``strike_through`` when None), then ``kept`` written in its lower half. Returns the row
    where the lower half begins."""
    x0, y0, x1, y1 = box
    middle = (y0 + y1) // 2
    write_in_box(image, (x0, y0, x1, middle), given_up, writer, rng)
    (spoil or strike_through)(image, (x0, y0, x1, middle), rng, ink)
    write_in_box(image, (x0, middle, x1, y1), kept, writer, rng)
    return middle


def strike_through(image: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator,
                   ink: float = 40.0, tilt: float | None = None) -> None:  # fmt: skip
    """One pen line struck through the writing in ``box`` (x0, y0, x1, y1 px), in place: how a player most often
    crosses out a play. Nearly straight, through the middle of the written rows, from just before the first
    written column to just after the last (the box's middle half when nothing is written; along the rows of a box
    taller than wide); ``tilt`` degrees off level about its middle (None: half the lines nearly level, half tilted
    3-10 degrees either way)."""
    if tilt is None:
        tilt = float(rng.uniform(3, 10) * rng.choice([-1, 1])) if rng.random() < 0.5 else 0.0
    if _along_height(image, box, rng, ink, lambda *args: strike_through(*args, tilt=tilt)):
        return
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    first, last, top, bottom = _written_span(image, box)
    start = max(1, first - int(h * rng.uniform(0.0, 0.3)))
    end = min(w - 2, last + int(h * rng.uniform(0.0, 0.3)))
    level = top + (bottom - top) * float(rng.uniform(0.35, 0.65))
    drift = h * float(rng.uniform(-0.08, 0.08))
    xs = np.linspace(start, end, 6)
    ys = level + drift * (xs - start) / max(1, end - start) + rng.normal(0, 0.015 * h, len(xs))
    ys = np.clip(ys + np.tan(np.deg2rad(tilt)) * (xs - (start + end) / 2), 2, h - 3)  # a steep line stays in the box
    points = np.stack([xs + x0, ys + y0], 1).round().astype(np.int32)
    cv2.polylines(image, [points], False, int(ink), int(rng.integers(2, 5)), cv2.LINE_AA)


def cross_out(image: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator, ink: float = 40.0) -> None:
    """An X drawn over the writing in ``box`` (x0, y0, x1, y1 px), in place, as a hand draws it: each line from
    near one corner of the written part to near the opposite one (ends up to a tenth of its width before or past
    the letters and 15 % of its height off the corners), slightly bowed and wavering (the box's middle when
    nothing is written; along the rows of a box taller than wide)."""
    if _along_height(image, box, rng, ink, cross_out):
        return
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    first, last, top, bottom = _written_span(image, box)
    across, tall, width = last - first, bottom - top, int(rng.integers(2, 5))
    for start, end in ((top, bottom), (bottom, top)):
        xs = np.linspace(first + rng.uniform(-0.1, 0.1) * across, last + rng.uniform(-0.1, 0.1) * across, 5)
        ys = np.linspace(start + rng.uniform(-0.15, 0.15) * tall, end + rng.uniform(-0.15, 0.15) * tall, 5)
        ys += rng.normal(0, 0.03 * tall, 5) + np.sin(np.linspace(0, np.pi, 5)) * rng.uniform(-0.06, 0.06) * tall
        points = np.stack([np.clip(xs, 1, w - 2) + x0, np.clip(ys, 1, h - 2) + y0], 1).round().astype(np.int32)
        cv2.polylines(image, [points], False, int(ink), width, cv2.LINE_AA)


def scrawl_through(image: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator,
                   ink: float = 40.0) -> None:  # fmt: skip
    """A zigzag scrawled along the writing in ``box`` (x0, y0, x1, y1 px), in place: from the first written column
    to the last, up and down about the writing's middle by a fifth to a third of its height, a turn every 0.4-0.8
    of its height, wavering (the box's middle when nothing is written; along the rows of a box taller than
    wide)."""
    if _along_height(image, box, rng, ink, scrawl_through):
        return
    x0, y0, _, y1 = box
    first, last, top, bottom = _written_span(image, box)
    tall = max(1, bottom - top)
    turns = max(3, int((last - first) / (tall * rng.uniform(0.4, 0.8))) + 1)
    xs = np.linspace(first, last, turns)
    swing = (np.arange(turns) % 2 * 2 - 1) * tall * rng.uniform(0.2, 0.33)
    ys = (top + bottom) / 2 + swing + rng.normal(0, 0.03 * tall, turns)
    points = np.stack([xs + x0, np.clip(ys, 1, y1 - y0 - 2) + y0], 1).round().astype(np.int32)
    cv2.polylines(image, [points], False, int(ink), int(rng.integers(2, 5)), cv2.LINE_AA)


def _written_span(image: np.ndarray, box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The first and last written columns and rows of ``box`` (x0, y0, x1, y1 px; indices from its corner):
    ``_written``'s, or the box's middle half across and middle third down when nothing is written."""
    w, h = box[2] - box[0], box[3] - box[1]
    cols, rows = _written(image, box)
    first, last = (int(cols[0]), int(cols[-1])) if len(cols) else (w // 4, 3 * w // 4)
    top, bottom = (int(rows[0]), int(rows[-1])) if len(rows) else (h // 3, 2 * h // 3)
    return first, last, top, bottom


def _written(image: np.ndarray, box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The columns and the rows of ``box`` (x0, y0, x1, y1 px; indices from its corner) that hold writing: more
    than one pixel 40 grey levels darker than the paper."""
    x0, y0, x1, y1 = box
    region = image[y0:y1, x0:x1].astype(np.float32)
    dark = region < np.percentile(region, 60) - 40
    return np.nonzero(dark.sum(axis=0) > 1)[0], np.nonzero(dark.sum(axis=1) > 1)[0]


def _along_height(image: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator, ink: float,
                  draw: Callable[[np.ndarray, tuple[int, int, int, int], np.random.Generator, float], None]) -> bool:  # fmt: skip
    """For a box taller than wide: ``draw`` on the transposed image (in place) and True; else False."""
    x0, y0, x1, y1 = box
    if y1 - y0 <= x1 - x0:
        return False
    turned = np.ascontiguousarray(image.T)
    draw(turned, (y0, x0, y1, x1), rng, ink)
    image[...] = turned.T
    return True


def play_fields(notation: str) -> dict[str, str]:
    """The coordinate and word boxes of a written play: ``H8 CASA →`` -> coordinate H8, word CASA→."""
    parts = notation.replace("-", " ").split()
    if len(parts) < 2:
        return {"coordenada": "", "palabra": notation}
    return {"coordenada": parts[0], "palabra": "".join(parts[1:])}


def scan(slip: np.ndarray, rng: np.random.Generator, dpi: float = 200.0, angle: float | None = None,
         px_per_mm: float = layout.PX_PER_MM, page_mm: tuple[float, float] = (120.0, 90.0)) -> np.ndarray:  # fmt: skip
    """The slip as a document scanner returns it: on a bed of ``page_mm``, rotated ``angle`` degrees
    (any, drawn when None), slight perspective, blur, noise and JPEG; grey uint8."""
    angle = float(rng.uniform(0, 360)) if angle is None else angle
    scale = dpi / 25.4 / px_per_mm
    h, w = slip.shape
    page_w, page_h = int(page_mm[0] * dpi / 25.4), int(page_mm[1] * dpi / 25.4)
    diagonal = np.hypot(w, h) * scale
    page_w, page_h = max(page_w, int(diagonal) + 20), max(page_h, int(diagonal) + 20)
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    centre = np.array([page_w / 2 + rng.normal(0, 5), page_h / 2 + rng.normal(0, 5)])
    theta = np.deg2rad(angle)
    rotation = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    placed = (corners - [w / 2, h / 2]) * scale @ rotation.T + centre
    placed += rng.normal(0, 0.004 * diagonal, placed.shape)
    homography = cv2.getPerspectiveTransform(corners, placed.astype(np.float32))
    bed = float(rng.uniform(215, 250))
    page = cv2.warpPerspective(slip, homography, (page_w, page_h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=bed)  # fmt: skip
    image = page.astype(np.float32) * float(rng.uniform(0.85, 1.0)) + float(rng.normal(8, 4))
    if rng.random() < 0.7:
        image = cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.3, 0.9)))
    image += rng.normal(0, float(rng.uniform(1, 6)), image.shape).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])
    return cv2.imdecode(data, cv2.IMREAD_GRAYSCALE) if ok else out


def fill_grid(image: np.ndarray, play: Play, writer: hw.Writer, rng: np.random.Generator, unmark: bool = False,
              px_per_mm: float = layout.PX_PER_MM, ink: float | None = None) -> np.ndarray:  # fmt: skip
    """A copy of an absolute slip with the play's main word written on its board, one letter a square
    (blanks circled unless ``unmark``), by ``writer``."""
    out = image.copy()
    level = float(rng.uniform(10, 90)) if ink is None else ink
    style = hw.Style.random(rng)
    size = absolute.CELL * px_per_mm * float(rng.uniform(0.5, 0.7))  # the letters' height, px: the pen keeps its width
    pen = float(rng.uniform(1.3, 3.2)) * px_per_mm / 8
    for (row, col), tile in zip(play.squares(), play.word):
        text = label(tile)
        text = text.upper() if unmark else text
        mask = hw.render_line(text, writer, rng, hw.Style(size, pen, 0.05, style.slant, style.jitter * 0.7))
        x0, y0, x1, y1 = absolute.cell_box(row, col, px_per_mm, inset=0.15)
        bw, bh = x1 - x0, y1 - y0
        scale = min(1.0, bh / mask.shape[0], bw / mask.shape[1])
        mh, mw = max(1, int(mask.shape[0] * scale)), max(1, int(mask.shape[1] * scale))
        mask = cv2.resize(mask, (mw, mh), interpolation=cv2.INTER_AREA)
        mask = np.clip(mask / max(float(mask.max()), 0.2), 0, 1)  # a pen's ink as dark in a square as in a box
        left = x0 + (bw - mw) // 2 + int(rng.integers(-1, 2))
        top = y0 + (bh - mh) // 2 + int(rng.integers(-1, 2))
        left, top = max(0, left), max(0, top)
        region = out[top : top + mh, left : left + mw].astype(np.float32)
        mask = mask[: region.shape[0], : region.shape[1]]
        out[top : top + mh, left : left + mw] = np.clip(region - mask * (region - level), 0, 255).astype(np.uint8)
    return out
