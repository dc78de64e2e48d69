"""Cell crops for the board classifier: from renders (``vision.board.synthetic.render``) and real photos.

Real photos are the German set in ``$VEEDOR_SHARED/data/boards_de`` (test data, read
in place, never copied). Whole games are kept apart (``TRAIN_GAMES`` for training,
``HELDOUT_GAMES`` only for measuring); game13 replays game02's game, so both are
held out together.

Crops are made exactly as at run time (``cells.board_crops``); render crops are cut
with the true homography disturbed by about a twentieth of a cell at each corner,
as the board finder leaves it.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import cv2
import numpy as np
from fontTools.ttLib import TTFont
from numpy.typing import NDArray

from vision.board.synthetic import render as R
from vision.board.cells import board_crops
from vision.board.find import find_board
from vision.board.geometry import GRID_CORNERS, SIZE, apply_homography
from vision.board.labels import INDEX, class_of_truth
from vision.board.synthetic.render_random import FOREIGN_LETTERS, reshaped_letters
from vision.board.synthetic.render_scene import Scene

from .fonts import Family

REPO: Final = Path(__file__).resolve().parents[2]
SHARED: Final = Path(os.environ.get("VEEDOR_SHARED", REPO.parent / "shared"))
PHOTOS: Final = SHARED / "data" / "boards_de"
TRAIN_GAMES: Final = ("game01", "game06", "game12_png", "board_tests")
HELDOUT_GAMES: Final = ("game02", "game13_png", "game08", "game07_alt")


@dataclass(frozen=True)
class Photo:
    """One real photo with its ground truth: 15 strings of 15 characters, row A first."""

    game: str
    path: Path
    board: tuple[str, ...]
    note: str

    @property
    def has_hand(self) -> bool:
        return "hand" in self.note.lower()


def photos(games: tuple[str, ...]) -> Iterator[Photo]:
    """The photos of those games, in ``gt.json`` order."""
    for game in games:
        truth = json.loads((PHOTOS / game / "gt.json").read_text(encoding="utf-8"))
        for item in truth["images"]:
            yield Photo(game, PHOTOS / game / item["file"], tuple(item["board"]), item.get("note", "") or "")


def photo_labels(photo: Photo) -> NDArray[np.int64]:
    """The 225 class indices of a photo's ground truth, row-major from A1."""
    return np.array([INDEX[class_of_truth(ch)] for row in photo.board for ch in row], np.int64)


def jittered(image_from_board: NDArray[np.float64], rng: np.random.Generator, sigma: float) -> NDArray[np.float64]:
    """The homography with each grid corner moved by ``sigma`` cells (normal), as a finder errs."""
    corners = apply_homography(image_from_board, GRID_CORNERS)
    pitch = float(np.linalg.norm(corners[1] - corners[0])) / SIZE
    moved = corners + rng.normal(0, sigma * pitch, corners.shape)
    return cv2.getPerspectiveTransform(GRID_CORNERS.astype(np.float32), moved.astype(np.float32)).astype(np.float64)


def render_samples(
    rng: np.random.Generator,
    split: str,
    keep_empty: float,
    width: int = 1280,
    height: int = 720,
    hands: int | None = None,
    foreign: float | None = None,
    designs: tuple[str, ...] = (),
    blanks: float | None = None,
    families: tuple[str, ...] = (),
    reshaped: float = 0.0,
) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """Crops and labels of one random rendered scene (empties kept with probability
    ``keep_empty``, the centre star square always; ``foreign`` the share of tiles with a
    non-Spanish letter and ``blanks`` the share of blanks, None for the renderer's; ``designs``: a
    board design drawn from these for each scene, tiles from the font families of the split's part,
    ``render_designs``, or from one of ``families``; ``reshaped``: the share of scenes whose letters'
    shape is changed, ``render_random.reshaped_letters``)."""
    shares = {name: share for name, share in (("foreign", foreign), ("blanks", blanks)) if share is not None}
    cells = R.random_cells(rng, **shares) if shares else None  # None: the renderer draws them, as before
    design = str(rng.choice(designs)) if designs else None
    family = str(rng.choice(families)) if families else None  # no draw without: earlier commands make the same crops
    scene = R.random_scene(rng, cells, split=split, width=width, height=height, hands=hands, design=design, family=family)
    if reshaped and rng.random() < reshaped:  # no draw without: earlier commands make the same crops
        scene = replace(scene, tiles=reshaped_letters(rng, scene.tiles))
    frame = R.render(scene)
    crops = board_crops(frame.image, jittered(frame.image_from_board, rng, 0.05))
    labels = np.array([INDEX[name] for row in frame.labels for name in row], np.int64)
    keep = (labels != INDEX["."]) | (rng.random(len(labels)) < keep_empty)
    keep[7 * SIZE + 7] = True
    return crops[keep], labels[keep]


