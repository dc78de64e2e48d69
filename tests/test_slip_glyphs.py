"""A play line's characters read one by one where the line recogniser places them (``vision.slips.glyphs``)."""

from __future__ import annotations

import numpy as np
import pytest

from models.slips import synth
from models.slips.cases import REAL
from models.slips.synth import line_glyphs
from vision.slips import glyphs, tokens
from vision.slips.decoder import Scored, Thresholds, decide_scored
from vision.slips.synthetic import handwriting as hw


def frames(text: str, at: dict[int, int], length: int) -> np.ndarray:
    """(length, C) log-probabilities: blank everywhere but the frames ``at`` (frame -> index in ``text``)."""
    probs = np.full((length, len(tokens.TOKENS)), 1e-4)
    probs[:, 0] = 1.0
    for frame, i in at.items():
        probs[frame, 0] = 1e-4
        probs[frame, tokens.INDEX[text[i]]] = 1.0
    probs /= probs.sum(1, keepdims=True)
    return np.log(probs)


def test_each_character_is_placed_on_the_frames_the_recogniser_reads_it_in() -> None:
    """H at frame 2, 8 at 5-6, a doubled A at 9 and 12 (a blank between): each its own frames."""
    text = "H8AA"
    log_probs = frames(text, {2: 0, 5: 1, 6: 1, 9: 2, 12: 3}, 16)
    spans = glyphs.align(log_probs, tokens.encode(text))
    assert spans == [(2, 2), (5, 6), (9, 9), (12, 12)]
    assert glyphs.centres_of(spans) == [10.0, 24.0, 38.0, 50.0]
    assert glyphs.align(log_probs[:3], tokens.encode(text)) is None  # fewer frames than characters


def test_a_window_is_centred_on_the_character_with_paper_beyond_the_line() -> None:
    line = np.zeros((32, 40), np.float32)
    line[10:20, 3:5] = 1.0  # a stroke at x 3-4
    cut = glyphs.windows(line, [4.0, 100.0])
    assert cut.shape == (2, 32, 32)
    assert cut[0, 10:20, 15:17].min() == 1.0 and cut[0].sum() == line.sum()
    assert cut[1].sum() == 0.0


def test_the_characters_read_are_the_capitals_and_digits_a_circle_marking_a_blank() -> None:
    assert [(i, glyphs.GLYPHS[g], c) for i, g, c in glyphs.glyph_labels("H8CAsa→")] == [
        (0, "H", 0), (1, "8", 0), (2, "C", 0), (3, "A", 0), (4, "S", 1), (5, "A", 1)]  # fmt: skip


class ReadsAOne(glyphs.GlyphRecognizer):
    """Every window read as the digit 1 (0.9), the letter I (0.06) or the letter L (0.04), plain."""

    def __init__(self) -> None:
        pass

    def log_probs(self, images: np.ndarray) -> np.ndarray:
        row = np.full(len(glyphs.GLYPHS) + 2, 1e-12)
        for glyph, p in (("1", 0.9), ("I", 0.06), ("L", 0.04)):
            row[glyphs.GLYPH_INDEX[glyph]] = p
        row[len(glyphs.GLYPHS)] = 1.0
        return np.log(np.tile(row, (len(images), 1))).astype(np.float32)


def test_a_character_is_weighed_only_against_characters_of_its_kind() -> None:
    """A coordinate is a letter and a number and a word is letters (D.III.20.1): where the written form has
    a letter, a window read as 1 (0.9) or I (0.06) or L (0.04) holds an I with 0.6 and an L with 0.4; where
    it has a digit, a 1 with 1.0. Digits and letters that look alike (1 I, 0 O, 5 S) do not count against
    each other; letters still count against letters."""
    line = np.zeros((32, 40), np.float32)
    for text, expected in (("I", 0.6), ("L", 0.4), ("1", 1.0), ("O", 0.0)):
        log_probs = frames(text, {4: 0}, 10)
        assert glyphs.glyph_check(ReadsAOne(), line, log_probs, text) == pytest.approx(expected, abs=1e-6)


