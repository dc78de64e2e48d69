"""The cell classifier's safeguards: the font model's reading of unsure letters, and a
non-Spanish letter favoured in an unsure reading of a letter it is a diacritic away from
(issue 6: Ä, Ö, Ü never become Spanish)."""

from __future__ import annotations

import numpy as np

from vision.board.classify import (
    LEAN_BELOW,
    TILE_ODDS,
    CellClassifier,
    lean_to_foreign,
    readings,
)
from vision.board.labels import CLASSES, EMPTY, FOREIGN

F, O, B = CLASSES.index(FOREIGN), CLASSES.index("O"), CLASSES.index("B")


def _row(**weights: float) -> np.ndarray:
    row = np.full(len(CLASSES), 1e-4, np.float32)
    for name, p in weights.items():
        row[CLASSES.index({"star": FOREIGN}.get(name, name))] = p
    return row / row.sum()


def test_an_unsure_vowel_leans_to_the_non_spanish_letter_and_a_sure_one_does_not() -> None:
    washed_out = _row(O=0.45, star=0.3, Q=0.25)  # an Ö whose dots the glare took
    sure = _row(O=0.9, star=0.1)
    leaned = lean_to_foreign(np.stack([washed_out, sure]))
    assert washed_out.max() < LEAN_BELOW <= sure.max()
    assert leaned[0].argmax() == F and leaned[1].argmax() == O
    assert np.allclose(leaned.sum(axis=1), 1.0) and np.array_equal(leaned[1], sure)


def test_a_tile_whose_letter_is_spread_over_many_is_a_doubtful_tile_not_an_empty_square() -> None:
    # a tile in an unseen font: empty is the likeliest single class, but a tile is far likelier
    spread = _row(**{".": 0.2, "C": 0.18, "G": 0.16, "O": 0.16, "Q": 0.15, "star": 0.15})
    # a square with a printed label: as likely bare as a tile, so it stays empty
    label = _row(**{".": 0.45, "C": 0.15, "L": 0.15, "T": 0.15, "#": 0.1})
    tile_mass = 1 - spread[CLASSES.index(EMPTY)] - spread[CLASSES.index("#")]
    assert spread.argmax() == CLASSES.index(EMPTY) and tile_mass >= TILE_ODDS
    first, second = readings(np.stack([spread, label]))
    assert first.label == "C" and first.confidence < 0.7  # below the tracker's doubt line
    assert second.label == EMPTY and second.confidence == label.max()


def test_an_unsure_letter_no_diacritic_makes_foreign_keeps_its_reading() -> None:
    blurred_b = _row(B=0.45, star=0.3, R=0.25)  # no non-Spanish letter is a B with a diacritic
    assert blurred_b.max() < LEAN_BELOW
    assert np.array_equal(lean_to_foreign(blurred_b[None]), blurred_b[None])


def test_a_clear_o_is_not_leaned_to_foreign() -> None:
    """A plain O read at 0.6 in a font never trained on stays an O (issue 20: the lean was 0.7)."""
    plain_o = _row(O=0.6, star=0.25, Q=0.15)
    assert lean_to_foreign(plain_o[None])[0].argmax() == O


def test_the_font_model_is_asked_only_about_unsure_letters_and_never_makes_them_bare() -> None:
    classifier = CellClassifier()
    assert classifier._font is not None, "models/board/board_cells_fonts.onnx is committed"
    rows = np.stack([_row(O=0.5, star=0.5), _row(O=0.95), _row(B=0.6, Q=0.4), _row(**{".": 0.6, "B": 0.4})])
    asked: list[int] = []

    def font_reading(crops: np.ndarray) -> np.ndarray:
        asked.append(len(crops))
        return np.tile(_row(**{".": 1.0}), (len(crops), 1)) if len(crops) == 1 else np.stack([_row(O=1.0), _row(B=1.0)])

    classifier._font.model_probabilities = font_reading  # type: ignore[method-assign]
    out = classifier._ask_font_model(np.zeros((4, 40, 40, 3), np.uint8), rows.copy())
    assert asked == [2]  # the unsure O/* and B/Q; not the sure O, not the unsure empty square
    assert out[0].argmax() == O and out[2].argmax() == B
    assert np.array_equal(out[1], rows[1]) and np.array_equal(out[3], rows[3])
