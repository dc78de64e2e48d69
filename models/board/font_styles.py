"""A font file's capitals rendered and checked, its style measured on them (issue 69).

``capitals(path)`` renders the Spanish capitals A-Z and Ñ and the tile values' digits at
``PX`` pixels a em, and returns them normalised (``GLYPHS`` x ``SIDE`` x ``SIDE``, 0..1, one scale for
all: the cap height fills ``0.8 * SIDE``), or None when one is missing: not in the font's character
map, drawn without ink, drawn as the font's missing-glyph box (``.notdef``), two capitals drawn the
same, or an Ñ without its tilde above the N.

``style_features`` measures the bold face's letters (ratios, independent of size): ``serif`` (how
much wider the I at its top and the T at its foot are than their stems, the lesser), ``contrast`` (the O's thinnest
stroke over its thickest), ``round_ends`` (how much of a square the I's top end fills), ``o_aspect``
(the O's width over its height), ``aperture`` (the C's opening over its height), ``e_over_o`` (the E's
width over the O's: narrow E's and round O's are geometric). ``cluster`` names
the style from them: ``slab``, ``serif``, ``condensed``, ``rounded``, ``geometric``, ``humanist`` or
``grotesque``. ``same_design`` tells two families drawn alike (clones and renamed copies).
"""

from __future__ import annotations

import functools
from typing import Final

import cv2
import numpy as np
from fontTools.ttLib import TTFont
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZÑ"
DIGITS: Final = "0123458"  # the tile values 0-5, 8 and 10
GLYPHS: Final = LETTERS + DIGITS
PX: Final = 96
SIDE: Final = 32
SAME_DESIGN: Final = 0.965  # correlation of the normalised capitals above which two families are one design


