"""Random scenes: every setting of a rendered frame drawn from ranges, per split.

``random_scene(rng, split=...)`` draws a ``Scene``; ``split="heldout"`` uses fonts,
colours and camera angles that ``split="train"`` never uses, to measure on settings not
seen in training; ``split="train_fonts"`` is ``"train"`` with more letter shapes
(``EXTRA_FONTS``, none of them a held-out font) for the classifier's fine-tune. Fonts
come from Debian's fonts-* packages; missing ones are skipped. The draws are made in a
fixed order from ``rng`` (a ``numpy`` generator), so one seed gives one scene.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from pathlib import Path
from typing import Final

import numpy as np

from rules_core.alphabet import LETTERS

from ..geometry import SIZE
from .render_designs import FONT_FAMILIES, design_board_style, design_tile_style
from .render_scene import BLANK_TILE, BoardStyle, Camera, Hand, Labels, Lighting, Scene, TileStyle, empty_labels

FONT_DIRS: Final = ("/usr/share/fonts/opentype/urw-base35", "/usr/share/fonts/truetype", "/usr/share/fonts/opentype")
TRAIN_FONTS: Final = (
    "URWGothic-Book.otf",
    "URWGothic-Demi.otf",
    "NimbusSans-Regular.otf",
    "NimbusSans-Bold.otf",
    "FreeSans.ttf",
    "FreeSansBold.ttf",
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
)
HELDOUT_FONTS: Final = ("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf")
EXTRA_FONTS: Final = (  # more letter shapes for training only (split "train_fonts")
    "NimbusSansNarrow-Regular.otf",
    "NimbusSansNarrow-Bold.otf",
    "DejaVuSansCondensed.ttf",
    "DejaVuSansCondensed-Bold.ttf",
    "URWBookman-Demi.otf",
    "NimbusRoman-Bold.otf",
    "P052-Bold.otf",
    "C059-Roman.otf",
    "NimbusMonoPS-Bold.otf",
    "FreeSerifBold.ttf",
)
TRAIN_SPLITS: Final = ("train", "train_fonts")
FOREIGN_LETTERS: Final = ("K", "W", "Ä", "Ö", "Ü", "Ç", "Ø", "Å", "ß", "Æ", "Œ", "Þ")


@functools.cache
def font_path(name: str) -> str | None:
    """The path of a font file by name, searched in Debian's font folders; None if absent."""
    for folder in FONT_DIRS:
        for path in Path(folder).rglob(name):
            return str(path)
    return None


def available_fonts(names: tuple[str, ...]) -> tuple[str, ...]:
    """The paths of those fonts that are installed (the DejaVu one at least, else PIL's default)."""
    found = tuple(p for p in (font_path(n) for n in names) if p)
    if found:
        return found
    fallback = font_path("DejaVuSans-Bold.ttf")
    return (fallback,) if fallback else ("",)


