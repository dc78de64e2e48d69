"""Cell classification with the committed ONNX models (``models/board/board_cells.onnx``).

``CellClassifier.probabilities(crops)`` takes ``N x 40 x 40 x 3`` uint8 crops from
``cells.board_crops`` and returns ``N x 32`` probabilities over ``labels.CLASSES``
(the class list is read from ``labels.json`` beside the model and must match).
Crops it is unsure of are read again, moved and contrast-stretched, and the readings
averaged; a letter still unsure gets the reading of ``board_cells_fonts.onnx`` (wider, trained
apart on the same designs and font families, issue 20); and where a reading is still a very
unsure A, O, U or C, a non-Spanish letter weighs more (see ``probabilities``). ``readings`` turns the
probabilities into labels: the likeliest class, but a tile wherever the tile classes together
are twice as likely as a bare square or a hand (``TILE_ODDS``).
One thread: the reader runs beside other cameras and the web app.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import onnxruntime as ort
from numpy.typing import NDArray

from .cells import CONTEXT_PX
from .labels import CLASSES, COVERED, EMPTY, FOREIGN, SPANISH, TILE_CLASSES
from .percentiles import row_percentiles

MODEL_DIR: Final = Path(__file__).resolve().parents[2] / "models" / "board"
MODEL_PATH: Final = MODEL_DIR / "board_cells.onnx"
FONT_OPINION_PATH: Final = MODEL_DIR / "board_cells_fonts.onnx"  # many designs and font families, 1.5x as wide
FONT_BELOW: Final = 0.95  # a letter (Spanish or not) read with less confidence is read by the font model too ...
FONT_WEIGHT: Final = 0.67  # ... whose reading weighs this much (issue 20; chosen on the calibration families)
MAX_FONT_ASKED: Final = 25  # at most this many a board (the least sure): ~7 ms at most
FONT_UNSURE: Final = 3  # the font model re-reads at most this many of the crops put to it
LEAN_BELOW: Final = 0.5  # the lean to ``*`` applies below this (0.7 before issue 20; see ``lean_to_foreign``)
FOREIGN_DOUBT: Final = 0.7  # a reading below this is unsure (the tracker asks the arbiter about it)
FOREIGN_WEIGHT: Final = 4.0  # how much more the non-Spanish class weighs in an unsure reading of ...
LOOKALIKES: Final = ("A", "O", "U", "C")  # ... these: with a diacritic a glare can take, Ä Å Æ, Ö Ø Œ, Ü, Ç
UNSURE: Final = 0.8  # a crop read with less confidence is read again, moved (see ``probabilities``)
MAX_UNSURE: Final = 6  # at most 30 more crops: ~2.5 ms on one core
SHIFT_PX: Final = 2
TILE_ODDS: Final = 2 / 3  # a cell whose tile classes together reach this is a tile (see ``readings``)
_BARE: Final = [CLASSES.index(EMPTY), CLASSES.index(COVERED)]
_FOREIGN: Final = CLASSES.index(FOREIGN)
_SPANISH: Final = np.array([name in SPANISH for name in CLASSES])
_LOOKALIKE: Final = np.array([name in LOOKALIKES for name in CLASSES])
LETTER: Final = _SPANISH | (np.arange(len(CLASSES)) == _FOREIGN)  # per class: a letter, Spanish or ``*``
_TILE: Final = np.array([name in TILE_CLASSES for name in CLASSES])


class ModelError(RuntimeError):
    """The classifier model is missing or does not match this code's classes."""


@dataclass(frozen=True)
class CellReading:
    """One cell: the class read (``readings``) and its probability."""

    label: str
    confidence: float


