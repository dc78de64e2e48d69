"""A slip scores what is written (D.III.25): a word that does not exist, written clearly, scores 0 as written; it is
never taken for the nearest legal play (``H8 JEI`` read JEI is not ``H8 JET``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips import tokens
from vision.slips.decoder import CandidateSet, Decision, Thresholds, decide_scored, score_line
from vision.slips.glyphs import GLYPH_INDEX, GLYPHS, check_letters, clash

EMPTY = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 EIJTAOS 0/0 0"
SNAPPING = Thresholds(accept=0.99, invalid=0.95, reading_prior=12.0)  # a slip almost always holds a legal play
LETTERS = replace(SNAPPING, letter_sure=0.75)


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon.from_words("JET JETA JETO TE SE".split(), name="jet")


def line(text: str, mix: dict[int, dict[str, float]] | None = None, sure: float = 0.97) -> np.ndarray:
    """(T, C) log-probabilities of a recogniser that sees ``text``: each token on two frames, a blank between;
    ``mix`` gives the distribution at token position i."""
    count = len(tokens.TOKENS)
    frames = [np.full(count, (1 - sure) / (count - 1)) for _ in range(2)]
    for frame in frames:
        frame[0] = sure
    for i, char in enumerate(text):
        probs = np.full(count, (1 - sure) / (count - 1))
        if mix and i in mix:
            probs = np.full(count, 1e-4)
            for option, p in mix[i].items():
                probs[tokens.INDEX[option]] = p
        else:
            probs[tokens.INDEX[char]] = sure
        frames += [probs / probs.sum()] * 2
        gap = np.full(count, (1 - sure) / (count - 1))
        gap[0] = sure
        frames.append(gap)
    return np.log(np.array(frames))


def decided(lexicon: Lexicon, log_probs: np.ndarray, limits: Thresholds, cgp: str = EMPTY) -> Decision:
    """The decision on a line, its reading's characters weighed by the line recogniser alone (``check_letters``
    without a glyph classifier)."""
    position = Position.from_cgp(cgp)
    cands = CandidateSet.build(position.board, position.rack, lexicon)
    scored = score_line(log_probs, cands)
    letters, clashes, circled = check_letters(None, None, log_probs, scored, cands)
    scored = replace(scored, letters=letters, clashes=clashes, circled=circled)
    return decide_scored(scored, position.board, position.rack, lexicon, limits)


def test_a_word_that_does_not_exist_read_letter_for_letter_scores_0_as_written(lexicon: Lexicon) -> None:
    """H8 JEI, its I read 4 to 1 over a T: the round's knowledge (a slip almost always holds a legal play) made it
    H8 JET for 20 points. Read letter for letter, it is JEI: 0 as written, not sent to the arbiter."""
    jei = line("H8 JEI", mix={5: {"I": 0.8, "T": 0.2}})
    snapped = decided(lexicon, jei, SNAPPING)
    assert (snapped.verdict, snapped.play, snapped.score) == ("accepted", "H8 JET", 20)  # without the rule
    written = decided(lexicon, jei, LETTERS)
    assert (written.verdict, written.score, written.reading, written.flags) == ("invalid", 0, "H8 JEI", ())
    assert "JEI" in written.reason


def test_a_legal_play_not_written_letter_for_letter_is_not_accepted(lexicon: Lexicon) -> None:
    """The I clear, but the E read only 3 to 2 over an F: JEI is not sure enough to score 0, and JET is not what is
    written: the arbiter decides."""
    unsure = decided(lexicon, line("H8 JEI", mix={4: {"E": 0.6, "F": 0.4}, 5: {"I": 0.8, "T": 0.2}}),
                     LETTERS)  # fmt: skip
    assert (unsure.verdict, unsure.flags, unsure.score) == ("flagged", ("illegible",), None)


def test_a_play_written_as_read_is_still_accepted(lexicon: Lexicon) -> None:
    jet = decided(lexicon, line("H8 JET", mix={5: {"T": 0.8, "I": 0.2}}), LETTERS)
    assert (jet.verdict, jet.play, jet.score) == ("accepted", "H8 JET", 20)


def test_a_reading_is_not_scored_0_where_the_writing_may_be_the_legal_play(lexicon: Lexicon) -> None:
    """H8 JE read surely, JE no word: but a T missing from the writing may be a faint stroke (C2 DIVO, its I and V run
    together, read C2 DNO), so the writing does not rule out H8 JET: not scored 0 silently, offered to the arbiter as
    written."""
    limits = replace(LETTERS, reading_prior=0.0)
    faint = decided(lexicon, line("H8 JE"), limits)
    assert (faint.verdict, faint.score, faint.play, faint.flags) == ("flagged", None, "H8 JE", ("illegible",))
    jei = decided(lexicon, line("H8 JEI"), limits)  # the I read surely where JET has its T: ruled out
    assert (jei.verdict, jei.score) == ("invalid", 0)


@pytest.mark.parametrize(("reading", "form", "clashing"), [
    ("H8JEI", "H8JET", 0.9),  # the play's T, where both networks read an I (at 0.9), seen at 0.1 at best
    ("H8JET", "H8JET", 0.0),
    ("H9JET", "H8JET", 0.0),  # the coordinate is the round's to settle: the word goes there alone
    ("H8JE", "H8JET", 0.0),  # a letter not read is a faint stroke, not another letter
    ("H8JETA", "H8JET", 0.8),  # a letter more, read surely (at 0.8)
    ("H8JEt", "H8JET", 0.9),  # a circle read where the play has the rack's tile: a blank, not the tile
])  # fmt: skip
def test_a_play_clashes_where_the_writing_clearly_says_another_letter(reading: str, form: str, clashing: float) -> None:
    sure = [0.5, 0.5, 0.5, 0.5, 0.9, 0.8][: len(reading)]
    seen = [0.1, 0.1, 0.9, 0.9, 0.1][: len(form)]
    assert clash(reading, sure, form, seen, word=2) == pytest.approx(clashing)


class HandReader:
    """A glyph reader (``glyphs.GlyphReader``) other than the committed classifier, such as one that learned a
    player's hand (``learning.PlayerGlyphs``): it reads the k-th window it is shown as the k-th character of
    ``seen``, surely."""

    def __init__(self, seen: str) -> None:
        self.seen = seen

    def log_probs(self, images: np.ndarray) -> np.ndarray:
        out = np.full((len(images), len(GLYPHS) + 2), np.log(1e-4), np.float32)
        for k, char in enumerate(self.seen[: len(images)]):
            out[k, GLYPH_INDEX[char]] = 0.0
        out[:, len(GLYPHS)] = 0.0  # plain, not circled
        return out


@pytest.mark.parametrize(("seen", "verdict", "score"), [("H8JEI", "invalid", 0), ("H8JET", "accepted", 20)])
def test_the_letters_are_read_by_whichever_glyph_reader_reads_the_player(lexicon: Lexicon, seen: str, verdict: str,
                                                                         score: int) -> None:  # fmt: skip
    """The same line, its last letter read 4 to 1 an I over a T by the line recogniser: where the player's glyph
    reader sees JEI, the writing clearly says JEI (0 as written); where it sees JET, JET is what is written."""
    log_probs = line("H8 JEI", mix={5: {"I": 0.8, "T": 0.2}})
    prepared = np.ones((32, 4 * len(log_probs)), np.float32)
    position = Position.from_cgp(EMPTY)
    cands = CandidateSet.build(position.board, position.rack, lexicon)
    scored = score_line(log_probs, cands)
    letters, clashes, circled = check_letters(HandReader(seen), prepared, log_probs, scored, cands)
    checked = replace(scored, letters=letters, clashes=clashes, circled=circled)
    decision = decide_scored(checked, position.board, position.rack, lexicon, LETTERS)
    assert (decision.verdict, decision.score) == (verdict, score)


def test_a_reading_not_sure_letter_for_letter_is_not_scored_0(lexicon: Lexicon) -> None:
    """H8 JEI read as a whole surely, but its letters each less surely than ``letter_sure`` (C2 DIVO, its I and V run
    together into a doubtful N, was read C2 DNO so): the arbiter decides, offered JEI as written, not a silent 0."""
    limits = replace(LETTERS, reading_prior=0.0, letter_sure=0.98)  # each letter read at 0.97
    doubtful = decided(lexicon, line("H8 JEI"), limits)
    assert (doubtful.verdict, doubtful.score, doubtful.play) == ("flagged", None, "H8 JEI")
    assert decided(lexicon, line("H8 JEI"), replace(limits, letter_sure=0.95)).score == 0


def test_a_sure_misreading_of_a_likely_legal_play_goes_to_the_arbiter_not_to_0(lexicon: Lexicon) -> None:
    """H8 JEI, every letter read surely, yet the round's knowledge makes H8 JET all but certain (``zero_against``):
    both networks misreading one letter the same way (5C rOLLARA read rOLLARI) is the likelier story than a player
    writing a word that does not exist, so no 0 is given silently: the arbiter sees it."""
    jei = line("H8 JEI", mix={5: {"I": 0.8, "T": 0.2}})
    kept = decided(lexicon, jei, replace(LETTERS, zero_against=0.99))
    assert (kept.verdict, kept.score, kept.flags) == ("flagged", None, ("illegible",))
    assert decided(lexicon, jei, replace(LETTERS, zero_against=1.0)).score == 0  # the rule off: 0 as written


BLANK_RACK = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 EIJT?OS 0/0 0"


@pytest.mark.parametrize(("circled", "verdict", "flags"), [(0.9, "flagged", ("blank_letter_unsure",)),
                                                           (0.97, "accepted", ())])  # fmt: skip
def test_a_blank_is_accepted_only_where_its_circled_letter_is_read_surely(lexicon: Lexicon, circled: float,
                                                                         verdict: str, flags: tuple[str, ...]) -> None:  # fmt: skip
    """H8 JETa: the blank is an A, circled. JETA and JETO are both words, so nothing but the circle says which letter
    the blank stands for (D.III.20.3); read 9 to 1 an a over an o, the play is likely enough to be accepted, but a
    blank's letter read so is the arbiter's to check (7H RUi accepted as RUo): only a circle read as surely as
    ``circled_sure`` asks is accepted."""
    limits = replace(LETTERS, accept=0.9, circled_sure=0.95)
    jeta = line("H8 JETa", mix={6: {"a": circled, "o": 1 - circled}})
    decision = decided(lexicon, jeta, limits, BLANK_RACK)
    assert (decision.verdict, decision.play, decision.flags) == (verdict, "H8 JETa", flags)
    assert decided(lexicon, jeta, replace(limits, circled_sure=0.0), BLANK_RACK).verdict == "accepted"  # rule off
