"""Slips no arbiter could score as written (D.III.20.4) go to the arbiter: a play left blank, scribbled over, blotted,
struck out, crossed out with an X, scrawled through with a zigzag. A word struck out beside the play written after
it is a correction, and that play is read (D.III.20.2)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from models.slips.cases import REAL, SPOILS, judge, make_illegible_cases
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.notation import Play
from vision.slips import absolute, layout
from vision.slips import reader as reader_module
from vision.slips.boxes import (
    blotted,
    struck,
    text_rows,
    visible_coordinate,
    visible_part,
    visible_row,
)
from vision.slips.ingest import split_pages
from vision.slips.lineimage import ink_of
from vision.slips.printing import pads, slips_pdf
from vision.slips.reader import SlipReader, SlipResult, locate_slips
from vision.slips.strikes import (
    THROUGH_WIDE,
    coordinate_crossed_out,
    coordinate_struck_out,
    struck_before_gap,
    struck_in_part,
)
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw


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


CHORIZO = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AACSEIO 0/0 0"
Spoil = Callable[..., None]


@pytest.mark.parametrize(
    ("spoil", "spoilt", "seed", "words"),
    [
        (drawn.blot, blotted, 8, ("CHORIZO", "ÑANDU", "MOVAIS", "LLAMA")),
        (drawn.strike_through, struck, 12, ("CHORIZO", "ÑANDU", "EH→", "LLAMA", "FE")),
        (drawn.cross_out, struck, 14, ("CHORIZO", "ÑANDU", "EH→", "LLAMA", "FE", "OH", "AX", "XI")),
        (drawn.scrawl_through, struck, 16, ("CHORIZO", "ÑANDU", "LLAMA", "MOVAIS", "ABEDUL", "OH", "AX", "ESA")),
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
        drawn.write_in_box(field, box, word, writer, rng)
        assert not spoilt(field), word
        spoil(field, box, rng)
        assert spoilt(field), word


def test_a_zigzag_over_two_letters_narrower_than_the_wide_words_bound_is_a_strike() -> None:
    """Two letters written narrower than ``THROUGH_WIDE`` heights (whose letters may touch) are judged by the
    narrow test: a zigzag scrawled over them is ``struck``, and the same letters written are not."""
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    box = (0, 0, x1 - x0, y1 - y0)
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(56)
    for word in ("HA", "UF", "ES", "OS"):
        field = np.full((box[3], box[2]), 235, np.uint8)
        drawn.write_in_box(field, box, word, writer, rng)
        ys, xs = np.nonzero(ink_of(field) > 0.35)
        assert xs.max() - xs.min() < THROUGH_WIDE * (ys.max() - ys.min()), word  # the narrow test's case
        assert not struck(field), word
        drawn.scrawl_through(field, box, rng)
        assert struck(field), word


def test_a_line_struck_level_or_tilted_either_way_is_a_strike() -> None:
    """Players strike a play out level or on a slant: the same written word struck level, 5 and 9 degrees up or
    down is ``struck`` each time."""
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    box = (0, 0, x1 - x0, y1 - y0)
    written = np.full((box[3], box[2]), 235, np.uint8)
    drawn.write_in_box(written, box, "MOVAIS", hw.load_real_writer(REAL, "test"), np.random.default_rng(2))
    for tilt in (0.0, 5.0, -5.0, 9.0, -9.0):
        field = written.copy()
        drawn.strike_through(field, box, np.random.default_rng(6), tilt=tilt)
        assert struck(field), tilt


def _corrected(given_up: str, kept: str, seed: int) -> tuple[np.ndarray, int]:
    """A word box by a real hand: ``given_up`` struck out with one line, ``kept`` written after it; and the column
    where ``kept``'s part of the box begins."""
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    field, rng = np.full((y1 - y0, x1 - x0), 235, np.uint8), np.random.default_rng(seed)
    box = (0, 0, field.shape[1], field.shape[0])
    return field, drawn.correct_beside(field, box, given_up, kept, hw.load_real_writer(REAL, "test"), rng, 40.0)