def random_board_style(rng: np.random.Generator, split: str = "train") -> BoardStyle:
    def jitter(colour: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
        c = np.array(colour, np.float32) * rng.uniform(1 - amount, 1 + amount, 3)
        return tuple(int(x) for x in np.clip(c, 0, 255))  # type: ignore[return-value]

    base_green = (70, 130, 20) if split in TRAIN_SPLITS else (80, 120, 40)
    return BoardStyle(
        green=jitter(base_green, 0.2),
        line=jitter((25, 40, 15), 0.4),
        triple_word=jitter((40, 40, 200), 0.15),
        double_word=jitter((110, 120, 235), 0.12),
        triple_letter=jitter((170, 90, 30), 0.2),
        double_letter=jitter((225, 160, 80), 0.12),
        frame=jitter((225, 230, 232), 0.1),
        margin=float(rng.uniform(0.15, 0.6)),
        frame_width=float(rng.uniform(0.2, 0.9)),
        teeth=bool(rng.random() < 0.85),
    )


def random_tile_style(rng: np.random.Generator, split: str = "train") -> TileStyle:
    names = {"train": TRAIN_FONTS, "train_fonts": TRAIN_FONTS + EXTRA_FONTS}.get(split, HELDOUT_FONTS)
    fonts = available_fonts(names)
    face = np.array((200, 228, 238), np.float32) * rng.uniform(0.88, 1.06, 3)
    if split not in TRAIN_SPLITS:
        face = np.array((190, 222, 236), np.float32) * rng.uniform(0.9, 1.04, 3)
    return TileStyle(
        face=tuple(int(x) for x in np.clip(face, 0, 255)),  # type: ignore[arg-type]
        font=str(fonts[int(rng.integers(len(fonts)))]),
        letter_size=float(rng.uniform(0.4, 0.58)),
        value_size=float(rng.uniform(0.13, 0.21)),
        side_shade=float(rng.uniform(0.55, 0.8)),
        size=float(rng.uniform(0.86, 0.95)),
        height=float(rng.uniform(0.12, 0.3)),
    )


def reshaped_letters(rng: np.random.Generator, style: TileStyle) -> TileStyle:
    """``style`` with its letters' shape changed as a font the families lack might draw them (for
    training only, issue 20): ink from 0.4 px thinner to 1 px bolder a side (48 px a cell),
    from 0.82 to 1.2 times as wide, slanted from -0.08 to 0.18."""
    return replace(
        style,
        weight=float(rng.uniform(-0.4, 1.0)),
        stretch=float(rng.uniform(0.82, 1.2)),
        slant=float(rng.uniform(-0.08, 0.18)),
    )


def random_camera(rng: np.random.Generator, split: str = "train", width: int = 1920, height: int = 1080, border: float = 0.75) -> Camera:
    """A camera that keeps the whole board (frame included: ``border`` cells each side of the grid) in view."""
    if rng.random() < 0.5:
        rotation = float(rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.normal(0, 5))
    else:
        rotation = float(rng.uniform(-180, 180))
    tilt = float(rng.uniform(0.0, 0.12 if split in TRAIN_SPLITS else 0.16))
    theta = math.radians(rotation)
    spread = (abs(math.cos(theta)) + abs(math.sin(theta))) * (1 + tilt) * (15 + 2 * border) / 15
    extent = float(rng.uniform(0.75, 0.98)) * min(width, height)
    side = max(extent / spread, 0.5 * min(width, height))
    extent = side * spread
    slack_x, slack_y = max(0.0, (width - extent) / 2), max(0.0, (height - extent) / 2)
    cx = width / 2 + float(rng.uniform(-slack_x, slack_x))
    cy = height / 2 + float(rng.uniform(-slack_y, slack_y))
    return Camera(width, height, (cx, cy), side, rotation, tilt, float(rng.uniform(0, 360)), float(rng.uniform(25, 60)))


TABLE_COLOURS: Final = ((40, 70, 110), (60, 100, 150), (30, 45, 70), (170, 170, 170), (210, 215, 220), (90, 60, 40), (50, 50, 50), (120, 140, 160))


def random_lighting(rng: np.random.Generator, split: str = "train") -> Lighting:
    dim = rng.random() < 0.25
    gain = float(rng.uniform(0.25, 0.55) if dim else rng.uniform(0.75, 1.2))
    cast = tuple(float(x) for x in rng.uniform(0.8, 1.2, 3)) if rng.random() < 0.5 else (1.0, 1.0, 1.0)
    glare = (float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.05, 0.25)), float(rng.uniform(0.1, 0.6))) if rng.random() < 0.3 else (0.0, 0.0, 0.0, 0.0)
    shadow = (float(rng.uniform(0, 360)), float(rng.uniform(-0.3, 0.3)), float(rng.uniform(0.003, 0.05)), float(rng.uniform(0.2, 0.6))) if rng.random() < 0.3 else (0.0, 0.0, 0.0, 0.0)
    return Lighting(
        gain=gain,
        cast=cast,  # type: ignore[arg-type]
        gradient=float(rng.uniform(0, 0.5)),
        gradient_direction=float(rng.uniform(0, 360)),
        glare=glare,
        shadow=shadow,
        noise=float(rng.uniform(1, 4) / (gain if dim else 1.0)),
        blur=float(rng.uniform(0, 1.6)),
        jpeg=int(rng.integers(55, 96)),
    )


def random_hand(rng: np.random.Generator, covered_ok: bool = True) -> Hand:
    skin = np.array((140, 170, 215), np.float32) * rng.uniform(0.5, 1.1) * rng.uniform(0.92, 1.08, 3)
    sleeve = rng.integers(20, 230, 3)
    u, v = float(rng.uniform(-1, 16)), float(rng.uniform(-1, 16))
    return Hand(
        u, v, float(rng.uniform(0, 360)), float(rng.uniform(3.0, 5.5)),
        tuple(int(x) for x in np.clip(skin, 0, 255)),  # type: ignore[arg-type]
        tuple(int(x) for x in sleeve),  # type: ignore[arg-type]
        float(rng.uniform(0.0, 0.8)),
    )


