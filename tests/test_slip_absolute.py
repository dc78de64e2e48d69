"""Absolute-board notation (D.III.20.1.c): slips printed with a 15x15 board, filled in, scanned, read back."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.slips import synth
from models.slips.cases import REAL, legal_play_written
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.movegen import generate_plays
from rules_core.notation import Play
from vision.slips import absolute, layout, tokens
from vision.slips.boxes import marked
from vision.slips.decoder import GRID_THRESHOLDS_FILE, Decision, Option, Scored, Thresholds
from vision.slips.ingest import split_pages
from vision.slips.printing import pads, slips_pdf
from vision.slips.reader import LocatedSlip, SlipReader, locate_slips
from vision.slips.recognizer import DEFAULT_MODEL, GRID_MODEL, Recognizer
from vision.slips.squares import SQUARE_MODEL
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw
from webapp.cli import main as cli

CHORIZO = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AACSEIO 0/0 0"
BLANK_RACK = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AAC?EIO 0/0 0"


@pytest.fixture(scope="module")
def reader(file2017: Lexicon) -> SlipReader:
    return SlipReader(file2017)


@pytest.fixture(scope="module")
def printed() -> LocatedSlip:
    """The first slip of the printed PDF of absolute slips, rasterised as the ingest does."""
    page = next(iter(split_pages(slips_pdf(pads("p7", "Open", [("j1", "Ana", 1)], 2), absolute=True), "a.pdf")))
    return locate_slips(page)[0]


def test_the_pdf_holds_four_absolute_slips_a_page_and_ordinary_slips_have_no_board() -> None:
    pdf = slips_pdf(pads("p7", "Open", [("j1", "Ana", 1)], 5), absolute=True)
    pages = list(split_pages(pdf, "a.pdf"))
    assert len(pages) == 2
    found = locate_slips(pages[0])
    assert len(found) == 4 and all(s.board is not None and s.qr == ("p7", 1, "j1") for s in found)
    assert all(absolute.written_cells(s.board) == [] for s in found)  # tints and printed lines are no writing
    plain = locate_slips(next(iter(split_pages(slips_pdf(pads("p7", "Open", [("j1", "Ana", 1)], 1)), "b.pdf"))))
    assert len(plain) == 1 and plain[0].board is None


def test_print_slips_absolute_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players = tmp_path / "jugadores.json"
    players.write_text(json.dumps([{"id": "j1", "name": "Ana", "table": 1}, {"id": "j2", "name": "Bea", "table": 2}]))
    out = tmp_path / "absolutas.pdf"
    assert cli(["print-slips", "--players", str(players), "--game", "p1", "--absolute", "--per-player", "4",
                "-o", str(out)]) == 0  # fmt: skip
    assert out.read_bytes()[:5] == b"%PDF-" and "2 páginas" in capsys.readouterr().out


def _read(reader: SlipReader, board: np.ndarray, cgp: str, seed: int, *plays: Play, writer: hw.Writer,
          unmark: bool = False, relative_notation: bool = False):  # fmt: skip
    position = Position.from_cgp(cgp)
    rng = np.random.default_rng(seed)
    filled = board
    for play in plays:
        filled = drawn.fill_grid(filled, play, writer, rng, unmark=unmark)
    scan = drawn.scan(filled, rng)
    return reader.read_slip(scan, lambda _: (position.board, position.rack), relative_notation=relative_notation)[0]


def test_an_absolute_slip_filled_with_real_characters_is_read_back(reader: SlipReader, printed: LocatedSlip) -> None:
    """Printed, rasterised, filled in on its board with the held-out real characters, scanned, read."""
    position = Position.from_cgp(CHORIZO)
    plays = generate_plays(position.board, position.rack, reader.lexicon)
    real = hw.load_real_writer(REAL, "test")
    result = _read(reader, printed.board, CHORIZO, 4, plays[4].play, writer=real)
    assert result.player == "j1"  # its QR code read
    assert result.verdict == "accepted" and result.decision.play == plays[4].notation == "12G ASOCIE"
    assert result.decision.score == plays[4].score


def test_every_reading_is_the_play_or_flagged(reader: SlipReader, printed: LocatedSlip) -> None:
    """Whatever the recogniser makes of small letters, a correctly written board is never scored wrong."""
    position = Position.from_cgp(CHORIZO)
    plays = generate_plays(position.board, position.rack, reader.lexicon)
    real = hw.load_real_writer(REAL, "test")
    for seed in range(4):
        result = _read(reader, printed.board, CHORIZO, 10 + seed, plays[seed].play, writer=real)
        assert result.verdict == "flagged" or (result.decision.play, result.decision.score) == (
            plays[seed].notation, plays[seed].score)


def test_a_board_with_two_words_is_several_plays(reader: SlipReader, printed: LocatedSlip) -> None:
    writer = hw.HersheyWriter(hw.TRAIN_HERSHEY[0])
    result = _read(reader, printed.board, CHORIZO, 1, Play.from_notation("12G ASOCIE"),
                   Play.from_notation("C2 CASA"), writer=writer)  # fmt: skip
    assert result.verdict == "flagged" and "several_plays" in result.flags


def _two_notations(reader: SlipReader, printed: LocatedSlip, in_boxes: str, on_board: str,
                   crossed: str | None = None):  # fmt: skip
    """A slip with ``in_boxes`` written in its boxes and ``on_board`` on its board by the same hand, the one of
    them named by ``crossed`` ("boxes" or "board") struck out with one line, read in CHORIZO's position."""
    assert printed.board is not None
    writer, rng = hw.HersheyWriter(hw.TRAIN_HERSHEY[0]), np.random.default_rng(6)
    filled = drawn.fill_slip(printed.board, drawn.play_fields(in_boxes), writer, rng)
    play = Play.from_notation(on_board)
    filled = drawn.fill_grid(filled, play, writer, rng)
    if crossed == "board":
        drawn.strike_through(filled, absolute.squares_box(play.squares()), rng, 40.0, tilt=0.0)
    elif crossed == "boxes":
        drawn.strike_through(filled, layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, 0.6), rng, 40.0, tilt=0.0)
    position = Position.from_cgp(CHORIZO)
    return reader.read_slip(drawn.scan(filled, rng, angle=20.0), lambda _: (position.board, position.rack))[0]


