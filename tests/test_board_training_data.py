"""The cell classifier's training crops (``models.board.data``): the share of blank tiles a
scene is drawn with (``make_data --blanks``), so that blanks can be made as common as training needs,
and the font families its tiles are set in (``make_data --families``)."""

from __future__ import annotations

import numpy as np
import pytest

from models.board import data
from vision.board import render_random
from vision.board.labels import BLANK, CLASSES, EMPTY
from vision.board.render_designs import family_of


def _labels(blanks: float | None, seed: int = 3) -> set[str]:
    _, y = data.render_samples(np.random.default_rng(seed), "train", keep_empty=0.0, hands=0, foreign=0.0, blanks=blanks)
    return {CLASSES[int(i)] for i in y}


def test_a_scene_drawn_with_every_tile_blank_gives_blank_crops_only() -> None:
    labels = _labels(blanks=1.0)
    assert BLANK in labels and labels <= {BLANK, EMPTY}  # the centre square is kept even when empty


def test_a_scene_drawn_without_blanks_has_letters_and_no_blank() -> None:
    labels = _labels(blanks=0.0)
    assert BLANK not in labels and len(labels - {EMPTY}) >= 3


def test_scenes_drawn_with_font_families_set_their_tiles_in_those_families_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """``make_data --families``: the serif-heavy crops of issue 20's eighteenth revision."""
    fonts: list[str] = []
    real_style = render_random.design_tile_style

    def recording_style(rng: np.random.Generator, names: tuple[str, ...]) -> object:
        fonts.extend(names)
        return real_style(rng, names)

    monkeypatch.setattr(render_random, "design_tile_style", recording_style)
    rng = np.random.default_rng(5)
    for _ in range(3):
        data.render_samples(rng, "train", keep_empty=0.0, hands=0, designs=("green", "beige"), families=("DejaVu Serif", "FreeSerif"))
    assert fonts and {family_of(f) for f in fonts} <= {"DejaVu Serif", "FreeSerif"}
