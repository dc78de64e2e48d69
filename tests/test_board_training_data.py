"""The cell classifier's training crops (``models.board.data``): the share of blank tiles a
scene is drawn with (``make_data --blanks``), so that blanks can be made as common as training needs,
the font families its tiles are set in (``make_data --families``), and letters drawn bolder, thinner,
wider or slanted than their font (``make_data --reshaped``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from models.board import data, make_data
from vision.board.synthetic import render as R
from vision.board.synthetic import render_random
from vision.board.labels import BLANK, CLASSES, EMPTY
from vision.board.synthetic.render_designs import FONT_FAMILIES, family_of
from vision.board.synthetic.render_tiles import reshape_glyph, tile_face


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


def _ink(text: str, **shape: float) -> np.ndarray:
    """How dark each pixel of a tile face drawn in a train font is (0 the bare face), value corner cut off."""
    style = R.TileStyle(font=R.available_fonts(R.TRAIN_FONTS)[0], value_corner="br", **shape)  # type: ignore[arg-type]
    grey = tile_face(text, style).mean(axis=2)
    ink = np.clip(np.median(grey) - grey, 0, None)
    ink[int(0.72 * ink.shape[0]) :, int(0.72 * ink.shape[1]) :] = 0
    return ink


def test_a_reshaped_letter_is_bolder_thinner_wider_or_slanted_as_asked() -> None:
    plain = _ink("H")
    assert _ink("H", weight=1.0).sum() > 1.3 * plain.sum() > 1.3 * 1.1 * _ink("H", weight=-0.4).sum()
    assert _width(_ink("H", stretch=1.2) > 60) >= 1.12 * _width(plain > 60)
    slanted = _ink("I", slant=0.2) > 60
    rows = np.nonzero(slanted.any(axis=1))[0]
    top, bottom = np.nonzero(slanted[rows[:3]])[1].mean(), np.nonzero(slanted[rows[-3:]])[1].mean()
    assert top - bottom > 0.1 * len(rows)  # leans right, as italics do


def _width(ink: np.ndarray) -> int:
    return int(np.ptp(np.nonzero(ink.any(axis=0))[0]))


def test_an_unchanged_shape_leaves_the_letter_where_the_font_drew_it() -> None:
    mask = np.zeros((43, 43), np.uint8)
    mask[8:35, 12:20] = 255
    assert np.array_equal(reshape_glyph(mask, R.TileStyle()), mask)


def test_scenes_drawn_reshaped_keep_their_labels_and_scenes_drawn_plain_are_as_before() -> None:
    def crops(**reshaped: float) -> tuple[np.ndarray, np.ndarray]:
        return data.render_samples(np.random.default_rng(11), "train", keep_empty=0.0, hands=0, designs=("beige",), **reshaped)  # type: ignore[arg-type]

    (before, labels), (plain, plain_labels), (changed, changed_labels) = crops(), crops(reshaped=0.0), crops(reshaped=1.0)
    assert np.array_equal(before, plain) and np.array_equal(labels, plain_labels)
    assert np.array_equal(labels, changed_labels) and not np.array_equal(before, changed)


def test_crops_are_refused_when_a_family_to_draw_from_is_not_installed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Its tiles would be set in DejaVu Sans, and a model trained on them would see one family too many."""
    installed = render_random.font_path
    monkeypatch.setattr(render_random, "font_path", lambda name: None if name in FONT_FAMILIES["Cardo"][1] else installed(name))
    out = tmp_path / "crops.npz"
    argv = ["make_data", str(out), "--scenes", "1", "--no-photos", "--designs", "beige", "--families", "DejaVu Serif,Cardo"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit):
        make_data.main()
    assert "fonts not installed for: Cardo" in capsys.readouterr().err and not out.exists()


def _letter_tile_crop() -> np.ndarray:
    """A 40 x 40 crop as ``board_crops`` cuts it: a cream tile face with a dark E and its value 1, the dark gap
    around the tile, and a neighbour's mark in the crop's outer 4 px."""
    import cv2

    crop = np.full((40, 40, 3), (60, 110, 40), np.uint8)  # the board's green
    crop[5:36, 5:36] = (215, 230, 235)  # the face
    cv2.rectangle(crop, (5, 5), (35, 35), (40, 40, 40), 1)  # the tile's edge
    cv2.putText(crop, "E", (12, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 2)
    cv2.putText(crop, "1", (27, 31), cv2.FONT_HERSHEY_SIMPLEX, 0.25, (30, 30, 30), 1)  # clear of the edge
    crop[10:14, 0:3] = 30  # a neighbour's value at the crop's edge
    return crop


def test_a_real_letter_tile_painted_out_is_a_blank_of_the_same_tile() -> None:
    """The training blanks made from real letter tiles (``real_blanks``): the letter and value are gone from the face,
    which keeps its colour; the tile's edge and the neighbours are left as they were; a bare face gives nothing."""
    from models.board.real_blanks import paint_out

    crop = _letter_tile_crop()
    blank = paint_out(crop)
    assert blank is not None
    face = blank[8:33, 8:33].astype(int)
    assert (face.min(axis=(0, 1)) > np.array([215, 230, 235]) - 40).all()  # no ink left on the face
    assert np.abs(face.mean(axis=(0, 1)) - [215, 230, 235]).max() < 10
    assert (blank[5, 5:36] == crop[5, 5:36]).all() and (blank[10:14, 0:3] == crop[10:14, 0:3]).all()
    bare = crop.copy()
    bare[6:35, 6:35] = (215, 230, 235)
    assert paint_out(bare) is None


def test_how_well_a_reader_knows_when_it_is_right_counts_the_right_letters_read_surer_than_its_kth_surest_wrong_one() -> None:
    """``tune_lean.sure_right``, how candidates are compared where the tracker's doubt threshold acts: a reader whose
    wrong letters are all less sure than its right ones keeps them all; one wrong letter read surest keeps none at 0."""
    from models.board.tune_lean import sure_right
    from vision.board.labels import INDEX

    truth = np.array([INDEX[name] for name in "AEIOSX"])
    probs = np.full((6, len(CLASSES)), 0.001)
    for row, (read, sure) in enumerate([("A", 0.9), ("E", 0.8), ("I", 0.7), ("O", 0.6), ("E", 0.5), ("X", 0.95)]):
        probs[row, INDEX[read]] = sure
    assert sure_right(probs, truth, 0) == (0.5, 5)  # only the S is misread, less surely than every right letter
    probs[5, INDEX["X"]], probs[5, INDEX["J"]] = 0.001, 0.95  # the X read J, surest of all
    assert sure_right(probs, truth, 0) == (0.95, 0)
    assert sure_right(probs, truth, 1) == (0.5, 4)
    assert sure_right(probs, truth, 2) == (0.0, 4)