def test_the_same_play_in_the_boxes_and_on_the_board_is_one_play(reader: SlipReader, printed: LocatedSlip) -> None:
    """D.III.20.2 voids a slip showing different plays in different notations; the same play twice is one."""
    result = _two_notations(reader, printed, "12G ASOCIE", "12G ASOCIE")
    assert result.verdict == "accepted" and result.decision.play == "12G ASOCIE"


def test_different_plays_in_the_boxes_and_on_the_board_are_several_plays(reader: SlipReader,
                                                                         printed: LocatedSlip) -> None:  # fmt: skip
    """D.III.20.2: the board's play alone would be read surely; a different play left visible in the boxes voids
    the slip, the arbiter's to see."""
    alone = _read(reader, printed.board, CHORIZO, 6, Play.from_notation("12G ASOCIE"),
                  writer=hw.HersheyWriter(hw.TRAIN_HERSHEY[0]))  # fmt: skip
    assert alone.verdict == "accepted" and alone.decision.play == "12G ASOCIE"
    result = _two_notations(reader, printed, "12E CAOS", "12G ASOCIE")
    assert result.verdict == "flagged" and "several_plays" in result.flags


def test_the_boxes_unsure_of_the_play_the_board_decides_show_no_other_play() -> None:
    """D.III.20.2 voids a slip showing different plays; the boxes whose likeliest outcome is the board's accepted play,
    though under the threshold, show the same one. Their likeliest outcome another play, or the board undecided:
    still two plays for the arbiter."""
    from vision.slips.reader import _same_play

    board = Decision("12G ASOCIE", "12G ASOCIE", 14, "accepted", (), 0.999, notation="12G ASOCIE")
    def boxes(likeliest: str) -> Decision:
        options = (Option("play", likeliest, 14, 0.9), Option("play", "12E CAOS", 9, 0.05))
        return Decision(likeliest, likeliest, None, "flagged", ("illegible",), 0.9, options)

    assert _same_play(board, boxes("12G ASOCIE"))
    assert not _same_play(board, boxes("12E CAOS"))
    assert not _same_play(Decision("", "12G ASOCIE", None, "flagged", ("illegible",), 0.9), boxes("12G ASOCIE"))


