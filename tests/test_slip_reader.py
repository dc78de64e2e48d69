"""The slip reader end to end: the printed PDF rasterised, filled in by hand, scanned at any rotation, read back."""

from __future__ import annotations

import numpy as np
import pytest

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips import layout, register
from vision.slips.ingest import split_pages
from vision.slips.printing import pads, slip_origins, slips_pdf
from vision.slips.reader import PlayerRef, SlipReader, locate_slips
from vision.slips.reader import Position as RoundPosition
from vision.slips.register import PlainTemplate, find_slips
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw

CHORIZO = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AACSEIO 0/0 0"
PLAYERS = [("j1", "Ana Pérez", 1), ("j2", "Bruno Núñez", 2), ("j3", "Carmen Ruiz", 3)]


@pytest.fixture(scope="module")
def reader(small_lexicon: Lexicon) -> SlipReader:
    return SlipReader(small_lexicon)


@pytest.fixture(scope="module")
def printed_page() -> np.ndarray:
    """Page 1 of the printed PDF, rasterised at 200 dpi (as the ingest splits a PDF)."""
    pdf = slips_pdf(pads("partida-7", "Open de prueba", PLAYERS, per_player=3))
    return next(iter(split_pages(pdf, "papeletas.pdf")))


def cut_slip(page: np.ndarray, index: int, dpi: float = 200.0) -> np.ndarray:
    """The index-th slip of a page, cut with scissors, resampled to the slip frame at 8 px/mm."""
    import cv2

    x, y = slip_origins()[index]
    s = dpi / 25.4
    crop = page[int(y * s) : int((y + layout.SLIP_H) * s), int(x * s) : int((x + layout.SLIP_W) * s)]
    size = (int(layout.SLIP_W * layout.PX_PER_MM), int(layout.SLIP_H * layout.PX_PER_MM))
    return cv2.resize(crop, size, interpolation=cv2.INTER_AREA)


def hand(seed: int) -> hw.Writer:
    return hw.HersheyWriter(hw.HELDOUT_HERSHEY[0]) if seed % 2 else hw.HersheyWriter(hw.TRAIN_HERSHEY[1])


def test_the_page_holds_eight_slips_found_at_any_rotation(printed_page: np.ndarray) -> None:
    assert len(find_slips(printed_page)) == 8
    slip = cut_slip(printed_page, 0)
    rng = np.random.default_rng(1)
    for angle in (0.0, 90.0, 180.0, 233.0):
        scan = drawn.scan(slip, rng, angle=angle)
        found = find_slips(scan)
        assert len(found) == 1 and found[0].error_mm < 0.6 and len(found[0].markers) == 4


def test_a_slip_whose_first_marker_is_seen_a_little_askew_is_found_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """One corner of marker 0 seen 3 px off (a blurred scan at 8 px/mm) throws its own guess of the far markers
    20 mm out: the guess is refitted on the markers it found, and the slip is one registration of its four
    markers, not two halves read as two slips."""
    turn = np.deg2rad(35.0)
    to_image = 8.0 * np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    markers = [(mid, corners.astype(np.float64) @ to_image.T + (400.0, 300.0))
               for mid, corners in layout.marker_corners_mm().items()]  # fmt: skip
    markers[0][1][1] += (0.0, 3.0)
    monkeypatch.setattr(register, "detect_markers", lambda gray: markers)
    found = find_slips(np.full((10, 10), 255, np.uint8))
    assert [r.markers for r in found] == [(0, 1, 2, 3)] and found[0].error_mm < 0.5


