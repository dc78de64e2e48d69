"""Spanish boards as a camera over the table sees them: renders for training, tests and the demo.

``render(scene)`` draws one frame and returns it with its truth: the homography
(``image_from_board``, conventions in ``geometry``) and the label of every cell
(``.`` empty, a tile label such as ``A``/``CH``/``Ñ``, ``?`` a blank tile, ``*`` a
tile whose letter is not Spanish, ``#`` a cell a hand covers). ``random_scene``
draws the scene's settings from ranges; ``split="heldout"`` uses fonts, colours and
camera angles that ``split="train"`` never uses, to measure on settings not seen in
training; ``split="train_fonts"`` is ``"train"`` with more letter shapes (``EXTRA_FONTS``,
none of them a held-out font) for the classifier's fine-tune.

What is drawn: a green board with the premium layout (``board.PREMIUMS``) and the
"teeth" around premium squares, inside a green margin and a light frame, on a
table; cream tiles with the letter (CH, LL, RR as two narrow letters, Ñ with its
tilde) and the value (``alphabet``), thick enough to show a side and a shadow,
off-centre and turned a little; hands and sleeves with their shadow; light
(dim, colour cast, gradient, glare, hard shadows), blur, noise and JPEG.
Fonts come from Debian's fonts-* packages; missing ones are skipped.
``random_scene(..., design=...)`` draws instead a board of one of ``render_designs.DESIGNS``
(green, classic beige, dark blue, black, wooden; premium labels such as ``TRIPLE
PALABRA``/``TP``/``3P`` or none, margin coordinates or not) with tiles of a random maker
(cream, ivory, white, yellowish; the value in a corner) in a font of the split's FAMILIES
(``render_designs.FONT_FAMILIES``: train, calibration, held-out, split whole).

The parts, one module each: ``render_scene`` (scenes and renders as data, the
labels), ``render_board`` (the board texture), ``render_tiles`` (tiles on it),
``render_hands`` and ``render_light`` (what changes from frame to frame), and
``render_random`` (random scenes, splits and fonts). This module places the board in
the camera's view (``camera_homography``) on a table and puts the parts together;
callers import every name from here (``__all__``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from ..geometry import SIZE, FloatArray, apply_homography, board_to_canvas
from .render_board import board_texture
from .render_hands import apply_hands, hand_mask
from .render_light import apply_light
from .render_random import (
    EXTRA_FONTS,
    FONT_DIRS,
    FOREIGN_LETTERS,
    HELDOUT_FONTS,
    TABLE_COLOURS,
    TRAIN_FONTS,
    TRAIN_SPLITS,
    available_fonts,
    font_path,
    random_board_style,
    random_camera,
    random_cells,
    random_hand,
    random_jitter,
    random_lighting,
    random_scene,
    random_tile_style,
)
from .render_scene import (
    BLANK_TILE,
    CELL,
    COVERED,
    EMPTY,
    FOREIGN,
    VALUES,
    BoardStyle,
    Camera,
    Hand,
    ImageU8,
    Labels,
    Lighting,
    Render,
    Scene,
    TileStyle,
    empty_labels,
    labels_from_board,
    tiles_to_labels,
)
from .render_tiles import draw_tiles, tile_face

__all__ = [
    "BLANK_TILE", "CELL", "COVERED", "EMPTY", "EXTRA_FONTS", "FONT_DIRS", "FOREIGN", "FOREIGN_LETTERS",
    "HELDOUT_FONTS", "TABLE_COLOURS", "TRAIN_FONTS", "TRAIN_SPLITS", "VALUES",
    "BoardStyle", "Camera", "Hand", "ImageU8", "Labels", "Lighting", "Render", "Scene", "TileStyle",
    "available_fonts", "board_texture", "camera_homography", "draw_tiles", "empty_labels", "finish",
    "font_path", "hand_mask", "labels_from_board", "random_board_style", "random_camera", "random_cells",
    "random_hand", "random_jitter", "random_lighting", "random_scene", "random_tile_style", "render",
    "render_table", "tile_face", "tiles_to_labels",
]


def camera_homography(camera: Camera) -> FloatArray:
    """``image_from_board`` of a camera: the grid square turned, tilted, placed (board cells -> px)."""
    half = camera.side / 2
    theta = math.radians(camera.rotation)
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    pts = square @ rot.T
    d = math.radians(camera.tilt_direction)
    direction = np.array([math.cos(d), math.sin(d)])
    for i in range(4):  # the far side shrinks, the near side grows: a perspective view
        along = float(pts[i] @ direction) / half
        pts[i] = pts[i] * (1.0 + camera.tilt * along)
    pts += np.array(camera.centre)
    board = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float32)
    return cv2.getPerspectiveTransform(board, pts.astype(np.float32)).astype(np.float64)


def _background(camera: Camera, colour: tuple[int, int, int], rng: np.random.Generator) -> NDArray[np.float32]:
    h, w = camera.height, camera.width
    low = rng.normal(0, 10, (h // 64 + 2, w // 64 + 2, 1)).astype(np.float32) + rng.normal(0, 3, (h // 64 + 2, w // 64 + 2, 3)).astype(np.float32)
    img = cv2.resize(low, (w, h), interpolation=cv2.INTER_CUBIC) + np.array(colour, np.float32)
    stripes = np.sin(np.linspace(0, rng.uniform(20, 80), w, dtype=np.float32) + rng.uniform(0, 6))
    img += (stripes[None, :, None] * rng.uniform(0, 10)).astype(np.float32)
    return img


def render_table(scene: Scene) -> tuple[NDArray[np.float32], FloatArray]:
    """The still part of a frame (table, board, tiles) before hands and light, and ``image_from_board``."""
    rng = np.random.default_rng(scene.seed)
    cam = scene.camera
    image_from_board = camera_homography(cam)
    texture, offset = board_texture(scene.board, rng)
    centre_board = apply_homography(np.linalg.inv(image_from_board), np.array([[cam.width / 2, cam.height / 2]]))[0]
    texture = draw_tiles(texture, offset, scene, (float(centre_board[0]), float(centre_board[1])))
    canvas_from_board = board_to_canvas(CELL, offset / CELL)
    image_from_canvas = image_from_board @ np.linalg.inv(canvas_from_board)
    size = (cam.width, cam.height)
    warped = cv2.warpPerspective(texture, image_from_canvas, size, flags=cv2.INTER_AREA if cam.side < SIZE * CELL else cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(np.ones(texture.shape[:2], np.float32), image_from_canvas, size, flags=cv2.INTER_LINEAR)[..., None]
    img = _background(cam, scene.background, rng) * (1 - inside) + warped.astype(np.float32) * inside
    return img, image_from_board


def finish(table: NDArray[np.float32], image_from_board: FloatArray, scene: Scene, seed: int) -> Render:
    """Hands, light, noise and JPEG on a ``render_table`` image (not changed): the frame and its truth."""
    rng = np.random.default_rng(seed)
    img = table.copy()
    hidden = apply_hands(img, scene, image_from_board, rng)
    img = apply_light(img, scene.lighting, rng)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if scene.lighting.jpeg < 100:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, scene.lighting.jpeg])
        out = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else out
    covered = _covered_fraction(hidden, image_from_board)
    labels = [[COVERED if covered[r, c] > 0.25 else _truth(scene.cells[r][c]) for c in range(SIZE)] for r in range(SIZE)]
    return Render(out, image_from_board, labels, covered)


def render(scene: Scene) -> Render:
    """Draw the scene as the camera sees it (see the module docstring for the labels)."""
    table, image_from_board = render_table(scene)
    return finish(table, image_from_board, scene, scene.seed + 1)


def _truth(text: str) -> str:
    if text in (EMPTY, BLANK_TILE, COVERED):
        return text
    return text if text in VALUES else FOREIGN


def _covered_fraction(hidden: NDArray[np.float32], image_from_board: FloatArray) -> NDArray[np.float32]:
    cell = 8
    canvas_from_image = board_to_canvas(cell, 0.0) @ np.linalg.inv(image_from_board)
    warped = cv2.warpPerspective(hidden, canvas_from_image, (cell * SIZE, cell * SIZE), flags=cv2.INTER_AREA)
    return np.asarray(warped.reshape(SIZE, cell, SIZE, cell).mean(axis=(1, 3)), np.float32)
