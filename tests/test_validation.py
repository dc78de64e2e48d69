"""Play validation (C.2, C.6, C.8, C.9, C.20-C.23): the checks, their order, their sentences."""

import pytest

from rules_core.alphabet import tiles_from_text
from rules_core.board import Board
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.notation import Play
from rules_core.validation import PlacementError, PlayCheck, check_play, play_from_placement

# CASA across H5-H8
CASA = Position.from_cgp("15/15/15/15/15/15/15/4CASA7/15/15/15/15/15/15/15 AEILNOS/ 0/0 0")


def check(lexicon: Lexicon, notation: str, position: Position = CASA, rack: bool = False) -> PlayCheck:
    return check_play(
        position.board, Play.from_notation(notation), lexicon, position.rack if rack else None
    )


def messages(verdict: PlayCheck) -> list[str]:
    return [p.message for p in verdict.problems]


def test_a_legal_play(file2017: Lexicon) -> None:
    verdict = check(file2017, "H5 CASAS", rack=True)
    assert verdict.legal and verdict.points == 7
    assert list(verdict.placed) == [(7, 8)]


def test_the_word_is_not_in_the_lexicon(file2017: Lexicon) -> None:
    verdict = check(file2017, "H5 CASAZ")
    assert messages(verdict) == ["CASAZ no está en el léxico"]
    assert verdict.points == 0 and verdict.invalid_words == ("CASAZ",)


def test_every_invalid_word_is_listed(file2017: Lexicon) -> None:
    # ZZ under SA: the main word ZZ and the cross words SZ and AZ are all wrong
    verdict = check(file2017, "I7 ZZ")
    assert verdict.invalid_words == ("ZZ", "SZ", "AZ")


def test_not_connected(file2017: Lexicon) -> None:
    verdict = check(file2017, "A1 CASA")
    assert messages(verdict) == ["la palabra no conecta con el tablero"]
    assert verdict.problems[0].article == "C.2, C.9"


def test_first_play_must_cover_the_centre(file2017: Lexicon) -> None:
    empty = Position.from_cgp("/".join(["15"] * 15) + " / 0/0 0")
    verdict = check(file2017, "A1 CASA", empty)
    assert messages(verdict) == ["la primera jugada debe cubrir la casilla central H8"]
    assert str(verdict.problems[0]) == "la primera jugada debe cubrir la casilla central H8 (C.6, C.20)"


def test_the_notation_must_agree_with_the_board(file2017: Lexicon) -> None:
    verdict = check(file2017, "H5 COSA")
    assert messages(verdict) == ["en H6 hay una A, no una O"]


def test_the_main_word_must_be_written_whole(file2017: Lexicon) -> None:
    verdict = check(file2017, "H6 ASAS")
    assert messages(verdict) == ["la palabra principal sigue en H5: hay que anotarla completa"]


def test_a_play_must_place_a_tile(file2017: Lexicon) -> None:
    assert messages(check(file2017, "H5 CASA")) == ["la jugada no coloca ninguna ficha"]


def test_the_tiles_must_be_on_the_rack(file2017: Lexicon) -> None:
    verdict = check(file2017, "H5 CASAR", rack=True)
    assert messages(verdict) == ["el atril no tiene R"]
    assert check(file2017, "H5 CASAs", rack=True).problems[0].message == "el atril no tiene comodín"


def test_checks_run_in_order_and_report_all_late_failures(file2017: Lexicon) -> None:
    verdict = check(file2017, "A1 ZZZ", rack=True)
    assert [p.code for p in verdict.problems] == ["not_in_rack", "not_connected", "unknown_word"]


def test_a_board_blank_may_be_written_in_capitals(file2017: Lexicon) -> None:
    position = Position.from_cgp("15/15/15/15/15/15/15/4CaSA7/15/15/15/15/15/15/15 S 0/0 0")
    verdict = check(file2017, "H5 CASAS", position)
    assert verdict.legal and verdict.play.notation() == "H5 CaSAS"
    assert verdict.points == 6  # the blank a is worth 0 (C.10.1)


def test_one_tile_plays_are_written_across_when_they_make_a_word_across(file2017: Lexicon) -> None:
    # the S after CASA, written as the vertical one-letter word S, is H5 CASAS
    verdict = check(file2017, "9H S")
    assert verdict.play.notation() == "H5 CASAS" and verdict.legal


def test_placements_become_plays() -> None:
    board = CASA.board
    s = tiles_from_text("S")[0]
    assert play_from_placement(board, {(7, 8): s}).notation() == "H5 CASAS"
    m, s = tiles_from_text("MS")
    play = play_from_placement(board, {(6, 7): m, (8, 7): s})  # G8 and I8 around the A of H8
    assert play.notation() == "8G MAS"


@pytest.mark.parametrize(
    ("placed", "reason"),
    [
        ({}, "ninguna ficha"),
        ({(7, 7): 1}, "H8 ya está ocupada"),
        ({(0, 0): 1, (1, 1): 1}, "misma fila o columna"),
        ({(0, 0): 1, (0, 2): 1}, "casilla vacía en A2"),
    ],
)
def test_placements_that_make_no_play(placed: dict[tuple[int, int], int], reason: str) -> None:
    with pytest.raises(PlacementError, match=reason):
        play_from_placement(CASA.board, placed)


def test_one_tile_first_play_is_refused(file2017: Lexicon) -> None:
    verdict = check_play(Board(), Play.from_notation("H8 A"), file2017)
    assert messages(verdict) == ["la primera jugada debe tener dos o más fichas"]
