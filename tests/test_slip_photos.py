"""Slips photographed with a phone: the light evened before anything is read (``vision.slips.light``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from models.slips.phone import Light, photograph
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips.synthetic import handwriting as hw
from rules_core.notation import Play
from vision.slips import absolute, layout, light
from vision.slips.boxes import blotted
from vision.slips.reader import SlipReader, locate_slips
from vision.slips.synthetic import drawn

CHORIZO = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AACSEIO 0/0 0"
INFO = layout.SlipInfo("p", "Prueba", 3, "j3", "Carmen Ruiz")


def filled_slip(rng: np.random.Generator, fields: dict[str, str]) -> np.ndarray:
    return drawn.fill_slip(layout.render_slip(INFO), fields, hw.HersheyWriter(hw.TRAIN_HERSHEY[1]), rng)


@pytest.mark.parametrize("seed", [0, 2])
def test_a_photo_with_a_shadow_across_the_play_reads_as_a_scan_does(small_lexicon: Lexicon, seed: int) -> None:
    """A soft shadow's edge across the coordinate and word boxes (light down to 40 % beyond it), a gradient and dark
    corners: 12F CASA is read and accepted. Read as it is, the edge was ink: `12F CAS` scored 0, `M19FT MRRIS`."""
    rng = np.random.default_rng(seed)
    filled = filled_slip(rng, {"ronda": "5", "mesa": "3", "coordenada": "12F", "palabra": "CASA"})
    shadow = Light(((60.0, 48.0, float(rng.uniform(-30, 30)), 0.0, 0.6, 0.6),), (0.2, 30.0), 0.1, None)
    photo = photograph(filled, rng, shadow, long_side=1800)
    position = Position.from_cgp(CHORIZO)
    found = SlipReader(small_lexicon).read_slip(photo, lambda _: (position.board, position.rack), (), [5], current=5)
    assert len(found) == 1 and found[0].player == "j3"
    result = found[0].to_json()
    assert (result["verdict"], result["play"], result["score"]) == ("accepted", "12F CASA", 28)


def test_even_light_makes_a_shadowed_paper_one_grey_and_keeps_the_ink() -> None:
    """A band of shadow (half the light) across a written slip: the paper comes out one grey on both sides of the
    band's edges, and the ink as dark against it in the shade as in the light."""
    rng = np.random.default_rng(4)
    slip = filled_slip(rng, {"coordenada": "H8", "palabra": "CASA"})
    ys, xs = np.mgrid[0 : slip.shape[0], 0 : slip.shape[1]]
    shade = np.where(np.abs(xs - 0.6 * slip.shape[1] - 0.3 * ys) < 120, 0.5, 1.0)
    shadowed = (slip * shade).astype(np.uint8)
    evened = light.even(shadowed)
    paper = (slip >= 250) & (np.abs(np.abs(xs - 0.6 * slip.shape[1] - 0.3 * ys) - 120) > 8)
    assert np.percentile(np.abs(evened[paper].astype(float) - np.median(evened[paper])), 99) <= 12
    x0, y0, x1, y1 = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    ink = (slip < 120)[y0:y1, x0:x1]
    in_shade, in_light = ink & (shade[y0:y1, x0:x1] < 1), ink & (shade[y0:y1, x0:x1] == 1)
    assert in_shade.sum() > 50 and in_light.sum() > 50
    word = evened[y0:y1, x0:x1].astype(float)
    assert abs(np.median(word[in_shade]) - np.median(word[in_light])) <= 25


def test_even_light_keeps_a_blot_of_ink_a_blot() -> None:
    """A blot over the word (D.III.20.4) is a dark patch no shadow makes: enclosed by paper, it is ink, not light,
    and stays a blot under even light (a shadow reaches the slip from its edge)."""
    rng = np.random.default_rng(5)
    slip = filled_slip(rng, {"coordenada": "H8", "palabra": "CASA"})
    box = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, 0.6)
    drawn.blot(slip, box, rng, 60.0)
    crop = layout.FIELDS["palabra"].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
    evened = light.even(slip)
    assert blotted(evened[crop[1] : crop[3], crop[0] : crop[2]])


def test_a_scan_evenly_lit_is_left_as_it_was() -> None:
    rng = np.random.default_rng(6)
    slip = filled_slip(rng, {"ronda": "5", "coordenada": "H8", "palabra": "CASA"})
    evened = light.even(slip)
    assert np.mean(np.abs(evened.astype(float) - slip)) < 2.0


@pytest.mark.parametrize("seed", [2, 8])
def test_a_photo_of_an_absolute_slip_finds_the_written_squares_and_no_tint(seed: int) -> None:
    """A phone's photo of an absolute slip (D.III.20.1.c), a soft shadow's edge across the board's first rows, a
    gradient, noise: the squares written are found, and no tinted square passes for writing (the darkest tint is
    some 20 grey levels under the paper; a phone's noise lifted a high percentile of the grid that much over it)."""
    rng = np.random.default_rng(seed)
    play = Play.from_notation("E6 UCLA")
    slip = drawn.fill_grid(absolute.render_absolute_slip(INFO), play, hw.HersheyWriter(hw.TRAIN_HERSHEY[1]), rng)
    band = Light(((150.0, 8.0, float(rng.uniform(-10, 10)), 12.0, 2.0, 0.5),), (0.2, 30.0), 0.15, None)
    photo = photograph(slip, rng, band, long_side=1700)
    found = locate_slips(photo)
    assert len(found) == 1 and found[0].board is not None
    assert absolute.written_cells(found[0].board) == sorted(play.squares())


def test_even_light_follows_a_shadow_along_a_whole_absolute_slip() -> None:
    """A shadow band entering at the left of an absolute slip (D.III.20.1.c) and lying along it nearly to its right
    edge: its paper comes out the grey of the paper in the light all along, the board included. The fill from the
    slip's edge stopped after 400 steps, a hundred millimetres in, and left the board in the shade."""
    slip = absolute.render_absolute_slip(INFO)
    ys, xs = np.mgrid[0 : slip.shape[0], 0 : slip.shape[1]]
    band = (np.abs(ys - 0.5 * slip.shape[0]) < 0.12 * slip.shape[0]) & (xs < 0.97 * slip.shape[1])
    shade = cv2.GaussianBlur(np.where(band, 0.5, 1.0).astype(np.float32), (0, 0), 6.0)
    evened = light.even((slip * shade).astype(np.uint8)).astype(float)
    paper = (slip >= 250) & (shade > 0.99)
    on_board = (slip >= 250) & (shade < 0.51) & (xs > absolute.GRID_X0 * layout.PX_PER_MM)
    assert on_board.sum() > 1000
    assert abs(np.median(evened[on_board]) - np.median(evened[paper])) <= 12