def test_the_printed_pdf_is_read_back(printed_page: np.ndarray, reader: SlipReader) -> None:
    position = Position.from_cgp(CHORIZO)
    fixed = (position.board, position.rack)
    players = [PlayerRef(*p) for p in PLAYERS]
    rng = np.random.default_rng(5)
    right = 0
    for index, (angle, play) in enumerate([(0.0, "12F CASA"), (180.0, "H6 CHORIZOS"), (77.0, "11E CASO")]):
        slip = cut_slip(printed_page, index)
        fields = drawn.play_fields(play)
        fields.update({"ronda": "4", "mesa": "1"})
        scan = drawn.scan(drawn.fill_slip(slip, fields, hand(index), rng), rng, angle=angle)
        results = reader.read_slip(scan, lambda _: fixed, players, rounds=range(1, 10))
        assert len(results) == 1
        result = results[0]
        assert (result.game, result.player, result.table) == ("partida-7", "j1", 1)  # from the QR code
        right += result.decision is not None and result.decision.play == play and result.verdict == "accepted"
    assert right >= 2  # each slip is read or flagged; never a wrong play accepted


def test_a_page_without_slips_gives_nothing(reader: SlipReader) -> None:
    blank = np.full((800, 600), 235, np.uint8)
    position = Position.from_cgp(CHORIZO)
    assert reader.read_slip(blank, lambda _: (position.board, position.rack)) == []


@pytest.mark.parametrize("spoilt", ["", "struck", "corrected"])
def test_a_plain_slip_registered_to_its_template(reader: SlipReader, spoilt: str) -> None:
    """A slip with no markers: the arbiter marks the fields on a blank one once. The play written in its one field
    is read back; the same play struck out with one line is illegible (D.III.20.4), never scored (flagged ``spoilt``:
    voided unless the arbiter chooses the play); a play struck out
    with the play that stands written after it is a correction (D.III.20.2), and that play is read."""
    import cv2

    rng = np.random.default_rng(3)
    blank = np.full((420, 700), 245, np.uint8)
    cv2.putText(blank, "CLUB DE SCRABBLE - PAPELETA", (40, 50), cv2.FONT_HERSHEY_DUPLEX, 1.0, 0, 2)
    cv2.putText(blank, "Ronda          Jugada", (40, 130), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 0, 2)
    for x0, y0, x1, y1 in ((40, 150, 150, 240), (180, 150, 660, 240)):
        cv2.rectangle(blank, (x0, y0), (x1, y1), 0, 2)
    cv2.rectangle(blank, (5, 5), (695, 415), 0, 3)
    cv2.putText(blank, "Firma del jugador", (40, 380), cv2.FONT_HERSHEY_SIMPLEX, 0.7, 0, 1)
    play_field = (184, 154, 656, 236)
    template = PlainTemplate(blank, {"ronda": (44, 154, 146, 236), "jugada": play_field})
    filled = blank.copy()
    drawn.write_in_box(filled, (44, 154, 146, 236), "4", hand(1), rng)
    if spoilt == "corrected":
        drawn.correct_beside(filled, play_field, "12F CAOS", "12F CASA", hand(1), rng, 40.0)
    else:
        drawn.write_in_box(filled, play_field, "12F CASA", hand(1), rng)
    if spoilt == "struck":
        drawn.strike_through(filled, play_field, rng, tilt=4.0)
    h, w = filled.shape
    rotation = cv2.getRotationMatrix2D((w / 2, h / 2), 170, 0.9)
    scan = cv2.warpAffine(filled, rotation, (w, h), borderValue=235)
    position = Position.from_cgp(CHORIZO)
    result = reader.read_plain(scan, template, lambda _: (position.board, position.rack), rounds=range(1, 10))
    assert result.found
    assert result.round == 4
    assert ("illegible" in result.flags) == ("spoilt" in result.flags) == (spoilt == "struck")
    if spoilt == "struck":
        assert result.to_json()["score"] is None
    else:
        assert result.verdict == "accepted" and result.decision.play == "12F CASA"


