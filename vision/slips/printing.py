"""``veedor print-slips``: a PDF of slips to print, pads of 30 per player (D.II.8).

Vector drawing with fpdf2 (pure Python, no system libraries; it embeds nothing but
the core Helvetica font, whose Latin-1 covers Spanish names) from the geometry of
``layout``; the QR code's modules come from segno (pure Python, no Pillow
needed), the ArUco markers' from OpenCV. Eight slips per A4 page, 2 columns by
4 rows, centred, with thin cutting marks.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

import numpy as np
from fpdf import FPDF

from . import layout
from .absolute import ABS_W, CELL, GRID_SIDE, GRID_X0, GRID_Y0, MARKERS, TINT
from .layout import SlipInfo

PAGE_W: Final = 210.0
PAGE_H: Final = 297.0
COLUMNS: Final = 2
ROWS: Final = 4
PAD: Final = 30  # slips per player (D.II.8: a pad per player)


def slip_origins(absolute: bool = False) -> list[tuple[float, float]]:
    """Top-left corner (mm, page frame) of each slip of a page, row by row (absolute slips: one column)."""
    width, columns = (ABS_W, 1) if absolute else (layout.SLIP_W, COLUMNS)
    left = (PAGE_W - columns * width) / 2
    top = (PAGE_H - ROWS * layout.SLIP_H) / 2
    return [(left + c * width, top + r * layout.SLIP_H) for r in range(ROWS) for c in range(columns)]


def pads(game: str, game_name: str, players: Iterable[tuple[str, str, int]], per_player: int = PAD) -> list[SlipInfo]:
    """The slips of every player (id, name, table): ``per_player`` each, numbered from 1."""
    return [
        SlipInfo(game, game_name, table, player, name, number)
        for player, name, table in players
        for number in range(1, per_player + 1)
    ]


def _latin1(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def _runs(cells: np.ndarray) -> list[tuple[int, int, int]]:
    """The horizontal runs of set cells of a 0/1 grid: (row, first column, length), one rectangle each."""
    runs = []
    for r in range(cells.shape[0]):
        row = np.concatenate([[0], cells[r].astype(np.int8), [0]])
        edges = np.flatnonzero(np.diff(row))
        runs += [(r, int(start), int(end - start)) for start, end in zip(edges[::2], edges[1::2])]
    return runs


@functools.lru_cache(maxsize=64)
def _qr_runs(payload: str) -> tuple[int, list[tuple[int, int, int]]]:
    """A QR code's size in modules and its dark runs (the slips of a pad share one code: made once)."""
    modules = layout.qr_modules(payload)
    return modules.shape[0], _runs(modules)


@functools.lru_cache(maxsize=8)
def _marker_runs(marker_id: int) -> list[tuple[int, int, int]]:
    """A marker's black runs (``layout.marker_bits``: 1 is white)."""
    return _runs(1 - layout.marker_bits(marker_id))


def _draw_slip(pdf: FPDF, info: SlipInfo, ox: float, oy: float) -> None:
    _draw_markers(pdf, layout.MARKERS, ox, oy)
    side, runs = _qr_runs(info.qr_payload())
    x0, y0, x1, _ = layout.QR_BOX
    cell = (x1 - x0) / (side + 4)
    for r, c, length in runs:
        pdf.rect(ox + x0 + (c + 2) * cell, oy + y0 + (r + 2) * cell, length * cell, cell, style="F")
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


def _draw_markers(pdf: FPDF, markers: dict[int, tuple[float, float]], ox: float, oy: float) -> None:
    """The ArUco markers ``{id: (x, y) mm}`` of a slip whose corner is at (``ox``, ``oy``) mm."""
    pdf.set_fill_color(0)
    for marker_id, (x, y) in markers.items():
        bits = layout.marker_bits(marker_id)
        cell = layout.MARKER / bits.shape[0]
        for r, c, length in _marker_runs(marker_id):
            pdf.rect(ox + x + c * cell, oy + y + r * cell, length * cell, cell, style="F")


def _draw_board(pdf: FPDF, ox: float, oy: float) -> None:
    """An absolute slip's board side (D.III.20.1.c): markers 4 and 5, the 15x15 grid with its
    coordinates, premium squares tinted lightly."""
    from rules_core.board import PREMIUMS, ROW_LABELS

    _draw_markers(pdf, MARKERS, ox, oy)
    for row in range(15):
        for col in range(15):
            premium = PREMIUMS[row][col]
            if premium in TINT:
                pdf.set_fill_color(TINT[premium])
                pdf.rect(ox + GRID_X0 + col * CELL, oy + GRID_Y0 + row * CELL, CELL, CELL, style="F")
    pdf.set_draw_color(120)
    pdf.set_line_width(0.15)
    for i in range(16):
        pdf.line(ox + GRID_X0 + i * CELL, oy + GRID_Y0, ox + GRID_X0 + i * CELL, oy + GRID_Y0 + GRID_SIDE)
        pdf.line(ox + GRID_X0, oy + GRID_Y0 + i * CELL, ox + GRID_X0 + GRID_SIDE, oy + GRID_Y0 + i * CELL)
    pdf.set_draw_color(0)
    pdf.set_font("Helvetica", size=1.8 / 0.3528 * 0.95)
    for i in range(15):
        text = str(i + 1)
        pdf.text(ox + GRID_X0 + (i + 0.5) * CELL - pdf.get_string_width(text) / 2, oy + GRID_Y0 - 0.8, text)
        pdf.text(ox + GRID_X0 - 3.0, oy + GRID_Y0 + (i + 0.5) * CELL + 0.7, ROW_LABELS[i])


def _cut_marks(pdf: FPDF, absolute: bool = False) -> None:
    pdf.set_line_width(0.1)
    pdf.set_draw_color(150)
    width = ABS_W if absolute else layout.SLIP_W
    for ox, oy in slip_origins(absolute):
        for dx, dy in ((0, 0), (width, 0), (0, layout.SLIP_H), (width, layout.SLIP_H)):
            pdf.line(ox + dx - 1.5, oy + dy, ox + dx + 1.5, oy + dy)
            pdf.line(ox + dx, oy + dy - 1.5, ox + dx, oy + dy + 1.5)
    pdf.set_draw_color(0)


def slips_pdf(slips: Sequence[SlipInfo], absolute: bool = False) -> bytes:
    """The PDF of ``slips``, eight per A4 page in order (``absolute``: with the board of D.III.20.1.c
    beside the boxes, four per page)."""
    if not slips:
        raise ValueError("no hay papeletas que imprimir: la partida no tiene jugadores")
    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_creator("Veedor")
    origins = slip_origins(absolute)
    for i, info in enumerate(slips):
        if i % len(origins) == 0:
            pdf.add_page()
            _cut_marks(pdf, absolute)
        ox, oy = origins[i % len(origins)]
        _draw_slip(pdf, info, ox, oy)
        if absolute:
            _draw_board(pdf, ox, oy)
    return bytes(pdf.output())


def write_slips_pdf(path: Path, slips: Sequence[SlipInfo], absolute: bool = False) -> int:
    """Write the PDF; returns the number of pages."""
    data = slips_pdf(slips, absolute)
    path.write_bytes(data)
    per_page = len(slip_origins(absolute))
    return (len(slips) + per_page - 1) // per_page
