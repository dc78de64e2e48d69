"""Canonical notation (D.III.20.1.a-b): parse, format, round trip, errors."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules_core.alphabet import ALPHABET_SIZE, DIGRAPHS, as_blank, label, tiles_from_text
from rules_core.notation import NotationError, Play


def test_horizontal_and_vertical() -> None:
    across = Play.from_notation("H8 CASA")
    assert (across.row, across.col, across.down) == (7, 7, False)
    down = Play.from_notation("8H CASA")
    assert (down.row, down.col, down.down) == (7, 7, True)
    assert down.squares()[-1] == (10, 7)  # K8


@pytest.mark.parametrize("text", ["H8-CASA", "h8 casa", "H8  -  CASA", " H 8 CASA "])
def test_separators_and_case(text: str) -> None:
    play = Play.from_notation(text)
    assert (play.row, play.col, play.down) == (7, 7, False)


def test_lowercase_letters_are_blanks_and_digraphs_read_as_tiles() -> None:
    play = Play.from_notation("A1 chORIZO")
    assert play.word == (as_blank(tiles_from_text("CH")[0]),) + tiles_from_text("ORIZO")
    assert play.notation() == "A1 chORIZO"
    assert Play.from_notation("A1 [CH]ORIZO").word == tiles_from_text("CHORIZO")


def test_oriented_notation_takes_the_arrow_over_the_coordinate_order() -> None:
    assert not Play.from_notation("8H CASA →").down
    assert not Play.from_notation("8H-CASA ->").down
    assert Play.from_notation("H8 CASA ↓").down
    assert Play.from_notation("H8 CASA ↓") == Play.from_notation("8H CASA")
    assert Play.from_notation("8H CASA").oriented_notation() == "8H CASA ↓"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("P8 CASA", "la fila P no existe"),
        ("H16 CASA", "la columna 16 no existe"),
        ("H0 CASA", "la columna 0 no existe"),
        ("H13 CASAS", "no cabe en el tablero"),
        ("H8 CASKA", "'K' no es una ficha"),
        ("CASA H8", "no es una jugada en notación canónica"),
        ("H8", "no es una jugada en notación canónica"),
        ("H8 CA?A", "'?'"),
    ],
)
def test_errors_quote_the_input_and_say_why(text: str, reason: str) -> None:
    with pytest.raises(NotationError) as caught:
        Play.from_notation(text)
    assert repr(text) in str(caught.value)
    assert reason in str(caught.value)


tiles = st.integers(1, ALPHABET_SIZE).flatmap(
    lambda letter: st.sampled_from([letter, as_blank(letter)])
)


def _no_split_digraph(word: list[int]) -> bool:
    """Tiles whose letters would read as a digraph across their boundary (C+H, L+L, L+LL,
    RR+R...) never occur in a word (C.11), and plain text cannot write them apart."""
    letters = [label(t).upper() for t in word]
    return not any(a[-1] + b[0] in DIGRAPHS for a, b in zip(letters, letters[1:]))


@st.composite
def plays(draw: st.DrawFn) -> Play:
    down = draw(st.booleans())
    length = draw(st.integers(2, 15))
    start = draw(st.integers(0, 15 - length))
    line = draw(st.integers(0, 14))
    word = tuple(draw(st.lists(tiles, min_size=length, max_size=length).filter(_no_split_digraph)))
    return Play(start, line, True, word) if down else Play(line, start, False, word)


@given(plays())
def test_canonical_notation_round_trips(play: Play) -> None:
    assert Play.from_notation(play.notation()) == play
    assert Play.from_notation(play.oriented_notation()) == play
