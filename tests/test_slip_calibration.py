"""The slip decoder's thresholds, chosen on calibration decisions (``models/slips/calibrate.choose``)."""

from __future__ import annotations

from models.slips.calibrate import choose
from models.slips.cases import Outcome


def accepted(confidence: float, right: bool) -> Outcome:
    return Outcome("clean", "accepted", (), "H8 CASA", 10, confidence, "play", right, not right, True, 1.0, None, 0.0)


def test_confirmed_and_chosen_plays_each_get_a_threshold_just_above_their_surest_wrong_one() -> None:
    """No wrong decision let through: a wrong play the raw reading wrote too at 0.70 sets ``confirmed_accept``,
    one chosen over the raw reading at 0.95 sets ``accept``; right plays count where they clear their own."""
    decided = [
        (accepted(0.70, False), 5.0, True),
        (accepted(0.80, True), 5.0, True),  # confirmed: passes 0.7005
        (accepted(0.95, False), 5.0, False),
        (accepted(0.90, True), 5.0, False),  # chosen over the reading: below 0.9505, flagged
        (accepted(0.99, True), 5.0, False),
    ]
    limits, right, wrong = choose(decided, allowed=0)
    assert (limits["confirmed_accept"], limits["accept"]) == (0.7005, 0.9505)
    assert wrong == 0
    assert right == 2 / 5  # of the five correctly written slips
