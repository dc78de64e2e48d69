"""The tracker on a rendered game with hands: plays committed once the hands leave, a blank
named by the lexicon, a phony confirmed by the arbiter and then taken back after a challenge."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hardware.camera import Frame
from rules_core.alphabet import as_blank, tile_from_label
from rules_core.lexicon import Lexicon
from vision.board import render as R
from vision.board.scenes import game_frames
from vision.board.tracker import BoardTracker, Report, TrackerSettings

from .camera_frames import board_image


def _tiles(spec: str) -> dict[tuple[int, int], int]:
    """``"H8 C, H9 A"`` -> {(7, 7): C, (7, 8): A}; ``?`` is a blank (letter unknown to the camera)."""
    out = {}
    for part in spec.split(","):
        square, letter = part.split()
        row, col = "ABCDEFGHIJKLMNO".index(square[0]), int(square[1:]) - 1
        out[(row, col)] = as_blank(tile_from_label("S")) if letter == "?" else tile_from_label(letter)
    return out


@pytest.fixture(scope="module")
def scene() -> R.Scene:
    empty = board_image({}, jpeg=90)
    played = board_image({(7, 7): tile_from_label("E"), (7, 8): tile_from_label("S")}, jpeg=90)
    tracker = BoardTracker("mesa-1", file2017)
    reports = []
    for k, image in enumerate([empty] * 4 + [played] * 6):
        reports += tracker.feed(Frame(image, k * 0.2, k))
    assert [r.notation for r in reports if r.kind == "play"] == ["H8 ES"]
    assert not [r for r in reports if r.reason == "orientation"]
    assert tracker.status.turn is not None
