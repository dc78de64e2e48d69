"""The cell classifier's training crops (``models.board.data``): the share of blank tiles a
scene is drawn with (``make_data --blanks``), so that blanks can be made as common as training needs."""

from __future__ import annotations

import numpy as np

from models.board import data
from vision.board.labels import BLANK, CLASSES, EMPTY


def _labels(blanks: float | None, seed: int = 3) -> set[str]:
    _, y = data.render_samples(np.random.default_rng(seed), "train", keep_empty=0.0, hands=0, foreign=0.0, blanks=blanks)
    return {CLASSES[int(i)] for i in y}


def test_a_scene_drawn_with_every_tile_blank_gives_blank_crops_only() -> None:
    labels = _labels(blanks=1.0)
    assert BLANK in labels and labels <= {BLANK, EMPTY}  # the centre square is kept even when empty


def test_a_scene_drawn_without_blanks_has_letters_and_no_blank() -> None:
    labels = _labels(blanks=0.0)
    assert BLANK not in labels and len(labels - {EMPTY}) >= 3
