"""Plays in FILE canonical notation (D.III.20.1.a-b), parsed and formatted.

``H8 CASA`` is horizontal in row H from column 8; ``8H CASA`` vertical in column 8
from row H. The word is the whole main word, tiles already on the board included;
lowercase letters are blanks; digraph tiles are written as two letters (or in
brackets, ``[CH]``). A space or a hyphen separates coordinate and word. The
oriented form adds an arrow, ``→`` (or ``->``) horizontal, ``↓`` vertical, and then
the coordinate may be written in either order (D.III.20.1.b).

A coordinate written in the wrong order (D.III.20.4) is judged here once, for the
scanner and the console alike: ``misordered_forms`` says how a play is so written,
``misordered_play`` which play such a writing stands for. ``separated`` reads a play
typed without its separator (``H3ACEPTAR``).
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
_LONGEST_COORDINATE: Final = 3  # H15, 15H


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


def swap_coordinate(coordinate: str) -> str:
    """``H8`` <-> ``8H``: the same square named in the other order."""
    if coordinate[0].isdigit():
        return coordinate[-1] + coordinate[:-1]
    return coordinate[1:] + coordinate[0]


def misordered_forms(play: Play) -> tuple[tuple[str, str], tuple[str, str]]:
    """How ``play`` is written with its coordinate in the wrong order (D.III.20.4), as (coordinate, arrow):
    the coordinate reversed with no arrow (``4H CARPETA`` for H4 CARPETA), and its own coordinate with the
    other direction's arrow (``H4 CARPETA ↓``). Either, when not itself a legal play, voids the slip."""
    coordinate = play.coordinate()
    return (swap_coordinate(coordinate), ""), (coordinate, "→" if play.down else "↓")


def misordered_play(text: str) -> Play | None:
    """The play whose ``misordered_forms`` include ``text`` (``4H CARPETA`` -> H4 CARPETA), or None
    (``text`` is no such writing, or no play at all)."""
    match = _NOTATION_RE.match(text)
    if not match:
        return None
    coordinate = (match["row"] + match["col"]) if match["row"] else (match["col2"] + match["row2"])
    arrow = "→" if match["arrow"] in _HORIZONTAL_ARROWS else (match["arrow"] or "")
    try:
        meant = Play.from_notation(f"{coordinate if arrow else swap_coordinate(coordinate)} {match['word']}")
    except NotationError:
        return None
    return meant if (coordinate.upper(), arrow) in misordered_forms(meant) else None


def separated(text: str) -> str | None:
    """A play typed without the separator after its coordinate (``H3ACEPTAR``) as ``H3 ACEPTAR``: the one
    cut of a coordinate off its front that reads as a play; None when there is none, or more than one."""
    text = text.strip()
    readings = []
    for cut in range(2, _LONGEST_COORDINATE + 1):
        candidate = f"{text[:cut]} {text[cut:]}"
        try:
            Play.from_notation(candidate)
        except NotationError:
            continue
        readings.append(candidate)
    return readings[0] if len(readings) == 1 else None


def typed_notation(text: str) -> str:
    """What an arbiter typed, as it will be read: ``text`` when it reads as a play or cannot be read at all,
    its ``separated`` reading when it is a play typed without a separator."""
    try:
        Play.from_notation(text)
    except NotationError:
        return separated(text) or text
    return text