class CellClassifier:
    """The ONNX cell classifier (see the module docstring)."""

    def __init__(
        self,
        path: Path | str = MODEL_PATH,
        max_unsure: int = MAX_UNSURE,
        font_opinion: Path | str | None = FONT_OPINION_PATH,
    ) -> None:
        """``max_unsure``: how many crops at most are re-read (``model_probabilities``);
        ``font_opinion``: the model asked last about unsure letters (None or a missing file: none)."""
        path = Path(path)
        if not path.is_file():
            raise ModelError(f"no existe el modelo de casillas {str(path)!r}")
        labels_path = path.parent / "labels.json"
        if labels_path.is_file():
            classes = tuple(json.loads(labels_path.read_text(encoding="utf-8"))["classes"])
            if classes != CLASSES:
                raise ModelError(f"{labels_path}: las clases del modelo no coinciden con las del código")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0].name
        self._font = CellClassifier(font_opinion, FONT_UNSURE, None) if font_opinion and Path(font_opinion).is_file() else None
        self._max_unsure = max_unsure

    def probabilities(self, crops: NDArray[np.uint8]) -> NDArray[np.float32]:
        """``N x 40 x 40 x 3`` uint8 crops -> ``N x 32`` class probabilities.

        Each crop is read (``model_probabilities``, re-reading the unsure ones); an unsure letter
        is read by the font model too (``_ask_font_model``); last, where the
        reading is still an A, O, U or C below ``FOREIGN_DOUBT``, the non-Spanish class weighs
        ``FOREIGN_WEIGHT`` times more: a washed-out Ö must not become an O (issue 6). Chosen on
        renders of development seeds, with the real held-out photos unchanged
        (``models/board/HISTORY.md``)."""
        probabilities = self.model_probabilities(crops)
        if self._font is not None and len(crops):
            probabilities = self._ask_font_model(crops, probabilities)
        return lean_to_foreign(probabilities)

    def _ask_font_model(self, crops: NDArray[np.uint8], probabilities: NDArray[np.float32]) -> NDArray[np.float32]:
        """Letters (Spanish or ``*``) read below ``FONT_BELOW`` (the ``MAX_FONT_ASKED`` least sure) read
        again by the font model, its reading weighing ``FONT_WEIGHT``; a crop whose combined reading
        would no longer be a letter (empty, blank, covered) keeps its reading: those stay the main
        model's, which reads the real photos' blanks and squares (issue 20)."""
        assert self._font is not None
        best, sure = probabilities.argmax(axis=1), probabilities.max(axis=1)
        asked = np.nonzero((sure < FONT_BELOW) & LETTER[best])[0]
        asked = asked[np.argsort(sure[asked])][:MAX_FONT_ASKED]
        if len(asked):
            combined = (1 - FONT_WEIGHT) * probabilities[asked] + FONT_WEIGHT * self._font.model_probabilities(crops[asked])
            keep = LETTER[combined.argmax(axis=1)]
            probabilities[asked[keep]] = combined[keep]
        return probabilities

    def model_probabilities(self, crops: NDArray[np.uint8]) -> NDArray[np.float32]:
        """This model's own reading, the unsure crops re-read: no font model, no lean to
        ``*`` (what ``orientation`` compares across turns).

        A crop read with less than ``UNSURE`` confidence (at most ``max_unsure`` of them,
        the least sure first; not one read as a non-Spanish letter) is read again moved by ``SHIFT_PX`` in four directions and,
        unless first read as empty or covered, with its own contrast stretched
        (``local_contrast``: glare or a shadow on that square); the readings are averaged."""
        if crops.ndim != 4 or crops.shape[3] != 3:
            raise ValueError(f"se esperaban recortes N x H x W x 3, no {crops.shape}")
        if len(crops) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        probabilities = self._run(crops)
        # a crop first read as a non-Spanish letter stays so: re-reading never makes it Spanish
        confidence = np.where(probabilities.argmax(axis=1) == _FOREIGN, 1.0, probabilities.max(axis=1))
        unsure = np.argsort(confidence)[: min(self._max_unsure, int((confidence < UNSURE).sum()))]
        if len(unsure):
            # stretching a bare square's own contrast makes it look like a blank tile
            bare = np.isin(probabilities[unsure].argmax(axis=1), _BARE)
            for chosen, stretch in ((unsure[bare], False), (unsure[~bare], True)):
                if len(chosen):
                    probabilities[chosen] = self._reread(crops[chosen], probabilities[chosen], stretch)
        return probabilities

    def _reread(self, crops: NDArray[np.uint8], first: NDArray[np.float32], stretch: bool) -> NDArray[np.float32]:
        """The mean of ``first`` and the readings of the crops moved four ways (and, with
        ``stretch``, contrast-stretched)."""
        variants = [shifted_crops(crops)] + ([local_contrast(crops)] if stretch else [])
        again = self._run(np.concatenate(variants)).reshape(-1, len(crops), len(CLASSES))
        return np.asarray((first + again.sum(axis=0)) / (1 + len(again)), np.float32)

    def _run(self, crops: NDArray[np.uint8]) -> NDArray[np.float32]:
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) * np.float32(1 / 255)
        logits = self._session.run(None, {self._input: x})[0]
        return softmax(np.asarray(logits, np.float32))

    def read(self, crops: NDArray[np.uint8]) -> list[CellReading]:
        """The class read in each crop (``readings``) with its probability."""
        return readings(self.probabilities(crops))