def test_a_word_struck_out_beside_the_play_written_after_it_leaves_that_play_to_read() -> None:
    """D.III.20.2: a correction, the word given up struck out and the play that stands written after it, leaves
    the play visible: ``visible_part`` is the box from between the two words on. A written word (its letters'
    crossbars touching, or an arrow after it) and a word struck out whole are read whole."""
    for given_up, kept, seed in (("CASA", "CHORIZO", 3), ("ÑANDU", "OH", 4), ("MOVAIS", "LLAMA", 5)):
        field, split = _corrected(given_up, kept, seed)
        start = struck_in_part(ink_of(field) > 0.35)
        assert start is not None and split - 40 < start < split + 12, given_up
        assert visible_part(field).shape[1] == field.shape[1] - start
    box = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(7)
    for word in ("HARE", "HELEAS", "EH→", "CHORIZO"):
        field = np.full((box[3] - box[1], box[2] - box[0]), 235, np.uint8)
        drawn.write_in_box(field, (0, 0, field.shape[1], field.shape[0]), word, writer, rng)
        assert struck_in_part(ink_of(field) > 0.35) is None, word
        drawn.strike_through(field, (0, 0, field.shape[1], field.shape[0]), rng, 40.0)
        assert struck_in_part(ink_of(field) > 0.35) is None and struck(field), word


def test_a_slip_corrected_beside_is_scored_as_the_play_left_visible(file2017: Lexicon) -> None:
    """End to end: the held-out real hand writes 12G ASOCIE's coordinate, a word struck out, then ASOCIE; the
    slip is accepted as 12G ASOCIE (without the partial strike it was read as one word scored 0 or flagged)."""
    position = Position.from_cgp(CHORIZO)
    printed = layout.render_slip(layout.SlipInfo("p7", "Open", 1, "j1", "Ana"))
    rng = np.random.default_rng(11)
    writer = hw.load_real_writer(REAL, "test")
    filled = drawn.fill_slip(printed, {"coordenada": "12G", "ronda": "3"}, writer, rng)
    drawn.correct_beside(filled, layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, 0.6), "CAOS", "ASOCIE",
                             writer, rng, 40.0)  # fmt: skip
    (result,) = SlipReader(file2017).read_slip(drawn.scan(filled, rng), lambda _: (position.board, position.rack),
                                               rounds=range(1, 25))  # fmt: skip
    assert result.verdict == "accepted" and result.decision.play == "12G ASOCIE"


