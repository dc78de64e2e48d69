"""``veedor print-slips``: a PDF of slips to print, pads of 30 per player (D.II.8).

Vector drawing with fpdf2 (pure Python, no system libraries; it embeds nothing but
the core Helvetica font, whose Latin-1 covers Spanish names) from the geometry of
``layout``; the QR code's modules come from segno (pure Python, no Pillow
needed), the ArUco markers' from OpenCV. Eight slips per A4 page, 2 columns by
4 rows, centred, with thin cutting marks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from fpdf import FPDF

from . import layout
from .layout import SlipInfo

PAGE_W: Final = 210.0
PAGE_H: Final = 297.0
COLUMNS: Final = 2
ROWS: Final = 4
PAD: Final = 30  # slips per player (D.II.8: a pad per player)


def slip_origins() -> list[tuple[float, float]]:
    """Top-left corner (mm, page frame) of each slip of a page, row by row."""
    left = (PAGE_W - COLUMNS * layout.SLIP_W) / 2
    top = (PAGE_H - ROWS * layout.SLIP_H) / 2
    return [(left + c * layout.SLIP_W, top + r * layout.SLIP_H) for r in range(ROWS) for c in range(COLUMNS)]


def pads(game: str, game_name: str, players: Iterable[tuple[str, str, int]], per_player: int = PAD) -> list[SlipInfo]:
    """The slips of every player (id, name, table): ``per_player`` each, numbered from 1."""
    return [
        SlipInfo(game, game_name, table, player, name, number)
        for player, name, table in players
        for number in range(1, per_player + 1)
    ]


def _latin1(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def _draw_slip(pdf: FPDF, info: SlipInfo, ox: float, oy: float) -> None:
    pdf.set_fill_color(0)
    for marker_id, (x, y) in layout.MARKERS.items():
        bits = layout.marker_bits(marker_id)
        cell = layout.MARKER / bits.shape[0]
        for r in range(bits.shape[0]):
            for c in range(bits.shape[1]):
                if not bits[r, c]:
                    pdf.rect(ox + x + c * cell, oy + y + r * cell, cell, cell, style="F")
    modules = layout.qr_modules(info.qr_payload())
    x0, y0, x1, _ = layout.QR_BOX
    cell = (x1 - x0) / (modules.shape[0] + 4)
    for r in range(modules.shape[0]):
        for c in range(modules.shape[1]):
            if modules[r, c]:
                pdf.rect(ox + x0 + (c + 2) * cell, oy + y0 + (r + 2) * cell, cell, cell, style="F")
    y = layout.NAME_AT[1]
    for text, size in layout.header_lines(info):
        pdf.set_font("Helvetica", size=size / 0.3528 * 0.95)
        pdf.text(ox + layout.NAME_AT[0], oy + y + size * 0.8, _latin1(text))
        y += size * 1.35
    text, (fx, fy), size = layout.FOOTER
    pdf.set_font("Helvetica", size=size / 0.3528 * 0.95)
    pdf.text(ox + fx, oy + fy + size * 0.8, _latin1(text))
    pdf.set_line_width(0.3)
    for box in layout.FIELDS.values():
        pdf.rect(ox + box.x0, oy + box.y0, box.x1 - box.x0, box.y1 - box.y0)
        pdf.set_font("Helvetica", size=2.0 / 0.3528 * 0.95)
        pdf.text(ox + box.x0, oy + box.y0 - 0.9, _latin1(box.label))


def _cut_marks(pdf: FPDF) -> None:
    pdf.set_line_width(0.1)
    pdf.set_draw_color(150)
    for ox, oy in slip_origins():
        for dx, dy in ((0, 0), (layout.SLIP_W, 0), (0, layout.SLIP_H), (layout.SLIP_W, layout.SLIP_H)):
            pdf.line(ox + dx - 1.5, oy + dy, ox + dx + 1.5, oy + dy)
            pdf.line(ox + dx, oy + dy - 1.5, ox + dx, oy + dy + 1.5)
    pdf.set_draw_color(0)


def slips_pdf(slips: Sequence[SlipInfo]) -> bytes:
    """The PDF of ``slips``, eight per A4 page in order."""
    if not slips:
        raise ValueError("no hay papeletas que imprimir: la partida no tiene jugadores")
    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_creator("Veedor")
    origins = slip_origins()
    for i, info in enumerate(slips):
        if i % len(origins) == 0:
            pdf.add_page()
            _cut_marks(pdf)
        ox, oy = origins[i % len(origins)]
        _draw_slip(pdf, info, ox, oy)
    return bytes(pdf.output())


def write_slips_pdf(path: Path, slips: Sequence[SlipInfo]) -> int:
    """Write the PDF; returns the number of pages."""
    data = slips_pdf(slips)
    path.write_bytes(data)
    return (len(slips) + COLUMNS * ROWS - 1) // (COLUMNS * ROWS)