def shifted_crops(crops: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The crops moved ``SHIFT_PX`` right, left, down and up (edges repeated): ``4N x H x W x 3``,
    one direction after another."""
    k = SHIFT_PX
    padded = np.pad(crops, ((0, 0), (k, k), (k, k), (0, 0)), mode="edge")
    h, w = crops.shape[1:3]
    views = [padded[:, k - dy : k - dy + h, k - dx : k - dx + w] for dx, dy in ((k, 0), (-k, 0), (0, k), (0, -k))]
    return np.ascontiguousarray(np.concatenate(views))


def local_contrast(crops: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Each crop's channels stretched so the 2nd..98th percentiles of its middle (the cell
    without its neighbours' margin) span 0..255."""
    values = crops.astype(np.float32)
    middle = crops[:, CONTEXT_PX:-CONTEXT_PX, CONTEXT_PX:-CONTEXT_PX].reshape(len(crops), -1, 3)
    rows = np.ascontiguousarray(middle.transpose(0, 2, 1)).reshape(len(crops) * 3, -1)  # crop-major, then channel
    lo = row_percentiles(rows, 2.0).reshape(len(crops), 1, 1, 3)
    hi = row_percentiles(rows, 98.0).reshape(len(crops), 1, 1, 3)
    return np.asarray(np.clip((values - lo) * (255.0 / np.maximum(hi - lo, 24.0)), 0, 255), np.uint8)


def lean_to_foreign(probabilities: NDArray[np.float32]) -> NDArray[np.float32]:
    """Rows reading one of ``LOOKALIKES`` below ``LEAN_BELOW``, with the non-Spanish class weighed
    ``FOREIGN_WEIGHT``, renormalised. ``LEAN_BELOW`` was 0.7: on fonts never trained on (the
    calibration families, ``models/board/tune_lean.py``) the lean there turned plain O, A, C
    into ``*`` and kept no non-Spanish letter from being read as Spanish (issue 20)."""
    unsure = (probabilities.max(axis=1) < LEAN_BELOW) & _LOOKALIKE[probabilities.argmax(axis=1)]
    if not unsure.any():
        return probabilities
    out = probabilities.copy()
    out[unsure, _FOREIGN] *= FOREIGN_WEIGHT
    out[unsure] /= out[unsure].sum(axis=1, keepdims=True)
    return out


def softmax(logits: NDArray[np.float32]) -> NDArray[np.float32]:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def readings(probabilities: NDArray[np.float32]) -> list[CellReading]:
    """Each cell's most likely class and its probability; but a cell whose tile classes (letters,
    blank, ``*``) together reach ``TILE_ODDS`` (twice as likely a tile as a bare square or a hand)
    is a tile, read as its likeliest tile class at that class's own low probability. A tile of a
    font the models never saw can have its letter spread over many letters, each below the empty
    class: read empty, a play would lose a tile and might pass as a shorter one; read so, it is a
    doubt the tracker asks the arbiter about (issue 20)."""
    best = probabilities.argmax(axis=1)
    likeliest_tile = np.where(_TILE, probabilities, -1.0).argmax(axis=1)
    a_tile = ~_TILE[best] & (probabilities[:, _TILE].sum(axis=1) >= TILE_ODDS)
    best = np.where(a_tile, likeliest_tile, best)
    return [CellReading(CLASSES[int(i)], float(probabilities[k, i])) for k, i in enumerate(best)]


@functools.cache
def default_classifier() -> CellClassifier:
    """The committed model, loaded once per process."""
    return CellClassifier()
