"""Real pen strokes of UNIPEN (train_r01_v07, categories 1a digits and 1b capitals) as slip writers.

The files (``../shared/data/handwriting/unipen``, CC BY 4.0, International Unipen Foundation;
Guyon, Schomaker, Plamondon, Liberman and Janet, ICPR 1994): a label file
``data/1a|1b/<collection>/.../*.dat`` holds ``.SEGMENT CHARACTER <components> <quality> "<label>"``
lines and ``.INCLUDE`` the pen file under ``include/`` (which may ``.INCLUDE`` a ``.doc`` in turn:
nested includes are followed, relative to ``include/``). A pen file is a list of components:
``.PEN_DOWN`` and ``.PEN_UP`` blocks of ``x y`` points. A block counts as a component only when
it holds points (collections that record pen-up moves number them; the others do not), and a
segment names components as ``5``, ``8-11``, ``165-165:42``, ``9:0-11:5`` (component[:point]),
comma separated. Only pen-down components are ink. Some collections record y upwards
(``Y_UP``): their strokes are flipped, so every character is drawn upright.

A file is (mostly) one writer: ``UnipenWriter`` draws a character from the samples of one file
(``writers``), as ink the way a slip scan shows it: pen width from a fine ballpoint to a felt
tip, a pressure-like change of width along each stroke, a little jitter. Splits keep writers
apart: by file (``split_of``) and, for one whole collection (``UNSEEN_COLLECTION``), by
collection. Pure NumPy and OpenCV; randomness from the caller's ``numpy.random.Generator``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Final

import cv2
import numpy as np

Mask = np.ndarray  # float32 (h, w), 1 = ink
Stroke = np.ndarray  # float32 (n, 2): x right, y down, in the collection's units

# ../shared beside the checkout (or $VEEDOR_SHARED); VEEDOR_UNIPEN where a training machine keeps the files elsewhere
_SHARED: Final = Path(os.environ.get("VEEDOR_SHARED", Path(__file__).resolve().parents[4] / "shared"))
ROOT: Final = Path(os.environ.get("VEEDOR_UNIPEN", _SHARED / "data" / "handwriting" / "unipen"))
COLLECTIONS: Final = ("aga", "apa", "apb", "app", "art", "cea", "ceb", "gmd", "ibm", "imp", "kai", "lou",
                      "pri", "syn", "uqb", "val")  # fmt: skip
# Collections whose tablets recorded y upwards: in this copy all of them (checked by drawing their
# characters: a 7's bar on top, an L's at the bottom; ``upright`` measures it, the tests check it).
Y_UP: Final = frozenset(COLLECTIONS)
# The whole collection measured and never trained on nor used to set a threshold.
UNSEEN_COLLECTION: Final = "apb"
SPLITS: Final = ("train", "calibration", "test")
GLYPHS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
FLAT_ASPECT: Final = 3.0  # width over height: a sample this flat is not its label's character (about 170 of 38k,
#                          mostly ibm and val: a level line labelled E, F, I, T, 1; `00` labelled 0); wide cursive
#                          letters reach 2.2-3.0 (apb's M, N, K, U)
WIDE_GLYPHS: Final = frozenset("MW")  # may be written flatter than FLAT_ASPECT
_SEGMENT: Final = re.compile(r'^\.SEGMENT\s+CHARACTER\s+(\S+)\s+\S+\s+"(.*)"')


@dataclass(frozen=True)
class Character:
    """One labelled character: its pen-down strokes, y down, upright."""

    label: str
    strokes: tuple[Stroke, ...]


def _include_text(root: Path, name: str, seen: frozenset[str] = frozenset()) -> Iterator[str]:
    """The lines of an included file with its own includes expanded in place (cycles cut)."""
    if name in seen:
        return
    path = root / "include" / name
    if not path.exists():
        return
    for line in path.read_text(encoding="latin-1").splitlines():
        stripped = line.strip()
        if stripped.startswith(".INCLUDE"):
            yield from _include_text(root, stripped.split(None, 1)[1].strip(), seen | {name})
        else:
            yield line


def components(lines: Sequence[str] | Iterator[str]) -> list[tuple[bool, np.ndarray]]:
    """(pen down, points (n, 2) float32) of every block that holds points, in order."""
    out: list[tuple[bool, np.ndarray]] = []
    pen: bool | None = None
    points: list[tuple[float, float]] = []

    def close() -> None:
        if pen is not None and points:
            out.append((pen, np.array(points, np.float32)))

    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("."):
            keyword = stripped.split()[0]
            if keyword in (".PEN_DOWN", ".PEN_UP", ".DT", ".START_BOX"):
                close()
                points = []
                pen = {".PEN_DOWN": True, ".PEN_UP": False}.get(keyword)
            continue
        if pen is None:
            continue
        parts = stripped.split()
        if len(parts) >= 2:
            try:
                points.append((float(parts[0]), float(parts[1])))
            except ValueError:
                continue
    close()
    return out


def _bound(text: str) -> tuple[int, int | None]:
    if ":" in text:
        comp, point = text.split(":", 1)
        return int(comp), int(point)
    return int(text), None


def segment_strokes(spec: str, parts: Sequence[tuple[bool, np.ndarray]]) -> list[np.ndarray]:
    """The pen-down strokes a segment names (``5``, ``8-11``, ``165-165:42``, ``9:0-11:5``, comma lists)."""
    strokes: list[np.ndarray] = []
    for piece in spec.split(","):
        if not piece:
            continue
        first, _, last = piece.partition("-")
        (c0, p0), (c1, p1) = _bound(first), _bound(last or first)
        for c in range(c0, c1 + 1):
            if c >= len(parts):
                break
            down, points = parts[c]
            start = p0 if (c == c0 and p0 is not None) else 0
            stop = p1 + 1 if (c == c1 and p1 is not None) else len(points)
            if down and stop > start:
                strokes.append(points[start:stop])
    return strokes


def collection_of(label_file: Path, root: Path = ROOT) -> str:
    """The collection of a label file: the folder under ``data/1a|1b``."""
    return label_file.relative_to(root / "data").parts[1]


def read_file(label_file: Path, root: Path = ROOT) -> list[Character]:
    """Every usable capital or digit of one label file, strokes upright (y down)."""
    collection = collection_of(label_file, root)
    body: list[str] = []
    labels: list[tuple[str, str]] = []
    for line in label_file.read_text(encoding="latin-1").splitlines():
        stripped = line.strip()
        if stripped.startswith(".INCLUDE"):
            body.extend(_include_text(root, stripped.split(None, 1)[1].strip()))
            continue
        match = _SEGMENT.match(stripped)
        if match:
            labels.append((match.group(1), match.group(2).strip()))
        else:
            body.append(line)
    parts = components(body)
    out = []
    for spec, label in labels:
        if label not in GLYPHS:
            continue
        try:
            strokes = segment_strokes(spec, parts)
        except ValueError:
            continue
        strokes = [s for s in strokes if np.any(s != 0)]
        if not strokes:
            continue
        points = np.concatenate(strokes)
        if np.ptp(points[:, 1]) <= 0 and np.ptp(points[:, 0]) <= 0:
            continue
        if label not in WIDE_GLYPHS and np.ptp(points[:, 0]) > FLAT_ASPECT * np.ptp(points[:, 1]):
            continue  # a level line or two characters under one label, not the character
        if collection in Y_UP:
            strokes = [np.stack([s[:, 0], -s[:, 1]], 1) for s in strokes]
        out.append(Character(label, tuple(s.astype(np.float32) for s in strokes)))
    return out


def label_files(root: Path = ROOT, collections: Sequence[str] = COLLECTIONS) -> list[Path]:
    """Every label file of the given collections, sorted (1a digits and 1b capitals)."""
    found = []
    for category in ("1a", "1b"):
        for collection in collections:
            folder = root / "data" / category / collection
            if folder.exists():
                found.extend(sorted(folder.rglob("*.dat")))
    return found


def split_of(label_file: Path, root: Path = ROOT) -> str:
    """A file's part: ``unseen`` for the whole collection ``UNSEEN_COLLECTION``, else by a hash of the
    file's name within its collection (one writer a file): 70 % ``train``, 15 % ``calibration``, 15 % ``test``.
    The name without the category, so a writer's digits and capitals (same name) fall together."""
    collection = collection_of(label_file, root)
    if collection == UNSEEN_COLLECTION:
        return "unseen"
    key = "/".join(label_file.relative_to(root / "data").parts[1:])
    value = hashlib.sha256(key.encode()).digest()[0] % 20
    return "train" if value < 14 else ("calibration" if value < 17 else "test")


