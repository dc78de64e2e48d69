"""The play an unsure tile's doubt proposes to the arbiter (issue 69, ``unsure_play``)."""

from __future__ import annotations

import numpy as np
import pytest

from rules_core.alphabet import is_blank, tile_from_label
from rules_core.board import Board
from rules_core.lexicon import Lexicon
from vision.board.labels import CLASSES, EMPTY, INDEX
from vision.board.unsure_play import likeliest_play


def _reading(letters: dict[tuple[int, int], dict[str, float]]) -> tuple[tuple[tuple[str, ...], ...], np.ndarray]:
    """Labels and (225, classes) probabilities: each square of ``letters`` read with these class
    probabilities, the others empty."""
    labels = [[EMPTY] * 15 for _ in range(15)]
    probabilities = np.zeros((225, len(CLASSES)), np.float32)
    probabilities[:, INDEX[EMPTY]] = 1.0
    for (r, c), read in letters.items():
        probabilities[r * 15 + c] = 0.0
        for name, p in read.items():
            probabilities[r * 15 + c, INDEX[name]] = p
        labels[r][c] = max(read, key=lambda n: read[n])
    return tuple(tuple(row) for row in labels), probabilities


@pytest.fixture()
def lexicon() -> Lexicon:
    return Lexicon.from_words(["CASA", "CASAS", "CASO", "OSA", "AS"])


def test_the_look_alike_that_makes_a_legal_play_is_proposed(lexicon: Lexicon) -> None:
    labels, probabilities = _reading({(7, 7): {"C": 0.95}, (7, 8): {"O": 0.45, "A": 0.3}, (7, 9): {"S": 0.95}, (7, 10): {"A": 0.95}})
    placed = {sq: tile_from_label(labels[sq[0]][sq[1]]) for sq in ((7, 7), (7, 8), (7, 9), (7, 10))}
    found = likeliest_play(Board(), placed, [(7, 8)], labels, probabilities, lexicon)
    assert found is not None and found[0].notation() == "H8 CASA"


def test_a_new_blank_takes_the_only_letter_that_makes_the_proposed_play_legal(lexicon: Lexicon) -> None:
    labels, probabilities = _reading({(7, 7): {"C": 0.95}, (7, 8): {"O": 0.45, "A": 0.3}, (7, 9): {"S": 0.95}, (7, 10): {"A": 0.95}, (7, 11): {"?": 0.95}})
    placed = {sq: tile_from_label(labels[sq[0]][sq[1]]) for sq in ((7, 7), (7, 8), (7, 9), (7, 10))}
    found = likeliest_play(Board(), placed, [(7, 8)], labels, probabilities, lexicon, blanks=((7, 11),))
    assert found is not None and found[0].notation() == "H8 CASAs"
    assert is_blank(found[1][(7, 11)])


def test_no_proposal_when_no_look_alike_makes_a_legal_play(lexicon: Lexicon) -> None:
    labels, probabilities = _reading({(7, 7): {"C": 0.95}, (7, 8): {"O": 0.45, "X": 0.3}, (7, 9): {"S": 0.95}, (7, 10): {"A": 0.95}})
    placed = {sq: tile_from_label(labels[sq[0]][sq[1]]) for sq in ((7, 7), (7, 8), (7, 9), (7, 10))}
    assert likeliest_play(Board(), placed, [(7, 8)], labels, probabilities, lexicon) is None
