"""A hand is not one square (``vision.board.covered``): a lone covered reading inside the board
is read again without the covered class; a hand's block of covered cells, and a lone one on the
board's edge, stay covered."""

from __future__ import annotations

import numpy as np

from vision.board.covered import lone_covers_read_again
from vision.board.find import BoardFind
from vision.board.labels import CLASSES, COVERED, EMPTY, INDEX
from vision.board.reading import from_probabilities


def _board(covered: dict[tuple[int, int], str]) -> np.ndarray:
    """Probabilities of a board read empty but for the cells of ``covered`` (row, col -> the
    class read second), read covered with 0.5 and their second class with 0.3."""
    probabilities = np.zeros((225, len(CLASSES)), np.float32)
    probabilities[:, INDEX[EMPTY]] = 1.0
    for (r, c), second in covered.items():
        k = r * 15 + c
        probabilities[k] = 0.0
        probabilities[k, INDEX[COVERED]], probabilities[k, INDEX[second]] = 0.5, 0.3
        probabilities[k, INDEX[EMPTY]] = 0.2
    return probabilities


def _labels(probabilities: np.ndarray) -> list[str]:
    return [CLASSES[int(i)] for i in probabilities.argmax(axis=1)]


def test_a_lone_covered_reading_inside_the_board_is_read_as_what_it_most_likely_is_else() -> None:
    probabilities = _board({(7, 7): "A", (3, 10): EMPTY})
    read = lone_covers_read_again(probabilities)
    labels = _labels(read)
    assert labels[7 * 15 + 7] == "A" and labels[3 * 15 + 10] == EMPTY
    assert np.allclose(read.sum(axis=1), 1.0)
    assert read[7 * 15 + 7, INDEX["A"]] > 0.5  # renormalised: 0.3 of the 0.5 not covered


def test_a_hand_over_several_cells_and_a_fingertip_on_the_edge_stay_covered() -> None:
    hand = {(r, c): "A" for r in (6, 7) for c in (4, 5, 6)}
    probabilities = _board({**hand, (0, 9): "B", (9, 14): "C"})
    labels = _labels(lone_covers_read_again(probabilities))
    assert all(labels[r * 15 + c] == COVERED for r, c in hand)
    assert labels[9] == COVERED and labels[9 * 15 + 14] == COVERED


def test_two_covered_cells_touching_at_a_corner_are_a_hand() -> None:
    probabilities = _board({(5, 5): "A", (6, 6): "B"})
    assert lone_covers_read_again(probabilities) is probabilities


def test_a_board_reading_never_holds_a_lone_covered_cell_inside_the_board() -> None:
    """The tracker waits while any cell is read covered: a tile misread so on a still board
    would keep the screen from ever showing the next play."""
    grid = np.array([[30.0, 0, 100], [0, 30, 100], [0, 0, 1]])
    reading = from_probabilities(BoardFind(True, image_from_board=grid), _board({(8, 3): "E"}), 0)
    assert reading.labels[8][3] == "E"
    assert not any(COVERED in row for row in reading.labels)
