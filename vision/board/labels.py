"""The classes of the cell classifier, as data (stored beside the model in ``labels.json``).

Labels: ``.`` empty, the 28 Spanish tiles in alphabet order (``A`` .. ``Z``, ``CH``,
``LL``, ``Ñ``, ``RR`` as single tiles), ``?`` a blank tile, ``*`` a tile whose
letter is not Spanish (German Ä, K ...), ``#`` a cell covered (hand, sleeve).
"""

from __future__ import annotations

from typing import Final

from rules_core.alphabet import LETTERS, Tile, tile_from_label

EMPTY: Final = "."
BLANK: Final = "?"
FOREIGN: Final = "*"
COVERED: Final = "#"
CLASSES: Final[tuple[str, ...]] = (EMPTY, *(letter.label for letter in LETTERS), BLANK, FOREIGN, COVERED)
INDEX: Final = {name: i for i, name in enumerate(CLASSES)}
TILE_CLASSES: Final = frozenset(CLASSES) - {EMPTY, COVERED}
SPANISH: Final = frozenset(letter.label for letter in LETTERS)


def is_tile(name: str) -> bool:
    """True for a class that is a tile on the square (a letter, a blank, a foreign letter)."""
    return name in TILE_CLASSES


def tile_of(name: str) -> Tile | None:
    """The rules-core tile of a Spanish letter class, else None."""
    return tile_from_label(name) if name in SPANISH else None


def class_of_truth(text: str) -> str:
    """The class for a ground-truth character of the German photo set (``boards_de``):
    ``.`` empty, ``?`` or a lowercase letter a blank, a Spanish letter itself, any
    other letter (Ä Ö Ü K W) ``*``."""
    if text == ".":
        return EMPTY
    if text == "?" or text.islower():
        return BLANK
    return text if text in SPANISH else FOREIGN
