"""Synthetic handwriting: a slip line such as ``H8 CASA`` drawn glyph by glyph by a writer.

Everything here is an *ink mask*: a float32 array of shape (height, width), rows are
y (down), columns x (right), 1.0 is full ink and 0.0 paper. A writer draws one
capital or digit as a mask; ``render_line`` lays a line's tokens along a baseline
with per-glyph jitter and draws what no font has the way a hand does: circles
around blank letters (lowercase tokens, D.III.20.3; a digraph ``ch`` in one
circle), the tilde of Ñ over an N, hyphens and the arrows of the oriented notation.

Writers: Debian handwriting fonts (``FontWriter``), OpenCV's Hershey stroke fonts
(``HersheyWriter``) and real handwritten characters (``RealWriter``, from
``../shared/data/handwriting/caps_digits``). Used to train the recogniser, to
benchmark it, and to render the demo's scans; randomness comes from the caller's
``numpy.random.Generator`` only.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Final, Protocol

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

Mask = np.ndarray  # float32 (h, w), 1 = ink

FONT_DIRS: Final = ("/usr/share/fonts/opentype", "/usr/share/fonts/truetype")
# Debian packages: fonts-comic-neue fonts-dkg-handwriting fonts-breip fonts-sjfonts
# fonts-kristi fonts-tlwg-purisa-otf fonts-humor-sans fonts-tomsontalks fonts-rufscript
# fonts-averia-gwf. Breip and SteveHand are never used in training:
# the benchmark writes with them.
TRAIN_FONTS: Final = (
    "comic-neue/ComicNeue-Regular.otf", "comic-neue/ComicNeue-Bold.otf",
    "comic-neue/ComicNeue-Italic.otf", "comic-neue/ComicNeue-Light.otf",
    "tlwg/Purisa.otf", "tlwg/Purisa-Bold.otf", "tlwg/Purisa-Oblique.otf",
    "fifthhorseman/dkg.ttf", "fifthhorseman/dkgBd.ttf", "fifthhorseman/dkgIt.ttf",
    "kristi/Kristi.ttf", "sjfonts/Delphine.ttf",
    "humor-sans/Humor-Sans.ttf", "tomsontalks/TomsonTalks.ttf", "rufscript/Rufscript010.ttf",
    "averia-gwf/AveriaGWF-Regular.ttf", "averia-gwf/AveriaGWF-Italic.ttf", "averia-gwf/AveriaGWF-Bold.ttf",
)  # fmt: skip
HELDOUT_FONTS: Final = ("breip/Breip.ttf", "breip/breipfont.ttf", "sjfonts/SteveHand.ttf")
# Faces used neither in training nor by the benchmark: the decoder's thresholds are set on them
# (with the calibration part of the real characters). Four are unseen faces of trained families,
# three of families never seen (URW Gothic, the script Z003); no Hershey face (COMPLEX_SMALL is
# the benchmark's COMPLEX drawn smaller).
CALIBRATION_FONTS: Final = (
    "comic-neue/ComicNeue-BoldItalic.otf", "comic-neue/ComicNeue-LightItalic.otf",
    "tlwg/Purisa-BoldOblique.otf", "fifthhorseman/dkgBI.ttf",
    "urw-base35/URWGothic-BookOblique.otf", "urw-base35/URWGothic-Demi.otf", "urw-base35/Z003-MediumItalic.otf",
)  # fmt: skip
TRAIN_HERSHEY: Final = (
    cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)  # fmt: skip
HELDOUT_HERSHEY: Final = (cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX)
CALIBRATION_HERSHEY: Final[tuple[int, ...]] = ()
GLYPHS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
DIGRAPHS: Final = ("ch", "ll", "rr")


class Writer(Protocol):
    """Draws one capital (A-Z) or digit as a tight ink mask."""

    @property
    def name(self) -> str: ...

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> Mask: ...


def find_font(relative: str) -> Path | None:
    """The installed path of a Debian font file, or None when its package is missing."""
    for root in FONT_DIRS:
        path = Path(root) / relative
        if path.exists():
            return path
    return None


def tight(mask: Mask, threshold: float = 0.15) -> Mask:
    """``mask`` cropped to its ink; an empty mask becomes 1x1."""
    ys, xs = np.nonzero(mask > threshold)
    if len(ys) == 0:
        return np.zeros((1, 1), np.float32)
    return np.ascontiguousarray(mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def thicken(mask: Mask, pen: float) -> Mask:
    """Change the stroke width: ``pen`` > 1 dilates, < 1 erodes (in pixels of change)."""
    size = int(round(abs(pen - 1.0)))
    if size == 0:
        return mask
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size + 1, size + 1))
    return cv2.dilate(mask, kernel) if pen > 1 else cv2.erode(mask, kernel)


@dataclass(eq=False)
class FontWriter:
    """Glyphs of a handwriting font, drawn at 64 px and cropped."""

    path: Path
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or self.path.stem
        self._font = ImageFont.truetype(str(self.path), 64)

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> Mask:
        return thicken(_font_glyph(self, char), pen)


@lru_cache(maxsize=4096)
def _font_glyph(writer: FontWriter, char: str) -> Mask:
    image = Image.new("L", (160, 140), 0)
    ImageDraw.Draw(image).text((30, 20), char, fill=255, font=writer._font)
    return tight(np.asarray(image, np.float32) / 255.0)


@dataclass(frozen=True)
class HersheyWriter:
    """OpenCV's Hershey stroke fonts; ``pen`` is the stroke thickness at 48 px."""

    face: int
    italic: bool = False

    @property
    def name(self) -> str:
        return f"hershey{self.face}{'i' if self.italic else ''}"

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> Mask:
        canvas = np.zeros((120, 120), np.uint8)
        face = self.face | (cv2.FONT_ITALIC if self.italic else 0)
        scale = 48 / max(1, cv2.getTextSize("H", face, 1.0, 1)[0][1])
        thickness = max(1, int(round(1.5 * pen)))
        cv2.putText(canvas, char, (25, 85), face, scale, 255, thickness, cv2.LINE_AA)
        return tight(canvas.astype(np.float32) / 255.0)


