"""Duplicate rack validity (D.III.12), redraws (D.III.19) and manual racks."""

import random

import pytest

from rules_core.alphabet import BLANK, full_bag, tiles_from_text
from rules_core.racks import (
    RackRule,
    draw_rack,
    manual_rack_problem,
    rack_problem,
    rule_for,
    valid_rack_possible,
)


def rack(text: str) -> tuple[int, ...]:
    """Rack from text, ``?`` for a blank."""
    return tuple(BLANK if ch == "?" else t for ch, t in zip(text, tiles_from_text(text.replace("?", "A"))))


def test_up_to_round_15_fewer_than_six_vowels_and_six_consonants() -> None:
    assert rack_problem(rack("AEIOUAB"), RackRule.EARLY) is not None  # six vowels
    assert rack_problem(rack("AEIOUBC"), RackRule.EARLY) is None  # five and two
    assert rack_problem(rack("BCDFGHA"), RackRule.EARLY) is not None  # six consonants
    assert "6 vocales" in str(rack_problem(rack("AEIOUAB"), RackRule.EARLY))


def test_y_is_a_consonant() -> None:
    assert rack_problem(rack("BCDFGYA"), RackRule.EARLY) is not None  # Y makes six consonants
    assert rack_problem(rack("AEIOUY?"), RackRule.LATE) is None


def test_blanks_count_as_neither() -> None:
    assert rack_problem(rack("AEIOU??"), RackRule.EARLY) is None  # five vowels, two blanks
    assert rack_problem(rack("AEIOU??"), RackRule.LATE) is not None  # no consonant
    assert "ninguna consonante" in str(rack_problem(rack("AEIOU??"), RackRule.LATE))


def test_from_round_16_one_vowel_and_one_consonant() -> None:
    bag = full_bag()
    assert rule_for(15, bag) is RackRule.EARLY
    assert rule_for(16, bag) is RackRule.LATE
    assert rack_problem(rack("AEIOUAE"), RackRule.LATE) is not None
    assert rack_problem(rack("AEIOUAB"), RackRule.LATE) is None  # six vowels allowed now


def test_one_vowel_left_brings_the_late_rule_before_round_16() -> None:
    left = list(rack("ABCDFGHJLMNPRST"))  # one vowel left in bag and rack
    assert rule_for(5, left) is RackRule.LATE


def test_no_valid_rack_possible_when_vowels_run_out() -> None:
    assert not valid_rack_possible(list(rack("BCDFGH")), RackRule.LATE)
    assert valid_rack_possible(list(rack("BCDFGHA")), RackRule.LATE)
    assert not valid_rack_possible(list(rack("AEIOUAEIOUAE")), RackRule.EARLY)


def test_draw_redraws_whole_racks_until_valid() -> None:
    bag = list(rack("AEIOUAEIOUAEIOUBC"))  # mostly vowels: redraws are likely
    draw = draw_rack((), bag, 3, random.Random(1))
    assert draw is not None and len(draw.rack) == 7
    assert rack_problem(draw.rack, RackRule.EARLY) is None
    assert draw.redraws > 0


def test_draw_keeps_the_leave_and_is_seeded() -> None:
    leave = rack("CH")
    first = draw_rack(leave, full_bag(), 2, random.Random(7))
    again = draw_rack(leave, full_bag(), 2, random.Random(7))
    assert first == again and first is not None
    if first.redraws == 0:
        assert first.rack[:2] == leave


def test_draw_ends_the_game_when_no_rack_can_be_valid() -> None:
    assert draw_rack(rack("BC"), list(rack("DFG")), 20, random.Random(1)) is None


@pytest.mark.parametrize(
    ("entered", "reason"),
    [
        ("AEIOUAB", "6 vocales"),
        ("ABCDEFZ", "no están en la bolsa: Z"),
        ("ABCDE", "debe tener 7 fichas"),
    ],
)
def test_manual_racks_are_checked_with_a_clear_message(entered: str, reason: str) -> None:
    bag = [t for t in full_bag() if t != tiles_from_text("Z")[0]]
    problem = manual_rack_problem(rack(entered), (), bag, 1)
    assert problem is not None and reason in problem
    assert manual_rack_problem(rack("ABCDEFG"), (), bag, 1) is None
