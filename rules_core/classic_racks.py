"""Racks in a classic game: written as in CGP, their value (C.12), the tile supply (C.3).

A rack is written one character a tile, digraphs in brackets (``[CH]``), ``?`` a
blank, e.g. ``AEI[LL]RS?``. The game has 100 tiles (C.3): no rack, board or both
together may hold more tiles of a kind than the set has.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Final

from .alphabet import (
    BLANK,
    BLANK_COUNT,
    LETTERS,
    Tile,
    bracketed_label,
    is_blank,
    label,
    tile_from_label,
    tile_value,
)
from .cgp import rack_sort_key
from .events import GameError

TOTAL_TILES: Final = 100  # C.3

_RACK_TOKEN: Final = r"\[[^\]]*\]|."


def parse_rack(text: str) -> tuple[Tile, ...]:
    """Tiles of a rack written as in CGP (``AEI[LL]RS?``); raises GameError quoting it."""
    tiles = []
    for token in re.findall(_RACK_TOKEN, text.strip()):
        try:
            tile = tile_from_label(token)
        except ValueError as error:
            raise GameError(f"atril {text!r}: {error}") from None
        if tile != BLANK and is_blank(tile):
            raise GameError(f"atril {text!r}: las letras van en mayúsculas, '?' para el comodín")
        tiles.append(tile)
    return tuple(tiles)


def rack_text(tiles: Iterable[Tile]) -> str:
    """A rack as CGP writes it: tile order, digraphs in brackets, blanks (``?``) last."""
    return "".join(bracketed_label(t) for t in sorted(tiles, key=rack_sort_key))


def rack_value(tiles: Iterable[Tile]) -> int:
    """The points of the tiles on a rack (C.12; blanks 0, C.10.1)."""
    return sum(tile_value(t) for t in tiles)


def check_supply(tiles: Iterable[Tile]) -> None:
    """No more tiles of a kind than the set has (C.3): placed blanks count as blanks."""
    counts = Counter(BLANK if is_blank(t) else t for t in tiles)
    for tile, count in sorted(counts.items()):
        available = BLANK_COUNT if tile == BLANK else LETTERS[tile - 1].count
        if count > available:
            name = "comodín" if tile == BLANK else label(tile)
            raise GameError(f"habría {count} fichas {name} y el juego tiene {available} (C.3)")
