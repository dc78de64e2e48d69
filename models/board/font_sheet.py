"""A contact sheet of the tile font families (``fonts.py --sheet``): one row a family, to look at.

Rows sorted by part, cluster and design; each shows the family's first face drawing ``SAMPLE`` at
``ROW`` pixels, after its part, cluster, design and name. Sheets of ``PER_PAGE`` rows are written
as ``NAME-1.png``, ``NAME-2.png``, ...
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Protocol

from PIL import Image, ImageDraw, ImageFont

from vision.board.synthetic.render_random import font_path


class Family(Protocol):
    """What a row shows of a ``fonts.Family``."""

    name: str
    faces: list[str]
    embolden: bool
    condense: bool
    design: str
    cluster: str
    part: str

SAMPLE: Final = "AGMÑRSQ 8"
ROW: Final = 34
PER_PAGE: Final = 70
LABEL_WIDTH: Final = 520


def contact_sheet(families: list[Family], out: Path) -> list[Path]:
    """Write the sheets; return their paths."""
    rows = sorted(families, key=lambda f: (f.part, f.cluster, f.design, f.name))
    label_font = ImageFont.truetype(font_path("DejaVuSans.ttf") or "", 13)
    written = []
    for page in range(0, len(rows), PER_PAGE):
        chunk = rows[page : page + PER_PAGE]
        sheet = Image.new("L", (LABEL_WIDTH + 420, ROW * len(chunk)), 255)
        draw = ImageDraw.Draw(sheet)
        for i, family in enumerate(chunk):
            y = i * ROW
            marks = ("+b" if family.embolden else "") + ("+c" if family.condense else "")
            draw.text((4, y + 10), f"{family.part[:5]} {family.cluster[:6]} {family.design[:16]} | {family.name[:28]} {marks}",
                      font=label_font, fill=0)
            draw.text((LABEL_WIDTH, y + ROW - 6), SAMPLE, font=ImageFont.truetype(family.faces[0], ROW - 8), fill=0, anchor="ls")
            draw.line((0, y + ROW - 1, sheet.width, y + ROW - 1), fill=200)
        target = out.with_name(f"{out.stem}-{page // PER_PAGE + 1}{out.suffix}")
        sheet.save(target)
        written.append(target)
    return written
