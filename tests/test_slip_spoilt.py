"""The spoilt-box network (``vision.slips.spoilt``) beside the strike rules: a coordinate or a short word zigzagged,
struck or crossed out goes to the arbiter (D.III.20.4); the same boxes written are read. The hand is the held-out
real characters', never trained on."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from models.slips.cases import REAL
from models.slips.spoilt_data import spoilt_boxes
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.notation import Play
from vision.slips import absolute, layout
from vision.slips.boxes import play_spoilt, visible_coordinate, visible_part
from vision.slips.lineimage import ink_of
from vision.slips.reader import SlipReader, _crop, _notation_read, locate_slips
from vision.slips.register import find_slips
from vision.slips.spoilt import box_input, default_spoilt_net
from vision.slips.strikes import coordinate_crossed_out, coordinate_struck_out
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw

Spoil = Callable[[np.ndarray, tuple[int, int, int, int], np.random.Generator, float], None]
CHORIZO = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AACSEIO 0/0 0"
# coordinates whose M or N is itself a zigzag through the box's middle: the rules cannot tell them from one zigzagged
ZIGZAG_LIKE = ("M9", "10N", "14M", "N4", "M12", "3N")


def _scanned_boxes(coordinate: str, word: str, spoil: dict[str, Spoil], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The coordinate and word boxes of a slip written by the held-out real hand, each spoilt by ``spoil`` of its
    field name, scanned and cut as the reader cuts them."""
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(seed)
    printed = layout.render_slip(layout.SlipInfo("p7", "Open", 1, "j1", "Ana"))
    filled = drawn.fill_slip(printed, {"coordenada": coordinate, "palabra": word, "ronda": "3"}, writer, rng)
    for name, how in spoil.items():
        how(filled, layout.FIELDS[name].pixels(layout.PX_PER_MM, 0.6), rng, 40.0)
    scan = drawn.scan(filled, rng)
    rectified = find_slips(scan)[0].rectify(scan)
    crops = []
    for name in ("coordenada", "palabra"):
        x0, y0, x1, y1 = layout.FIELDS[name].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
        crops.append(rectified[y0:y1, x0:x1])
    return crops[0], crops[1]


def _spoilt(coordinate: np.ndarray, word: np.ndarray) -> bool:
    """The reader's judgement of a slip's two boxes (``reader.read_located``)."""
    return play_spoilt(word, visible_part(word), visible_coordinate(coordinate), coordinate)


@pytest.mark.parametrize("written", ZIGZAG_LIKE)
def test_a_zigzag_over_a_coordinate_is_told_from_a_written_m_or_n(written: str) -> None:
    """The rules take a written M or N for a zigzag, so they leave zigzags over coordinates alone (issue 21); the
    network flags the zigzag and not the same coordinate written."""
    coordinate, word = _scanned_boxes(written, "CASA", {}, 3)
    assert not _spoilt(coordinate, word), written
    coordinate, word = _scanned_boxes(written, "CASA", {"coordenada": drawn.scrawl_through}, 3)
    mask = ink_of(coordinate) > 0.35
    assert _spoilt(coordinate, word), written
    if not (coordinate_struck_out(mask) or coordinate_crossed_out(mask)):
        assert default_spoilt_net().probability(coordinate) >= 0.98  # the network's catch, not the rules'


@pytest.mark.parametrize("word", ["EX", "NO", "YA", "OH"])
@pytest.mark.parametrize("spoil", [drawn.scrawl_through, drawn.strike_through, drawn.cross_out])
def test_a_two_letter_word_spoilt_any_way_is_flagged_and_written_is_not(word: str, spoil: Spoil) -> None:
    coordinate, box = _scanned_boxes("H8", word, {}, 7)
    assert not _spoilt(coordinate, box)
    coordinate, box = _scanned_boxes("H8", word, {"palabra": spoil}, 7)
    assert _spoilt(coordinate, box), (word, spoil.__name__)