def _corrected_coordinate(given_up: str, kept: str, seed: int) -> tuple[np.ndarray, int]:
    """A coordinate box by a real hand: ``given_up`` struck out with one line, ``kept`` written after it; and the
    column where ``kept``'s part of the box begins."""
    x0, y0, x1, y1 = layout.FIELDS["coordenada"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    field, rng = np.full((y1 - y0, x1 - x0), 235, np.uint8), np.random.default_rng(seed)
    box = (0, 0, field.shape[1], field.shape[0])
    return field, drawn.correct_beside(field, box, given_up, kept, hw.load_real_writer(REAL, "test"), rng, 40.0)


def test_a_coordinate_struck_out_beside_the_one_written_after_it_leaves_that_one_to_read() -> None:
    """D.III.20.2: a coordinate written in the wrong order, struck out and written again after it in the coordinate
    box, leaves the second visible (``visible_coordinate``). Its strike is short beside the correction's height:
    judged against the whole box's writing (``struck_in_part``) it is missed. Coordinates written once, crossed
    7 and 4 among them, are read whole."""
    for given_up, kept, seed in (("8H", "H8", 3), ("G12", "12G", 4), ("15A", "A15", 5), ("K4", "4K", 6)):
        field, split = _corrected_coordinate(given_up, kept, seed)
        start = struck_before_gap(ink_of(field) > 0.35)  # the correction is written from 8 px to a quarter on
        assert start is not None and split < start <= split + 12 + (field.shape[1] - split) // 4, given_up
        assert visible_coordinate(field).shape[1] == field.shape[1] - start
    x0, y0, x1, y1 = layout.FIELDS["coordenada"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(7)
    for coordinate in ("7K", "H4", "4H", "14E", "E14", "11G", "H-8", "7A"):
        field = np.full((y1 - y0, x1 - x0), 235, np.uint8)
        drawn.write_in_box(field, (0, 0, field.shape[1], field.shape[0]), coordinate, writer, rng)
        assert struck_before_gap(ink_of(field) > 0.35) is None and visible_coordinate(field) is field, coordinate


def test_a_coordinate_struck_out_whole_is_told_from_one_written_with_crossbars(file2017: Lexicon) -> None:
    """A coordinate struck out with one line and no other in its box (the new one written elsewhere): the slip
    is the arbiter's (D.III.20.4), whatever the characters under the line read. Written coordinates whose 4 or H
    has a crossbar are not struck. A line must be 1.9 heights long, or struck past the characters at both ends:
    over three characters it always is, over two most often (here 4 of 5 two-character coordinates struck are
    caught; 3 before the second way)."""
    def strike(field: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator) -> None:
        drawn.strike_through(field, box, rng, 40.0, tilt=0.0)

    caught = _coordinates_spoilt(("4H", "H4", "14A", "A14", "H8", "11H", "4K", "7A"), strike, coordinate_struck_out, 12)
    assert all(caught[c] for c in ("14A", "A14", "11H")) and sum(caught.values()) >= 7, caught
    result = _slip_with_its_coordinate_spoilt(file2017, strike, 12)
    assert result.verdict == "flagged" and "illegible" in result.flags


def test_a_coordinate_crossed_out_with_an_x_is_told_from_one_written_with_round_characters(file2017: Lexicon) -> None:
    """An X over a coordinate and no other in its box: the slip is the arbiter's (D.III.20.4). Written coordinates of
    round characters (B4, D8, 6D: in other hands a path along their bowls runs from corner to corner of so small a
    box) are not taken for one; X's over them are caught."""
    def cross(field: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator) -> None:
        drawn.cross_out(field, box, rng, 40.0)

    caught = _coordinates_spoilt(("B4", "D8", "6D", "8L", "3O", "6G", "13B", "H8"), cross, coordinate_crossed_out, 5)
    assert sum(caught.values()) >= 6, caught
    result = _slip_with_its_coordinate_spoilt(file2017, cross, 5)
    assert result.verdict == "flagged" and "illegible" in result.flags


def _coordinates_spoilt(coordinates: tuple[str, ...], spoil: Spoil, judge_spoilt: Callable[[np.ndarray], bool],
                        seed: int) -> dict[str, bool]:  # fmt: skip
    """Each coordinate written by the held-out real hand alone in a coordinate box (asserted not judged spoilt),
    then spoilt in place: whether ``judge_spoilt`` finds it so (on the box's ink)."""
    x0, y0, x1, y1 = layout.FIELDS["coordenada"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(seed)
    caught = {}
    for coordinate in coordinates:
        field = np.full((y1 - y0, x1 - x0), 235, np.uint8)
        drawn.write_in_box(field, (0, 0, field.shape[1], field.shape[0]), coordinate, writer, rng)
        assert not judge_spoilt(ink_of(field) > 0.35), coordinate
        spoil(field, (0, 0, field.shape[1], field.shape[0]), rng)
        caught[coordinate] = judge_spoilt(ink_of(field) > 0.35)
    return caught


def _slip_with_its_coordinate_spoilt(file2017: Lexicon, spoil: Spoil, seed: int) -> SlipResult:
    """A slip of the held-out real hand, 12G ASOCIE (legal on CHORIZO), whose coordinate is spoilt, read whole."""
    position = Position.from_cgp(CHORIZO)
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(seed)
    printed = layout.render_slip(layout.SlipInfo("p7", "Open", 1, "j1", "Ana"))
    filled = drawn.fill_slip(printed, {"coordenada": "12G", "palabra": "ASOCIE", "ronda": "3"}, writer, rng)
    spoil(filled, layout.FIELDS["coordenada"].pixels(layout.PX_PER_MM, 0.6), rng)
    (result,) = SlipReader(file2017).read_slip(drawn.scan(filled, rng), lambda _: (position.board, position.rack),
                                               rounds=range(1, 25))  # fmt: skip
    return result


def test_a_short_word_struck_out_beside_the_play_is_a_correction_too() -> None:
    """A short word given up is written small in what is left of the box, and its strike is short beside the play
    after it: judged against the whole writing (``struck_in_part``) it is missed in these boxes, judged on its own
    (``strikes.struck_before_gap``) it is found."""
    for given_up, kept, seed in (("FE", "ASOCIE", 0), ("RE", "HALAR", 6), ("ERG", "DADAS", 1), ("OH", "CHORIZO", 0),
                                 ("JALE", "HA", 4)):  # fmt: skip
        field, split = _corrected(given_up, kept, seed)
        assert struck_in_part(ink_of(field) > 0.35) is None, given_up
        start = field.shape[1] - visible_part(field).shape[1]
        assert split < start <= split + 12 + (field.shape[1] - split) // 4, given_up


def test_a_slip_whose_coordinate_is_corrected_beside_is_scored_as_the_play_left_visible(file2017: Lexicon) -> None:
    """End to end: the held-out real hand writes G12, strikes it out and writes 12G after it, then ASOCIE in the
    word box; the slip is read as 12G ASOCIE (before, with seed 4, the struck coordinate was read too and the slip
    flagged). With seed 4 the hand's I is read as an S by both networks (``glyphs.check_letters``): the play is not
    accepted against what is written (D.III.25), but it is the arbiter's proposal, its coordinate the one left."""
    position = Position.from_cgp(CHORIZO)
    writer, reader = hw.load_real_writer(REAL, "test"), SlipReader(file2017)
    for seed in (2, 4):
        printed = layout.render_slip(layout.SlipInfo("p7", "Open", 1, "j1", "Ana"))
        rng = np.random.default_rng(seed)
        filled = drawn.fill_slip(printed, {"palabra": "ASOCIE", "ronda": "3"}, writer, rng)
        drawn.correct_beside(filled, layout.FIELDS["coordenada"].pixels(layout.PX_PER_MM, 0.6), "G12", "12G",
                                 writer, rng, 40.0)  # fmt: skip
        (result,) = reader.read_slip(drawn.scan(filled, rng), lambda _: (position.board, position.rack),
                                     rounds=range(1, 25))  # fmt: skip
        assert result.decision is not None and result.decision.options[0].text == "12G ASOCIE", seed
        assert result.decision.reading.startswith("12G "), seed
        assert result.verdict == "accepted" or (seed == 4 and result.flags == ("illegible",)), seed


def test_a_row_crossed_out_above_the_row_that_stands_leaves_that_row_to_read() -> None:
    """D.III.20.2: a word crossed out (a line, an X or a zigzag) in the box's upper half and the play written under
    it leave one play visible: ``visible_row`` is the lower row, enlarged to the box's height. Two rows both
    standing, or both crossed out, are left whole (two plays written; a spoilt box)."""
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    writer = hw.load_real_writer(REAL, "test")
    for seed, spoil in enumerate((drawn.strike_through, drawn.cross_out, drawn.scrawl_through)):
        field, rng = np.full((y1 - y0, x1 - x0), 235, np.uint8), np.random.default_rng(seed)
        middle = drawn.correct_below(field, (0, 0, field.shape[1], field.shape[0]), "CAOS", "ASOCIE", writer, rng,
                                         spoil)  # fmt: skip
        row = visible_row(field)  # the lower row, about twice as high as written, so twice as wide as the box
        assert row.shape[0] == field.shape[0] and row.shape[1] > 1.5 * field.shape[1], spoil.__name__
        assert text_rows(row) == 1 and not struck(row), spoil.__name__
        both = field.copy()
        spoil(both, (0, middle, both.shape[1], both.shape[0]), rng, 40.0)
        assert visible_row(both) is both, spoil.__name__
    field, rng = np.full((y1 - y0, x1 - x0), 235, np.uint8), np.random.default_rng(9)
    drawn.write_in_box(field, (0, 0, field.shape[1], field.shape[0] // 2), "CASA", writer, rng)
    drawn.write_in_box(field, (0, field.shape[0] // 2, field.shape[1], field.shape[0]), "ASOCIE", writer, rng)
    assert text_rows(field) == 2 and visible_row(field) is field


def test_a_slip_whose_word_is_crossed_out_and_the_play_written_under_it_is_scored_as_that_play(
    file2017: Lexicon,
) -> None:
    """End to end: the held-out real hand writes CAOS in the word box's upper half, crosses it out with an X and
    writes ASOCIE under it; the slip is accepted as 12G ASOCIE (before, two rows were two plays: flagged)."""
    position = Position.from_cgp(CHORIZO)
    printed = layout.render_slip(layout.SlipInfo("p7", "Open", 1, "j1", "Ana"))
    rng = np.random.default_rng(11)
    writer = hw.load_real_writer(REAL, "test")
    filled = drawn.fill_slip(printed, {"coordenada": "12G", "ronda": "3"}, writer, rng)
    drawn.correct_below(filled, layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, 0.6), "CAOS", "ASOCIE", writer,
                            rng, drawn.cross_out)  # fmt: skip
    (result,) = SlipReader(file2017).read_slip(drawn.scan(filled, rng), lambda _: (position.board, position.rack),
                                               rounds=range(1, 25))  # fmt: skip
    assert result.verdict == "accepted" and result.decision.play == "12G ASOCIE"


def test_a_long_word_crossed_out_above_the_play_does_not_spoil_the_box() -> None:
    """A long word given up in the upper half and crossed out, the play under it: one line of the X, or the strike,
    runs across the middle of the box's two rows, so the box judged whole looks struck out. The box is judged on
    its row that stands (``visible_row``), which is not: the play is read, not flagged (D.III.20.2)."""
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    writer = hw.load_real_writer(REAL, "test")
    coordinate = np.full((y1 - y0, 160), 235, np.uint8)
    for given_up, kept, seed, spoil in (("ENRODAS", "DONEN", 0, drawn.cross_out),
                                        ("AGRACEJO", "CESAR", 4, drawn.strike_through)):  # fmt: skip
        field, rng = np.full((y1 - y0, x1 - x0), 235, np.uint8), np.random.default_rng(seed)
        drawn.correct_below(field, (0, 0, field.shape[1], field.shape[0]), given_up, kept, writer, rng, spoil)
        assert struck(field) and not struck(visible_row(field)), given_up
        assert not reader_module._notation_read(None, coordinate, visible_part(field), field).spoilt, given_up


def test_a_short_play_written_small_under_a_word_crossed_out_is_the_row_that_stands() -> None:
    """A two-letter play written small under the word given up is lower than that word and its X or strike: as a
    row it counted for nothing (half as high as the tallest row, like an Ñ's tilde), and the box was read whole
    and flagged. Under a single row a lower one counts (``reader.LOW_ROW``): the play is the row that stands."""
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    writer = hw.load_real_writer(REAL, "test")
    for given_up, kept, seed, spoil in (("CASA", "HA", 0, drawn.cross_out), ("TUYA", "CE", 3, drawn.strike_through),
                                        ("UFOS", "NE", 5, drawn.cross_out)):  # fmt: skip
        field, rng = np.full((y1 - y0, x1 - x0), 235, np.uint8), np.random.default_rng(seed)
        drawn.correct_below(field, (0, 0, field.shape[1], field.shape[0]), given_up, kept, writer, rng, spoil)
        assert text_rows(field) == 1, kept  # still one play written, for the several-plays rule
        row = visible_row(field)  # a part of the box, enlarged to its height: wider than the box
        assert row.shape[0] == field.shape[0] and row.shape[1] > field.shape[1] and not struck(row), kept


def test_a_blot_in_the_struck_part_of_a_correction_still_spoils_the_box() -> None:
    """A blot is no correction: the word box of a correction with a blot over the struck word is spoilt, though
    the part left visible holds no blot (D.III.20.4)."""
    field, split = _corrected("MOVAIS", "LLAMA", 5)
    coordinate = np.full((field.shape[0], 160), 235, np.uint8)
    assert not reader_module._notation_read(None, coordinate, visible_part(field), field).spoilt
    field[22:72, split // 3 : split // 3 + 50] = 30  # a blot over the struck word's middle letters
    visible = visible_part(field)
    assert visible.shape[1] < field.shape[1] and not blotted(visible)
    assert reader_module._notation_read(None, coordinate, visible, field).spoilt


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
    for spoil in (drawn.scribble_over, drawn.blot, drawn.strike_through):
        page = np.full((400, 200), 235, np.uint8)
        box = (80, 40, 114, 360)  # one square wide, nine tall
        spoil(page, box, rng, 40.0)
        ys, xs = np.nonzero(page < 150)
        assert len(ys) and xs.min() >= box[0] - 2 and xs.max() <= box[2] + 2
        assert ys.max() - ys.min() > xs.max() - xs.min(), spoil.__name__


@pytest.mark.parametrize(
    ("spoil", "spoilt"),
    [
        (drawn.blot, absolute.blotted),
        (drawn.strike_through, absolute.struck),
        (drawn.cross_out, absolute.struck),
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
        filled = drawn.fill_grid(board, play, writer, rng)
        assert not spoilt(filled, squares), notation
        first, last = absolute.cell_box(*squares[0]), absolute.cell_box(*squares[-1])
        spoil(filled, (first[0], first[1], last[2], last[3]), rng, 40.0)
        assert spoilt(filled, squares), notation


def test_a_zigzag_drawn_light_along_a_boards_play_is_a_strike() -> None:
    """A thin zigzag in a light pen (45 grey levels under the paper, thinner still once drawn smooth) breaks up at a
    pen's ink contrast; ``absolute.struck`` looks again at a faint pencil's and finds it unbroken, across and down.
    The same plays written are not struck."""
    page = next(iter(split_pages(slips_pdf(pads("p7", "Open", [("j1", "Ana", 1)], 1), absolute=True), "a.pdf")))
    board = locate_slips(page)[0].board
    assert board is not None
    light = float(absolute.paper_level(board, layout.PX_PER_MM) - 45)
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(2)
    for notation in ("12G ASOCIE", "C2 CASA", "H4 MOVAIS", "8D ÑANDU"):
        play = Play.from_notation(notation)
        squares = play.squares()
        filled = drawn.fill_grid(board, play, writer, rng)
        assert not absolute.struck(filled, squares), notation
        first, last = absolute.cell_box(*squares[0]), absolute.cell_box(*squares[-1])
        drawn.scrawl_through(filled, (first[0], first[1], last[2], last[3]), np.random.default_rng(21), light)
        assert absolute.struck(filled, squares), notation


def test_the_printed_lines_are_taken_out_of_the_boards_ink_and_the_letters_across_them_kept() -> None:
    """A row of the printed board, empty, has no ink once ``absolute.unruled``; with a play written in it by a real
    hand, the ink left is the letters', and a line struck through them stays whole across the printed lines."""
    page = next(iter(split_pages(slips_pdf(pads("p7", "Open", [("j1", "Ana", 1)], 1), absolute=True), "a.pdf")))
    board = locate_slips(page)[0].board
    assert board is not None
    row = (*absolute.cell_box(7, 0)[:2], *absolute.cell_box(7, 14)[2:])
    assert not (absolute.unruled(board, row, layout.PX_PER_MM) > absolute.INK_CONTRAST).any()
    play = Play.from_notation("H1 CHORIZOS")  # seven squares, H1 to H7
    filled = drawn.fill_grid(board, play, hw.load_real_writer(REAL, "test"), np.random.default_rng(3))
    letters = absolute.unruled(filled, row, layout.PX_PER_MM) > absolute.INK_CONTRAST
    end = absolute.cell_box(7, 6)[2] - row[0]
    assert letters[:, :end].any(axis=0).mean() > 0.3
    assert not letters[:, end + 3 :].any()  # no ink past the word's squares
    drawn.strike_through(filled, (row[0], row[1], row[0] + end, row[3]), np.random.default_rng(4))
    struck_row = absolute.unruled(filled, row, layout.PX_PER_MM) > absolute.INK_CONTRAST
    assert struck_row[:, 20 : end - 20].any(axis=0).all()
