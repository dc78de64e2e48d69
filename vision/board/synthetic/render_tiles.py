"""Tiles drawn on the board texture: the face with its letter and value, a side and a shadow.

``tile_face(text, style)`` is the top of one tile (BGR uint8, ``CELL * style.size``
pixels square): cream, the letter in the middle (CH, LL, RR as two narrow letters, Ñ
with its tilde), its value (``alphabet``) bottom right, no letter on a blank.
``draw_tiles`` puts a scene's tiles on the texture (``CELL`` pixels per cell, the grid
``offset`` pixels in), each off-centre and turned by the scene's ``jitter`` (cells,
degrees), its top shifted toward the camera's ``nadir`` (a board point, in cells) by
its thickness (parallax).
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

from ..geometry import SIZE
from .render_scene import BLANK_TILE, CELL, COVERED, EMPTY, VALUES, ImageU8, Scene, TileStyle


@functools.lru_cache(maxsize=512)
def tile_face(text: str, style: TileStyle) -> ImageU8:
    """The top face of a tile, ``CELL x CELL`` BGR, letter and value drawn (empty face for a blank)."""
    px = int(round(CELL * style.size))
    face = Image.new("RGB", (px, px), style.face[::-1])
    draw = ImageDraw.Draw(face)
    if text not in ("", BLANK_TILE):
        if _reshaped(style):
            mask = Image.new("L", (px, px), 0)
            _draw_letter(ImageDraw.Draw(mask), text, style, px, 255)
            face.paste(style.ink[::-1], (0, 0), Image.fromarray(reshape_glyph(np.asarray(mask), style)))
        else:
            _draw_letter(draw, text, style, px, style.ink)
        _draw_value(draw, text, style, px)
    arr = np.asarray(face)[..., ::-1].copy()
    shade = np.linspace(1.04, 0.94, px, dtype=np.float32)[:, None, None]
    return np.clip(arr.astype(np.float32) * shade, 0, 255).astype(np.uint8)


def _font(path: str, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype(path, size) if path else ImageFont.load_default(size)
    except OSError:
        return ImageFont.load_default(size)


def _reshaped(style: TileStyle) -> bool:
    return style.weight != 0.0 or style.stretch != 1.0 or style.slant != 0.0


def reshape_glyph(mask: NDArray[np.uint8], style: TileStyle) -> NDArray[np.uint8]:
    """A letter's coverage (``px x px``, 0..255) widened by ``style.stretch`` and slanted by
    ``style.slant`` about the tile's centre, then its ink grown or thinned by ``style.weight``
    pixels a side (the edge moved along the signed distance to it, antialiased over a pixel)."""
    px = mask.shape[0]
    centre = px / 2
    affine = np.array([[style.stretch, -style.slant, centre * (1 - style.stretch) + style.slant * centre], [0.0, 1.0, 0.0]], np.float32)
    moved = cv2.warpAffine(mask, affine, (px, px), flags=cv2.INTER_LINEAR, borderValue=0)
    if style.weight == 0.0:
        return moved
    inside = (moved >= 128).astype(np.uint8)
    # a pixel's distance to the edge, which lies half a pixel out from the ink's outer pixels
    to_outside, to_inside = cv2.distanceTransform(inside, cv2.DIST_L2, 3), cv2.distanceTransform(1 - inside, cv2.DIST_L2, 3)
    coverage = np.where(inside > 0, to_outside, 1.0 - to_inside) + style.weight
    return (np.clip(coverage, 0.0, 1.0) * 255).astype(np.uint8)


def _draw_letter(draw: ImageDraw.ImageDraw, text: str, style: TileStyle, px: int, ink: int | tuple[int, int, int]) -> None:
    """The letter (digraphs as two narrowed letters) in ``ink``; the value is ``_draw_value``'s."""
    size = int(round(CELL * style.letter_size))
    font = _font(style.font, size)
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


def _draw_value(draw: ImageDraw.ImageDraw, text: str, style: TileStyle, px: int) -> None:
    """The tile's value (``VALUES``) in ``style.value_corner``, in the font as it is."""
    ink = style.ink
    value = VALUES.get(text)
    if value is not None:
        small = _font(style.font, int(round(CELL * style.value_size)))
        digits = str(value)
        corner = style.value_corner
        x, anchor = (px * 0.93, "r") if corner in ("br", "tr") else (px * 0.07, "l")
        if corner == "tr":
            draw.text((x, px * 0.08), digits, font=small, fill=ink, anchor=anchor + "t")
        else:
            draw.text((x, px * 0.9), digits, font=small, fill=ink, anchor=anchor + "s")


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
