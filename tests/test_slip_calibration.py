"""The slip decoder's thresholds, chosen on calibration decisions (``models/slips/calibrate.choose``)."""

from __future__ import annotations

from models.slips.calibrate import choose, right_by_set
from models.slips.cases import Outcome


def accepted(confidence: float, right: bool) -> Outcome:
    return Outcome("clean", "accepted", (), "H8 CASA", 10, confidence, "play", right, not right, True, 1.0, None, 0.0)


def test_confirmed_and_chosen_plays_each_get_a_threshold_just_above_their_surest_wrong_one() -> None:
    """No wrong decision let through: a wrong play the raw reading wrote too at 0.70 sets ``confirmed_accept``,
    one chosen over the raw reading at 0.95 sets ``accept``; right plays count where they clear their own."""
    decided = [
        (accepted(0.70, False), 5.0, True, 0.0),
        (accepted(0.80, True), 5.0, True, 0.0),  # confirmed: passes 0.7005
        (accepted(0.95, False), 5.0, False, 0.0),
        (accepted(0.90, True), 5.0, False, 0.0),  # chosen over the reading: below 0.9505, flagged
        (accepted(0.99, True), 5.0, False, 0.0),
    ]
    limits, right, wrong = choose(decided, allowed=0)
    assert (limits["confirmed_accept"], limits["accept"]) == (0.7005, 0.9505)
    assert wrong == 0
    assert right == 2 / 5  # of the five correctly written slips


def test_plays_read_as_written_glyph_by_glyph_get_a_third_threshold_above_their_surest_wrong_one() -> None:
    """A play whose characters the glyph classifier reads as written (0.9 or more each) needs only the
    confidence just above the surest wrong play so read (never under one half); one it reads otherwise keeps
    ``accept``."""
    decided = [
        (accepted(0.95, False), 5.0, False, 0.2),  # wrong, glyphs disagree: sets accept
        (accepted(0.55, False), 5.0, False, 0.95),  # wrong, glyphs agree: sets glyph_accept
        (accepted(0.60, True), 5.0, False, 0.97),  # passes 0.5505 by its glyphs
        (accepted(0.80, True), 5.0, False, 0.5),  # glyphs unsure: below accept, flagged
        (accepted(0.99, True), 5.0, False, 0.0),
    ]
    limits, right, wrong = choose(decided, allowed=0, sures=(1.0, 0.9))
    assert (limits["accept"], limits["glyph_accept"], limits["glyph_sure"]) == (0.9505, 0.5505, 0.9)
    assert wrong == 0
    assert right == 2 / 5
    off, right_off, _ = choose(decided, allowed=0)
    assert off["glyph_accept"] == 0.0 and right_off == 1 / 5


def test_with_the_glyph_path_a_wrong_zero_the_glyphs_refuse_does_not_set_the_invalid_threshold() -> None:
    """A reading scored 0 as written wrongly at 0.9, which the glyph classifier does not read as written, is
    flagged by the glyphs: ``invalid`` stays at its floor; without the glyph path it sets ``invalid``."""
    wrong_zero = Outcome("clean", "invalid", (), "H8 CASAX", 0, 0.9, "reading", False, True, True, 1.0, None, 0.0)
    decided = [(wrong_zero, 5.0, False, 0.2), (accepted(0.99, True), 5.0, False, 0.95)]
    assert choose(decided, allowed=0, sures=(0.9,))[0]["invalid"] == 0.6
    assert choose(decided, allowed=0)[0]["invalid"] == 0.9005


def test_right_by_set_counts_each_sets_correct_slips_that_clear_the_chosen_thresholds() -> None:
    """Two sets of two slips each: the first set's right play clears ``accept``, its wrong one would not count;
    the second's right play is below ``accept`` (flagged) and its other slip has no decision (unread)."""
    decided = [
        (accepted(0.99, True), 5.0, False, 0.0),
        (accepted(0.97, False), 5.0, False, 0.0),
        (accepted(0.90, True), 5.0, False, 0.0),
        None,
    ]
    limits, _, _ = choose(decided, allowed=0)
    assert limits["accept"] == 0.9705
    assert right_by_set(decided, limits, ("fonts", "writers")) == {"fonts": 0.5, "writers": 0.0}


def test_a_blanks_circled_letter_must_be_read_as_surely_as_the_surest_wrong_blank_asks() -> None:
    """``circled_sure``: the least value that stops every wrong acceptance of a blank's letter the strictest value
    stops; a wrong one read too surely to stop (0.97) does not make every right blank go to the arbiter."""
    from models.slips.calibrate_circled import BlankRead
    from models.slips.calibrate_circled import choose as choose_circled

    found = [BlankRead("H8 JETa", "H8 JETo", 0.25, False), BlankRead("H8 JETa", "H8 JETa", 0.35, True),
             BlankRead("H8 JETa", "H8 JETa", 0.99, True), BlankRead("7H RUi", "7H RUo", 0.97, False)]  # fmt: skip
    sure, counts = choose_circled(found)
    assert sure == 0.3
    assert (counts["accepted_right"], counts["flagged_right"], counts["silent"], counts["silent_without"]) == (2, 0, 1, 2)