@dataclass
class RealWriter:
    """Real handwritten capitals and digits; each draw picks one sample of the class."""

    samples: dict[str, list[Mask]] = field(default_factory=dict)
    name: str = "real"

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> Mask:
        options = self.samples.get(char)
        if not options:
            raise ValueError(f"no hay muestras reales de {char!r}")
        return thicken(options[int(rng.integers(len(options)))], pen)


def real_split(file_name: str) -> str:
    """The fixed split of a caps_digits file: ``calibration``, ``test`` or ``train``.

    By the number in the file name (``CAP_A_15.png``, the sample's index in the
    original collection): a multiple of 10 is ``calibration`` (decoder thresholds),
    5 more than one is ``test`` (the benchmark), the rest (80 %) ``train``. The
    held-out parts are never used in training.
    """
    stem = Path(file_name).stem
    number = stem.rsplit("_", 1)[-1]
    value = int(number) if number.isdigit() else hashlib.sha256(stem.encode()).digest()[0]
    if value % 10 == 0:
        return "calibration"
    return "test" if value % 10 == 5 else "train"


def ink_from_gray(gray: np.ndarray, floor: float = 40.0) -> Mask:
    """Ink mask of a grey photo of writing on paper (background = the median grey)."""
    image = gray.astype(np.float32)
    background = float(np.median(image))
    darkest = float(np.percentile(image, 1))
    return np.clip((background - image) / max(background - darkest, floor), 0.0, 1.0)


