"""The letters written on an absolute slip's board, read square by square (``square_recognizer.onnx``).

A written square is cut as ``absolute.cell_box`` gives it (8 px/mm, inset 0: about 34 x 34 px, the
printed lines included) and becomes a (32, 32) float32 image of ink in [0, 1] (``square_image``: the
printed lines cut away, contrast under ``INK_FLOOR`` grey levels dropped, the darkest ink 1). The model
maps (N, 1, 32, 32) to (N, 30): natural-log probabilities of the 28 Spanish letters (``LETTERS``, a
digraph written in one square one class) and then of (plain, circled). Each square is read on ``SHIFTS``
(the cut moved by a pixel) and its log-probabilities averaged.

``score_squares`` scores the written forms of the legal plays over the squares (``absolute.grid_candidates``)
as the sum over their squares, and the best few strings of that many squares as the unconstrained
readings, into a ``decoder.Scored``: a board read square by square is decided as a written play is. Each
square of the likeliest reading is read with its own probability (``Scored.letters``), and a play whose letter in a
square read otherwise is unlikely there says otherwise than the writing (``Scored.clashes``: 1 less its probability).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from . import absolute
from .decoder import CandidateSet, Scored
from .recognizer import MODEL_DIR, ModelError, one_thread_session

SQUARE_MODEL: Final = MODEL_DIR / "square_recognizer.onnx"
LETTERS: Final = tuple("A B C CH D E F G H I J L LL M N Ñ O P Q R RR S T U V X Y Z".split())
LETTER_INDEX: Final = {letter: i for i, letter in enumerate(LETTERS)}
SIZE: Final = 32  # the model's input side, px
LINES: Final = 3  # px cut from each side of a square: the printed lines (``absolute.cell_box``, inset 0)
INK_FLOOR: Final = 40.0  # grey levels under the paper below which nothing is ink (the premium tints)
SHIFTS: Final = ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))  # (dx, dy) px: the views each square is read on
BEAM: Final = 8  # unconstrained readings kept


def square_image(cell: np.ndarray, paper: float) -> np.ndarray:
    """A square cut at inset 0 (grey uint8) -> (``SIZE``, ``SIZE``) float32 ink in [0, 1]."""
    crop = cell[LINES:-LINES, LINES:-LINES].astype(np.float32)
    ink = np.clip(paper - crop, 0.0, None)
    ink[ink <= INK_FLOOR] = 0.0
    darkest = float(ink.max())
    if darkest > 0.0:
        ink /= darkest
    return cv2.resize(ink, (SIZE, SIZE), interpolation=cv2.INTER_AREA)


def square_cells(frame: np.ndarray, squares: Sequence[absolute.SquareT], dx: int = 0, dy: int = 0) -> list[np.ndarray]:
    """The squares cut from the straightened absolute slip (``absolute.rectify_board``), moved by (dx, dy) px."""
    cells = []
    for row, col in squares:
        x0, y0, x1, y1 = absolute.cell_box(row, col)
        x0, y0 = max(0, x0 + dx), max(0, y0 + dy)
        cells.append(frame[y0 : y1 + dy, x0 : x1 + dx])
    return cells


def letter_label(joint_index: int) -> str:
    """A square's label from its joint index (letter * 2 + circled): ``CH``, or ``ch`` when circled."""
    letter = LETTERS[joint_index // 2]
    return letter.lower() if joint_index % 2 else letter


def joint_index(written: str) -> int:
    """The joint index of a square's written label (``ch``: circled CH); KeyError for a letter not Spanish."""
    return LETTER_INDEX[written.upper()] * 2 + int(written.islower())


def square_labels(text: str, count: int) -> list[str] | None:
    """A written form (``LLAVEAbA``) cut into ``count`` squares' labels, a digraph (``CH``, ``ch``) one
    square where the count needs it; None when it cannot be cut so."""
    memo: dict[tuple[int, int], list[str] | None] = {}

    def cut(at: int, left: int) -> list[str] | None:
        if at == len(text) or left == 0:
            return [] if at == len(text) and left == 0 else None
        if (at, left) not in memo:
            pair = text[at : at + 2]
            found = None
            if pair.upper() in ("CH", "LL", "RR") and (pair.isupper() or pair.islower()):
                rest = cut(at + 2, left - 1)
                found = None if rest is None else [pair] + rest
            if found is None:
                rest = cut(at + 1, left - 1)
                found = None if rest is None else [text[at]] + rest
            memo[(at, left)] = found
        return memo[(at, left)]

    return cut(0, count)


def joint_log_probs(out: np.ndarray) -> np.ndarray:
    """(N, 30) model output -> (N, 56) log-probabilities of (letter, circled), index letter * 2 + circled."""
    letters = len(LETTERS)
    return (out[:, :letters, None] + out[:, None, letters:]).reshape(len(out), -1)


def score_squares(out: np.ndarray, cands: CandidateSet, coordinate: str) -> Scored:
    """The written squares' outputs (N, 30), in reading order, scored against every written form of the plays
    over them and the ``BEAM`` best unconstrained readings (given ``coordinate``, so a reading can be scored
    0 as written), as ``absolute.score_grid_line`` does for a line."""
    joint = joint_log_probs(out)
    beams = _beams(joint)
    read, sure = beams[0][0], [float(np.exp(joint[i, j])) for i, j in enumerate(beams[0][0])]
    entries: list[tuple[str, str, int | None, float]] = []
    forms: set[str] = set()
    clashes: dict[str, float] = {}
    for cand in cands.candidates:
        labels = square_labels(cand.text, len(joint))
        if labels is None or any(label.upper() not in LETTER_INDEX for label in labels):
            continue
        indices = [joint_index(label) for label in labels]
        value = float(sum(joint[i, j] for i, j in enumerate(indices)))
        entries.append((cand.kind, cand.play, cand.score, value))
        forms.add(cand.text)
        if cand.kind == "play":  # a square where the play's letter is not seen, the least over the play's forms
            clash = max((1.0 - float(np.exp(joint[i, j])) for i, j in enumerate(indices) if j != read[i]), default=0.0)
            clashes[cand.play] = min(clashes.get(cand.play, 1.0), clash)
    if entries:  # the rest weigh nothing
        best = max(entry[3] for entry in entries)
        entries = [entry for entry in entries if entry[3] > best - 30.0]
    readings = ["".join(letter_label(j) for j in path) for path, _ in beams]
    for text, (_, value) in zip(readings, beams):
        if text not in forms:
            entries.append(("reading", coordinate + text, None, value))
    letters = [1.0] * len(coordinate) + [p for p, j in zip(sure, read) for _ in letter_label(j)]
    return Scored(f"{coordinate} {readings[0]}", tuple(entries), letters=tuple(letters), clashes=clashes)


def _beams(joint: np.ndarray) -> list[tuple[tuple[int, ...], float]]:
    """The ``BEAM`` likeliest readings of the squares (joint indices, one a square) with their log-probabilities."""
    beams: list[tuple[tuple[int, ...], float]] = [((), 0.0)]
    for row in joint:
        top = np.argsort(-row)[:BEAM]
        grown = [(path + (int(j),), value + float(row[j])) for path, value in beams for j in top]
        beams = sorted(grown, key=lambda beam: -beam[1])[:BEAM]
    return beams


class SquareRecognizer:
    """The committed square classifier, run by onnxruntime on one thread."""

    def __init__(self, model: Path = SQUARE_MODEL) -> None:
        self._session = one_thread_session(model, "de las casillas del tablero")
        labels = self._session.get_modelmeta().custom_metadata_map.get("letters", "")
        if tuple(labels.split()) != LETTERS:
            raise ModelError(f"{model}: las letras del modelo no son las del lector (vision/slips/squares.py)")
        self._input = self._session.get_inputs()[0].name
        self.model_path = model

    def log_probs(self, images: np.ndarray) -> np.ndarray:
        """(N, 30) float32 log-probabilities of (N, ``SIZE``, ``SIZE``) square images (``square_image``)."""
        out = self._session.run(None, {self._input: images[:, None].astype(np.float32)})[0]
        return np.asarray(out, dtype=np.float32)

    def read(self, frame: np.ndarray, squares: Sequence[absolute.SquareT]) -> np.ndarray:
        """(N, 30): the written squares of a straightened absolute slip, each read on every ``SHIFTS`` view and
        its log-probabilities averaged."""
        paper = absolute.paper_level(frame)
        views = [np.stack([square_image(cell, paper) for cell in square_cells(frame, squares, dx, dy)])
                 for dx, dy in SHIFTS]  # fmt: skip
        return np.asarray(self.log_probs(np.concatenate(views)).reshape(len(SHIFTS), len(squares), -1).mean(0))


@lru_cache(maxsize=1)
def default_square_recognizer() -> SquareRecognizer:
    """The committed square classifier, loaded once per process."""
    return SquareRecognizer()
