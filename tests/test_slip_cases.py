"""The measurement slips (``models/slips/cases``): each mistake a player makes is drawn as the player wrote it."""

from __future__ import annotations

import cv2
import pytest

from models.slips.cases import make_cases
from rules_core.lexicon import Lexicon
from rules_core.notation import NotationError, Play
from vision.slips.synthetic import handwriting as hw


def test_a_coordinate_written_in_the_wrong_order_off_the_board_is_still_drawn(file2017: Lexicon) -> None:
    """The play `11I AGUAIES` (across) written with its coordinate's order swapped, `I11 AGUAIES`, names a word that
    does not fit on the board (down from I11); a player may still write it, so the slip is drawn as written."""
    cases = list(make_cases(7, [hw.HersheyWriter(cv2.FONT_HERSHEY_COMPLEX)], 16, file2017))
    assert len(cases) == 7
    off_board = [c for c in cases if c.kind == "swapped" and c.written == "I11 AGUAIES"]
    assert len(off_board) == 1 and off_board[0].scan.ndim == 2
    with pytest.raises(NotationError):
        Play.from_notation(off_board[0].written)
