"""A still board's unsure letters settled by the words they make (issue 69, ``settle_letters``)."""

from __future__ import annotations

import numpy as np
import pytest

from rules_core.alphabet import tiles_from_text
from rules_core.lexicon import Lexicon
from vision.board.labels import CLASSES, EMPTY, INDEX
from vision.board.settle_letters import SURE, settle_letters, words_of

WORDS = ["CASA", "COSA", "OSO", "SACO", "AS", "ES", "CHAL", "OCA", "MESA", "SE", "AMA", "MAS"]
LEXICON = Lexicon.from_words(WORDS)


class Board:
    """A 15 x 15 reading built square by square: labels, confidences, probabilities."""

    def __init__(self) -> None:
        self.labels = [[EMPTY] * 15 for _ in range(15)]
        self.probabilities = np.zeros((225, len(CLASSES)), np.float32)
        self.probabilities[:, INDEX[EMPTY]] = 0.99

    def word(self, row: int, col: int, text: str, across: bool = True) -> Board:
        """Letters read surely (0.95), from (row, col) rightwards or downwards."""
        for k, letter in enumerate(text):
            self.read(row + (0 if across else k), col + (k if across else 0), {letter: 0.95})
        return self

    def read(self, row: int, col: int, probabilities: dict[str, float]) -> Board:
        """One square read with these class probabilities (the rest spread on empty)."""
        line = self.probabilities[row * 15 + col]
        line[:] = 0.0
        for name, p in probabilities.items():
            line[INDEX[name]] = p
        line[INDEX[EMPTY]] += max(0.0, 1.0 - sum(probabilities.values()))
        self.labels[row][col] = max(probabilities, key=lambda n: probabilities[n])
        return self

    def settle(self, lexicon: Lexicon = LEXICON):  # type: ignore[no-untyped-def]
        labels = tuple(tuple(row) for row in self.labels)
        confidence = np.array([[self.probabilities[r * 15 + c, INDEX[labels[r][c]]] for c in range(15)] for r in range(15)], np.float32)
        return settle_letters(labels, confidence, self.probabilities, lexicon)


def game_board() -> Board:
    """CASA across row H (7) from column 4, SACO down from its S, OSO across from SACO's O, MESA, AMA."""
    board = Board().word(7, 4, "CASA").word(7, 6, "SACO", across=False).word(10, 6, "OSO")
    return board.word(2, 2, "MESA").word(2, 5, "AMA", across=False)


def test_the_words_of_a_board_are_its_runs_of_two_or_more_tiles() -> None:
    board = game_board()
    labels = tuple(tuple(row) for row in board.labels)
    words = {"".join(labels[r][c] for r, c in w) for w in words_of(labels)}
    assert words == {"CASA", "SACO", "OSO", "MESA", "AMA"}


def test_an_unsure_letter_takes_the_look_alike_that_makes_the_words() -> None:
    board = game_board().read(10, 6, {"Q": 0.5, "O": 0.4})  # SACQ / QSO are no words; SACO / OSO are
    settled = board.settle()
    assert settled.reads_as_game
    assert settled.labels[10][6] == "O"
    assert settled.changed == ((10, 6),)


def test_a_letter_read_surely_is_never_changed() -> None:
    board = game_board().read(10, 6, {"Q": SURE + 0.05, "O": 0.2})
    settled = board.settle()
    assert settled.labels[10][6] == "Q"
    assert settled.changed == ()


def test_an_unsure_letter_that_already_makes_words_stays() -> None:
    board = game_board().read(7, 5, {"A": 0.45, "O": 0.4})  # CASA and COSA are both words
    assert board.settle().labels[7][5] == "A"


def test_no_assignment_that_makes_words_leaves_the_reading_as_it_was() -> None:
    board = game_board().read(10, 6, {"Q": 0.5, "X": 0.4})
    settled = board.settle()
    assert settled.labels[10][6] == "Q" and settled.changed == ()


def test_a_tile_that_is_no_tile_is_taken_away_when_only_the_empty_square_makes_words() -> None:
    board = game_board().read(7, 8, {"S": 0.4, "E": 0.05})  # CASAS is no word of this lexicon, CASA is
    settled = board.settle()
    assert settled.labels[7][8] == EMPTY


def test_a_blank_stands_for_any_letter() -> None:
    board = game_board().read(2, 2, {"?": 0.95}).read(10, 7, {"Q": 0.5, "S": 0.4})
    settled = board.settle()
    assert settled.labels[2][2] == "?"
    assert settled.labels[10][7] == "S"


def test_a_board_of_no_words_is_not_read_as_a_game() -> None:
    board = Board().word(1, 1, "QXZ").word(4, 4, "ZZQ").word(8, 2, "XXQ").read(12, 12, {"Q": 0.5, "O": 0.4}).word(11, 12, "S", across=False)
    settled = board.settle()
    assert not settled.reads_as_game
    assert settled.changed == ()


def test_a_board_with_a_foreign_letter_read_surely_is_not_read_as_a_game() -> None:
    board = game_board().read(2, 6, {"*": 0.95}).read(10, 6, {"Q": 0.5, "O": 0.4})
    assert not board.settle().reads_as_game


@pytest.mark.parametrize("pattern, expected", [("C?SA", True), ("??", True), ("???", True), ("?????", False), ("CH??", True), ("X?", False)])
def test_a_lexicon_matches_a_pattern_with_any_letter_for_a_question_mark(pattern: str, expected: bool) -> None:
    tiles = [None if part == "?" else tiles_from_text(part)[0] for part in _parts(pattern)]
    assert LEXICON.matches(tiles) is expected


def _parts(pattern: str) -> list[str]:
    parts, i = [], 0
    while i < len(pattern):
        step = 2 if pattern[i : i + 2] in ("CH", "LL", "RR") else 1
        parts.append(pattern[i : i + step])
        i += step
    return parts


def test_a_settled_letter_stays_a_doubt_with_its_own_probability() -> None:
    """``read_board`` with a lexicon: the new label, its probability as confidence (below the doubt
    threshold, so a tracker or an arbiter still asks), its square named in the JSON."""
    from vision.board.reading import BoardReading, settled_by_words

    board = game_board().read(10, 6, {"Q": 0.5, "O": 0.4})
    labels = tuple(tuple(row) for row in board.labels)
    confidence = np.array([[board.probabilities[r * 15 + c, INDEX[labels[r][c]]] for c in range(15)] for r in range(15)], np.float32)
    reading = settled_by_words(BoardReading(True, "", np.eye(3), labels, confidence, board.probabilities), LEXICON)
    assert reading.labels[10][6] == "O"
    assert reading.confidence[10, 6] == pytest.approx(0.4)
    assert reading.settled == ((10, 6),) and reading.reads_as_game
    assert reading.to_json()["settled"] == ["K7"]