@pytest.mark.parametrize(("written_table", "expected"), [("41", "j41"), ("4", None)])
def test_without_its_qr_code_a_slip_needs_the_table_and_the_printed_name_to_agree(
        reader: SlipReader, written_table: str, expected: str | None) -> None:  # fmt: skip
    """A torn-off QR code: the handwritten table number names the player, checked against the printed
    name; "4" written on Sara's slip (table 41) is another player's table: the arbiter decides."""
    players = [PlayerRef("j4", "Ana Pérez", 4), PlayerRef("j41", "Sara Gómez", 41), PlayerRef("j14", "Ciro Gil", 14)]
    printed = layout.render_slip(layout.SlipInfo("partida-7", "Open de prueba", 41, "j41", "Sara Gómez"))
    x0, y0, x1, y1 = (int(v * layout.PX_PER_MM) for v in layout.QR_BOX)
    printed[y0:y1, x0:x1] = 255
    rng = np.random.default_rng(5)
    fields = {"ronda": "2", "mesa": written_table, "coordenada": "H8", "palabra": "CASA"}
    scan = drawn.scan(drawn.fill_slip(printed, fields, hand(2), rng), rng)
    (result,) = reader.read_slip(scan, lambda _: None, players, rounds=range(1, 10))
    assert result.player == expected
    assert ("player_unknown" in result.flags) == (expected is None)


def test_a_qr_code_that_the_decoder_misses_at_its_scanned_size_is_read() -> None:
    """OpenCV misses about one slip's code in 250 at the size scanned, depending on what the code holds
    (here the game id: a web test with random game ids failed on it); read enlarged or binarised, it is
    this game's slip, not a plain one matched by its writing."""
    game = "f5cb5292-b15d-4cc5-bd3f-53d433b7f96d"
    rng = np.random.default_rng(0)
    printed = layout.render_slip(layout.SlipInfo(game, "Open de prueba", 2, "j2", "j2"))
    fields = {"ronda": "1", "coordenada": "3H", "palabra": "AMONEN"}
    scan = drawn.scan(drawn.fill_slip(printed, fields, hw.HersheyWriter(hw.TRAIN_HERSHEY[1]), rng), rng)
    assert [slip.qr for slip in locate_slips(scan)] == [(game, 2, "j2")]


@pytest.mark.parametrize(
    "game", ["2f327eb5-c617-48bd-9eae-f5030be432ec", "443baac5-3689-4eeb-ade2-b33b56cef8ec", "e1fab9d7-8c7e-434f-9dfb-d3d12c4a3698"]
)
def test_a_qr_code_the_classic_decoder_misses_at_every_size_is_read(game: str) -> None:
    """About one game id in 800 makes a code OpenCV's classic decoder reads at no size nor binarised (CI printed
    such a game's slips and lost two); every slip printed for these games is still routed by its code."""
    slips = pads(game, "Prueba", [("j1", "Ana", 1), ("j2", "Bea", 2), ("j3", "Ciro", 3)], per_player=2)
    page = next(iter(split_pages(slips_pdf(slips), "papeletas.pdf")))
    assert sorted(slip.qr for slip in locate_slips(page) if slip.qr) == [(game, t, f"j{t}") for t in (1, 1, 2, 2, 3, 3)]


def test_a_photo_lit_unevenly_is_cropped_to_its_writing() -> None:
    """A phone photo of a written play: a shadowed corner is paper, not ink."""
    import cv2

    from vision.slips.lineimage import ink_box, ink_of

    ys, xs = np.mgrid[0:600, 0:900]
    photo = (235 - 120 * np.clip(1 - (xs + ys) / 700, 0, 1)).astype(np.uint8)  # dark towards the top left
    cv2.putText(photo, "H8 CASA", (380, 330), cv2.FONT_HERSHEY_SIMPLEX, 2.0, 60, 5)
    box = ink_box(ink_of(photo))
    assert box is not None
    x0, y0, x1, y1 = box
    assert 375 <= x0 <= 390 and 280 <= y0 <= 295 and 620 <= x1 <= 640 and 325 <= y1 <= 340


def test_views_of_a_line_keep_its_height_and_change_its_width() -> None:
    from vision.slips.lineimage import HEIGHT, VIEWS, prepare_line, variant, variants

    rng = np.random.default_rng(2)
    gray = hw.ink_on_paper(hw.render_line("H8 CASA", hand(0), rng), rng)
    prepared = prepare_line(gray)
    views = {name: variant(prepared, name) for name in VIEWS}
    assert all(v.shape[0] == HEIGHT and v.dtype == np.float32 for v in views.values())
    assert views["narrow"].shape[1] < prepared.shape[1] < views["wide"].shape[1]
    assert not np.allclose(views["thin"], prepared) and views["thick"].sum() > prepared.sum() > views["thin"].sum()
    assert [v.shape for v in variants(prepared, 2)] == [views["narrow"].shape, views["wide"].shape]


