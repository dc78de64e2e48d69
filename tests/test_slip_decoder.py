"""The slip decoder on constructed recogniser outputs: what the handwriting says, decided with the round's knowledge."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips import tokens
from vision.slips.decoder import (
    CandidateSet,
    Thresholds,
    confirmed_plays,
    decide,
    decide_scored,
    format_reading,
    lead,
    score_line,
    split_plays,
)  # fmt: skip
from vision.slips.fields import choose

EMPTY = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"
CHORIZO = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15"


def written(text: str, sure: float = 0.97, mix: dict[int, dict[str, float]] | None = None) -> np.ndarray:
    """(T, C) log-probabilities of a recogniser that sees ``text``: each token on two frames, a blank between.

    ``mix`` replaces the distribution at token position i (e.g. {6: {"A": 0.5, "O": 0.5}}).
    """
    C = len(tokens.TOKENS)
    frames = [np.full(C, (1 - sure) / (C - 1)) for _ in range(2)]
    for frame in frames:
        frame[0] = sure
    for i, char in enumerate(text):
        probs = np.full(C, (1 - sure) / (C - 1))
        if mix and i in mix:
            probs = np.full(C, 1e-4)
            for option, p in mix[i].items():
                probs[tokens.INDEX[option]] = p
        else:
            probs[tokens.INDEX[char]] = sure
        frames += [probs / probs.sum(), probs / probs.sum()]
        gap = np.full(C, (1 - sure) / (C - 1))
        gap[0] = sure
        frames.append(gap)
    return np.log(np.array(frames))


def verdict(lexicon: Lexicon, cgp: str, text: str, **kwargs: object) -> dict[str, object]:
    position = Position.from_cgp(cgp)
    cands = CandidateSet.build(position.board, position.rack, lexicon)
    decision = decide(written(text, **kwargs), cands, position.board, position.rack, lexicon, Thresholds())  # type: ignore[arg-type]
    return decision.to_json()


def test_a_clear_play_is_accepted_with_its_score(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "12F CASA")
    assert (result["play"], result["score"], result["verdict"], result["flags"]) == ("12F CASA", 28, "accepted", [])
    assert result["confidence"] > 0.95
    assert result["reading"] == "12F CASA"


def test_oriented_notation_with_either_coordinate_order_is_the_same_play(small_lexicon: Lexicon) -> None:
    for text in ("12F CASA↓", "F12 CASA↓"):
        result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", text)
        assert (result["play"], result["score"], result["verdict"]) == ("12F CASA", 28, "accepted")


def test_a_circled_blank_is_accepted_as_that_blank(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{EMPTY} CASEIO? 0/0 0", "H8 CASa")
    assert (result["play"], result["score"], result["verdict"]) == ("H8 CASa", 10, "accepted")


def test_a_circled_digraph_blank(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{EMPTY} CASEIO? 0/0 0", "8E CArrO")
    assert (result["play"], result["score"], result["verdict"]) == ("8E CArrO", 10, "accepted")


def test_an_unmarked_blank_the_play_needs_is_flagged(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{EMPTY} CASEIO? 0/0 0", "H8 CASA")
    assert result["verdict"] == "flagged" and result["flags"] == ["unmarked_blank"]
    assert str(result["play"]).upper() == "H8 CASA" and result["score"] is None


def test_a_circle_with_no_blank_on_the_rack_is_flagged(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{EMPTY} AACSEIO 0/0 0", "H8 CASa")
    assert result["verdict"] == "flagged" and result["flags"] == ["circled_without_blank"]
    assert result["reading"] == "H8 CASa"


def test_a_coordinate_in_the_wrong_order_is_flagged(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "F12 CASA")
    assert result["verdict"] == "flagged" and result["flags"] == ["coordinate_order"]
    assert result["play"] == "12F CASA"


def test_a_word_not_in_the_lexicon_is_read_as_written_and_scores_zero(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "12F CASE")
    assert (result["verdict"], result["score"], result["reading"]) == ("invalid", 0, "12F CASE")
    assert "CASE" in str(result["reason"])


def test_a_play_whose_writing_goes_on_past_it_is_not_accepted(small_lexicon: Lexicon) -> None:
    """12F CASAE clearly written: even when the round's knowledge makes 12F CASA the likeliest
    outcome, the writing shows a letter more than that play, and the arbiter sees the slip."""
    position = Position.from_cgp(f"{CHORIZO} AACSEIO 0/0 0")
    cands = CandidateSet.build(position.board, position.rack, small_lexicon)
    sure_of_plays = Thresholds(accept=0.5, invalid=0.5, reading_prior=14.0)
    result = decide(written("12F CASAE", sure=0.9), cands, position.board, position.rack, small_lexicon,
                    sure_of_plays).to_json()  # fmt: skip
    assert (result["verdict"], result["flags"], result["play"]) == ("flagged", ["illegible"], "12F CASA")
    assert result["reading"] == "12F CASAE"
    plain = decide(written("12F CASA", sure=0.9), cands, position.board, position.rack, small_lexicon,
                   sure_of_plays).to_json()  # fmt: skip
    assert (plain["verdict"], plain["play"]) == ("accepted", "12F CASA")


def test_a_word_read_as_written_that_ends_with_a_legal_play_at_its_coordinate_is_not_scored_zero(
    small_lexicon: Lexicon,
) -> None:
    """12F LECASA read as written ends with 12F CASA, a legal play: LE is most likely a word given up and struck
    out that the strike tests missed. Two plays may be visible (D.III.20.2): the arbiter decides, not a silent 0.
    A word that does not end so (12F CASE: neither SE nor ASE is legal there) is still scored 0."""
    result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "12F LECASA")
    assert (result["verdict"], result["flags"], result["reading"]) == ("flagged", ["several_plays"], "12F LECASA")
    assert verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "12F CASE")["verdict"] == "invalid"


def test_an_illegal_placement_is_read_as_written(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "A1 CASA")
    assert (result["verdict"], result["score"], result["reading"]) == ("invalid", 0, "A1 CASA")
    assert result["reason"]


def test_a_reading_that_lays_more_tiles_than_a_rack_holds_goes_to_the_arbiter(small_lexicon: Lexicon) -> None:
    """A1 CASACASA would lay eight tiles from a rack of seven (C.6): no player laid it, so the reading is most likely
    wrong (a coordinate misread off the player's tiles), and it is not scored 0 as written. Seven tiles still are."""
    result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "A1 CASACASA")
    assert (result["verdict"], result["flags"], result["reading"]) == ("flagged", ["illegible"], "A1 CASACASA")
    assert verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "A1 CASACAS")["verdict"] == "invalid"


