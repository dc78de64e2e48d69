"""Cell classification with the committed ONNX model (``models/board/board_cells.onnx``).

``CellClassifier.probabilities(crops)`` takes ``N x 40 x 40 x 3`` uint8 crops from
``cells.board_crops`` and returns ``N x 32`` probabilities over ``labels.CLASSES``
(the class list is read from ``labels.json`` beside the model and must match).
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

from .labels import CLASSES

MODEL_DIR: Final = Path(__file__).resolve().parents[2] / "models" / "board"
MODEL_PATH: Final = MODEL_DIR / "board_cells.onnx"


class ModelError(RuntimeError):
    """The classifier model is missing or does not match this code's classes."""


@dataclass(frozen=True)
class CellReading:
    """One cell: the most likely class, its probability, and the full distribution."""

    label: str
    confidence: float


class CellClassifier:
    """The ONNX cell classifier (see the module docstring)."""

    def __init__(self, path: Path | str = MODEL_PATH) -> None:
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

    def probabilities(self, crops: NDArray[np.uint8]) -> NDArray[np.float32]:
        """``N x 40 x 40 x 3`` uint8 crops -> ``N x 32`` class probabilities."""
        if crops.ndim != 4 or crops.shape[3] != 3:
            raise ValueError(f"se esperaban recortes N x H x W x 3, no {crops.shape}")
        if len(crops) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) * np.float32(1 / 255)
        logits = self._session.run(None, {self._input: x})[0]
        return softmax(np.asarray(logits, np.float32))

    def read(self, crops: NDArray[np.uint8]) -> list[CellReading]:
        """The most likely class of each crop with its probability."""
        return readings(self.probabilities(crops))


def softmax(logits: NDArray[np.float32]) -> NDArray[np.float32]:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def readings(probabilities: NDArray[np.float32]) -> list[CellReading]:
    best = probabilities.argmax(axis=1)
    return [CellReading(CLASSES[int(i)], float(probabilities[k, i])) for k, i in enumerate(best)]


@functools.cache
def default_classifier() -> CellClassifier:
    """The committed model, loaded once per process."""
    return CellClassifier()