def test_a_slip_whose_coordinate_is_zigzagged_goes_to_the_arbiter(file2017: Lexicon) -> None:
    """12G ASOCIE is legal on CHORIZO and its word is written plainly; the coordinate is zigzagged, so the play has
    no coordinate an arbiter could score (D.III.20.4)."""
    position = Position.from_cgp(CHORIZO)
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(4)
    printed = layout.render_slip(layout.SlipInfo("p7", "Open", 1, "j1", "Ana"))
    filled = drawn.fill_slip(printed, {"coordenada": "12G", "palabra": "ASOCIE", "ronda": "3"}, writer, rng)
    drawn.scrawl_through(filled, layout.FIELDS["coordenada"].pixels(layout.PX_PER_MM, 0.6), rng, 40.0)
    (result,) = SlipReader(file2017).read_slip(drawn.scan(filled, rng), lambda _: (position.board, position.rack),
                                               rounds=range(1, 25))  # fmt: skip
    assert result.verdict == "flagged" and "illegible" in result.flags


def test_an_empty_box_is_not_put_to_the_network() -> None:
    """An absolute slip leaves its boxes empty: nothing written is nothing crossed out."""
    empty = np.full((92, 160), 235, np.uint8)
    assert not play_spoilt(np.full((92, 536), 235, np.uint8), np.full((92, 536), 235, np.uint8), empty, empty)


def test_the_network_reads_a_box_as_ink_32_px_high_keeping_its_aspect() -> None:
    box = np.full((92, 160), 235, np.uint8)
    box[30:60, 40:45] = 20
    small = box_input(box)
    assert small.shape == (32, 56) and small.dtype == np.float32
    assert small.max() == pytest.approx(1.0) and small[0].max() == 0.0


def test_training_boxes_come_in_pairs_clean_or_spoilt_and_the_seed_fixes_them() -> None:
    writer = [hw.load_real_writer(REAL, "train")]
    boxes = list(spoilt_boxes(writer, 12, 5))
    assert [b["box"] for b in boxes] == ["coordenada", "palabra"] * (len(boxes) // 2) and len(boxes) >= 20
    assert {b["kind"] for b in boxes} <= {"none", "strike", "cross", "zigzag"} and any(b["kind"] == "none" for b in boxes)
    assert all(b["input"].shape[0] == 32 and b["input"].dtype == np.uint8 for b in boxes)
    again = list(spoilt_boxes(writer, 12, 5))
    assert all(np.array_equal(a["gray"], b["gray"]) and a["kind"] == b["kind"] for a, b in zip(boxes, again))


def test_the_network_never_chooses_which_of_two_notations_is_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    """An absolute slip with a play in its boxes and another on its board, neither crossed out, is void (D.III.20.2):
    the arbiter's. Were the network alone to take the boxes for crossed out, the board's play must not be scored
    for it: which notation stands is the strike rules' call."""

    class SureOfEverything:
        def probability(self, gray: np.ndarray) -> float:
            return 1.0

    monkeypatch.setattr("vision.slips.boxes.default_spoilt_net", lambda: SureOfEverything())
    writer, rng = hw.load_real_writer(REAL, "test"), np.random.default_rng(2)
    filled = drawn.fill_slip(absolute.render_absolute_slip(layout.SlipInfo("p7", "Open", 1, "j1", "Ana")),
                                 {"coordenada": "12G", "palabra": "ASOCIE", "ronda": "3"}, writer, rng)  # fmt: skip
    filled = drawn.fill_grid(filled, Play.from_notation("H8 CASA"), writer, rng)
    (slip,) = locate_slips(drawn.scan(filled, rng))
    fields = {name: _crop(slip.rectified, box.pixels(layout.PX_PER_MM, layout.FIELD_INSET))
              for name, box in layout.FIELDS.items()}  # fmt: skip
    coordinate, word = visible_coordinate(fields["coordenada"]), visible_part(fields["palabra"])
    assert play_spoilt(fields["palabra"], word, coordinate, fields["coordenada"])  # what the network would say
    read = _notation_read(slip.board, coordinate, word, fields["palabra"], fields["coordenada"])
    assert read.grid is not None and read.boxes_too and not read.spoilt
