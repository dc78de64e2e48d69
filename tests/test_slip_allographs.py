"""Hand-drawn character variants for training the slip recogniser (models/slips/allographs.py)."""

from __future__ import annotations

import numpy as np
import pytest

from models.slips.allographs import HEIGHT, SHAPES, AllographWriter, draw
from vision.slips.synthetic import handwriting as hw


class BlockWriter:
    """A stand-in hand: every glyph a solid block, so a drawn variant is told apart at once."""

    name = "block"

    def glyph(self, char: str, rng: np.random.Generator, pen: float) -> hw.Mask:
        return np.ones((40, 30), np.float32)


@pytest.mark.parametrize("char", sorted(SHAPES))
def test_each_variant_is_a_stroke_drawing_one_cap_height_high(char: str) -> None:
    rng = np.random.default_rng(3)
    for shape in SHAPES[char]:
        mask = draw(shape(rng), rng, pen=1.0)
        height, width = mask.shape
        assert HEIGHT * 0.9 <= height <= HEIGHT * 1.3, (char, mask.shape)
        assert 0.05 < float((mask > 0.5).mean()) < 0.6, char  # strokes, not a blot nor nothing
        assert width >= 4


def test_a_variant_is_drawn_only_for_characters_that_have_one() -> None:
    rng = np.random.default_rng(4)
    writer = AllographWriter(BlockWriter(), share=1.0)
    assert (writer.glyph("B", rng, 1.0) == 1.0).all()  # no variant of B: the hand's own
    assert not (writer.glyph("E", rng, 1.0) > 0.5).all()


def test_only_the_chosen_characters_get_their_variants() -> None:
    rng = np.random.default_rng(7)
    writer = AllographWriter(BlockWriter(), share=1.0, chars="E")
    assert not (writer.glyph("E", rng, 1.0) > 0.5).all()
    assert (writer.glyph("L", rng, 1.0) == 1.0).all()  # L has a variant, but was not chosen


def test_share_sets_how_often_the_variant_replaces_the_hands_glyph() -> None:
    rng = np.random.default_rng(5)
    never = AllographWriter(BlockWriter(), share=0.0)
    assert all((never.glyph("E", rng, 1.0) == 1.0).all() for _ in range(20))
    half = AllographWriter(BlockWriter(), share=0.5)
    drawn = sum(not (half.glyph("E", rng, 1.0) == 1.0).all() for _ in range(400))
    assert 150 < drawn < 250


def test_a_line_with_variants_lays_out_like_any_other() -> None:
    rng = np.random.default_rng(6)
    writer = AllographWriter(hw.HersheyWriter(0), share=1.0)
    mask = hw.render_line("J7 LEGO", writer, rng)
    assert mask.ndim == 2 and mask.shape[1] > 3 * mask.shape[0]
    assert float(mask.max()) > 0.9
