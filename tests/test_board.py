"""The board, its premium layout (C.13-C.16) and square names."""

from collections import Counter

import pytest

from rules_core.board import CENTRE, PREMIUMS, Premium, parse_square, square_name


def test_premium_counts_of_the_standard_board() -> None:
    counts = Counter(p for row in PREMIUMS for p in row)
    assert counts[Premium.TRIPLE_WORD] == 8
    assert counts[Premium.DOUBLE_WORD] == 17  # 16 pink squares and the star
    assert counts[Premium.TRIPLE_LETTER] == 12
    assert counts[Premium.DOUBLE_LETTER] == 24


def test_layout_is_symmetric_and_the_star_doubles_the_word() -> None:
    for r in range(15):
        for c in range(15):
            assert PREMIUMS[r][c] == PREMIUMS[c][r] == PREMIUMS[14 - r][c]
    assert PREMIUMS[CENTRE[0]][CENTRE[1]] is Premium.DOUBLE_WORD


def test_known_squares() -> None:
    assert PREMIUMS[0][0] is Premium.TRIPLE_WORD  # A1
    assert PREMIUMS[0][3] is Premium.DOUBLE_LETTER  # A4
    assert PREMIUMS[1][5] is Premium.TRIPLE_LETTER  # B6
    assert PREMIUMS[3][3] is Premium.DOUBLE_WORD  # D4


def test_square_names_round_trip() -> None:
    assert parse_square("H8") == CENTRE
    assert square_name(0, 14) == "A15"
    for r in range(15):
        for c in range(15):
            assert parse_square(square_name(r, c)) == (r, c)


@pytest.mark.parametrize("text", ["P1", "A0", "A16", "8H", ""])
def test_bad_square_names_are_quoted(text: str) -> None:
    with pytest.raises(ValueError, match=repr(text)):
        parse_square(text)