@pytest.mark.parametrize(("crossed", "kept"), [("board", "12E CAOS"), ("boxes", "12G ASOCIE")])
def test_a_play_crossed_out_in_one_notation_leaves_the_other_to_read(reader: SlipReader, printed: LocatedSlip,
                                                                     crossed: str, kept: str) -> None:  # fmt: skip
    """D.III.20.2: a player who wrote the play in two notations crosses out the one discarded; the play left
    visible is read and scored, without the crossed-out one making it illegible."""
    result = _two_notations(reader, printed, "12E CAOS", "12G ASOCIE", crossed=crossed)
    assert result.verdict == "accepted" and result.decision.play == kept
    assert result.rectified is not None and result.rectified.shape[1] > 1400  # the arbiter sees the whole slip


def test_a_circled_blank_is_read_and_an_unmarked_one_caught(reader: SlipReader, printed: LocatedSlip) -> None:
    writer = hw.HersheyWriter(hw.TRAIN_HERSHEY[1])
    play = Play.from_notation("12G AsOCIA")  # the S from the blank of AAC?EIO
    circled = _read(reader, printed.board, BLANK_RACK, 3, play, writer=writer)
    assert circled.verdict in ("accepted", "flagged")
    if circled.verdict == "accepted":
        assert circled.decision.play == "12G AsOCIA"
    unmarked = _read(reader, printed.board, BLANK_RACK, 3, play, writer=writer, unmark=True)
    assert unmarked.verdict == "flagged" or unmarked.decision.score == 0


def test_grid_candidates_cover_the_written_squares(file2017: Lexicon) -> None:
    position = Position.from_cgp(CHORIZO)
    placed = absolute.placements(position.board, position.rack, file2017)
    squares = Play.from_notation("12G ASOCIE").squares()
    cands = absolute.grid_candidates(position.board, placed, squares, 0)
    assert "ASOCIE" in cands.index and cands.candidates[cands.index["ASOCIE"]].play == "12G ASOCIE"
    assert all(set(squares) <= set(Play.from_notation(c.play).squares()) for c in cands.candidates)
    assert absolute.coordinate_of(squares) == "12G" and absolute.coordinate_of([(7, 7), (7, 8)]) == "H8"
    assert absolute.in_one_line([(1, 1), (2, 2)]) is None


def test_relative_notation_goes_to_the_arbiter(file2017: Lexicon, printed: LocatedSlip) -> None:
    """D.III.20.1.d: where the organiser allows the relative-board notation, every slip is the arbiter's."""
    result = _read(SlipReader(file2017), printed.board, CHORIZO, 4, Play.from_notation("12G ASOCIE"),
                   writer=hw.HersheyWriter(hw.TRAIN_HERSHEY[0]), relative_notation=True)  # fmt: skip
    assert result.verdict == "flagged" and "relative_notation" in result.flags


def test_the_arbiter_is_shown_the_board(reader: SlipReader, printed: LocatedSlip) -> None:
    result = _read(reader, printed.board, CHORIZO, 4, Play.from_notation("12G ASOCIE"),
                   writer=hw.HersheyWriter(hw.TRAIN_HERSHEY[0]))  # fmt: skip
    assert result.rectified is not None and result.rectified.shape[1] > 1400  # the whole absolute slip
    x0, y0, x1, y1 = result.play_box
    assert x1 - x0 > 400 and y1 - y0 > 400 and x1 <= result.rectified.shape[1] and y1 <= result.rectified.shape[0]


def _ink_in(frame: np.ndarray, square: tuple[int, int], pieces: list[tuple[float, float, float, float]]) -> None:
    """Pen strokes in a square, each (x0, y0, x1, y1) as fractions of the square, 1 px wide (a fine pen), dark."""
    import cv2

    x0, y0, x1, y1 = absolute.cell_box(square[0], square[1])
    for a, b, c, d in pieces:
        start = (int(x0 + a * (x1 - x0)), int(y0 + b * (y1 - y0)))
        end = (int(x0 + c * (x1 - x0)), int(y0 + d * (y1 - y0)))
        cv2.line(frame, start, end, 40, 1)


