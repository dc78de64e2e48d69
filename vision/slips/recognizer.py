"""The handwriting recogniser at run time: the committed ONNX CRNN, run by onnxruntime.

``Recognizer.log_probs`` maps a grey line image (or an already prepared (32, W)
float image) to (T, C) natural-log probabilities, T = W // 4 frames, C classes
listed in ``labels.json`` beside the model (index 0 the CTC blank). Decoding and
scoring are in ``ctc`` (pure NumPy). One thread per session: throughput comes
from running one reader per core.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from . import tokens
from .lineimage import prepare_line

MODEL_DIR: Final = Path(__file__).resolve().parents[2] / "models" / "slips"
DEFAULT_MODEL: Final = MODEL_DIR / "slip_recognizer.onnx"
GRID_MODEL: Final = MODEL_DIR / "grid_recognizer.onnx"  # reads the letters written on an absolute slip's board as a line


class ModelError(RuntimeError):
    """The recogniser's model is missing or does not match the reader's alphabet."""


def one_thread_session(model: Path, what: str) -> Any:
    """An onnxruntime session of ``model`` on one CPU thread: the reader runs beside cameras and the web app.
    A missing file is a ``ModelError`` naming it and ``what`` it is (``"del lector de papeletas"``)."""
    import onnxruntime

    if not model.exists():
        raise ModelError(f"{model}: no existe el modelo {what}")

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


class Recognizer:
    """One loaded model; ``labels`` are its classes, which must equal ``tokens.TOKENS``."""

    def __init__(self, model: Path = DEFAULT_MODEL) -> None:
        self._session = one_thread_session(model, "del lector de papeletas")
        labels_path = model.with_name("labels.json")
        labels = json.loads(labels_path.read_text(encoding="utf-8"))["labels"]
        if tuple(labels) != tokens.TOKENS:
            raise ModelError(f"{labels_path}: las clases del modelo no son las del lector (vision/slips/tokens.py)")
        self.labels: tuple[str, ...] = tuple(labels)
        self.model_path = model
        self._input = self._session.get_inputs()[0].name

    def log_probs(self, line: np.ndarray) -> np.ndarray:
        """(T, C) float32 log-probabilities of a grey uint8 line image or a prepared (32, W) float image."""
        prepared = line if line.dtype == np.float32 and line.shape[0] == 32 else prepare_line(line)
        out = self._session.run(None, {self._input: prepared[None, None].astype(np.float32)})[0]
        return np.asarray(out[:, 0, :], dtype=np.float32)


@lru_cache(maxsize=3)
def default_recognizer(model: Path = DEFAULT_MODEL) -> Recognizer:
    """A committed model (the play lines' by default; ``GRID_MODEL`` for boards), loaded once per process."""
    return Recognizer(model)