def random_jitter(rng: np.random.Generator, amount: float = 0.07, turn: float = 6.0) -> tuple[tuple[tuple[float, float, float], ...], ...]:
    j = rng.normal(0, 1, (SIZE, SIZE, 3)) * np.array([amount, amount, turn])
    big = rng.random((SIZE, SIZE)) < 0.04  # a few tiles clearly off-centre or turned
    j[big] *= 2.5
    return tuple(tuple((float(a), float(b), float(c)) for a, b, c in row) for row in j)


def random_cells(rng: np.random.Generator, fill: float | None = None, foreign: float = 0.05, blanks: float = 0.03) -> Labels:
    """Random tiles (not a game): Spanish letters, some blanks and some non-Spanish letters."""
    fill = float(rng.uniform(0.03, 0.45)) if fill is None else fill
    labels = [letter.label for letter in LETTERS]
    out = empty_labels()
    for r in range(SIZE):
        for c in range(SIZE):
            if rng.random() < fill:
                x = rng.random()
                if x < foreign:
                    out[r][c] = str(rng.choice(FOREIGN_LETTERS))
                elif x < foreign + blanks:
                    out[r][c] = BLANK_TILE
                else:
                    out[r][c] = str(rng.choice(labels))
    return out


def random_scene(
    rng: np.random.Generator,
    cells: Labels | None = None,
    split: str = "train",
    hands: int | None = None,
    width: int = 1920,
    height: int = 1080,
    design: str | None = None,
    family: str | None = None,
    fonts: tuple[str, ...] = (),
) -> Scene:
    """A scene with every setting drawn at random (``split`` "train", "train_fonts" or "heldout").

    ``design`` (one of ``render_designs.DESIGNS``): a board of that design and a random tile
    maker, in a font of ``family`` or of any family of the split's part (``train``,
    ``calibration``, ``heldout``; ``render_designs.FONT_FAMILIES``), or in one of the font files
    ``fonts`` (paths) when given. Without it, the scenes are those of the green board alone, as
    before (the same seed gives the same scene)."""
    if hands is None:
        hands = int(rng.random() < 0.3) + int(rng.random() < 0.1)
    base = np.array(TABLE_COLOURS[int(rng.integers(len(TABLE_COLOURS)))], np.float32)
    bg = tuple(int(x) for x in np.clip(base * rng.uniform(0.8, 1.2, 3), 0, 255))
    if design is None:  # cells first, as before designs: the same seed gives the same scene
        cells = cells if cells is not None else random_cells(rng)
        board, tiles = random_board_style(rng, split), random_tile_style(rng, split)
    else:
        board = design_board_style(rng, design, split)
        tiles = design_tile_style(rng, fonts or family_fonts(split, family))
        cells = cells if cells is not None else random_cells(rng)
    return Scene(
        cells=cells,
        board=board,
        tiles=tiles,
        camera=random_camera(rng, split, width, height, 0.75 if design is None else board.margin + board.frame_width),
        lighting=random_lighting(rng, split),
        hands=tuple(random_hand(rng) for _ in range(hands)),
        jitter=random_jitter(rng),
        background=bg,  # type: ignore[arg-type]
        seed=int(rng.integers(1 << 31)),
    )


def uninstalled_families(families: tuple[str, ...]) -> list[str]:
    """Those of ``families`` without one font file installed: ``family_fonts`` would set their
    tiles in DejaVu Sans (``make train-packages`` installs the train and development ones)."""
    return [f for f in families if not any(font_path(name) for name in FONT_FAMILIES[f][1])]


def family_fonts(split: str, family: str | None = None) -> tuple[str, ...]:
    """The installed font files of ``family``, or of every family of the split's part
    (``train``/``train_fonts`` -> train, ``calibration``, anything else -> heldout)."""
    if family is not None:
        names = FONT_FAMILIES[family][1]
    else:
        part = "train" if split in TRAIN_SPLITS else ("calibration" if split == "calibration" else "heldout")
        names = tuple(f for p, files in FONT_FAMILIES.values() if p == part for f in files)
    return available_fonts(names)