def test_a_faint_broken_letter_starting_the_word_is_a_written_square(printed: LocatedSlip) -> None:
    """A thin T in short strokes before three clear letters carries their line on; the same strokes
    off the line, or a short stray stroke beside it, are no writing."""
    assert printed.board is not None
    frame = printed.board.copy()
    clear = [(0.5, 0.15, 0.5, 0.85), (0.25, 0.5, 0.75, 0.5)]  # a tall stroke: a letter
    broken = [(0.3, 0.3, 0.42, 0.3), (0.58, 0.3, 0.7, 0.3), (0.5, 0.42, 0.5, 0.5), (0.5, 0.62, 0.5, 0.7)]
    for square in ((6, 5), (6, 6), (6, 7)):
        _ink_in(frame, square, clear)
    _ink_in(frame, (6, 4), broken)  # the word's first square, written faintly
    _ink_in(frame, (2, 2), broken)  # the same marks far from any word
    _ink_in(frame, (7, 6), [(0.4, 0.2, 0.6, 0.2)])  # a short stray stroke under the word
    assert absolute.written_cells(frame) == [(6, 4), (6, 5), (6, 6), (6, 7)]


def test_a_small_letter_between_written_squares_joins_them(printed: LocatedSlip) -> None:
    """A small C (short strokes, under 40 % of the square high) between clear letters of a word is part of the
    word; the same C alone, off any line, is no writing."""
    assert printed.board is not None
    frame = printed.board.copy()
    clear = [(0.5, 0.15, 0.5, 0.85), (0.25, 0.5, 0.75, 0.5)]
    small_c = [(0.62, 0.4, 0.4, 0.4), (0.4, 0.4, 0.38, 0.5), (0.38, 0.5, 0.4, 0.58), (0.4, 0.58, 0.62, 0.58),
               (0.62, 0.43, 0.43, 0.43), (0.43, 0.43, 0.41, 0.5), (0.41, 0.5, 0.43, 0.55), (0.43, 0.55, 0.62, 0.55)]
    for square in ((3, 2), (3, 3), (3, 5), (3, 6)):
        _ink_in(frame, square, clear)
    _ink_in(frame, (3, 4), small_c)
    _ink_in(frame, (10, 10), small_c)
    assert absolute.written_cells(frame) == [(3, 2), (3, 3), (3, 4), (3, 5), (3, 6)]
    down = printed.board.copy()
    for square in ((2, 9), (4, 9)):
        _ink_in(down, square, clear)
    _ink_in(down, (3, 9), small_c)
    assert absolute.written_cells(down) == [(2, 9), (3, 9), (4, 9)]


def test_the_board_has_its_own_recogniser_and_thresholds(file2017: Lexicon) -> None:
    """The committed reader reads boards with the board's line recogniser and the square classifier and the
    thresholds calibrated for them (the classifier at its own temperature); a recogniser on trial, passed
    alone, reads both the lines and the boards with its own thresholds."""
    committed = SlipReader(file2017)
    assert committed.grid.recognizer.model_path == GRID_MODEL and committed.grid.second is None
    assert committed.grid.squares is not None and committed.grid.squares.model_path == SQUARE_MODEL
    assert len(committed.grid.readers()) == 2
    line_limits, square_limits = committed.grid.each(committed._grid_thresholds())
    assert square_limits.temperature == committed.grid.thresholds.square_temperature > 0
    assert line_limits.temperature == committed.grid.thresholds.temperature
    assert committed.grid.recognizer is not committed.recognizer
    assert committed.grid.thresholds == Thresholds.load(GRID_THRESHOLDS_FILE) != committed.thresholds
    grid_limits = committed._grid_thresholds()
    assert grid_limits.accept >= committed.grid.thresholds.grid_accept > 0 and grid_limits.invalid >= grid_limits.accept
    on_trial = Recognizer(DEFAULT_MODEL)
    trial = SlipReader(file2017, on_trial, Thresholds(accept=0.5))
    assert trial.grid.recognizer is on_trial and trial.grid.thresholds.accept == 0.5
    assert trial.grid.squares is None and len(trial.grid.readers()) == 1