def _mask(font: ImageFont.FreeTypeFont, text: str) -> NDArray[np.uint8]:
    image = Image.new("L", (PX * 2, PX * 2), 0)
    ImageDraw.Draw(image).text((PX // 2, int(PX * 1.4)), text, font=font, fill=255, anchor="ls")
    return np.asarray(image)


def _bbox(mask: NDArray[np.uint8]) -> tuple[int, int, int, int] | None:
    ys, xs = np.nonzero(mask > 127)
    if len(xs) == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _absent_char(cmap: dict[int, str]) -> str:
    return next(chr(c) for c in (0xE000, 0xF8FF, 0x10FFFD, 0x2FFFF) if c not in cmap)


@functools.lru_cache(maxsize=4096)
def raw_capitals(path: str) -> dict[str, NDArray[np.uint8]] | None:
    """The masks of ``GLYPHS`` at ``PX`` (baseline at the same row), or None when one fails the check."""
    try:
        cmap = TTFont(path, lazy=True, fontNumber=0).getBestCmap() or {}
        font = ImageFont.truetype(path, PX)
    except Exception:  # a file FreeType or fontTools cannot read is no tile font
        return None
    if any(ord(ch) not in cmap for ch in GLYPHS):
        return None
    notdef = _mask(font, _absent_char(cmap))
    masks = {ch: _mask(font, ch) for ch in GLYPHS}
    for mask in masks.values():
        if _bbox(mask) is None or np.array_equal(mask, notdef):
            return None
    if len({masks[ch].tobytes() for ch in LETTERS}) < len(LETTERS):
        return None
    n, enye = _bbox(masks["N"]), _bbox(masks["Ñ"])
    assert n is not None and enye is not None
    if enye[1] >= n[1] - 2:  # the tilde stands above the N
        return None
    return masks


def capitals(path: str) -> NDArray[np.float32] | None:
    """``GLYPHS`` normalised to ``SIDE`` pixels (one scale: the N's height is ``0.8 * SIDE``), or None."""
    masks = raw_capitals(path)
    if masks is None:
        return None
    box = _bbox(masks["N"])
    assert box is not None
    scale = 0.8 * SIDE / max(1, box[3] - box[1])
    out = np.zeros((len(GLYPHS), SIDE, SIDE), np.float32)
    for i, ch in enumerate(GLYPHS):
        x0, y0, x1, y1 = _bbox(masks[ch]) or (0, 0, 1, 1)
        glyph = masks[ch][y0:y1, x0:x1]
        w, h = max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale))
        if w > SIDE or h > SIDE:
            shrink = SIDE / max(w, h)
            w, h = max(1, int(w * shrink)), max(1, int(h * shrink))
        small = cv2.resize(glyph, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        top = min(SIDE - h, max(0, round(SIDE * 0.9 - (box[3] - y0) * scale)))  # baseline at 0.9 SIDE
        left = (SIDE - w) // 2
        out[i, top : top + h, left : left + w] = small
    return out


def _runs(line: NDArray[np.bool_]) -> list[int]:
    """Lengths of the runs of ink along one row or column."""
    padded = np.concatenate(([0], line.astype(np.int8), [0]))
    edges = np.flatnonzero(np.diff(padded))
    return [int(b - a) for a, b in zip(edges[::2], edges[1::2])]


def style_features(path: str) -> dict[str, float]:
    """The style ratios of a font file's capitals (module docstring); the file passed ``capitals``."""
    masks = raw_capitals(path)
    assert masks is not None
    ink = {ch: masks[ch] > 127 for ch in "ITOCE"}
    crops = {}
    for ch, m in ink.items():
        x0, y0, x1, y1 = _bbox(masks[ch]) or (0, 0, 1, 1)
        crops[ch] = m[y0:y1, x0:x1]
    i, t, o, c = crops["I"], crops["T"], crops["O"], crops["C"]
    widths = i.sum(axis=1)
    h = len(widths)
    stem = float(np.median(widths[int(h * 0.35) : int(h * 0.65)]))
    i_top = float(widths[: max(1, int(h * 0.12))].max())
    t_widths = t.sum(axis=1)
    t_stem = float(np.median(t_widths[int(len(t_widths) * 0.5) : int(len(t_widths) * 0.8)]))
    t_foot = float(t_widths[-max(1, int(len(t_widths) * 0.08)) :].max())
    serif = min(i_top / max(stem, 1), t_foot / max(t_stem, 1))  # a sans may give its I serifs, not its T a foot
    band = max(1, int(round(stem * 0.5)))
    round_ends = float(i[:band].sum()) / max(1.0, band * float(widths[:band].max()))
    mid_row, mid_col = o[o.shape[0] // 2], o[:, o.shape[1] // 2]
    side, cap = _runs(mid_row), _runs(mid_col)
    thick, thin = (max(side[0], side[-1]) if side else 1), (min(cap[0], cap[-1]) if cap else 1)
    right = c[:, int(c.shape[1] * 0.8) :].any(axis=1)
    gaps = _runs(~right[int(len(right) * 0.15) : int(len(right) * 0.85)])
    return {
        "serif": round(serif, 3),
        "contrast": round(min(thick, thin) / max(thick, thin, 1), 3),
        "round_ends": round(round_ends, 3),
        "o_aspect": round(o.shape[1] / max(1, o.shape[0]), 3),
        "aperture": round((max(gaps) if gaps else 0) / max(1, c.shape[0]), 3),
        "e_over_o": round(crops["E"].shape[1] / max(1, o.shape[1]), 3),
    }


def cluster(f: dict[str, float]) -> str:
    """The style of a family from its ``style_features`` (thresholds set on the families of issue 20)."""
    if f["serif"] >= 1.45:
        return "slab" if f["contrast"] >= 0.55 else "serif"
    if f["o_aspect"] < 0.72:
        return "condensed"
    if f["round_ends"] < 0.9:
        return "rounded"
    if f["o_aspect"] >= 0.97 and f["e_over_o"] <= 0.64:
        return "geometric"
    return "humanist" if f["aperture"] >= 0.4 else "grotesque"


def same_design(a: NDArray[np.float32], b: NDArray[np.float32]) -> bool:
    """True when two families' normalised capitals (``capitals``) correlate above ``SAME_DESIGN``."""
    x, y = a.ravel() - a.mean(), b.ravel() - b.mean()
    return float(x @ y) / max(1e-9, float(np.linalg.norm(x) * np.linalg.norm(y))) >= SAME_DESIGN
