"""Tile sets with bigger letters than the renders the classifier learnt (issue 69): a still board's letters are read
at the scale they read surest (``vision.board.letter_scale``), its blanks and empty squares as warped."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.board import letter_scale
from vision.board.cells import CELL_PX, board_crops
from vision.board.labels import BLANK, SPANISH
from vision.board.reading import read_board
from vision.board.synthetic import render as R


def _big_letter_board(seed: int, design: str) -> R.Render:
    """A board whose tiles are set in Lato (a calibration family, never trained on nor reported) with letters 0.82
    of a square high, where the renders the classifier learnt draw 0.42-0.62."""
    rng = np.random.default_rng(seed)
    cells = R.random_cells(rng, 0.35, blanks=0.05)
    scene = R.random_scene(rng, cells, split="heldout", hands=0, width=1280, height=720, design=design, family="Lato")
    return R.render(replace(scene, tiles=replace(scene.tiles, letter_size=0.82)))


def _flat(labels: tuple[tuple[str, ...], ...]) -> list[str]:
    return [name for row in labels for name in row]


def test_scaled_crops_at_scale_one_are_the_squares_board_crops_cuts() -> None:
    frame = R.render(R.random_scene(np.random.default_rng(3), split="heldout", hands=0, design="green"))
    plain = board_crops(frame.image, frame.image_from_board).astype(np.float32)
    scaled = letter_scale.scaled_crops(frame.image, frame.image_from_board, 1.0).astype(np.float32)
    assert scaled.shape == plain.shape
    same = float(np.abs(plain - scaled).mean())
    moved = float(np.abs(plain - np.roll(scaled, CELL_PX // 8, axis=2)).mean())  # the same crops 4 px off
    assert same < 4.0 < moved


def test_a_set_with_big_letters_is_read_at_a_smaller_scale_and_its_blanks_as_warped(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _big_letter_board(2, "beige")
    truth = _flat(frame.labels)
    reading = read_board(frame.image)
    monkeypatch.setattr(letter_scale, "SCALES", ())  # the board read as warped only, as before issue 69's ninth session
    as_warped = read_board(frame.image)
    assert reading.found and as_warped.found
    assert reading.letter_scale < 1.0 and as_warped.letter_scale == 1.0

    def letters_right(labels: list[str]) -> int:
        return sum(t == r for t, r in zip(truth, labels) if t in SPANISH)

    read, warped = _flat(reading.labels), _flat(as_warped.labels)
    assert letters_right(read) == sum(t in SPANISH for t in truth) > letters_right(warped) + 3
    assert [k for k, name in enumerate(read) if name == BLANK] == [k for k, name in enumerate(warped) if name == BLANK]
    assert any(t == BLANK for t in truth)
    assert reading.to_json()["letter_scale"] == reading.letter_scale
