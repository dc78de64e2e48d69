"""The 15x15 board, its premium squares, and square names.

Coordinates (CONVENTIONS): rows are letters A..O top to bottom, columns numbers
1..15 left to right; the centre is H8. Inside the code a square is a pair
``(row, col)`` of 0-based ints, ``(7, 7)`` for H8, or its index ``row * 15 + col``.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from typing import Final

from .alphabet import Tile, is_valid_tile, label

SIZE: Final = 15
ROW_LABELS: Final = "ABCDEFGHIJKLMNO"
CENTRE: Final = (7, 7)  # H8, the star (C.6, C.16)


class Premium(Enum):
    """A premium square (C.13-C.16): letter and word multipliers, and the colour the set uses."""

    NONE = (1, 1, "")
    DOUBLE_LETTER = (2, 1, "azul celeste")
    TRIPLE_LETTER = (3, 1, "azul marino")
    DOUBLE_WORD = (1, 2, "rosa")
    TRIPLE_WORD = (1, 3, "rojo")

    @property
    def letter_multiplier(self) -> int:
        return self.value[0]

    @property
    def word_multiplier(self) -> int:
        return self.value[1]


# The standard layout. T triple word, D double word, t triple letter, d double
# letter, * the centre star (a double word square, C.16).
_LAYOUT: Final = """
T..d...T...d..T
.D...t...t...D.
..D...d.d...D..
d..D...d...D..d
....D.....D....
.t...t...t...t.
..d...d.d...d..
T..d...*...d..T
..d...d.d...d..
.t...t...t...t.
....D.....D....
d..D...d...D..d
..D...d.d...D..
.D...t...t...D.
T..d...T...d..T
"""
_PREMIUM_OF_CHAR: Final = {
    ".": Premium.NONE,
    "d": Premium.DOUBLE_LETTER,
    "t": Premium.TRIPLE_LETTER,
    "D": Premium.DOUBLE_WORD,
    "*": Premium.DOUBLE_WORD,
    "T": Premium.TRIPLE_WORD,
}
PREMIUMS: Final[tuple[tuple[Premium, ...], ...]] = tuple(
    tuple(_PREMIUM_OF_CHAR[ch] for ch in line) for line in _LAYOUT.split()
)

Square = tuple[int, int]


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


def square_name(row: int, col: int) -> str:
    """``(7, 7)`` -> ``"H8"`` (row letter, then column number)."""
    return f"{ROW_LABELS[row]}{col + 1}"


def parse_square(text: str) -> Square:
    """``"H8"`` -> ``(7, 7)``. Raises ValueError quoting the text when it names no square."""
    name = text.strip().upper()
    if len(name) >= 2 and name[0] in ROW_LABELS and name[1:].isdigit():
        col = int(name[1:]) - 1
        if 0 <= col < SIZE:
            return ROW_LABELS.index(name[0]), col
    raise ValueError(f"{text!r} no es una casilla (filas A-O, columnas 1-15)")


class Board:
    """Tiles on the 15x15 board; 0 is an empty square (see ``alphabet`` for tiles)."""

    __slots__ = ("_tiles",)

    def __init__(self, tiles: list[list[Tile]] | None = None) -> None:
        if tiles is None:
            self._tiles = [[0] * SIZE for _ in range(SIZE)]
            return
        if len(tiles) != SIZE or any(len(row) != SIZE for row in tiles):
            raise ValueError("un tablero tiene 15 filas de 15 casillas")
        for row in tiles:
            for tile in row:
                if tile and not is_valid_tile(tile):
                    raise ValueError(f"{tile!r} no es una ficha")
        self._tiles = [list(row) for row in tiles]

    def __getitem__(self, square: Square) -> Tile:
        row, col = square
        return self._tiles[row][col]

    def __setitem__(self, square: Square, tile: Tile) -> None:
        row, col = square
        self._tiles[row][col] = tile

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self._tiles == other._tiles

    def __hash__(self) -> int:
        return hash(self.to_bytes())

    def __repr__(self) -> str:
        return f"Board({self.rows_text()!r})"

    def get(self, row: int, col: int) -> Tile:
        """The tile at (row, col), 0 when empty or off the board."""
        return self._tiles[row][col] if on_board(row, col) else 0

    def copy(self) -> Board:
        return Board(self._tiles)

    def is_empty(self) -> bool:
        return not any(any(row) for row in self._tiles)

    def tile_count(self) -> int:
        return sum(1 for row in self._tiles for tile in row if tile)

    def occupied(self) -> Iterator[tuple[Square, Tile]]:
        """Every (square, tile) on the board, row by row."""
        for r, row in enumerate(self._tiles):
            for c, tile in enumerate(row):
                if tile:
                    yield (r, c), tile

    def has_neighbour(self, row: int, col: int) -> bool:
        """True if a tile lies on a square orthogonally next to (row, col)."""
        return any(
            self.get(row + dr, col + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        )

    def to_bytes(self) -> bytes:
        """225 bytes, row A first (the move generator's input)."""
        return bytes(tile for row in self._tiles for tile in row)

    def rows_text(self) -> list[str]:
        """Each row as text, ``.`` for an empty square and a label per tile (for display)."""
        return [" ".join(label(t) if t else "." for t in row) for row in self._tiles]
