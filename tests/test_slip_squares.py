"""The letters written on an absolute slip's board, read square by square (D.III.20.1.c)."""

from __future__ import annotations

import numpy as np
import pytest

from models.slips import synth
from models.slips.cases import REAL
from rules_core.board import Board
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips import absolute, squares
from vision.slips.decoder import Thresholds, decide_scored
from vision.slips.squares import LETTERS, SquareRecognizer, joint_index, score_squares, square_image, square_labels
from vision.slips.synthetic import handwriting as hw

CHORIZO = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AACSEIO 0/0 0"


def test_a_written_form_is_cut_into_its_squares_a_digraph_one_square_where_the_count_needs_it() -> None:
    assert square_labels("LLAVEAbA", 7) == ["LL", "A", "V", "E", "A", "b", "A"]
    assert square_labels("CHA", 2) == ["CH", "A"] and square_labels("CHA", 3) == ["C", "H", "A"]
    assert square_labels("chA", 2) == ["ch", "A"]  # a circled blank CH
    assert square_labels("cHA", 2) is None  # a circled C and a plain H are two squares
    assert square_labels("CASA", 3) is None


def test_a_square_image_keeps_the_ink_and_drops_the_printed_lines_and_tints() -> None:
    slip = synth.blank_absolute_slip()
    paper = absolute.paper_level(slip)
    for square in ((0, 0), (7, 7), (1, 5)):  # a triple word, the centre (double word), a triple letter square
        x0, y0, x1, y1 = absolute.cell_box(*square)
        assert not square_image(slip[y0:y1, x0:x1], paper).any()
    rng = np.random.default_rng(3)
    (image, letter, circled), *_ = synth.make_grid_squares(rng, ["ÑU"], [hw.HersheyWriter(hw.TRAIN_HERSHEY[0])], slip,
                                                 synth.Emphasis(circled=0.0))  # fmt: skip
    assert image.shape == (squares.SIZE, squares.SIZE) and image.max() == pytest.approx(1.0, abs=0.02)
    assert (LETTERS[letter], circled) == ("Ñ", 0)


def _confident(labels: list[str], sure: float = 0.999) -> np.ndarray:
    """(N, 30) log-probabilities of a classifier sure of ``labels`` (``ch``: a circled CH)."""
    out = np.full((len(labels), len(LETTERS) + 2), np.log((1 - sure) / len(LETTERS)), np.float32)
    for i, text in enumerate(labels):
        index = joint_index(text)
        out[i, index // 2] = np.log(sure)
        out[i, len(LETTERS) :] = np.log(1 - sure)
        out[i, len(LETTERS) + index % 2] = np.log(sure)
    return out


def test_squares_read_as_a_legal_play_accept_it_and_as_a_phony_do_not(file2017: Lexicon) -> None:
    position = Position.from_cgp(CHORIZO)
    board, rack = position.board, position.rack
    placed = absolute.placements(board, rack, file2017)
    play = max(placed, key=lambda p: (len(p.squares) - len(p.new), p.sp.score))  # through CHORIZO's letters
    written = list(play.squares)
    cands = absolute.grid_candidates(board, placed, written, 0)
    meant = next(c for c in cands.candidates if c.play == play.sp.notation and c.kind == "play")
    labels = square_labels(meant.text, len(written))
    assert labels is not None
    limits = Thresholds(accept=0.9, invalid=0.9, reading_prior=6.0)
    coordinate = absolute.coordinate_of(written)
    decision = decide_scored(score_squares(_confident(labels), cands, coordinate), board, rack, file2017, limits)
    assert (decision.verdict, decision.play, decision.score) == ("accepted", meant.play, meant.score)
    phony = ["X" if i % 2 else label for i, label in enumerate(labels)]
    unread = decide_scored(score_squares(_confident(phony), cands, coordinate), board, rack, file2017, limits)
    assert unread.verdict != "accepted" and unread.options[0].kind == "reading"


def test_squares_with_a_gap_on_an_empty_square_are_never_scored(file2017: Lexicon) -> None:
    """A square's writing missed (``B_SHIDO``): what the other squares spell is no play the player wrote, so
    the board goes to the arbiter however sure the readers are; a gap over the board's own letter is a play
    written without it (D.III.20.1.c)."""
    board = Position.from_cgp(CHORIZO).board
    assert absolute.has_gap([(3, 1), (3, 4), (3, 5)], board)
    assert not absolute.has_gap([(7, 3), (7, 4), (7, 11)], board)  # CHORIZO's letters fill the gap
    assert not absolute.has_gap([(7, 3), (7, 4)], Board())
    position = Position.from_cgp(CHORIZO)
    written = [(3, 1), (3, 4), (3, 5)]
    cands = absolute.grid_candidates(position.board, absolute.placements(position.board, position.rack, file2017),
                                     written, 0)  # fmt: skip
    scored = score_squares(_confident(["S", "O", "L"]), cands, absolute.coordinate_of(written))
    limits = Thresholds(accept=0.5, invalid=0.5)
    alone = decide_scored(scored, position.board, position.rack, file2017, limits)
    assert alone.verdict == "invalid"  # read as written, a reader alone would score it 0
    both = absolute.decide_board([scored, scored], written, position.board, position.rack, file2017, [limits] * 2)
    assert both.verdict == "flagged" and both.flags == ("illegible",) and both.score is None


def test_the_committed_classifier_reads_squares_written_by_real_hands_it_never_saw() -> None:
    """The real characters' test split (never trained on): letters right on at least 9 squares in 10."""
    rng = np.random.default_rng(11)
    slip, words = synth.blank_absolute_slip(), ["CHORIZO", "ÑANDU", "EXAMEN", "LLAVE", "PERRO"]
    pool = [hw.load_real_writer(REAL, "test")]
    written = [sq for _ in range(12) for sq in synth.make_grid_squares(rng, words, pool, slip, synth.Emphasis(circled=0.3))]
    out = SquareRecognizer().log_probs(np.stack([image for image, _, _ in written]))
    letters = out[:, : len(LETTERS)].argmax(1)
    circles = out[:, len(LETTERS) :].argmax(1)
    assert np.mean([read == letter for (_, letter, _), read in zip(written, letters)]) >= 0.9
    assert np.mean([read == circle for (_, _, circle), read in zip(written, circles)]) >= 0.95