def test_a_prepared_line_keeps_more_paper_after_its_last_letter_than_before_its_first() -> None:
    """A last letter that ends where the image ends was dropped by the recogniser (`11J ALI` read AL)."""
    from vision.slips.lineimage import prepare_line

    rng = np.random.default_rng(3)
    prepared = prepare_line(hw.ink_on_paper(hw.render_line("11J ALI", hand(0), rng), rng))
    inked = np.flatnonzero(prepared.max(axis=0) > 0.3)
    before, after = int(inked[0]), prepared.shape[1] - 1 - int(inked[-1])
    assert before >= 1 and after >= 2 * before


def _slip_with_round(printed_page: np.ndarray, round_written: str) -> np.ndarray:
    rng = np.random.default_rng(11)
    fields = {**drawn.play_fields("12F CASA"), "ronda": round_written, "mesa": "1"}
    return drawn.scan(drawn.fill_slip(cut_slip(printed_page, 1), fields, hand(0), rng), rng, angle=0.0)


def test_a_sure_play_of_the_round_being_played_settles_an_unreadable_round_number(
        printed_page: np.ndarray, reader: SlipReader) -> None:  # fmt: skip
    """The round box left empty, in round 4: "12F CASA" is a legal play of round 4's position and of no
    other round's, so the slip is round 4's; the same slip when round 3 holds the same play as well goes
    to the arbiter (position not identifiable, D.III.25)."""
    chorizo = Position.from_cgp(CHORIZO)
    round_four: RoundPosition = (chorizo.board, chorizo.rack)
    (sure,) = reader.read_slip(_slip_with_round(printed_page, "4"), lambda _: round_four, rounds=range(1, 10), current=4)
    assert sure.verdict == "accepted" and sure.decision is not None and sure.decision.play == "12F CASA"
    blank_round = _slip_with_round(printed_page, "")
    elsewhere = Position.from_cgp(CHORIZO.replace("AACSEIO", "AACSTUV"))  # CASA fits this rack too

    def rounds_apart(number: int | None) -> RoundPosition:
        return round_four if number in (None, 4) else (elsewhere.board, elsewhere.rack)

    def only_round_four(number: int | None) -> RoundPosition | None:
        return round_four if number in (None, 4) else None

    (settled,) = reader.read_slip(blank_round, only_round_four, rounds=range(1, 10), current=4)
    assert settled.round_confidence < reader.thresholds.field  # nothing written: the round alone is unsure
    assert (settled.round, settled.verdict, settled.flags) == (4, "accepted", ())
    (ambiguous,) = reader.read_slip(blank_round, rounds_apart, rounds=range(1, 10), current=4)
    assert ambiguous.verdict == "flagged" and "position_unknown" in ambiguous.flags


def test_the_tilde_of_an_n_is_no_second_play_but_a_second_row_is() -> None:
    """D.III.20.2: two rows of writing in the word box are two plays; the tilde of Ñ drawn apart above its N
    is a row of ink of its own, but a low one, and no play."""
    import cv2

    from vision.slips.boxes import text_rows

    box = np.full((92, 536), 230, np.uint8)
    cv2.putText(box, "NENGUE", (20, 86), cv2.FONT_HERSHEY_SIMPLEX, 2.0, 40, 4)
    wave = np.array([(22 + 2 * i, 18 - int(7 * np.sin(i / 3.0))) for i in range(18)], np.int32)
    cv2.polylines(box, [wave], False, 40, 6)  # the tilde, a few pixels clear of the N
    assert text_rows(box) == 1
    two = np.full((92, 536), 230, np.uint8)
    cv2.putText(two, "CASA", (20, 38), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 40, 3)
    cv2.putText(two, "CASO", (20, 84), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 40, 3)
    assert text_rows(two) == 2