def test_two_plays_written_are_flagged(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "12F CASA 11E CASO")
    assert result["verdict"] == "flagged" and result["flags"] == ["several_plays"]


def test_a_word_without_coordinate_is_position_unknown(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "CASA")
    assert result["verdict"] == "flagged" and result["flags"] == ["position_unknown"]


def test_two_plays_equally_likely_are_flagged_with_both_candidates(small_lexicon: Lexicon) -> None:
    result = verdict(small_lexicon, f"{CHORIZO} AACSEIO 0/0 0", "12F CASA", mix={7: {"A": 0.5, "O": 0.5}})
    assert result["verdict"] == "flagged" and result["flags"] == ["illegible"]
    plays = [c["play"] for c in result["candidates"][:2]]  # type: ignore[index]
    assert sorted(plays) == ["12F CASA", "12F CASO"]


def test_choose_a_round_number_and_refuse_what_is_not_one() -> None:
    assert choose(written("12"), ["1", "2", "12", "21"])[0] == "12"
    assert choose(written("12"), ["1", "2", "12", "21"])[1] > 0.9
    assert choose(written("7"), ["1", "2", "12"])[1] < 0.1


@pytest.mark.parametrize(("raw", "expected"), [("H8CASA", "H8 CASA"), ("8H-CASA→", "8H CASA →"), ("12FCASA11ECASO", "12F CASA 11E CASO")])
def test_format_reading(raw: str, expected: str) -> None:
    assert format_reading(raw) == expected


def test_split_plays_needs_a_whole_reading() -> None:
    assert split_plays("H8CASA") == ["H8 CASA"]
    assert split_plays("CASA") == []
    assert split_plays("H8") == []


def test_a_play_that_barely_leads_its_runner_up_is_flagged(small_lexicon: Lexicon) -> None:
    position = Position.from_cgp(f"{CHORIZO} AACSEIO 0/0 0")
    cands = CandidateSet.build(position.board, position.rack, small_lexicon)
    lp = written("12F CASA", mix={7: {"A": 0.9, "O": 0.1}})
    loose = decide(lp, cands, position.board, position.rack, small_lexicon, Thresholds(accept=0.5))
    assert (loose.play, loose.verdict) == ("12F CASA", "accepted")
    strict = decide(lp, cands, position.board, position.rack, small_lexicon, Thresholds(accept=0.5, margin=6.0))
    assert strict.verdict == "flagged" and strict.flags == ("illegible",)
    assert lead(strict.options) == pytest.approx(np.log(strict.options[0].probability / strict.options[1].probability))


