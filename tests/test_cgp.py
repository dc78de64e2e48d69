"""Positions in CGP (CONVENTIONS): parse, format, round trip, errors."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules_core.alphabet import ALPHABET_SIZE, BLANK, as_blank, tiles_from_text
from rules_core.board import Board
from rules_core.cgp import CGPError, Position

EXAMPLE = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AEI[LL]RS? 0/0 0 lex FILE2017;"


def test_the_conventions_example() -> None:
    position = Position.from_cgp(EXAMPLE)
    row_h = [position.board[7, c] for c in range(15)]
    assert row_h[5:11] == list(tiles_from_text("CHORIZO"))
    assert position.rack == tiles_from_text("AEILLRS") + (BLANK,)
    assert position.scores == (0, 0)
    assert position.lexicon_name == "FILE2017"
    assert position.cgp() == EXAMPLE


def test_blanks_on_the_board_and_two_racks() -> None:
    text = "15/15/15/15/15/15/15/7c[rr]o5/15/15/15/15/15/15/15 ABC/DE? 120/98 2"
    position = Position.from_cgp(text)
    assert position.board[7, 7] == as_blank(tiles_from_text("C")[0])
    assert position.board[7, 8] == as_blank(tiles_from_text("RR")[0])
    assert position.racks[1] == tiles_from_text("DE") + (BLANK,)
    assert position.zero_turns == 2
    assert position.cgp() == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("15/15 A 0/0 0", "tiene 2 filas"),
        ("16/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A 0/0 0", "ocupa 16 casillas"),
        ("15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/15 A 0/0 0", "'K' no es una ficha"),
        ("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AK 0/0 0", "'K' no es una ficha"),
        ("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A x/0 0", "deben ser números"),
        ("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A", "una posición CGP tiene"),
        ("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 A 0/0 0 lex FILE2017", "nombre argumentos;"),
    ],
)
def test_errors_name_the_problem(text: str, reason: str) -> None:
    with pytest.raises(CGPError, match=reason):
        Position.from_cgp(text)


board_tiles = st.integers(1, ALPHABET_SIZE).flatmap(
    lambda letter: st.sampled_from([letter, as_blank(letter)])
)
squares = st.one_of(st.just(0), st.just(0), board_tiles)
rack_tiles = st.integers(0, ALPHABET_SIZE)


@st.composite
def positions(draw: st.DrawFn) -> Position:
    grid = [draw(st.lists(squares, min_size=15, max_size=15)) for _ in range(15)]
    racks = (tuple(draw(st.lists(rack_tiles, max_size=7))), tuple(draw(st.lists(rack_tiles, max_size=7))))
    scores = tuple(draw(st.lists(st.integers(0, 999), min_size=2, max_size=2)))
    return Position(Board(grid), racks, scores, draw(st.integers(0, 12)), {"lex": "FILE2017"})


@given(positions())
def test_cgp_round_trips(position: Position) -> None:
    parsed = Position.from_cgp(position.cgp())
    assert parsed.board == position.board
    assert [sorted(r) for r in parsed.racks] == [sorted(r) for r in position.racks]
    assert parsed.cgp() == position.cgp()
    assert (parsed.scores, parsed.zero_turns, parsed.opcodes) == (
        position.scores,
        position.zero_turns,
        position.opcodes,
    )
