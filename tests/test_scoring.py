"""Scoring cases from the articles (C.12-C.20), on FILE2017 words.

Boards are CGP rows (row A first); the arithmetic of each expected score is written
out beside it, letter values from C.12.
"""

import pytest

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.notation import Play
from rules_core.validation import check_play

EMPTY = "/".join(["15"] * 15)


def board_with(rows: dict[int, str]) -> str:
    """A CGP board with the given rows (0-based index -> CGP row text)."""
    return "/".join(rows.get(r, "15") for r in range(15))


def score(lexicon: Lexicon, board: str, notation: str, rack: str = "/") -> int:
    position = Position.from_cgp(f"{board} {rack} 0/0 0")
    verdict = check_play(position.board, Play.from_notation(notation), lexicon)
    assert verdict.legal, verdict.problems
    return verdict.points


def test_first_play_doubled_by_the_star(file2017: Lexicon) -> None:
    # C.16: H5-H8, the star at H8 doubles the word: (3+1+1+1) x 2
    assert score(file2017, EMPTY, "H5 CASA") == 12


def test_letter_premium_under_a_new_tile(file2017: Lexicon) -> None:
    # C.13: 8D HUMEDO, H on D8 (double letter): (4x2 + 1+3+1+2+1) x 2 (star)
    assert score(file2017, EMPTY, "8D HUMEDO") == 32


def test_two_double_word_squares_multiply_by_four(file2017: Lexicon) -> None:
    # C.15: ABALIZA in row E from E5 to E11 through the L of LABE (8E); E5 and E11 are
    # double word squares: (1+3+1+1+1+10+1) x 4
    board = board_with({4: "7L7", 5: "7A7", 6: "7B7", 7: "7E7"})
    assert score(file2017, board, "E5 ABALIZA") == 72


def test_two_triple_word_squares_multiply_by_nine_then_the_fifty(file2017: Lexicon) -> None:
    # C.15, C.19: ABADEJOS from A1 to A8 through the D of DABA (4A): A1 and A8 are
    # triple word squares, A4 (double letter) is already covered (C.17):
    # (1+3+1+2+1+8+1+1) x 9 + 50 for the seven tiles
    board = board_with({0: "3D11", 1: "3A11", 2: "3B11", 3: "3A11"})
    assert score(file2017, board, "A1 ABADEJOS") == 18 * 9 + 50


def test_premiums_count_only_when_first_covered(file2017: Lexicon) -> None:
    # C.17: CASAS from H5, the star under the old A is not counted again: 3+1+1+1+1
    board = board_with({7: "4CASA7"})
    assert score(file2017, board, "H5 CASAS") == 7


def test_a_shared_tile_counts_in_both_words_premium_included(file2017: Lexicon) -> None:
    # C.18: AS down from G8 puts the S on the star H8, which ends CASAS across:
    # AS (1+1) x 2 = 4 and CASAS (3+1+1+1+1) x 2 = 14
    board = board_with({7: "3CASA8"})
    assert score(file2017, board, "8G AS") == 18


def test_blanks_score_nothing_and_still_earn_the_fifty(file2017: Lexicon) -> None:
    # C.10.1: a blank M on D8 (double letter) is still 0: (1+0+1+1+1+1) x 2 (star)
    assert score(file2017, EMPTY, "8C AmONEN") == 10
    # C.10.2, C.19: seven tiles with a blank s on the star: H 4, U 1, M 3x2 on H4,
    # E 1, D 2, O 1, s 0 = 15, x 2, then + 50
    assert score(file2017, EMPTY, "H2 HUMEDOs") == 15 * 2 + 50


def test_first_play_off_the_centre_accepted_has_no_star(file2017: Lexicon) -> None:
    # C.20.2: accepted off the centre, H1-H4 CASA gets its own premiums (H1 triple
    # word, H4 double letter) and no star: (3+1+1+1x2) x 3
    position = Position.from_cgp(f"{EMPTY} / 0/0 0")
    play = Play.from_notation("H1 CASA")
    refused = check_play(position.board, play, file2017)
    assert [p.code for p in refused.problems] == ["off_centre"]
    accepted = check_play(position.board, play, file2017, off_centre_accepted=True)
    assert accepted.legal and accepted.points == 21


@pytest.mark.parametrize(
    ("notation", "expected"),
    [("H3 AMONEN", 22), ("H4 AMONEN", 18), ("8C AMONEN", 22), ("8H AMENO", 16)],
)
def test_scores_agree_with_the_golden_first_position(
    file2017: Lexicon, notation: str, expected: int
) -> None:
    assert score(file2017, EMPTY, notation) == expected
