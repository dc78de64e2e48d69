"""The Spanish tile set as data (FILE classic rules C.3, C.10-C.12).

A *tile* is a small int:

* ``1..28`` are the letters in Spanish alphabetical order (CH after C, LL after L,
  Ñ after N), so sorting tiles sorts words alphabetically (D.III.15 criterion 4);
* ``BLANK`` (0) is an unassigned blank on a rack;
* ``letter | BLANK_BIT`` is a blank placed on the board standing for ``letter``.

On a board, 0 means an empty square (an unassigned blank never lies on a board).
CH, LL and RR are single tiles (C.11); there is no K and no W, and a blank can be
neither (C.10.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

Tile = int

BLANK: Final = 0
BLANK_BIT: Final = 0x80
LETTER_MASK: Final = 0x7F


@dataclass(frozen=True)
class Letter:
    """One letter of the alphabet: its label, how many tiles, points, vowel or not."""

    tile: Tile
    label: str
    count: int
    value: int
    is_vowel: bool


# label, count (C.3: 100 tiles with the 2 blanks), value (C.12), vowel (Y is a
# consonant everywhere, D.III.12).
_LETTER_TABLE: Final = """
A 12 1 v
B  2 3 c
C  4 3 c
CH 1 5 c
D  5 2 c
E 12 1 v
F  1 4 c
G  2 2 c
H  2 4 c
I  6 1 v
J  1 8 c
L  4 1 c
LL 1 8 c
M  2 3 c
N  5 1 c
Ñ  1 8 c
O  9 1 v
P  2 3 c
Q  1 5 c
R  5 1 c
RR 1 8 c
S  6 1 c
T  4 1 c
U  5 1 v
V  1 4 c
X  1 8 c
Y  1 4 c
Z  1 10 c
"""

BLANK_COUNT: Final = 2  # C.10
BLANK_VALUE: Final = 0  # C.10.1


def _parse_table(table: str) -> tuple[Letter, ...]:
    letters = []
    for tile, line in enumerate(table.strip().splitlines(), start=1):
        label, count, value, kind = line.split()
        letters.append(Letter(tile, label, int(count), int(value), kind == "v"))
    return tuple(letters)


LETTERS: Final[tuple[Letter, ...]] = _parse_table(_LETTER_TABLE)
ALPHABET_SIZE: Final = len(LETTERS)  # 28
_BY_LABEL: Final = {letter.label: letter.tile for letter in LETTERS}

DIGRAPHS: Final = frozenset(label for label in _BY_LABEL if len(label) == 2)


def letter_of(tile: Tile) -> Tile:
    """The letter a tile shows: the tile itself, or what a placed blank stands for."""
    return tile & LETTER_MASK


def is_blank(tile: Tile) -> bool:
    """True for an unassigned blank or a blank placed as a letter."""
    return tile == BLANK or bool(tile & BLANK_BIT)


def as_blank(letter: Tile) -> Tile:
    """The tile of a blank placed as ``letter``."""
    return letter | BLANK_BIT


def is_valid_tile(tile: int) -> bool:
    """True for a blank, a letter, or a letter made with a blank."""
    return 0 <= letter_of(tile) <= ALPHABET_SIZE and tile & ~(LETTER_MASK | BLANK_BIT) == 0


def tile_value(tile: Tile) -> int:
    """Points of a tile (C.12); any blank is worth 0 (C.10.1)."""
    if is_blank(tile):
        return BLANK_VALUE
    return LETTERS[tile - 1].value


def is_vowel(tile: Tile) -> bool:
    """True for A E I O U tiles (not blanks; Y is a consonant, D.III.12)."""
    return not is_blank(tile) and LETTERS[tile - 1].is_vowel


def label(tile: Tile) -> str:
    """Plain-text label: ``CH`` for the CH tile, ``ch`` for a blank as CH, ``?`` for BLANK."""
    if tile == BLANK:
        return "?"
    text = LETTERS[letter_of(tile) - 1].label
    return text.lower() if tile & BLANK_BIT else text


def bracketed_label(tile: Tile) -> str:
    """Label in CGP/FILE form: digraphs in brackets (``[CH]``, ``[ch]``)."""
    text = label(tile)
    return f"[{text}]" if len(text) == 2 else text


def tile_from_label(text: str) -> Tile:
    """Parse one tile label: ``A``, ``Ñ``, ``CH``, ``[CH]``; lowercase is a placed blank; ``?`` is BLANK.

    Raises ValueError naming the label when it is not a Spanish tile.
    """
    core = text[1:-1] if len(text) > 2 and text[0] == "[" and text[-1] == "]" else text
    if core == "?":
        return BLANK
    upper = core.upper()
    if upper not in _BY_LABEL:
        raise ValueError(f"{text!r} no es una ficha del juego en español")
    if core == upper:
        return _BY_LABEL[upper]
    if core == core.lower():
        return as_blank(_BY_LABEL[upper])
    raise ValueError(f"{text!r} mezcla mayúsculas y minúsculas en un dígrafo")


def split_letters(text: str) -> list[str]:
    """Split plain text into tile labels, reading CH, LL, RR as digraph tiles.

    Bracketed digraphs (``[CH]``) are accepted too. Case is kept: ``chorizo`` gives
    ``['ch', 'o', 'r', 'i', 'z', 'o']``. Raises ValueError on an unclosed bracket.
    """
    labels: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "[":
            end = text.find("]", i)
            if end < 0:
                raise ValueError(f"{text!r}: corchete sin cerrar en la posición {i + 1}")
            labels.append(text[i + 1 : end])
            i = end + 1
        elif text[i : i + 2].upper() in DIGRAPHS:
            labels.append(text[i : i + 2])
            i += 2
        else:
            labels.append(text[i])
            i += 1
    return labels


def tiles_from_text(text: str) -> tuple[Tile, ...]:
    """Tiles of a word in plain or bracketed spelling (``CHORIZO``, ``[CH]ORIZO``, ``cASA``)."""
    return tuple(tile_from_label(part) for part in split_letters(text))


def word_text(tiles: tuple[Tile, ...] | list[Tile]) -> str:
    """A word in plain letters, as canonical notation writes it (``CHORIZO``, ``caSA``)."""
    return "".join(label(t) for t in tiles)


def word_bracketed(tiles: tuple[Tile, ...] | list[Tile]) -> str:
    """A word in FILE lexicon spelling (``[CH]ORIZO``)."""
    return "".join(bracketed_label(t) for t in tiles)


def full_bag() -> list[Tile]:
    """The 100 tiles of a set (C.3), blanks as BLANK, in tile order."""
    bag = [BLANK] * BLANK_COUNT
    for letter in LETTERS:
        bag.extend([letter.tile] * letter.count)
    return sorted(bag)
