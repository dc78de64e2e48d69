"""Slips no arbiter could score as written (D.III.20.4) go to the arbiter: a play left blank, scribbled over, blotted,
struck out, crossed out with an X, scrawled through with a zigzag."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from models.slips.cases import REAL, SPOILS, judge, make_illegible_cases
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.notation import Play
from vision.slips import absolute, layout, synthetic
from vision.slips import handwriting as hw
from vision.slips.ingest import split_pages
from vision.slips.printing import pads, slips_pdf
from vision.slips.reader import SlipReader, blotted, locate_slips, struck


def test_a_blank_a_scribbled_over_a_blotted_a_struck_out_a_crossed_out_and_a_zigzagged_play_are_each_flagged(
    file2017: Lexicon,
) -> None:
    """Real characters of the test part write a play of the position, then spoil it (or leave the field blank):
    the reader must not score any of them, whatever legal play lies under the ink."""
    reader = SlipReader(file2017)
    cases = list(make_illegible_cases(len(SPOILS), [hw.load_real_writer(REAL, "test")], 31, file2017))
    assert [c.written == "" for c in cases] == [spoil == "blank" for spoil in SPOILS]
    for case in cases:
        position = Position.from_cgp(case.cgp)
        fixed = (position.board, position.rack)
        (result,) = reader.read_slip(case.scan, lambda _, fixed=fixed: fixed, rounds=range(1, 25))
        shown = result.to_json()
        assert shown["verdict"] == "flagged" and shown["score"] is None, case.written
        outcome = judge(case, shown, 0.0)
        assert outcome.right and not outcome.silent_error


Spoil = Callable[..., None]


@pytest.mark.parametrize(
    ("spoil", "spoilt", "seed", "words"),
    [
        (synthetic.blot, blotted, 8, ("CHORIZO", "ÑANDU", "MOVAIS", "LLAMA")),
        (synthetic.strike_through, struck, 12, ("CHORIZO", "ÑANDU", "EH→", "LLAMA", "FE")),
        (synthetic.cross_out, struck, 14, ("CHORIZO", "ÑANDU", "EH→", "LLAMA", "FE", "OH", "AX", "XI")),
        (synthetic.scrawl_through, struck, 16, ("CHORIZO", "ÑANDU", "LLAMA", "MOVAIS", "ABEDUL", "OH", "AX", "ESA")),
    ],
)
def test_a_word_box_blotted_or_struck_out_is_told_from_the_same_box_written(
    spoil: Spoil, spoilt: Callable[[np.ndarray], bool], seed: int, words: tuple[str, ...]
) -> None:
    """A word box written by a real hand is neither ``blotted`` (no stroke is as thick as a blot) nor ``struck``
    (a short word's arrow is no strike, a letter's diagonal no X); the same box with a blot over part of the word
    is ``blotted``, with one line drawn through the middle of the writing, an X drawn over it or a zigzag scrawled
    along it ``struck``."""
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    box = (0, 0, x1 - x0, y1 - y0)
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(seed)
    for word in words:
        field = np.full((box[3], box[2]), 235, np.uint8)
        synthetic.write_in_box(field, box, word, writer, rng)
        assert not spoilt(field), word
        spoil(field, box, rng)
        assert spoilt(field), word


def test_a_line_struck_level_or_tilted_either_way_is_a_strike() -> None:
    """Players strike a play out level or on a slant: the same written word struck level, 5 and 9 degrees up or
    down is ``struck`` each time."""
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    box = (0, 0, x1 - x0, y1 - y0)
    written = np.full((box[3], box[2]), 235, np.uint8)
    synthetic.write_in_box(written, box, "MOVAIS", hw.load_real_writer(REAL, "test"), np.random.default_rng(2))
    for tilt in (0.0, 5.0, -5.0, 9.0, -9.0):
        field = written.copy()
        synthetic.strike_through(field, box, np.random.default_rng(6), tilt=tilt)
        assert struck(field), tilt


def test_an_empty_box_or_one_hair_thin_mark_is_neither_blotted_nor_struck() -> None:
    """Nothing written, or a stray mark one pixel wide (no row holds two of its pixels): nothing to flag."""
    field = np.full((90, 400), 235, np.uint8)
    assert not blotted(field) and not struck(field)
    field[20:60, 100] = 40
    assert not blotted(field) and not struck(field)


def test_a_vertical_word_on_the_board_is_spoilt_along_its_height() -> None:
    """On an absolute slip's board a vertical word's squares make a box taller than wide: the scribble, the
    blot and the strike run along its height, and ink nothing outside it."""
    rng = np.random.default_rng(5)
    for spoil in (synthetic.scribble_over, synthetic.blot, synthetic.strike_through):
        page = np.full((400, 200), 235, np.uint8)
        box = (80, 40, 114, 360)  # one square wide, nine tall
        spoil(page, box, rng, 40.0)
        ys, xs = np.nonzero(page < 150)
        assert len(ys) and xs.min() >= box[0] - 2 and xs.max() <= box[2] + 2
        assert ys.max() - ys.min() > xs.max() - xs.min(), spoil.__name__


@pytest.mark.parametrize(
    ("spoil", "spoilt"),
    [
        (synthetic.blot, absolute.blotted),
        (synthetic.strike_through, absolute.struck),
        (synthetic.cross_out, absolute.struck),
    ],
)
def test_a_play_blotted_or_struck_out_on_an_absolute_board_is_told_from_the_letters_in_its_squares(
    spoil: Spoil, spoilt: Callable[[np.ndarray, list[tuple[int, int]]], bool]
) -> None:
    """Plays written on the printed board of an absolute slip by a real hand, then blotted over their squares,
    struck out along them or crossed out with an X: only the spoilt boards are ``absolute.blotted`` or
    ``absolute.struck``, across and down (the printed lines, crossing every square, are no strike), and the empty
    board is neither."""
    page = next(iter(split_pages(slips_pdf(pads("p7", "Open", [("j1", "Ana", 1)], 1), absolute=True), "a.pdf")))
    board = locate_slips(page)[0].board
    assert board is not None and not spoilt(board, [(7, 7)]) and not spoilt(board, [(7, c) for c in range(15)])
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(9)
    for notation in ("12G ASOCIE", "C2 CASA", "8D ÑANDU", "H4 MOVAIS", "H8 OSO", "8H FE"):
        play = Play.from_notation(notation)
        squares = play.squares()
        filled = absolute.fill_grid(board, play, writer, rng)
        assert not spoilt(filled, squares), notation
        first, last = absolute.cell_box(*squares[0]), absolute.cell_box(*squares[-1])
        spoil(filled, (first[0], first[1], last[2], last[3]), rng, 40.0)
        assert spoilt(filled, squares), notation


def test_the_printed_lines_are_taken_out_of_the_boards_ink_and_the_letters_across_them_kept() -> None:
    """A row of the printed board, empty, has no ink once ``absolute.unruled``; with a play written in it by a real
    hand, the ink left is the letters', and a line struck through them stays whole across the printed lines."""
    page = next(iter(split_pages(slips_pdf(pads("p7", "Open", [("j1", "Ana", 1)], 1), absolute=True), "a.pdf")))
    board = locate_slips(page)[0].board
    assert board is not None
    row = (*absolute.cell_box(7, 0)[:2], *absolute.cell_box(7, 14)[2:])
    assert not (absolute.unruled(board, row, layout.PX_PER_MM) > absolute.INK_CONTRAST).any()
    play = Play.from_notation("H1 CHORIZOS")  # seven squares, H1 to H7
    filled = absolute.fill_grid(board, play, hw.load_real_writer(REAL, "test"), np.random.default_rng(3))
    letters = absolute.unruled(filled, row, layout.PX_PER_MM) > absolute.INK_CONTRAST
    end = absolute.cell_box(7, 6)[2] - row[0]
    assert letters[:, :end].any(axis=0).mean() > 0.3
    assert not letters[:, end + 3 :].any()  # no ink past the word's squares
    synthetic.strike_through(filled, (row[0], row[1], row[0] + end, row[3]), np.random.default_rng(4))
    struck_row = absolute.unruled(filled, row, layout.PX_PER_MM) > absolute.INK_CONTRAST
    assert struck_row[:, 20 : end - 20].any(axis=0).all()
