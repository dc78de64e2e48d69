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
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

from rules_core.alphabet import LETTERS, Tile, label, letter_of
from rules_core.board import PREMIUMS, Board, Premium

from .geometry import SIZE, FloatArray, apply_homography, board_to_canvas

Labels = list[list[str]]
ImageU8 = NDArray[np.uint8]

FONT_DIRS: Final = ("/usr/share/fonts/opentype/urw-base35", "/usr/share/fonts/truetype")
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
VALUES: Final = {letter.label: letter.value for letter in LETTERS}
CELL: Final = 48  # pixels per cell of the board texture
EMPTY, BLANK_TILE, FOREIGN, COVERED = ".", "?", "*", "#"


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


# -- the board texture -----------------------------------------------------------------


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
    img[inner0 : side - inner0, inner0 : side - inner0] = style.green
    o = int(round(offset))
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
    thickness = max(1, CELL // 24)
    for i in range(SIZE + 1):
        p = o + i * CELL
        cv2.line(img, (p, o), (p, o + SIZE * CELL), style.line, thickness, cv2.LINE_AA)
        cv2.line(img, (o, p), (o + SIZE * CELL, p), style.line, thickness, cv2.LINE_AA)
    if style.markers:
        _draw_markers(img, style)
    grain = rng.normal(0, 3.0, (side // 8 + 1, side // 8 + 1, 1)).astype(np.float32)
    grain = cv2.resize(grain, (side, side), interpolation=cv2.INTER_CUBIC)[..., None]
    return np.clip(img.astype(np.float32) + grain, 0, 255).astype(np.uint8), offset


def _draw_markers(img: ImageU8, style: BoardStyle) -> None:
    """Markers 0..3 in the frame's corners, clockwise from the one beside A1."""
    from .markers import marker_image

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


# -- tiles -------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def tile_face(text: str, style: TileStyle) -> ImageU8:
    """The top face of a tile, ``CELL x CELL`` BGR, letter and value drawn (empty face for a blank)."""
    px = int(round(CELL * style.size))
    face = Image.new("RGB", (px, px), style.face[::-1])
    draw = ImageDraw.Draw(face)
    if text not in ("", BLANK_TILE):
        _draw_letter(draw, text, style, px)
    arr = np.asarray(face)[..., ::-1].copy()
    shade = np.linspace(1.04, 0.94, px, dtype=np.float32)[:, None, None]
    return np.clip(arr.astype(np.float32) * shade, 0, 255).astype(np.uint8)


def _font(path: str, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype(path, size) if path else ImageFont.load_default(size)
    except OSError:
        return ImageFont.load_default(size)


def _draw_letter(draw: ImageDraw.ImageDraw, text: str, style: TileStyle, px: int) -> None:
    size = int(round(CELL * style.letter_size))
    font = _font(style.font, size)
    ink = (20, 20, 22)
    box = draw.textbbox((0, 0), text, font=font, anchor="ls")
    width = box[2] - box[0]
    cap = max(1, -draw.textbbox((0, 0), "H", font=font, anchor="ls")[1])
    squeeze = 1.0 if len(text) == 1 else min(1.0, 0.78 * px / max(width, 1))
    if squeeze < 1.0:  # digraphs: two narrow letters, drawn wide and squeezed
        wide = Image.new("L", (int(width + 8), int(cap * 1.6)), 0)
        ImageDraw.Draw(wide).text((4 - box[0], cap * 1.25), text, font=font, fill=255, anchor="ls")
        narrow = wide.resize((max(1, int(wide.width * squeeze)), wide.height), Image.Resampling.LANCZOS)
        x = (px - narrow.width) // 2 - int(px * 0.04)
        y = int(px * 0.5 + cap * 0.5 - cap * 1.25)
        draw.bitmap((x, y), narrow, fill=ink)
    else:
        x = (px - width) / 2 - box[0] - px * 0.04
        y = px * 0.5 + cap * 0.5 - px * 0.02
        draw.text((x, y), text, font=font, fill=ink, anchor="ls")
    value = VALUES.get(text)
    if value is not None:
        small = _font(style.font, int(round(CELL * style.value_size)))
        digits = str(value)
        db = draw.textbbox((0, 0), digits, font=small, anchor="rs")
        draw.text((px * 0.93 - 0 * db[0], px * 0.9), digits, font=small, fill=ink, anchor="rs")


def _paste(dst: NDArray[np.float32], sprite: ImageU8, alpha: NDArray[np.float32], centre: tuple[float, float], degrees: float) -> None:
    """Alpha-paste ``sprite`` centred at ``centre`` (x, y) turned by ``degrees``."""
    h, w = sprite.shape[:2]
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    matrix[:, 2] += (centre[0] - w / 2, centre[1] - h / 2)
    size = (dst.shape[1], dst.shape[0])
    x0 = int(max(0, centre[0] - w)); y0 = int(max(0, centre[1] - h))
    x1 = int(min(size[0], centre[0] + w)); y1 = int(min(size[1], centre[1] + h))
    if x1 <= x0 or y1 <= y0:
        return
    matrix[:, 2] -= (x0, y0)
    region = (x1 - x0, y1 - y0)
    warped = cv2.warpAffine(sprite.astype(np.float32), matrix, region, flags=cv2.INTER_LINEAR)
    a = cv2.warpAffine(alpha, matrix, region, flags=cv2.INTER_LINEAR)[..., None]
    view = dst[y0:y1, x0:x1]
    view[:] = view * (1 - a) + warped * a


def _tile_alpha(px: int) -> NDArray[np.float32]:
    alpha = np.zeros((px, px), np.float32)
    radius = max(2, px // 10)
    cv2.rectangle(alpha, (radius, 0), (px - 1 - radius, px - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, radius), (px - 1, px - 1 - radius), 1.0, -1)
    for x, y in ((radius, radius), (px - 1 - radius, radius), (radius, px - 1 - radius), (px - 1 - radius, px - 1 - radius)):
        cv2.circle(alpha, (x, y), radius, 1.0, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(alpha, (3, 3), 0.7)


def draw_tiles(texture: ImageU8, offset: float, scene: Scene, nadir: tuple[float, float]) -> ImageU8:
    """Put the scene's tiles on the board texture, with side, shadow and parallax toward ``nadir``."""
    out = texture.astype(np.float32)
    style = scene.tiles
    px = int(round(CELL * style.size))
    alpha = _tile_alpha(px)
    shadow_sprite = np.zeros((px, px, 3), np.uint8)
    lift = style.height / max(scene.camera.camera_height, 1.0)
    placed = []
    for r in range(SIZE):
        for c in range(SIZE):
            text = scene.cells[r][c]
            if text in (EMPTY, COVERED):
                continue
            du, dv, turn = scene.jitter[r][c] if scene.jitter else (0.0, 0.0, 0.0)
            u, v = c + 0.5 + du, r + 0.5 + dv
            top = (u + (u - nadir[0]) * lift, v + (v - nadir[1]) * lift)
            placed.append((text, (u, v), top, turn))
    for _, (u, v), _, turn in placed:  # soft contact shadows first
        centre = (offset + (u + 0.05) * CELL, offset + (v + 0.07) * CELL)
        _paste(out, shadow_sprite, cv2.GaussianBlur(alpha, (0, 0), 2.5) * 0.45, centre, turn)
    for text, (u, v), (tu, tv), turn in placed:
        side_colour = np.array(style.face, np.float32) * style.side_shade
        side = np.empty((px, px, 3), np.uint8)
        side[:] = np.clip(side_colour, 0, 255).astype(np.uint8)
        steps = 4
        for k in range(steps):
            f = k / steps
            cx, cy = u + (tu - u) * f, v + (tv - v) * f
            _paste(out, side, alpha, (offset + cx * CELL, offset + cy * CELL), turn)
        _paste(out, tile_face(text, style), alpha, (offset + tu * CELL, offset + tv * CELL), turn)
    return np.clip(out, 0, 255).astype(np.uint8)


# -- camera, hands, light ------------------------------------------------------------


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


def hand_mask(hand: Hand, image_from_board: FloatArray, shape: tuple[int, int]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(hand, sleeve) masks in image pixels, 0..1, for a hand whose fingertips are at (u, v)."""
    tip = apply_homography(image_from_board, np.array([[hand.u, hand.v]]))[0]
    pitch = float(np.linalg.norm(apply_homography(image_from_board, np.array([[hand.u + 1, hand.v]]))[0] - tip))
    unit = pitch * hand.scale / 4.0
    a = math.radians(hand.angle)
    fwd = np.array([math.cos(a), math.sin(a)])
    side = np.array([-fwd[1], fwd[0]])
    palm_centre = tip - fwd * unit * 3.0
    hand_img = np.zeros(shape, np.float32)
    cv2.ellipse(hand_img, tuple(int(x) for x in palm_centre), (int(unit * 1.3), int(unit * 1.05)), math.degrees(a), 0, 360, 1.0, -1, cv2.LINE_AA)
    for k, (offset, length) in enumerate(((-0.75, 2.0), (-0.25, 2.4), (0.25, 2.3), (0.75, 1.9))):
        spread = (k - 1.5) * hand.spread * 0.25
        direction = fwd * math.cos(spread) + side * math.sin(spread)
        base = palm_centre + side * offset * unit + fwd * unit * 0.6
        end = base + direction * unit * length
        cv2.line(hand_img, tuple(int(x) for x in base), tuple(int(x) for x in end), 1.0, max(2, int(unit * 0.42)), cv2.LINE_AA)
    thumb_base = palm_centre - side * unit * 1.0
    thumb_end = thumb_base + (fwd * 0.6 - side * 0.8) * unit * 1.6
    cv2.line(hand_img, tuple(int(x) for x in thumb_base), tuple(int(x) for x in thumb_end), 1.0, max(2, int(unit * 0.5)), cv2.LINE_AA)
    sleeve = np.zeros(shape, np.float32)
    wrist = palm_centre - fwd * unit * 1.0
    far = wrist - fwd * unit * 40
    cv2.line(hand_img, tuple(int(x) for x in wrist), tuple(int(x) for x in (wrist - fwd * unit * 2.0)), 1.0, int(unit * 1.6), cv2.LINE_AA)
    cv2.line(sleeve, tuple(int(x) for x in (wrist - fwd * unit * 2.0)), tuple(int(x) for x in far), 1.0, int(unit * 2.4), cv2.LINE_AA)
    return hand_img, sleeve


def _apply_hands(img: NDArray[np.float32], scene: Scene, image_from_board: FloatArray, rng: np.random.Generator) -> NDArray[np.float32]:
    """Draw the hands (and their shadow) on the image; returns the union mask of what they hide."""
    shape = img.shape[:2]
    hidden = np.zeros(shape, np.float32)
    for hand in scene.hands:
        skin_mask, sleeve_mask = hand_mask(hand, image_from_board, shape)
        body = np.clip(skin_mask + sleeve_mask, 0, 1)
        shift = np.float32([[1, 0, rng.uniform(10, 40)], [0, 1, rng.uniform(10, 40)]])
        shadow = cv2.GaussianBlur(cv2.warpAffine(body, shift, (shape[1], shape[0])), (0, 0), 12)
        img *= (1 - 0.45 * shadow)[..., None]
        yy = np.linspace(0.85, 1.1, shape[0], dtype=np.float32)[:, None, None]
        skin = np.array(hand.skin, np.float32) * yy
        img[:] = img * (1 - sleeve_mask[..., None]) + np.array(hand.sleeve, np.float32) * sleeve_mask[..., None]
        img[:] = img * (1 - skin_mask[..., None]) + skin * skin_mask[..., None]
        hidden = np.maximum(hidden, body)
    return hidden


def _apply_light(img: NDArray[np.float32], light: Lighting, rng: np.random.Generator) -> NDArray[np.float32]:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = math.radians(light.gradient_direction)
    ramp = ((xx / w - 0.5) * math.cos(d) + (yy / h - 0.5) * math.sin(d)) * light.gradient
    gain = light.gain * (1.0 + ramp)
    if light.shadow[3] > 0:
        angle, offset, softness, darkness = light.shadow
        a = math.radians(angle)
        signed = (xx / w - 0.5) * math.cos(a) + (yy / h - 0.5) * math.sin(a) - offset
        edge = 1.0 / (1.0 + np.exp(np.clip(-signed / max(softness, 1e-3), -50, 50)))
        gain = gain * (1.0 - darkness * edge)
    img = img * gain[..., None] * np.array(light.cast, np.float32)
    if light.glare[3] > 0:
        gx, gy, radius, strength = light.glare
        r2 = ((xx / w - gx) ** 2 + (yy / h - gy) ** 2) / max(radius, 1e-3) ** 2
        img += (255.0 * strength * np.exp(-r2))[..., None]
    if light.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), light.blur)
    if light.noise > 0:
        img += rng.normal(0, light.noise, img.shape).astype(np.float32)
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
    hidden = _apply_hands(img, scene, image_from_board, rng)
    img = _apply_light(img, scene.lighting, rng)
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


# -- random scenes -------------------------------------------------------------------


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


def random_camera(rng: np.random.Generator, split: str = "train", width: int = 1920, height: int = 1080) -> Camera:
    """A camera that keeps the whole board (frame included) in view."""
    if rng.random() < 0.5:
        rotation = float(rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.normal(0, 5))
    else:
        rotation = float(rng.uniform(-180, 180))
    tilt = float(rng.uniform(0.0, 0.12 if split in TRAIN_SPLITS else 0.16))
    theta = math.radians(rotation)
    spread = (abs(math.cos(theta)) + abs(math.sin(theta))) * (1 + tilt) * 16.5 / 15
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
) -> Scene:
    """A scene with every setting drawn at random (``split`` "train", "train_fonts" or "heldout")."""
    if hands is None:
        hands = int(rng.random() < 0.3) + int(rng.random() < 0.1)
    base = np.array(TABLE_COLOURS[int(rng.integers(len(TABLE_COLOURS)))], np.float32)
    bg = tuple(int(x) for x in np.clip(base * rng.uniform(0.8, 1.2, 3), 0, 255))
    return Scene(
        cells=cells if cells is not None else random_cells(rng),
        board=random_board_style(rng, split),
        tiles=random_tile_style(rng, split),
        camera=random_camera(rng, split, width, height),
        lighting=random_lighting(rng, split),
        hands=tuple(random_hand(rng) for _ in range(hands)),
        jitter=random_jitter(rng),
        background=bg,  # type: ignore[arg-type]
        seed=int(rng.integers(1 << 31)),
    )


def tiles_to_labels(placed: dict[tuple[int, int], Tile]) -> dict[tuple[int, int], str]:
    """Tiles as render labels (a placed blank shows no letter: ``?``)."""
    return {sq: (BLANK_TILE if t & 0x80 else label(letter_of(t))) for sq, t in placed.items()}
