"""Move generation: the golden move lists exactly, and agreement with the validator."""

from typing import Any

import pytest

from rules_core.alphabet import BLANK, tiles_from_text
from rules_core.board import Board
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.movegen import generate_plays
from rules_core.validation import check_play


@pytest.mark.golden
def test_every_golden_position_exactly(file2017: Lexicon, golden: list[dict[str, Any]]) -> None:
    assert len(golden) == 300
    for record in golden:
        position = Position.from_cgp(record["cgp"])
        plays = generate_plays(position.board, position.rack, file2017)
        assert [[p.notation, p.score] for p in plays] == record["moves"], record["cgp"]


@pytest.mark.golden
def test_generated_plays_pass_the_validator_with_the_same_score(
    file2017: Lexicon, golden: list[dict[str, Any]]
) -> None:
    sample = [r for r in golden if 0 < len(r["moves"]) <= 2000][::6]
    assert len(sample) >= 30
    for record in sample:
        position = Position.from_cgp(record["cgp"])
        for generated in generate_plays(position.board, position.rack, file2017):
            verdict = check_play(position.board, generated.play, file2017, position.rack)
            assert verdict.legal, (record["cgp"], generated.notation, verdict.problems)
            assert (verdict.play.notation(), verdict.points) == (
                generated.notation,
                generated.score,
            )


def test_two_blanks_and_both_directions_on_an_empty_board(small_lexicon: Lexicon) -> None:
    plays = generate_plays(Board(), (BLANK, BLANK), small_lexicon)
    notations = {p.notation for p in plays}
    assert {"H7 as", "H8 as", "8G as", "8H as"} <= notations
    assert all(p.score == 0 and p.notation.split()[1].islower() for p in plays)


def test_one_tile_plays_are_listed_once(small_lexicon: Lexicon) -> None:
    position = Position.from_cgp("15/15/15/15/15/15/15/4CASA7/15/15/15/15/15/15/15 S 0/0 0")
    plays = [p.notation for p in generate_plays(position.board, position.rack, small_lexicon)]
    assert "H5 CASAS" in plays
    assert len(plays) == len(set(plays))
    assert "9H S" not in plays


def test_sorted_by_score_then_notation_bytes(file2017: Lexicon) -> None:
    plays = generate_plays(Board(), tiles_from_text("AEÑOS") + (BLANK,), file2017)
    keys = [(-p.score, p.notation.encode()) for p in plays]
    assert keys == sorted(keys)


def test_no_rack_no_play(file2017: Lexicon) -> None:
    assert generate_plays(Board(), (), file2017) == []


def test_a_rack_has_at_most_seven_tiles(file2017: Lexicon) -> None:
    with pytest.raises(ValueError, match="como mucho 7"):
        generate_plays(Board(), tiles_from_text("AAAAAAAA"), file2017)
