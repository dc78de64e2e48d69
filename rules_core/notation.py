"""Plays in FILE canonical notation (D.III.20.1.a-b), parsed and formatted.

``H8 CASA`` is horizontal in row H from column 8; ``8H CASA`` vertical in column 8
from row H. The word is the whole main word, tiles already on the board included;
lowercase letters are blanks; digraph tiles are written as two letters (or in
brackets, ``[CH]``). A space or a hyphen separates coordinate and word. The
oriented form adds an arrow, ``→`` (or ``->``) horizontal, ``↓`` vertical, and then
the coordinate may be written in either order (D.III.20.1.b).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from .alphabet import Tile, tiles_from_text, word_text
from .board import ROW_LABELS, SIZE, Square, square_name


class NotationError(ValueError):
    """A play notation that cannot be read; the message quotes it and says why."""


_NOTATION_RE: Final = re.compile(
    r"""^\s*(?:
        (?P<row>[A-Za-z])\s*(?P<col>\d{1,2})        # H8: horizontal
      | (?P<col2>\d{1,2})\s*(?P<row2>[A-Za-z])      # 8H: vertical
    )\s*[-–\s]\s*(?P<word>[^\s→↓]+?)\s*(?P<arrow>→|->|↓)?\s*$""",
    re.VERBOSE,
)
_HORIZONTAL_ARROWS: Final = ("→", "->")


@dataclass(frozen=True, slots=True)
class Play:
    """A placement play: the main word's first square, its direction and every tile of it.

    ``row``/``col`` are 0-based (``(7, 7)`` is H8); ``word`` holds the main word's
    tiles, board tiles included, blanks with their blank bit set.
    """

    row: int
    col: int
    down: bool
    word: tuple[Tile, ...]

    @classmethod
    def from_notation(cls, text: str) -> Play:
        """Parse canonical (``H8 CASA``, ``8H-CASA``) or oriented (``8H CASA →``) notation."""
        match = _NOTATION_RE.match(text)
        if not match:
            raise NotationError(
                f"{text!r} no es una jugada en notación canónica (p. ej. 'H8 CASA' o '8H CASA')"
            )
        if match["row"]:
            row_text, col_text, down = match["row"], match["col"], False
        else:
            row_text, col_text, down = match["row2"], match["col2"], True
        if match["arrow"]:
            down = match["arrow"] not in _HORIZONTAL_ARROWS
        row, col = _coordinate(text, row_text, col_text)
        try:
            word = tiles_from_text(match["word"])
        except ValueError as error:
            raise NotationError(f"{text!r}: {error}") from None
        if any(tile == 0 for tile in word):
            raise NotationError(f"{text!r}: la palabra no puede llevar '?', escriba la letra")
        play = cls(row, col, down, word)
        if (row if down else col) + len(word) > SIZE:
            raise NotationError(
                f"{text!r}: {word_text(word)} no cabe en el tablero desde {square_name(row, col)}"
            )
        return play

    def notation(self) -> str:
        """Canonical notation: ``H8 CASA`` or ``8H CASA``."""
        return f"{self.coordinate()} {word_text(self.word)}"

    def oriented_notation(self) -> str:
        """Canonical notation with its arrow: ``H8 CASA →`` or ``8H CASA ↓``."""
        return f"{self.notation()} {'↓' if self.down else '→'}"

    def coordinate(self) -> str:
        """``H8`` for a horizontal play, ``8H`` for a vertical one."""
        if self.down:
            return f"{self.col + 1}{ROW_LABELS[self.row]}"
        return square_name(self.row, self.col)

    def squares(self) -> list[Square]:
        """The squares of the main word, first to last."""
        if self.down:
            return [(self.row + i, self.col) for i in range(len(self.word))]
        return [(self.row, self.col + i) for i in range(len(self.word))]

    def __str__(self) -> str:
        return self.notation()


def _coordinate(text: str, row_text: str, col_text: str) -> Square:
    row_label = row_text.upper()
    if row_label not in ROW_LABELS:
        raise NotationError(f"{text!r}: la fila {row_text} no existe (filas A-O)")
    col = int(col_text)
    if not 1 <= col <= SIZE:
        raise NotationError(f"{text!r}: la columna {col_text} no existe (columnas 1-15)")
    return ROW_LABELS.index(row_label), col - 1