def test_a_board_training_line_is_the_word_written_square_by_square() -> None:
    """The board recogniser's training lines (``synth.make_grid_sample``) are cut from a printed board
    as the reader cuts them: the word's tiles in order, a circled blank as its lowercase letter."""
    rng = np.random.default_rng(5)
    pool = [hw.HersheyWriter(hw.TRAIN_HERSHEY[0])]
    for _ in range(3):
        sample = synth.make_grid_sample(rng, ["CHORIZO"], pool, synth.Emphasis(circled=1.0))
        assert sample.text.upper() == "CHORIZO" and sum(c.islower() for c in sample.text) in (1, 2)  # ch is one tile
        assert tokens.decode(sample.label) == sample.text
        assert sample.image.shape[0] == 32 and sample.image.max() > 0.5  # a prepared line with ink


def test_a_benchmark_mistake_that_is_a_legal_play_becomes_that_play(small_lexicon: Lexicon) -> None:
    """An uncircled blank written as the rack's own tile, in capitals over a blank already on the board
    (``H5 CASAS`` for ``H5 CaSAS``): the benchmark's slip is that legal play, scored with the rack's S."""
    position = Position.from_cgp("15/15/15/15/15/15/15/4CaSA7/15/15/15/15/15/15/15 S? 0/0 0")
    plays = generate_plays(position.board, position.rack, small_lexicon)
    meant = legal_play_written(plays, "H5 CASAS", position)
    assert meant.notation == "H5 CaSAS"
    assert meant.score > min(p.score for p in plays if p.notation.upper() == "H5 CASAS")  # the blank s scores 0


def _decision(play: str, score: int, confidence: float, verdict: str = "accepted") -> Decision:
    options = (Option("play", play, score, confidence),)
    return Decision(play, play, score, verdict, (), confidence, options, notation=play)


def test_a_board_play_stands_only_where_both_recognisers_read_it() -> None:
    """Two recognisers that read the same play: accepted, as sure as the less sure of them; that read
    different plays (or one reads a play and the other flags it): the arbiter's, with the first's options."""
    both = absolute.agreed([_decision("H4 CASA", 12, 0.99), _decision("H4 CASA", 12, 0.95)])
    assert (both.verdict, both.play, both.score, both.confidence) == ("accepted", "H4 CASA", 12, 0.95)
    split = absolute.agreed([_decision("H4 CASA", 12, 0.99), _decision("H4 CAZA", 30, 0.98)])
    assert split.verdict == "flagged" and split.flags == ("illegible",) and split.score is None
    assert split.options[0].text == "H4 CASA" and split.slip() is None
    unsure = Decision("H4 CAZA", "H4 CAZA", None, "flagged", ("illegible",), 0.6)
    assert absolute.agreed([_decision("H4 CASA", 12, 0.99), unsure]).verdict == "flagged"
    assert absolute.agreed([unsure, _decision("H4 CASA", 12, 0.99)]) == unsure


def test_a_board_the_readers_disagree_on_is_proposed_as_both_read_it_never_scored() -> None:
    """The line reader doubts between CAZA and CASA, the square reader reads CASA surely: the board goes to the
    arbiter unscored (the readers did not agree) with CASA offered first, the outcome both together make likeliest;
    the line reader's own proposal would have been CAZA, which the arbiter would have had to overrule."""
    line = Scored("H4 CAZA", (("play", "H4 CAZA", 30, -0.6), ("play", "H4 CASA", 12, -0.8),
                              ("reading", "H4CAZO", None, -3.0)))  # fmt: skip
    squares = Scored("H4 CASA", (("play", "H4 CASA", 12, -0.1), ("play", "H4 CAZA", 30, -6.0)))
    limits = Thresholds(accept=0.99)
    first = Decision("H4 CAZA", "H4 CAZA", None, "flagged", ("illegible",), 0.55)
    together = absolute.proposed_together(first, [line, squares], [limits, limits])
    assert together.verdict == "flagged" and together.flags == ("illegible",) and together.score is None
    assert together.play == "H4 CASA" and together.options[0].text == "H4 CASA"
    assert together.options[0].probability > 0.9 and together.slip() is None
    assert sum(o.probability for o in together.options) == pytest.approx(1.0)
    garbled = Scored("H4 QQ", (("reading", "H4QQ", None, -0.1),))
    assert absolute.proposed_together(first, [garbled, garbled], [limits, limits]).play is None  # no play to offer


