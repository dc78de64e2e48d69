"""GCG coordinates: Veedor's square names and GCG's are converted here and nowhere else.

GCG uses the English convention: row number then column letter for a horizontal
play, column letter then row number for a vertical one. Veedor's ``H8 CASA`` (row H,
column 8, across) is GCG ``8H``; ``D3 CASA`` is ``4C``; the vertical ``3D CASA``
(column 3 from row D) is ``C4``.
"""

from __future__ import annotations

import re
from typing import Final

from .board import ROW_LABELS, SIZE, Square
from .notation import Play

COLUMN_LETTERS: Final = ROW_LABELS  # GCG names columns A..O
_POSITION_RE: Final = re.compile(r"^(?:(\d{1,2})([A-Oa-o])|([A-Oa-o])(\d{1,2}))$")


def gcg_position(play: Play) -> str:
    """The GCG coordinate of a play: ``8H`` for Veedor's ``H8`` across, ``H8`` for ``8H`` down."""
    column, row = COLUMN_LETTERS[play.col], play.row + 1
    return f"{column}{row}" if play.down else f"{row}{column}"


def parse_gcg_position(text: str) -> tuple[int, int, bool]:
    """``"8H"`` -> ``(7, 7, False)``, across; ``"H8"`` -> ``(7, 7, True)``, down (0-based)."""
    match = _POSITION_RE.match(text)
    if not match:
        raise ValueError(f"{text!r} no es una coordenada GCG (p. ej. 8H horizontal, H8 vertical)")
    across = match[1] is not None
    number = int(match[1] if across else match[4])
    letter = (match[2] if across else match[3]).upper()
    if not 1 <= number <= SIZE:
        raise ValueError(f"{text!r}: la fila {number} no existe (1-15)")
    return number - 1, COLUMN_LETTERS.index(letter), not across


def gcg_square(square: Square) -> str:
    """A square named the GCG way: row number, column letter (``8H`` is Veedor's H8)."""
    return f"{square[0] + 1}{COLUMN_LETTERS[square[1]]}"