def load_real_writer(root: Path, split: str) -> RealWriter:
    """A part of caps_digits/labels.csv as one writer: ``train``, ``calibration``, ``test`` or ``heldout`` (both)."""
    samples: dict[str, list[Mask]] = {}
    with open(root / "labels.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            part = real_split(row["file"])
            if part != split and not (split == "heldout" and part != "train"):
                continue
            gray = cv2.imread(str(root / row["file"]), cv2.IMREAD_GRAYSCALE)
            if gray is None:
                continue
            mask = tight(ink_from_gray(gray), 0.25)
            samples.setdefault(row["label"].upper(), []).append(mask)
    return RealWriter(samples, f"real-{split}")


def writers(split: str) -> list[Writer]:
    """The installed font and Hershey writers of ``split``: ``train``, ``calibration`` or ``heldout``."""
    fonts = {"train": TRAIN_FONTS, "calibration": CALIBRATION_FONTS}.get(split, HELDOUT_FONTS)
    faces = {"train": TRAIN_HERSHEY, "calibration": CALIBRATION_HERSHEY}.get(split, HELDOUT_HERSHEY)
    found: list[Writer] = []
    for relative in fonts:
        path = find_font(relative)
        if path is not None:
            found.append(FontWriter(path))
    for face in faces:
        found.append(HersheyWriter(face))
        found.append(HersheyWriter(face, italic=True))
    return found


# --- strokes drawn by hand -------------------------------------------------------


def polyline(canvas: np.ndarray, points: np.ndarray, pen: float) -> None:
    """Draw ``points`` (n, 2) as x, y in canvas pixels, antialiased, ``pen`` px wide."""
    cv2.polylines(canvas, [np.round(points * 4).astype(np.int32)], False, 1.0,
                  max(1, int(round(pen))), cv2.LINE_AA, shift=2)  # fmt: skip


def wobble(points: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Low-frequency hand tremor added to a polyline."""
    n = len(points)
    t = np.linspace(0, 1, n)
    noise = np.zeros_like(points)
    for axis in range(2):
        phase, freq = rng.uniform(0, 2 * np.pi), rng.uniform(0.5, 2.0)
        noise[:, axis] = amount * np.sin(2 * np.pi * freq * t + phase)
    return points + noise


def draw_circle(canvas: np.ndarray, box: tuple[float, float, float, float], rng: np.random.Generator, pen: float) -> None:
    """A hand-drawn loop around ``box`` (x0, y0, x1, y1): open or overlapping, tilted, uneven."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2 + rng.normal(0, 1.0), (y0 + y1) / 2 + rng.normal(0, 1.0)
    rx = (x1 - x0) / 2 * rng.uniform(1.2, 1.7) + 4
    ry = (y1 - y0) / 2 * rng.uniform(1.15, 1.5) + 4
    start = rng.uniform(0, 2 * np.pi)
    sweep = rng.uniform(1.75, 2.2) * np.pi * rng.choice([-1, 1])
    t = np.linspace(start, start + sweep, 60)
    radius = 1 + 0.08 * np.sin(rng.uniform(1, 3) * t + rng.uniform(0, 6)) + np.linspace(0, rng.normal(0, 0.08), 60)
    tilt = rng.normal(0, 0.15)
    xs, ys = rx * radius * np.cos(t), ry * radius * np.sin(t)
    points = np.stack([cx + xs * np.cos(tilt) - ys * np.sin(tilt), cy + xs * np.sin(tilt) + ys * np.cos(tilt)], 1)
    polyline(canvas, points, pen)


def draw_tilde(canvas: np.ndarray, x0: float, x1: float, y: float, height: float,
               rng: np.random.Generator, pen: float) -> None:  # fmt: skip
    """The tilde of Ñ: a wave from x0 to x1 around row y."""
    t = np.linspace(0, 1, 24)
    amplitude = height * rng.uniform(0.06, 0.13)
    xs = x0 + (x1 - x0) * t
    ys = y - amplitude * np.sin(2 * np.pi * t + rng.normal(0, 0.3))
    polyline(canvas, wobble(np.stack([xs, ys], 1), rng, 0.6), pen)


def draw_arrow(canvas: np.ndarray, x: float, baseline: float, height: float, down: bool,
               rng: np.random.Generator, pen: float) -> float:  # fmt: skip
    """→ (or ↓ when ``down``) drawn from x; returns the width used."""
    head = height * rng.uniform(0.22, 0.35)
    if down:
        cx = x + height * 0.3
        top, bottom = baseline - height * rng.uniform(0.9, 1.05), baseline + rng.normal(0, 1)
        shaft = np.array([[cx, top], [cx + rng.normal(0, 1), bottom]])
        wings = [np.array([[cx - head * 0.8, bottom - head], [cx, bottom], [cx + head * 0.8, bottom - head]])]
        width = height * 0.6
    else:
        y = baseline - height * rng.uniform(0.4, 0.6)
        length = height * rng.uniform(1.0, 1.6)
        shaft = np.array([[x, y], [x + length, y + rng.normal(0, 1)]])
        end = x + length
        wings = [np.array([[end - head, y - head * 0.8], [end, y], [end - head, y + head * 0.8]])]
        width = length
    polyline(canvas, wobble(np.linspace(shaft[0], shaft[1], 12), rng, 0.5), pen)
    for wing in wings:
        polyline(canvas, wing + rng.normal(0, 0.6, wing.shape), pen)
    return width


def draw_hyphen(canvas: np.ndarray, x: float, baseline: float, height: float,
                rng: np.random.Generator, pen: float) -> float:  # fmt: skip
    """A short dash at mid height; returns its width."""
    length = height * rng.uniform(0.3, 0.6)
    y = baseline - height * rng.uniform(0.4, 0.6)
    polyline(canvas, np.array([[x, y], [x + length, y + rng.normal(0, 0.8)]]), pen)
    return length


def _paste(canvas: np.ndarray, mask: Mask, x: int, y: int) -> None:
    h, w = mask.shape
    y0, x0 = max(0, y), max(0, x)
    y1, x1 = min(canvas.shape[0], y + h), min(canvas.shape[1], x + w)
    if y1 > y0 and x1 > x0:
        region = canvas[y0:y1, x0:x1]
        np.maximum(region, mask[y0 - y : y1 - y, x0 - x : x1 - x], out=region)


def _units(text: str) -> list[str]:
    """Split a line into units: one glyph, a circled group (``ch`` or one letter), a space..."""
    units: list[str] = []
    i = 0
    while i < len(text):
        pair = text[i : i + 2]
        if pair in DIGRAPHS:
            units.append(pair)
            i += 2
        else:
            units.append(text[i])
            i += 1
    return units


@dataclass(frozen=True)
class Style:
    """One writer's hand for a line: cap height, pen width (px), spacing, slant."""

    height: float = 32.0
    pen: float = 2.5
    spacing: float = 0.12  # gap between glyphs, in cap heights
    slant: float = 0.0  # shear, x += slant * (baseline - y)
    jitter: float = 1.0  # scale of per-glyph randomness

    @classmethod
    def random(cls, rng: np.random.Generator) -> Style:
        return cls(
            height=float(rng.uniform(24, 40)),
            pen=float(rng.uniform(1.2, 4.5)),
            spacing=float(rng.uniform(-0.02, 0.3)),
            slant=float(rng.normal(0, 0.12)),
            jitter=float(rng.uniform(0.3, 1.3)),
        )


def render_line(text: str, writer: Writer, rng: np.random.Generator, style: Style | None = None) -> Mask:
    """Ink mask of ``text`` (tokens of ``vision.slips.tokens``) handwritten by ``writer``.

    Lowercase letters are drawn as capitals with a circle around them (a digraph
    ``ch``/``ll``/``rr`` in one circle); ``Ñ`` is an N with a drawn tilde; ``→``/``↓``
    and ``-`` are drawn strokes. The mask is cropped to its ink with a 4 px margin.
    """
    style = style or Style.random(rng)
    h = style.height
    width = int(h * (len(text) + 2) * 1.8) + 40
    canvas = np.zeros((int(h * 3.2), width), np.float32)
    baseline = h * 2.0
    x = 10.0
    pen_scale = style.pen / 2.5
    for unit in _units(text):
        if unit == " ":
            x += h * rng.uniform(0.45, 1.1)
            continue
        if unit in "→↓":
            x += h * rng.uniform(0.1, 0.4)
            x += draw_arrow(canvas, x, baseline, h, unit == "↓", rng, style.pen) + h * rng.uniform(0.1, 0.3)
            continue
        if unit == "-":
            x += h * rng.uniform(0.05, 0.25)
            x += draw_hyphen(canvas, x, baseline, h, rng, style.pen) + h * rng.uniform(0.05, 0.25)
            continue
        circled = unit.islower()
        if circled:
            x += h * rng.uniform(0.15, 0.4)
        left, top = x, baseline
        for char in unit.upper():
            x, glyph_top = _place_glyph(canvas, char, writer, x, baseline, style, rng, pen_scale)
            top = min(top, glyph_top)
        if circled:
            draw_circle(canvas, (left, top, x - h * style.spacing, baseline), rng, style.pen * rng.uniform(0.7, 1.1))
            x += h * rng.uniform(0.15, 0.4)
    if style.slant:
        shear = np.array([[1, -style.slant, style.slant * baseline], [0, 1, 0]], np.float32)
        canvas = cv2.warpAffine(canvas, shear, (canvas.shape[1], canvas.shape[0]))
    return _margin(tight(canvas, 0.05), 4)


def _place_glyph(canvas: np.ndarray, char: str, writer: Writer, x: float, baseline: float,
                 style: Style, rng: np.random.Generator, pen_scale: float) -> tuple[float, float]:  # fmt: skip
    """Draw one capital or digit at x; returns the next x and the glyph's top row."""
    h, j = style.height, style.jitter
    tilde = char == "Ñ"
    base_char = "N" if tilde else char
    mask = writer.glyph(base_char, rng, pen_scale * rng.uniform(0.8, 1.25))
    scale = h * (1 + rng.normal(0, 0.05 * j)) / max(mask.shape[0], 1)
    aspect = 1 + rng.normal(0, 0.07 * j)
    gh = max(2, int(round(mask.shape[0] * scale)))
    gw = max(2, int(round(mask.shape[1] * scale * aspect)))
    if char in "0123456789" and rng.random() < 0.3:
        gh = int(gh * rng.uniform(0.85, 1.0))
    glyph = cv2.resize(mask, (gw, gh), interpolation=cv2.INTER_AREA)
    angle = rng.normal(0, 3.5 * j)
    if abs(angle) > 0.5:
        glyph = _rotate(glyph, angle)
    if char == "-":
        gh = glyph.shape[0]
    y = int(round(baseline - glyph.shape[0] + rng.normal(0, 0.04 * h * j)))
    _paste(canvas, glyph, int(round(x)), y)
    if tilde:
        draw_tilde(canvas, x + 0.1 * gw, x + 0.9 * gw, y - h * rng.uniform(0.12, 0.25), h, rng,
                   style.pen * rng.uniform(0.7, 1.1))  # fmt: skip
    next_x = x + glyph.shape[1] + h * (style.spacing + rng.normal(0, 0.04 * j))
    return next_x, float(y)


def _rotate(mask: Mask, degrees: float) -> Mask:
    h, w = mask.shape
    pad = int(0.3 * max(h, w)) + 2
    big = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    centre = (big.shape[1] / 2, big.shape[0] / 2)
    matrix = cv2.getRotationMatrix2D(centre, degrees, 1.0)
    return tight(cv2.warpAffine(big, matrix, (big.shape[1], big.shape[0])), 0.05)


def _margin(mask: Mask, pixels: int) -> Mask:
    return cv2.copyMakeBorder(mask, pixels, pixels, pixels, pixels, cv2.BORDER_CONSTANT, value=0)


def elastic(mask: Mask, rng: np.random.Generator, alpha: float, sigma: float) -> Mask:
    """Elastic distortion: each pixel moved by smoothed noise (``alpha`` px, ``sigma`` px smooth)."""
    h, w = mask.shape
    dx = cv2.GaussianBlur(rng.uniform(-1, 1, (h, w)).astype(np.float32), (0, 0), sigma)
    dy = cv2.GaussianBlur(rng.uniform(-1, 1, (h, w)).astype(np.float32), (0, 0), sigma)
    norm = max(float(np.abs(dx).max()), float(np.abs(dy).max()), 1e-6)
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    return cv2.remap(mask, xs + dx / norm * alpha, ys + dy / norm * alpha, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)  # fmt: skip


def ink_on_paper(mask: Mask, rng: np.random.Generator, ink: float | None = None,
                 paper: float | None = None) -> np.ndarray:  # fmt: skip
    """A grey uint8 image of ``mask`` written on paper: pen darkness and paper tone drawn at random."""
    ink_level = ink if ink is not None else float(rng.uniform(0, 110))
    paper_level = paper if paper is not None else float(rng.uniform(200, 255))
    image = paper_level - mask * (paper_level - ink_level)
    return np.clip(image, 0, 255).astype(np.uint8)


def pick_writer(pool: Sequence[Writer], rng: np.random.Generator) -> Writer:
    return pool[int(rng.integers(len(pool)))]
