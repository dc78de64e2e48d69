"""Slips no arbiter could score as written (D.III.20.4) go to the arbiter: a play left blank, scribbled over, blotted."""

from __future__ import annotations

import numpy as np

from models.slips.cases import REAL, SPOILS, judge, make_illegible_cases
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips import handwriting as hw
from vision.slips import layout, synthetic
from vision.slips.reader import SlipReader, blotted


def test_a_blank_a_scribbled_over_and_a_blotted_play_are_each_flagged_never_scored(file2017: Lexicon) -> None:
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


def test_a_blot_is_told_from_pen_strokes_by_how_thick_its_ink_is() -> None:
    """A word box written by a real hand, then the same box with a blot over part of the word: only the second
    is ``blotted`` (its ink far thicker than any stroke); an empty box is not."""
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    box = (0, 0, x1 - x0, y1 - y0)
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(8)
    for word in ("CHORIZO", "ÑANDU", "MOVAIS", "LLAMA"):
        field = np.full((box[3], box[2]), 235, np.uint8)
        assert not blotted(field)
        synthetic.write_in_box(field, box, word, writer, rng)
        assert not blotted(field), word
        synthetic.blot(field, box, rng)
        assert blotted(field), word


def test_a_vertical_word_on_the_board_is_spoilt_along_its_height() -> None:
    """On an absolute slip's board a vertical word's squares make a box taller than wide: the scribble and the
    blot run along its height, and ink nothing outside it."""
    rng = np.random.default_rng(5)
    for spoil in (synthetic.scribble_over, synthetic.blot):
        page = np.full((400, 200), 235, np.uint8)
        box = (80, 40, 114, 360)  # one square wide, nine tall
        spoil(page, box, rng, 40.0)
        ys, xs = np.nonzero(page < 150)
        assert len(ys) and xs.min() >= box[0] - 2 and xs.max() <= box[2] + 2
        assert ys.max() - ys.min() > xs.max() - xs.min(), spoil.__name__
