"""A cell read as a blank must show the colour of the board's tiles (``vision.board.tile_colour``)."""

from __future__ import annotations

import numpy as np

from rules_core.board import PREMIUMS
from vision.board.cells import CROP_PX
from vision.board.labels import BLANK, CLASSES, EMPTY, INDEX
from vision.board.tile_colour import blanks_of_tile_colour

CREAM = (200, 235, 245)  # BGR: the tiles' face
BROWN = (40, 90, 150)  # BGR: a wooden board's plain squares
INK = (30, 30, 30)


def _board(blank_like: dict[int, tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Crops and probabilities of a wooden board: letter tiles read surely in rows A and O,
    plain squares read surely empty, and the cells of ``blank_like`` (index -> colour) read as
    blanks with probability 0.6 (the rest to empty)."""
    crops = np.zeros((225, CROP_PX, CROP_PX, 3), np.uint8)
    probabilities = np.zeros((225, len(CLASSES)), np.float32)
    for k in range(225):
        r, c = divmod(k, 15)
        if k in blank_like:
            crops[k] = blank_like[k]
            probabilities[k, INDEX[BLANK]], probabilities[k, INDEX[EMPTY]] = 0.6, 0.4
        elif r in (0, 14) and c % 2:
            crops[k] = CREAM
            crops[k, 14:26, 18:22] = INK  # a letter's stroke
            probabilities[k, INDEX["A"]] = 0.99
            probabilities[k, INDEX[EMPTY]] = 0.01
        else:
            crops[k] = BROWN if PREMIUMS[r][c].name == "NONE" else (60, 40, 200)
            probabilities[k, INDEX[EMPTY]] = 0.98
            probabilities[k, INDEX[BLANK]] = 0.02
    return crops, probabilities


def test_an_empty_square_read_as_a_blank_becomes_empty_and_a_blank_stays() -> None:
    brown_cell, cream_cell = 5 * 15 + 6, 9 * 15 + 6  # F7 and J7: plain squares
    crops, probabilities = _board({brown_cell: BROWN, cream_cell: CREAM})
    out = blanks_of_tile_colour(crops, probabilities)
    assert CLASSES[int(out[brown_cell].argmax())] == EMPTY
    assert out[brown_cell, INDEX[EMPTY]] == np.float32(1.0)  # the blank's probability moved, none lost
    assert CLASSES[int(out[cream_cell].argmax())] == BLANK
    assert np.array_equal(np.delete(out, brown_cell, axis=0), np.delete(probabilities, brown_cell, axis=0))


def test_without_tiles_to_compare_a_blank_reading_is_left_as_read() -> None:
    crops, probabilities = _board({5 * 15 + 6: BROWN})
    lettered = probabilities[:, INDEX["A"]] > 0.5
    probabilities[lettered, INDEX["A"]], probabilities[lettered, INDEX[EMPTY]] = 0.6, 0.4  # no letter read surely: no tile colour known
    out = blanks_of_tile_colour(crops, probabilities)
    assert CLASSES[int(out[5 * 15 + 6].argmax())] == BLANK


def test_on_a_board_without_a_lettered_tile_an_unsure_blank_is_an_empty_square() -> None:
    unsure, sure = 2 * 15 + 12, 7 * 15 + 7  # C13, a double word square of an empty board; H8
    crops, probabilities = _board({unsure: CREAM, sure: CREAM})
    probabilities[:, INDEX["A"]] = 0.0  # no letter read at all
    probabilities[sure, INDEX[BLANK]], probabilities[sure, INDEX[EMPTY]] = 0.95, 0.05
    out = blanks_of_tile_colour(crops, probabilities)
    assert CLASSES[int(out[unsure].argmax())] == EMPTY
    assert out[unsure, INDEX[EMPTY]] == np.float32(1.0)
    assert CLASSES[int(out[sure].argmax())] == BLANK  # read surely: kept


def test_the_premium_layout_is_the_same_under_a_quarter_turn() -> None:
    kinds = np.array([[p.name for p in row] for row in PREMIUMS])
    assert np.array_equal(kinds, np.rot90(kinds))  # so crops in any turn compare squares of their kind


def test_a_tile_coloured_cell_read_empty_that_may_be_a_blank_becomes_a_blank() -> None:
    """A cream blank the classifier leans to read empty (0.7 empty, 0.3 blank) shows the tiles'
    colour: it is a blank, its probability moved, none lost. A brown square read so stays
    empty, and so does a cream cell the classifier gives under ``BLANK_CHANCE`` of a blank."""
    cream, brown, unlikely = 9 * 15 + 6, 5 * 15 + 6, 9 * 15 + 8  # J7, F7, J9: plain squares
    crops, probabilities = _board({})
    for k, colour, chance in ((cream, CREAM, 0.3), (brown, BROWN, 0.3), (unlikely, CREAM, 0.05)):
        crops[k] = colour
        probabilities[k] = 0.0
        probabilities[k, INDEX[BLANK]], probabilities[k, INDEX[EMPTY]] = chance, 1.0 - chance
    out = blanks_of_tile_colour(crops, probabilities)
    assert CLASSES[int(out[cream].argmax())] == BLANK
    assert out[cream, INDEX[BLANK]] == np.float32(1.0)
    assert CLASSES[int(out[brown].argmax())] == EMPTY and CLASSES[int(out[unlikely].argmax())] == EMPTY
    assert np.array_equal(np.delete(out, cream, axis=0), np.delete(probabilities, cream, axis=0))


def test_a_board_read_with_more_blanks_than_a_set_has_keeps_the_two_surest() -> None:
    """C.10: a set has two blanks. Thirty tile-coloured squares read as blanks beside fourteen
    letters (a white board under white tiles) are the classifier taking the squares for blanks:
    the two surest stay blanks, the rest are empty. Three blanks among the fourteen letters of
    the same board are not too many to be read as they are."""
    plain = [k for k in range(15, 210) if PREMIUMS[k // 15][k % 15].name == "NONE"]
    crops, probabilities = _board({k: CREAM for k in plain[:30]})
    surest = plain[7], plain[19]
    for k in surest:
        probabilities[k, INDEX[BLANK]], probabilities[k, INDEX[EMPTY]] = 0.9, 0.1
    out = blanks_of_tile_colour(crops, probabilities)
    read = [CLASSES[int(out[k].argmax())] for k in plain[:30]]
    assert [k for k, name in zip(plain[:30], read) if name == BLANK] == sorted(surest)
    assert read.count(EMPTY) == 28

    crops, probabilities = _board({k: CREAM for k in plain[:3]})
    out = blanks_of_tile_colour(crops, probabilities)
    assert [CLASSES[int(out[k].argmax())] for k in plain[:3]] == [BLANK] * 3


def test_squares_read_surely_as_blanks_do_not_push_out_a_true_blank() -> None:
    """Six brown squares read as blanks (0.9) beside a cream blank read less surely (0.6): too many
    blanks for a set (C.10), but the brown ones do not show the tiles' colour. They become empty
    squares and the cream blank stays a blank, rather than the two surest (brown) being kept."""
    plain = [k for k in range(15, 210) if PREMIUMS[k // 15][k % 15].name == "NONE"]
    brown, cream = plain[:6], plain[20]
    crops, probabilities = _board({**{k: BROWN for k in brown}, cream: CREAM})
    for k in brown:
        probabilities[k, INDEX[BLANK]], probabilities[k, INDEX[EMPTY]] = 0.9, 0.1
    out = blanks_of_tile_colour(crops, probabilities)
    assert CLASSES[int(out[cream].argmax())] == BLANK
    assert [CLASSES[int(out[k].argmax())] for k in brown] == [EMPTY] * 6
