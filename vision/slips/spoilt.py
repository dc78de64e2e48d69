"""A box that looks crossed out to a network (``spoilt_boxes.onnx``): a second judge beside ``strikes``' rules.

The rules of ``strikes`` measure lines in the ink (a level strike, the two lines of an X, a zigzag's swings). They
cannot tell a zigzag over a coordinate from a written M or N, which is itself a zigzag through the box's middle,
and they miss a zigzag over two letters whose path bends with them (issue 21). The network sees the whole box: a
line that runs over the characters rather than between them.

``SpoiltBoxNet.probability(gray)`` maps a grey crop of a coordinate or word box (H, W), uint8, dark ink on light
paper, at ``layout.PX_PER_MM``, to the probability that its writing is struck out, crossed out or zigzagged.
The network's input is the box's ink (``lineimage.ink_of``, 0 paper .. 1 ink) scaled to 32 px high, keeping the
aspect (a coordinate box 32 x 56, a word box 32 x 186); (N, 1, 32, W) float32 in, (N,) logits out. Trained by
``models/slips/train_spoilt.py`` on boxes that ``models/slips/spoilt_data.py`` writes with training hands.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from .lineimage import ink_of
from .recognizer import MODEL_DIR, one_thread_session

SPOILT_MODEL: Final = MODEL_DIR / "spoilt_boxes.onnx"
HEIGHT: Final = 32  # px: the network's input height
MIN_WIDTH: Final = 16  # px: narrower boxes are widened to this (four poolings leave one column)


def box_input(gray: np.ndarray) -> np.ndarray:
    """(32, W) float32 ink of a grey box crop, scaled to ``HEIGHT`` keeping the aspect (the network's input)."""
    ink = ink_of(gray)
    h, w = ink.shape
    width = max(MIN_WIDTH, round(w * HEIGHT / max(1, h)))
    small = cv2.resize(ink, (width, HEIGHT), interpolation=cv2.INTER_AREA)
    return np.asarray(np.round(small * 255) / 255, dtype=np.float32)  # as the training boxes were stored (uint8)


class SpoiltBoxNet:
    """The committed spoilt-box network (``SPOILT_MODEL``), run by onnxruntime on one thread."""

    def __init__(self, model: Path = SPOILT_MODEL) -> None:
        self._session = one_thread_session(model, "de casillas tachadas del lector de papeletas")
        self._input = self._session.get_inputs()[0].name

    def probability(self, gray: np.ndarray) -> float:
        """The probability that the writing in a box (grey crop, see the module docstring) is crossed out."""
        if gray.size == 0:
            return 0.0
        x = box_input(gray)[None, None]
        logit = float(np.asarray(self._session.run(None, {self._input: x})[0]).reshape(-1)[0])
        return float(1.0 / (1.0 + np.exp(-logit)))


@lru_cache(maxsize=1)
def default_spoilt_net() -> SpoiltBoxNet:
    return SpoiltBoxNet()