def test_a_sure_board_play_settles_an_unreadable_round_number(reader: SlipReader, printed: LocatedSlip) -> None:
    """The round box left empty, in round 4: the play written on the board is accepted in round 4's position
    and no other round's, so the slip is round 4's (as for a play written in the boxes); when round 3's rack
    holds the play as well, the slip goes to the arbiter (position not identifiable, D.III.25)."""
    four, three = Position.from_cgp(CHORIZO), Position.from_cgp(CHORIZO.replace("AACSEIO", "ASCEIOU"))
    play = Play.from_notation("12G ASOCIE")
    scan = drawn.scan(drawn.fill_grid(printed.board, play, hw.load_real_writer(REAL, "test"),
                                             np.random.default_rng(4)), np.random.default_rng(4))  # fmt: skip

    def only_four(number: int | None) -> tuple | None:
        return (four.board, four.rack) if number in (None, 4) else None

    def three_too(number: int | None) -> tuple:
        return (four.board, four.rack) if number in (None, 4) else (three.board, three.rack)

    (settled,) = reader.read_slip(scan, only_four, rounds=range(1, 10), current=4)
    assert settled.round_confidence < reader.thresholds.field  # nothing written in the round box
    assert (settled.round, settled.verdict, settled.flags) == (4, "accepted", ())
    (ambiguous,) = reader.read_slip(scan, three_too, rounds=range(1, 10), current=4)
    assert ambiguous.verdict == "flagged" and "position_unknown" in ambiguous.flags


def _shadow_band(frame: np.ndarray, y: float, depth: float = 70.0, sigma_px: float = 4.0) -> np.ndarray:
    """``frame`` with a soft dark band across its whole width, centred on pixel row ``y`` and rising 1 px in 50: what
    a phone's photo can leave of a shadow's edge after even light (``light.even``), as thin as a pen's stroke."""
    rows, cols = np.mgrid[0 : frame.shape[0], 0 : frame.shape[1]]
    shade = depth * np.exp(-0.5 * ((rows - y + cols / 50) / sigma_px) ** 2)
    return np.clip(frame.astype(np.float32) - shade, 0, 255).astype(np.uint8)


def test_a_thin_shadow_band_is_no_writing_in_a_square_or_a_box(printed: LocatedSlip) -> None:
    """A shadow band as thin as a stroke, running across the slip, marks no box and writes no square: a letter is
    shorter than a square every way (``light.short_marks_lifted``). Before, the band's squares were written and the
    board read as several plays, its empty boxes as written."""
    assert printed.board is not None
    row_k = (absolute.GRID_Y0 + 10.5 * absolute.CELL) * layout.PX_PER_MM  # the board's row K, and the word box
    banded = _shadow_band(_shadow_band(printed.board, row_k), (absolute.GRID_Y0 + 2.5 * absolute.CELL) * layout.PX_PER_MM)
    assert absolute.written_cells(banded) == []
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, 0.6)
    assert not marked(banded[y0:y1, x0:x1], float(np.percentile(banded, 75)))
    clear = [(0.5, 0.15, 0.5, 0.85), (0.25, 0.5, 0.75, 0.5)]
    for square in ((10, 3), (10, 4), (10, 5)):  # a word written in the band's row is still written
        _ink_in(banded, square, clear)
    assert absolute.written_cells(banded) == [(10, 3), (10, 4), (10, 5)]
    box = banded[y0:y1, x0:x1].copy()
    cv2.line(box, (40, 20), (60, 80), 40, 2)  # a pen's stroke in the box, across the band
    assert marked(box, float(np.percentile(banded, 75)))


def test_an_absolute_slip_with_a_thin_shadow_band_across_it_is_read(reader: SlipReader, printed: LocatedSlip) -> None:
    """The same band across the empty boxes and through the written word: the play read and accepted, not
    ``several_plays``."""
    assert printed.board is not None
    position = Position.from_cgp(CHORIZO)
    plays = generate_plays(position.board, position.rack, reader.lexicon)
    rng = np.random.default_rng(4)
    filled = drawn.fill_grid(printed.board, plays[4].play, hw.load_real_writer(REAL, "test"), rng)
    banded = _shadow_band(filled, (absolute.GRID_Y0 + 10.5 * absolute.CELL) * layout.PX_PER_MM)
    result = reader.read_slip(drawn.scan(banded, rng), lambda _: (position.board, position.rack))[0]
    assert (result.verdict, result.decision.play, result.decision.score) == ("accepted", "12G ASOCIE", plays[4].score), result.flags
