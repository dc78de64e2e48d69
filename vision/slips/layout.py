"""The printed slip's geometry (D.II.8), in millimetres, and its raster rendering.

Slip frame: origin at the slip's top-left corner, x to the right, y down, in mm.
A slip is 100 x 70 mm, eight to an A4 page (2 columns, 4 rows). It carries four
ArUco markers (dictionary 4x4_50, ids 0-3 clockwise from top-left) whose corners
give the homography from a scan to the slip frame, a QR code with the game,
table and player, the player's name printed, and three boxes written by hand:
round (``ronda``), coordinate (``coordenada``) and word (``palabra``).
``render_slip`` draws the same slip as a raster (for tests, the benchmark and the
demo); ``printing`` draws it as vector PDF from the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

import cv2
import numpy as np
import segno
from PIL import Image, ImageDraw, ImageFont

SLIP_W: Final = 100.0
SLIP_H: Final = 70.0
MARKER: Final = 9.0  # marker side, mm (6x6 modules with the border)
MARKER_DICT: Final = cv2.aruco.DICT_4X4_50
# top-left corner of each marker, by id: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left
MARKERS: Final = {0: (3.0, 3.0), 1: (88.0, 3.0), 2: (88.0, 58.0), 3: (3.0, 58.0)}
QR_BOX: Final = (68.5, 2.0, 86.5, 20.0)  # x0, y0, x1, y1 (quiet zone included)
NAME_AT: Final = (15.0, 4.0)  # top-left of the header text
PX_PER_MM: Final = 8.0  # resolution of the rectified slip (about 203 dpi)


@dataclass(frozen=True)
class Box:
    """A rectangle of the slip frame in mm: x0, y0 top-left, x1, y1 bottom-right."""

    name: str
    label: str
    x0: float
    y0: float
    x1: float
    y1: float

    def pixels(self, px_per_mm: float = PX_PER_MM, inset: float = 0.0) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1) in rectified pixels, shrunk by ``inset`` mm on each side."""
        return (
            int(round((self.x0 + inset) * px_per_mm)),
            int(round((self.y0 + inset) * px_per_mm)),
            int(round((self.x1 - inset) * px_per_mm)),
            int(round((self.y1 - inset) * px_per_mm)),
        )


FIELDS: Final = {
    "ronda": Box("ronda", "Ronda", 15.0, 24.0, 35.0, 36.0),
    "mesa": Box("mesa", "Mesa", 40.0, 24.0, 56.0, 36.0),
    "coordenada": Box("coordenada", "Coordenada", 3.0, 42.0, 25.0, 55.5),
    "palabra": Box("palabra", "Palabra (rodee la letra de cada comodín)", 28.0, 42.0, 97.0, 55.5),
}
FIELD_INSET: Final = 1.0  # mm cut from each side of a box before reading it (its printed border)


@dataclass(frozen=True)
class SlipInfo:
    """What is printed on one slip."""

    game: str
    game_name: str
    table: int
    player: str  # player id
    player_name: str
    number: int = 1  # the slip's number in the player's pad

    def qr_payload(self) -> str:
        return qr_payload(self.game, self.table, self.player)


def qr_payload(game: str, table: int, player: str) -> str:
    """``VEEDOR1|<game>|<table>|<player>``: what the QR code of a slip holds."""
    for part in (game, player):
        if "|" in part:
            raise ValueError(f"{part!r}: el identificador no puede llevar '|'")
    return f"VEEDOR1|{game}|{table}|{player}"


def parse_qr_payload(text: str) -> tuple[str, int, str] | None:
    """(game, table, player) of a slip's QR text, or None when it is not a Veedor slip."""
    parts = text.split("|")
    if len(parts) != 4 or parts[0] != "VEEDOR1" or not parts[2].isdigit():
        return None
    return parts[1], int(parts[2]), parts[3]


def marker_corners_mm() -> dict[int, np.ndarray]:
    """Each marker's four corners in the slip frame (mm), clockwise from top-left, as ArUco orders them."""
    corners = {}
    for marker_id, (x, y) in MARKERS.items():
        corners[marker_id] = np.array([[x, y], [x + MARKER, y], [x + MARKER, y + MARKER], [x, y + MARKER]], np.float32)
    return corners


@lru_cache(maxsize=8)
def marker_bits(marker_id: int) -> np.ndarray:
    """The marker's modules, (6, 6) uint8, 1 = white, border included."""
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    image = cv2.aruco.generateImageMarker(dictionary, marker_id, 6)
    return (image > 127).astype(np.uint8)


def qr_modules(payload: str) -> np.ndarray:
    """The QR code's modules, (n, n) uint8, 1 = dark, quiet zone excluded."""
    code = segno.make_qr(payload, error="m")
    return np.array([[1 if bit else 0 for bit in row] for row in code.matrix], np.uint8)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                 "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"):  # fmt: skip
        if Path(path).exists():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default()


def header_lines(info: SlipInfo) -> list[tuple[str, float]]:
    """The printed header: (text, font size in mm) from top to bottom."""
    return [
        (info.player_name.upper(), 4.0),
        (f"Mesa {info.table} · {info.game_name}", 2.6),
        (f"Papeleta {info.number} · {info.player}", 2.0),
    ]


FOOTER: Final = ("Horizontal: H8 CASA   Vertical: 8H CASA   Comodín: rodee su letra", (15.0, 63.0), 2.0)


def render_slip(info: SlipInfo, px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """The printed slip as a grey uint8 image of (SLIP_H, SLIP_W) mm at ``px_per_mm``, nothing written."""
    width, height = int(round(SLIP_W * px_per_mm)), int(round(SLIP_H * px_per_mm))
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    s = px_per_mm
    for marker_id, (x, y) in MARKERS.items():
        bits = marker_bits(marker_id)
        cell = MARKER / bits.shape[0]
        for r in range(bits.shape[0]):
            for c in range(bits.shape[1]):
                if not bits[r, c]:
                    draw.rectangle([(x + c * cell) * s, (y + r * cell) * s,
                                    (x + (c + 1) * cell) * s - 1, (y + (r + 1) * cell) * s - 1], fill=0)  # fmt: skip
    modules = qr_modules(info.qr_payload())
    x0, y0, x1, _ = QR_BOX
    cell = (x1 - x0) / (modules.shape[0] + 4)
    for r, c in zip(*np.nonzero(modules)):
        qx, qy = x0 + (c + 2) * cell, y0 + (r + 2) * cell
        draw.rectangle([qx * s, qy * s, (qx + cell) * s - 1, (qy + cell) * s - 1], fill=0)
    y = NAME_AT[1]
    for text, size in header_lines(info):
        draw.text((NAME_AT[0] * s, y * s), text, fill=0, font=_font(max(6, int(size * s))))
        y += size * 1.35
    text, (fx, fy), size = FOOTER
    draw.text((fx * s, fy * s), text, fill=0, font=_font(max(6, int(size * s))))
    for box in FIELDS.values():
        bx0, by0, bx1, by1 = box.pixels(s)
        draw.rectangle([bx0, by0, bx1, by1], outline=0, width=max(1, int(0.3 * s)))
        draw.text((bx0, by0 - 2.6 * s), box.label, fill=0, font=_font(max(6, int(2.0 * s))))
    return np.asarray(page, np.uint8).copy()
