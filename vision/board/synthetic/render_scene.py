"""What a rendered frame shows, as data: a scene's settings and the truth of its render.

A ``Scene`` holds the label of every cell (``Labels``: 15 rows of 15, row A first:
``.`` empty, a tile label such as ``A``/``CH``/``Ñ``, ``?`` a blank tile, ``*`` a tile
whose letter is not Spanish, ``#`` a cell a hand covers) and how the board, tiles,
camera, light and hands look. Colours are BGR tuples of 0..255; lengths on the board
are in cells (``CELL`` pixels each on the board texture), the camera's centre and the
grid's side in image pixels, angles in degrees. A ``Render`` is the frame (BGR,
``H x W x 3`` uint8) with its truth: ``image_from_board`` (conventions in
``geometry``), the labels, and how much of each cell a hand hides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np
from numpy.typing import NDArray

from rules_core.alphabet import LETTERS, Tile, label, letter_of
from rules_core.board import Board

from ..geometry import SIZE, FloatArray

Labels = list[list[str]]
ImageU8 = NDArray[np.uint8]

VALUES: Final = {letter.label: letter.value for letter in LETTERS}
CELL: Final = 48  # pixels per cell of the board texture
EMPTY, BLANK_TILE, FOREIGN, COVERED = ".", "?", "*", "#"


@dataclass(frozen=True)
class BoardStyle:
    """Colours (BGR) of the board and how wide its green margin and light frame are (in cells)."""

    green: tuple[int, int, int] = (70, 130, 20)
    line: tuple[int, int, int] = (25, 40, 15)
    triple_word: tuple[int, int, int] = (40, 40, 200)
    double_word: tuple[int, int, int] = (110, 120, 235)
    triple_letter: tuple[int, int, int] = (170, 90, 30)
    double_letter: tuple[int, int, int] = (225, 160, 80)
    frame: tuple[int, int, int] = (225, 230, 232)
    margin: float = 0.35
    frame_width: float = 0.6
    teeth: bool = True
    markers: bool = False  # ArUco markers 0..3 on the frame beside A1, A15, O15, O1 (``markers``)
    surround: tuple[int, int, int] | None = None  # the margin's colour when not the plain squares' (``green``)
    labels: str = ""  # premium labels: "" none, "long" (TRIPLE PALABRA), "short" (TP), "digits" (3P)
    label_ink: tuple[int, int, int] = (240, 240, 240)
    coordinates: bool = False  # A..O and 1..15 printed in the margin
    wood: bool = False  # wood grain over the squares and margin
    line_width: float | None = None  # grid line width in cells (None: CELL // 24 pixels)


@dataclass(frozen=True)
class TileStyle:
    """How tiles look: face colour (BGR), font file, letter and value sizes (fractions of a cell)."""

    face: tuple[int, int, int] = (200, 228, 238)
    font: str = ""
    letter_size: float = 0.56
    value_size: float = 0.2
    side_shade: float = 0.7
    size: float = 0.9
    height: float = 0.2  # thickness in cells, for the side and the parallax
    ink: tuple[int, int, int] = (20, 20, 22)
    value_corner: str = "br"  # where the value is printed: "br", "bl" or "tr"
    # The letter's shape changed from its font's, for training (``render_tiles.reshape_glyph``):
    # ink grown (+) or thinned (-) by ``weight`` texture pixels a side, widened by ``stretch``,
    # slanted by ``slant`` (x per y, + leaning right). The defaults draw the font as it is.
    weight: float = 0.0
    stretch: float = 1.0
    slant: float = 0.0


@dataclass(frozen=True)
class Camera:
    """Where the grid lies in the frame: centre (px), side (px), in-plane turn (degrees), tilt."""

    width: int = 1920
    height: int = 1080
    centre: tuple[float, float] = (960.0, 540.0)
    side: float = 900.0
    rotation: float = 0.0
    tilt: float = 0.0  # 0 straight above; 0.15 strong perspective
    tilt_direction: float = 0.0  # degrees
    camera_height: float = 40.0  # in cells, for the parallax of tile tops


@dataclass(frozen=True)
class Lighting:
    """Light on the table: global gain, per-channel cast, gradient, glare, a hard shadow, noise, blur."""

    gain: float = 1.0
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gradient: float = 0.0
    gradient_direction: float = 0.0
    glare: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # x, y (0..1), radius (frac), strength
    shadow: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # angle, offset, softness, darkness
    noise: float = 2.0
    blur: float = 0.0
    jpeg: int = 92


@dataclass(frozen=True)
class Hand:
    """A hand over the table: fingertips at board point (u, v), pointing ``angle`` degrees in the
    image (0 = fingers to the right), ``scale`` cells long palm-to-tip; skin and sleeve BGR."""

    u: float
    v: float
    angle: float = 90.0
    scale: float = 4.0
    skin: tuple[int, int, int] = (140, 170, 215)
    sleeve: tuple[int, int, int] = (90, 60, 40)
    spread: float = 0.3
    tile: str = ""  # a tile label held between the fingers, or ""


@dataclass(frozen=True)
class Scene:
    """Everything one frame shows. ``cells`` holds what lies on each square (labels, see module doc)."""

    cells: Labels
    board: BoardStyle = field(default_factory=BoardStyle)
    tiles: TileStyle = field(default_factory=TileStyle)
    camera: Camera = field(default_factory=Camera)
    lighting: Lighting = field(default_factory=Lighting)
    hands: tuple[Hand, ...] = ()
    jitter: tuple[tuple[tuple[float, float, float], ...], ...] = ()  # per cell: du, dv, degrees
    background: tuple[int, int, int] = (60, 90, 120)
    seed: int = 0


@dataclass(frozen=True)
class Render:
    """A rendered frame (BGR), its true homography and the true label of every cell."""

    image: ImageU8
    image_from_board: FloatArray
    labels: Labels
    covered: NDArray[np.float32]  # 15 x 15, fraction of each cell a hand hides


def labels_from_board(board: Board) -> Labels:
    """Cell labels of a rules-core board: ``.``, a letter label, or ``?`` for a placed blank."""
    return [
        [EMPTY if not board[r, c] else (BLANK_TILE if board[r, c] & 0x80 else label(board[r, c])) for c in range(SIZE)]
        for r in range(SIZE)
    ]


def empty_labels() -> Labels:
    return [[EMPTY] * SIZE for _ in range(SIZE)]


def tiles_to_labels(placed: dict[tuple[int, int], Tile]) -> dict[tuple[int, int], str]:
    """Tiles as render labels (a placed blank shows no letter: ``?``)."""
    return {sq: (BLANK_TILE if t & 0x80 else label(letter_of(t))) for sq, t in placed.items()}
