"""The tracker's judgement of a stable reading, without frames: what becomes a play and
what is put to the arbiter (a tile nudged, no legal play, a blank with several letters)."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera import Frame
from rules_core.alphabet import as_blank, tile_from_label
from rules_core.lexicon import Lexicon
from vision.board.tracker import EMPTY_LABELS, BoardTracker, Labels, Report, TrackerSettings

FRAME = Frame(np.zeros((8, 8, 3), np.uint8), 1.0, 10, "frames/mesa-1-10.jpg")
SURE = np.ones((15, 15), np.float32)


def _labels(*placed: str) -> Labels:
    """``"H8 CASA"`` across or ``"8H CASA"`` down, single-letter labels, ``?`` a blank."""
    rows = [list(row) for row in EMPTY_LABELS]
    for spec in placed:
        where, word = spec.split()
        down = where[0].isdigit()
        row = "ABCDEFGHIJKLMNO".index(where[-1] if down else where[0])
        col = int(where[:-1] if down else where[1:]) - 1
        for k, letter in enumerate(word):
            r, c = (row + k, col) if down else (row, col + k)
            rows[r][c] = letter
    return tuple(tuple(row) for row in rows)


@pytest.fixture
def tracker(small_lexicon: Lexicon) -> BoardTracker:
    return BoardTracker("mesa-1", small_lexicon, TrackerSettings(turn=0))


def _judge(tracker: BoardTracker, labels: Labels) -> Report:
    [report] = tracker._judge(FRAME, labels, SURE)
    return report


def test_a_legal_play_is_committed(tracker: BoardTracker) -> None:
    report = _judge(tracker, _labels("H8 CASA"))
    assert (report.kind, report.notation, report.score) == ("play", "H8 CASA", 12)


def test_a_tile_nudged_is_a_doubt_never_a_play(tracker: BoardTracker) -> None:
    _judge(tracker, _labels("H8 CASA"))
    report = _judge(tracker, _labels("H8 CAS", "I11 A"))  # last A slid down a square
    assert report.kind == "doubt" and report.reason == "moved"
    assert report.frame_path == "frames/mesa-1-10.jpg"
    assert tracker.status.cgp.startswith("15/15/15/15/15/15/15/7CASA4")


def test_tiles_not_in_a_line_make_no_play(tracker: BoardTracker) -> None:
    _judge(tracker, _labels("H8 CASA"))
    report = _judge(tracker, _labels("H8 CASA", "G7 S", "I12 S"))
    assert (report.kind, report.reason) == ("doubt", "no_play")


def test_a_reading_with_a_word_not_in_the_lexicon_is_put_to_the_arbiter(tracker: BoardTracker) -> None:
    _judge(tracker, _labels("H8 CASA"))
    report = _judge(tracker, _labels("H8 CASA", "8I LE"))
    assert (report.kind, report.reason, report.notation) == ("doubt", "illegal", "8H CLE")
    assert tracker.accept_proposal().notation() == "8H CLE"  # type: ignore[union-attr]


def test_a_blank_with_several_letters_is_asked_then_named(tracker: BoardTracker) -> None:
    report = _judge(tracker, _labels("H8 ?S"))
    assert (report.kind, report.reason) == ("doubt", "blank")
    assert set(report.candidates) == {"H8 aS", "H8 eS", "H8 oS"}
    play = tracker.accept_proposal({(7, 7): as_blank(tile_from_label("O"))})
    assert play is not None and play.notation() == "H8 oS"


def test_lifting_the_last_play_is_a_withdrawal(tracker: BoardTracker) -> None:
    _judge(tracker, _labels("H8 CASA"))
    _judge(tracker, _labels("H8 CASAS"))
    report = _judge(tracker, _labels("H8 CASA"))
    assert (report.kind, report.notation) == ("withdrawn", "H8 CASAS")
    assert tracker.status.cgp.startswith("15/15/15/15/15/15/15/7CASA4")


def test_a_letter_outside_the_spanish_set_is_never_played(tracker: BoardTracker) -> None:
    report = _judge(tracker, _labels("H8 CA*A"))
    assert (report.kind, report.reason) == ("doubt", "foreign")
