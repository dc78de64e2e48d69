"""A blank's letter from the lexicon: taken when only one letter makes the play valid, else asked."""

from __future__ import annotations

from rules_core.alphabet import as_blank, tile_from_label
from rules_core.board import Board
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.board.blanks import blank_letters


def test_only_one_letter_fits(small_lexicon: Lexicon) -> None:
    board = Position.from_cgp("15/15/15/15/15/15/15/7CASA4/15/15/15/15/15/15/15 / 0/0 0").board
    choice = blank_letters(board, {}, [(7, 11)], small_lexicon)
    assert choice.unique
    assert choice.notations == ("H8 CASAs",)
    assert choice.assignments[0] == {(7, 11): as_blank(tile_from_label("S"))}
    assert choice.scores == (6,)  # C3 A1 S1 A1, the blank 0 (C.10.1) even on a double letter


def test_several_letters_fit_so_the_arbiter_is_asked(small_lexicon: Lexicon) -> None:
    board = Board()
    choice = blank_letters(board, {(7, 8): tile_from_label("S")}, [(7, 7)], small_lexicon)
    assert not choice.unique
    assert set(choice.notations) == {"H8 aS", "H8 eS", "H8 oS"}


def test_no_letter_fits(small_lexicon: Lexicon) -> None:
    board = Position.from_cgp("15/15/15/15/15/15/15/7CASA4/15/15/15/15/15/15/15 / 0/0 0").board
    choice = blank_letters(board, {(8, 11): tile_from_label("Z")}, [(9, 11)], small_lexicon)
    assert choice.assignments == ()
