"""Two line recognisers read together (``SlipReader.second``): each written play is weighed by both networks, at
the level of whole readings (the mean of its log-probabilities over both networks' views), never frame by frame,
since two CTC networks place their characters on frames of their own."""

from __future__ import annotations

import numpy as np
import pytest

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips.decoder import Scored, Thresholds
from vision.slips.reader import SlipReader

from .test_slip_as_written import EMPTY, line


class FixedRecognizer:
    """A line recogniser (``recognizer.Recognizer``'s ``log_probs``) that sees the same output on every view."""

    def __init__(self, output: np.ndarray) -> None:
        self.output = output.astype(np.float32)
        self.views = 0

    def log_probs(self, image: np.ndarray) -> np.ndarray:
        self.views += 1
        return self.output


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon.from_words("JET JETA JETO TE SE".split(), name="jet")


def value(scored: Scored, play: str) -> float:
    """The log-probability the scoring gave ``play`` (its best written form)."""
    return max(v for kind, p, _, v in scored.entries if kind == "play" and p == play)


def scored_by(lexicon: Lexicon, first: FixedRecognizer, second: FixedRecognizer | None) -> Scored:
    position = Position.from_cgp(EMPTY)
    reader = SlipReader(lexicon, first, Thresholds(variants=3), second=second)  # type: ignore[arg-type]
    image = np.random.default_rng(7).integers(0, 255, (48, 240), dtype=np.uint8)
    return reader.score_line(image, position.board, position.rack)


def test_a_second_network_settles_what_the_first_leaves_even(lexicon: Lexicon) -> None:
    even = line("H8 JETA", mix={6: {"A": 0.5, "O": 0.5}})  # the first: JETA or JETO, even
    blanks = np.log(np.full((5, even.shape[1]), 1e-4))
    blanks[:, 0] = 0.0
    sure = np.concatenate([blanks, line("H8 JETO")])  # the second, on frames of its own: JETO

    alone = scored_by(lexicon, FixedRecognizer(even), None)
    assert value(alone, "H8 JETA") == pytest.approx(value(alone, "H8 JETO"), abs=0.01)

    first, second = FixedRecognizer(even), FixedRecognizer(sure)
    together = scored_by(lexicon, first, second)
    assert value(together, "H8 JETO") > value(together, "H8 JETA") + 1.0
    assert first.views == 3 and second.views == 3  # the line and two variants, each read by both


def test_where_the_networks_disagree_neither_reading_is_sure(lexicon: Lexicon) -> None:
    first, second = FixedRecognizer(line("H8 JETA")), FixedRecognizer(line("H8 JETO"))
    alone = scored_by(lexicon, FixedRecognizer(line("H8 JETA")), None)
    together = scored_by(lexicon, first, second)
    lead_alone = value(alone, "H8 JETA") - value(alone, "H8 JETO")
    lead_together = value(together, "H8 JETA") - value(together, "H8 JETO")
    assert lead_alone > 5.0 and abs(lead_together) < lead_alone / 4