def test_a_temperature_above_one_lowers_the_confidence(small_lexicon: Lexicon) -> None:
    position = Position.from_cgp(f"{CHORIZO} AACSEIO 0/0 0")
    cands = CandidateSet.build(position.board, position.rack, small_lexicon)
    lp = written("12F CASA", mix={7: {"A": 0.9, "O": 0.1}})
    sure = decide(lp, cands, position.board, position.rack, small_lexicon, Thresholds(accept=0.5))
    doubtful = decide(lp, cands, position.board, position.rack, small_lexicon, Thresholds(accept=0.5, temperature=2.0))
    assert doubtful.play == sure.play == "12F CASA"
    assert 0.5 < doubtful.confidence < sure.confidence


def test_other_views_of_the_line_outvote_a_misreading_of_one(small_lexicon: Lexicon) -> None:
    position = Position.from_cgp(f"{CHORIZO} AACSEIO 0/0 0")
    cands = CandidateSet.build(position.board, position.rack, small_lexicon)
    misread = written("12F CASA", mix={7: {"A": 0.3, "O": 0.7}})
    alone = decide_scored(score_line(misread, cands), position.board, position.rack, small_lexicon, Thresholds())
    assert alone.options[0].text == "12F CASO"
    views = [written("12F CASA"), written("12F CASA", mix={7: {"A": 0.8, "O": 0.2}})]
    together = decide_scored(score_line(misread, cands, views=views), position.board, position.rack, small_lexicon,
                             Thresholds())  # fmt: skip
    assert (together.play, together.verdict) == ("12F CASA", "accepted")


def test_a_play_the_unconstrained_reading_writes_too_needs_only_the_confirmed_threshold(small_lexicon: Lexicon) -> None:
    """Between ``confirmed_accept`` and ``accept``, a play is accepted only where the raw reading
    is that play's writing: 12F CASA read CASA on its own is accepted; 12F CASA chosen over a raw
    CASE (no word: the round's knowledge picks CASA) at the same confidence goes to the arbiter."""
    position = Position.from_cgp(f"{CHORIZO} AACSEIO 0/0 0")
    cands = CandidateSet.build(position.board, position.rack, small_lexicon)
    for raw_letter, other, confirmed in (("A", "E", True), ("E", "A", False)):
        scored = score_line(written("12F CASA", mix={7: {raw_letter: 0.6, other: 0.4}}), cands)
        assert scored.confirmed == ({"12F CASA"} if confirmed else set())
        free = decide_scored(scored, position.board, position.rack, small_lexicon, Thresholds(accept=0.0))
        assert free.play == "12F CASA"
        between = Thresholds(accept=min(1.0, free.confidence + 0.01), confirmed_accept=free.confidence - 0.01)
        decision = decide_scored(scored, position.board, position.rack, small_lexicon, between)
        assert decision.verdict == ("accepted" if confirmed else "flagged")
        alike = decide_scored(scored, position.board, position.rack, small_lexicon, replace(between, confirmed_accept=0.0))
        assert alike.verdict == "flagged"  # without a confirmed threshold, ``accept`` holds for both


@pytest.mark.parametrize(("raw", "plays"), [
    ("12F CASA", {"12F CASA"}),  # a written form of the play
    ("12F-CASA →", {"12F CASA"}),  # separators and the arrow aside
    ("I2F CASA", {"12F CASA"}),  # 1 read as I: CASA goes only at 12F, a coordinate as long
    ("I2F CASO", {"12F CASO"}),  # CASO goes at 7E, 11E and 12F: the word read right, the coordinate one off 12F
    ("11F CASO", {"11E CASO", "12F CASO"}),  # one off two places: the posterior decides between them
    ("7F CASO", {"7E CASO"}),
    ("12F CASO", {"12F CASO"}),  # written in full
    ("F12 CASA", set()),  # the coordinate in the other order is a mistake of its own (D.III.20.4), no lookalike
    ("F13 CASA ↓", {"12F CASA"}),  # ... but with the play's arrow either order is right (D.III.20.1.b), one off
    ("F13 CASA →", set()),  # (12F is vertical: the other arrow is a mistake too)
    ("F13 CASA", set()),
    ("12F CASa", set()),  # a circle the play has not
    ("2F CASA", set()),  # a coordinate character missing
    ("12F CASE", set()),  # a word that does not exist: the legal word one letter away is not confirmed
])  # fmt: skip
def test_which_plays_a_raw_reading_confirms(small_lexicon: Lexicon, raw: str, plays: set[str]) -> None:
    position = Position.from_cgp(f"{CHORIZO} AACSEIO 0/0 0")
    assert confirmed_plays(raw, CandidateSet.build(position.board, position.rack, small_lexicon)) == plays