def catalogue_scene(rng: np.random.Generator, designs: dict[str, list[Family]], board_designs: tuple[str, ...],
                    cells: R.Labels | None, split: str, hands: int | None, width: int, height: int,
                    letter_sizes: tuple[float, float] | None = None) -> Scene:
    """A scene whose tiles are set in a face of the font catalogue (``fonts.json``): a design drawn
    evenly, a family of it, one of its faces; a family without a bold face drawn 0.4-1.2 px bolder a
    side, one without a narrow face drawn 0.8-0.95 times as wide in a third of its scenes; foreign
    letters the face lacks replaced by ones it has (the renderer would draw its missing-glyph box).
    ``letter_sizes``: the letters' size (``TileStyle.letter_size``, of a cell) drawn from this range instead of
    the tile maker's 0.42-0.62 (tile sets with bigger letters, issue 69)."""
    names = tuple(designs)
    members = designs[names[int(rng.integers(len(names)))]]
    family = members[int(rng.integers(len(members)))]
    face = family.faces[int(rng.integers(len(family.faces)))]
    design = str(rng.choice(board_designs))
    scene = R.random_scene(rng, cells, split=split, width=width, height=height, hands=hands, design=design, fonts=(face,))
    weight = float(rng.uniform(0.4, 1.2)) if family.embolden else 0.0
    stretch = float(rng.uniform(0.8, 0.95)) if family.condense and rng.random() < 1 / 3 else 1.0
    tiles = replace(scene.tiles, weight=weight, stretch=stretch)
    if letter_sizes is not None:  # no draw without: earlier shards are made again bit for bit
        tiles = replace(tiles, letter_size=float(rng.uniform(*letter_sizes)))
    missing = set(FOREIGN_LETTERS) - drawn_letters(face)
    if not missing:
        return replace(scene, tiles=tiles)
    others = sorted(set(FOREIGN_LETTERS) - missing) or ["K", "W"]
    grid = [[str(rng.choice(others)) if text in missing else text for text in row] for row in scene.cells]
    return replace(scene, tiles=tiles, cells=grid)


@functools.lru_cache(maxsize=1024)
def drawn_letters(path: str) -> frozenset[str]:
    """The ``FOREIGN_LETTERS`` a font file has a glyph for."""
    cmap = TTFont(path, lazy=True, fontNumber=0).getBestCmap() or {}
    return frozenset(ch for ch in FOREIGN_LETTERS if ord(ch) in cmap)


def catalogue_samples(rng: np.random.Generator, designs: dict[str, list[Family]], board_designs: tuple[str, ...], keep_empty: float,
                      foreign: float | None = None, blanks: float | None = None, hands: int | None = None,
                      width: int = 1280, height: int = 720,
                      letter_sizes: tuple[float, float] | None = None) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """Crops and labels of one scene of ``catalogue_scene`` (empties kept as in ``render_samples``)."""
    shares = {name: share for name, share in (("foreign", foreign), ("blanks", blanks)) if share is not None}
    cells = R.random_cells(rng, **shares) if shares else None
    scene = catalogue_scene(rng, designs, board_designs, cells, "train", hands, width, height, letter_sizes)
    frame = R.render(scene)
    crops = board_crops(frame.image, jittered(frame.image_from_board, rng, 0.05))
    labels = np.array([INDEX[name] for row in frame.labels for name in row], np.int64)
    keep = (labels != INDEX["."]) | (rng.random(len(labels)) < keep_empty)
    keep[7 * SIZE + 7] = True
    return crops[keep], labels[keep]


def photo_samples(photo: Photo) -> tuple[NDArray[np.uint8], NDArray[np.int64]] | None:
    """All 225 crops of a real photo as the finder sees it, or None when no board is found."""
    image = cv2.imread(str(photo.path))
    if image is None:
        raise FileNotFoundError(f"no se puede leer {photo.path}")
    found = find_board(image)
    if not found.found or found.image_from_board is None:
        return None
    return board_crops(image, found.image_from_board), photo_labels(photo)
