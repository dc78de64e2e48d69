"""The recogniser's output alphabet: what a handwritten slip line is made of.

Index 0 is the CTC blank. Then capitals A-Z and Ñ, digits, the separators a
player may write (space, hyphen), the two arrows of the oriented notation
(D.III.20.1.b) and the circled letters (D.III.20.3), which are distinct tokens
written as lowercase (``a`` is a circled A). Digraph tiles are written as two
letters (``CH``; a circled blank CH is ``ch``). The model's own copy of this
list is ``labels.json`` beside it; the two must agree.
"""

from __future__ import annotations

from typing import Final

CAPITALS: Final = "ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"
DIGITS: Final = "0123456789"
SEPARATORS: Final = " -"
ARROWS: Final = "→↓"
CIRCLED: Final = CAPITALS.lower()
TOKENS: Final = ("",) + tuple(CAPITALS + DIGITS + SEPARATORS + ARROWS + CIRCLED)
INDEX: Final = {token: i for i, token in enumerate(TOKENS) if token}
BLANK_INDEX: Final = 0


def encode(text: str) -> list[int]:
    """Token indices of ``text``; raises ValueError naming the first character not in the alphabet."""
    try:
        return [INDEX[c] for c in text]
    except KeyError as error:
        raise ValueError(f"{text!r}: el carácter {error.args[0]!r} no está en el alfabeto del lector") from None


def decode(indices: list[int]) -> str:
    """The text of token indices (blanks dropped, no CTC collapsing)."""
    return "".join(TOKENS[i] for i in indices if i != BLANK_INDEX)
