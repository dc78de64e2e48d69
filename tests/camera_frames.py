"""Rendered frames of a board camera for the camera tests: an empty board, then H8 CASA."""

from __future__ import annotations

import shutil
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from rules_core.alphabet import tile_from_label
from vision.board.synthetic import render as R

CASA = {(7, 7 + i): tile_from_label(letter) for i, letter in enumerate("CASA")}


def board_image(tiles: dict[tuple[int, int], int], jpeg: int = 85) -> np.ndarray:
    """The board with ``tiles`` (square -> tile) as one camera sees it: turned a quarter
    (row A to the side), one light, 1280x720 BGR."""
    rng = np.random.default_rng(5)
    base = R.random_scene(rng, R.empty_labels(), hands=0, width=1280, height=720)
    camera = R.Camera(1280, 720, (640, 360), 560, 93.0, 0.04, 200.0, 40.0)
    scene = replace(base, camera=camera, lighting=R.Lighting(gain=0.95, noise=2.0, blur=0.6, jpeg=jpeg),
                    tiles=replace(R.TileStyle(), font=R.available_fonts(R.TRAIN_FONTS)[0]))  # fmt: skip
    cells = [list(row) for row in R.empty_labels()]
    for square, name in R.tiles_to_labels(tiles).items():
        cells[square[0]][square[1]] = name
    return R.render(replace(scene, cells=cells)).image


@lru_cache(maxsize=1)
def _shots() -> tuple[bytes, bytes]:
    """JPEG bytes of the empty board and of the board with H8 CASA (one camera, one light)."""
    return _jpeg(board_image({})), _jpeg(board_image(CASA))


def _jpeg(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes()


def write_game(folder: Path, empty: int = 4, played: int = 8) -> Path:
    """A folder of frames: ``empty`` frames of the empty board, then ``played`` with H8 CASA."""
    folder.mkdir(parents=True, exist_ok=True)
    shots = _shots()
    for k in range(empty + played):
        (folder / f"frame-{k}.jpg").write_bytes(shots[0] if k < empty else shots[1])
    return folder


def copy_frames(source: Path, folder: Path) -> Path:
    shutil.copytree(source, folder)
    return folder