def smooth_width(n: int, rng: np.random.Generator, amount: float) -> np.ndarray:
    """A pressure-like width factor along a stroke of ``n`` points: lighter at its ends, slow waves."""
    t = np.linspace(0, 1, max(n, 2))
    wave = 1 + amount * np.sin(2 * np.pi * (rng.uniform(0.3, 1.5) * t + rng.uniform(0, 1)))
    ends = np.clip(np.minimum(t, 1 - t) / 0.12, 0.55, 1.0) if rng.random() < 0.7 else np.ones_like(t)
    return (wave * ends)[:n]


def draw_strokes(strokes: Sequence[Stroke], rng: np.random.Generator, height: float = 40.0,
                 pen: float = 2.5, jitter: float = 0.6, pressure: float = 0.25) -> Mask:  # fmt: skip
    """Ink of pen strokes scaled to ``height`` px (the character's height), ``pen`` px wide on average,
    drawn at 4x and reduced (antialiased), with a pressure-like width and a hand's jitter."""
    points = np.concatenate(strokes)
    lo = points.min(axis=0)
    span = max(float(np.ptp(points[:, 1])), 0.35 * float(np.ptp(points[:, 0])), 1e-6)
    scale = height / span
    up = 4
    margin = pen * 2 + 4
    size = ((points.max(axis=0) - lo) * scale + 2 * margin) * up
    canvas = np.zeros((int(size[1]) + 2, int(size[0]) + 2), np.uint8)
    for stroke in strokes:
        xy = (stroke - lo) * scale + margin
        if len(xy) > 3 and jitter:
            xy = xy + cv2.GaussianBlur(rng.normal(0, jitter, (len(xy), 2)).astype(np.float32), (1, 0), 2.0).reshape(-1, 2)
        widths = pen * smooth_width(len(xy), rng, pressure)
        pts = np.round(xy * up).astype(np.int32)
        if len(pts) == 1:
            cv2.circle(canvas, tuple(int(v) for v in pts[0]), max(1, int(widths[0] * up / 2)), 255, -1, cv2.LINE_AA)
            continue
        for i in range(len(pts) - 1):
            thickness = max(1, int(round(widths[i] * up)))
            cv2.line(canvas, tuple(int(v) for v in pts[i]), tuple(int(v) for v in pts[i + 1]), 255, thickness, cv2.LINE_AA)
    small = cv2.resize(canvas, (max(1, canvas.shape[1] // up), max(1, canvas.shape[0] // up)), interpolation=cv2.INTER_AREA)
    mask = small.astype(np.float32) / 255.0
    ys, xs = np.nonzero(mask > 0.1)
    if len(ys) == 0:
        return np.zeros((1, 1), np.float32)
    return np.ascontiguousarray(mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def bent_strokes(strokes: Sequence[Stroke], rng: np.random.Generator, amount: float) -> tuple[Stroke, ...]:
    """A character's strokes as another hand might place and bend them (training variety, ``amount`` 0..1):
    each stroke turned up to 8 * amount degrees, scaled by 1 +- 0.12 * amount and moved up to 0.08 * amount
    of the character's height, about its own centre; each bent by a slow wave across it of up to 0.04 *
    amount heights; then the whole character sheared by up to 0.25 * amount and stretched in x by 1 +- 0.15 *
    amount, about its centre. Units are the collection's (y down); ``draw_strokes`` scales to pixels."""
    points = np.concatenate(strokes)
    height, middle = max(float(np.ptp(points[:, 1])), 1e-6), points.mean(axis=0)
    out = []
    for stroke in strokes:
        centre = stroke.mean(axis=0)
        turn = np.deg2rad(rng.uniform(-8, 8) * amount)
        scale = 1 + rng.uniform(-0.12, 0.12) * amount
        matrix = scale * np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        moved = (stroke - centre) @ matrix.T + centre + rng.uniform(-0.08, 0.08, 2) * amount * height
        t = np.linspace(0, 1, len(stroke))[:, None]
        wave = np.sin(np.pi * (t * rng.uniform(0.5, 2.0) + rng.uniform(0, 1)))
        out.append(moved + wave * rng.uniform(-0.04, 0.04, 2) * amount * height)
    shear, stretch = rng.uniform(-0.25, 0.25) * amount, 1 + rng.uniform(-0.15, 0.15) * amount
    glyph = np.array([[stretch, shear], [0.0, 1.0]])
    return tuple(((s - middle) @ glyph.T + middle).astype(np.float32) for s in out)


@dataclass(eq=False)
class UnipenWriter:
    """One UNIPEN writer (a file): draws a capital or digit from that writer's own samples, in a pen of
    its own (``pen`` and ``pressure`` fixed per writer, so every glyph, Ñ tilde and circle of a line
    comes from one hand). Characters the writer never wrote are lent by ``fallback`` (another writer of
    the same part), as a person's missing letter would look no stranger than another person's."""

    name: str
    samples: dict[str, list[tuple[Stroke, ...]]] = field(default_factory=dict)
    fallback: UnipenWriter | None = None
    pressure: float = 0.25
    bank: dict[str, list[UnipenWriter]] = field(default_factory=dict, repr=False)  # the part's writers by character
    bend: float = 0.0  # training only: each glyph's strokes bent anew by ``bent_strokes`` (0: as written)

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> Mask:
        writer: UnipenWriter | None = self
        for _ in range(64):
            if writer is None or writer.samples.get(char):
                break
            writer = writer.fallback
        options = writer.samples.get(char) if writer is not None else None
        if not options and self.bank.get(char):  # nobody on the chain wrote it: a fixed writer of the part who did
            lenders = self.bank[char]
            writer = lenders[int(hashlib.sha256(self.name.encode()).digest()[0]) % len(lenders)]
            options = writer.samples[char]
        if not options:
            raise ValueError(f"{self.name}: no hay muestras de {char!r}")
        return writer.draw(options[int(rng.integers(len(options)))], rng, pen)  # type: ignore[union-attr]

    def draw(self, strokes: tuple[Stroke, ...], rng: np.random.Generator, pen: float) -> Mask:
        # at 32 px of cap height the line's pen is 2.5 * pen px (``handwriting.render_line``'s pen_scale)
        if self.bend > 0:
            strokes = bent_strokes(strokes, rng, self.bend)
        return draw_strokes(strokes, rng, 32.0, 2.5 * pen, float(rng.uniform(0.2, 0.8)), self.pressure)

    def digits(self) -> int:
        return sum(c.isdigit() for c in self.samples)

    def letters(self) -> int:
        return sum(c.isalpha() for c in self.samples)


def upright(characters: Sequence[Character]) -> float:
    """Share of the 7s, Ts and Ls drawn upright: a 7's or T's ink spans wider in its top quarter than in
    its bottom quarter, an L's the other way."""
    votes = []
    for character in characters:
        if character.label not in "7TL":
            continue
        mask = draw_strokes(character.strokes, np.random.default_rng(0), 30.0, 2.0, 0.0, 0.0) > 0.3
        quarter = max(1, mask.shape[0] // 4)

        def span(rows: np.ndarray) -> int:
            cols = np.nonzero(rows.any(axis=0))[0]
            return int(cols[-1] - cols[0]) if len(cols) else 0

        top, bottom = span(mask[:quarter]), span(mask[-quarter:])
        if top != bottom:
            votes.append((top > bottom) == (character.label != "L"))
    return float(np.mean(votes)) if votes else 0.0


@lru_cache(maxsize=4)
def _load(root: Path) -> tuple[tuple[str, str, str, tuple[Character, ...]], ...]:
    """(file key, collection, split, characters) of every label file, parsed once per process."""
    out = []
    for path in label_files(root):
        out.append(("/".join(path.relative_to(root / "data").parts[1:]), collection_of(path, root),
                    split_of(path, root), tuple(read_file(path, root))))  # fmt: skip
    return tuple(out)


def writers(split: str, root: Path = ROOT, min_glyphs: int = 8, seed: int = 0,
            complete: bool = False) -> list[UnipenWriter]:  # fmt: skip
    """The writers of a part (``train``, ``calibration``, ``test``, ``unseen``): one per writer name
    within a collection (its digits file and capitals file joined), with at least ``min_glyphs``
    distinct characters (``complete``: only those who wrote 15 capitals or more, so a play's word is
    one hand); each borrows what it lacks (most often the digits of the coordinate: most files of the
    collections hold capitals or digits, not both) from one partner of the same part (``_partner``)."""
    grouped: dict[str, dict[str, list[tuple[Stroke, ...]]]] = {}
    for key, _collection, part, characters in _load(root):
        if part != split:
            continue
        samples = grouped.setdefault(key, {})
        for character in characters:
            samples.setdefault(character.label, []).append(character.strokes)
    rng = np.random.default_rng(seed)
    found = [UnipenWriter(key, samples, pressure=float(rng.uniform(0.05, 0.35)))
             for key, samples in sorted(grouped.items()) if len(samples) >= min_glyphs]  # fmt: skip
    bank: dict[str, list[UnipenWriter]] = {}
    for writer in found:
        for char in writer.samples:
            bank.setdefault(char, []).append(writer)
    for i, writer in enumerate(found):
        writer.fallback = _partner(found, i)
        writer.bank = bank
    return [w for w in found if w.letters() >= 15] if complete else found


def _partner(found: Sequence[UnipenWriter], i: int) -> UnipenWriter | None:
    """The writer who lends ``found[i]`` what it lacks: the next one (cyclically) who wrote 8 digits or
    more when it lacks digits, 20 capitals or more when it lacks capitals, else simply the next."""
    writer, n = found[i], len(found)
    wants_digits, wants_letters = writer.digits() < 10, writer.letters() < 26
    for step in range(1, n):
        other = found[(i + step) % n]
        if (not wants_digits or other.digits() >= 8) and (not wants_letters or other.letters() >= 20):
            return other
    return found[(i + 1) % n] if n > 1 else None


def ink_on_textured_paper(mask: Mask, rng: np.random.Generator) -> np.ndarray:
    """Grey uint8 of ``mask`` in blue or black ink (a scanner's grey of each) on paper with texture:
    fibres and a slow unevenness; the ink thinner where the pen skipped (ballpoint)."""
    h, w = mask.shape
    paper = float(rng.uniform(205, 252))
    fibres = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), float(rng.uniform(0.6, 1.5)))
    slow = cv2.resize(rng.normal(0, 1, (4, 6)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    ground = paper + fibres * float(rng.uniform(1, 5)) + slow * float(rng.uniform(0, 6))
    blue = rng.random() < 0.5
    ink = float(rng.uniform(40, 120)) if blue else float(rng.uniform(5, 70))  # grey of blue / black ink
    skips = 1 - 0.35 * np.clip(cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), 1.0) - 0.5, 0, 1) * 2
    coverage = mask * (skips if rng.random() < 0.4 else 1.0)
    return np.clip(ground - coverage * (ground - ink), 0, 255).astype(np.uint8)


def available(root: Path = ROOT) -> bool:
    return (root / "data").exists()