def scored_with(glyph: float) -> Scored:
    return Scored("H8 CASA", (("play", "H8 CASA", 12, -0.3), ("play", "H8 CASO", 12, -1.2)), glyphs={"H8 CASA": glyph})


def test_a_play_read_as_written_glyph_by_glyph_needs_only_the_glyph_threshold(file2017) -> None:  # type: ignore[no-untyped-def]
    """At 0.71 the play is below ``accept`` (0.9): accepted only when every character is read as written."""
    from rules_core.board import Board

    limits = Thresholds(accept=0.9, glyph_accept=0.6, glyph_sure=0.8)
    sure, unsure = scored_with(0.85), scored_with(0.5)
    board, rack = Board(), list("ACSAXYZ")
    assert decide_scored(sure, board, rack, file2017, limits).verdict == "accepted"
    assert decide_scored(unsure, board, rack, file2017, limits).verdict == "flagged"
    assert decide_scored(sure, board, rack, file2017, Thresholds(accept=0.9)).verdict == "flagged"  # off


def test_the_committed_classifier_reads_the_characters_of_real_hands_it_never_saw() -> None:
    """The real characters' test split (never trained on), lines placed by the committed line recogniser:
    at least 9 characters in 10 right, circles right on at least 19 in 20."""
    rng = np.random.default_rng(12)
    words, pool = ["CHORIZO", "ÑANDU", "EXAMEN", "LLAVE", "PERRO", "QUEJA"], [hw.load_real_writer(REAL, "test")]
    cut = [g for _ in range(20) for g in line_glyphs(synth.make_slip_sample(rng, words, pool), None)]
    out = glyphs.GlyphRecognizer().log_probs(np.stack([image for image, _, _ in cut]))
    read, circles = out[:, : len(glyphs.GLYPHS)].argmax(1), out[:, len(glyphs.GLYPHS) :].argmax(1)
    assert len(cut) >= 100
    assert np.mean([r == g for (_, g, _), r in zip(cut, read)]) >= 0.9
    assert np.mean([r == c for (_, _, c), r in zip(cut, circles)]) >= 0.95


def test_the_committed_classifier_gives_a_distribution_over_the_characters_and_over_the_circle() -> None:
    """The committed file joins two networks (mean of their probabilities): each part of a window's output must
    still sum to one, as ``glyph_check`` reads it (letter and circle log-probabilities added)."""
    windows = np.random.default_rng(3).random((5, 32, 32), dtype=np.float32)
    out = np.exp(glyphs.GlyphRecognizer().log_probs(windows).astype(np.float64))
    assert out.shape == (5, len(glyphs.GLYPHS) + 2)
    assert np.allclose(out[:, : len(glyphs.GLYPHS)].sum(1), 1.0, atol=1e-4)
    assert np.allclose(out[:, len(glyphs.GLYPHS) :].sum(1), 1.0, atol=1e-4)


def test_a_phony_is_scored_0_as_written_only_where_its_characters_are_read_so_one_by_one(file2017) -> None:  # type: ignore[no-untyped-def]
    """D.III.25: a word not in the lexicon scores 0; with the glyph path on, only when each character is read
    as written, else the arbiter sees it (``illegible``)."""
    from rules_core.board import Board

    def read(glyph: float) -> Scored:
        return Scored("H8 CASAX", (("reading", "H8CASAX", None, -0.1),), glyphs={"H8CASAX": glyph})

    limits = Thresholds(invalid=0.5, glyph_accept=0.6, glyph_sure=0.8)
    board, rack = Board(), list("ACSAXYZ")
    written = decide_scored(read(0.9), board, rack, file2017, limits)
    assert (written.verdict, written.score) == ("invalid", 0)
    assert decide_scored(read(0.3), board, rack, file2017, limits).flags == ("illegible",)
    assert decide_scored(read(0.3), board, rack, file2017, Thresholds(invalid=0.5)).verdict == "invalid"  # off
