"""A frame is an image with a time: what a camera source yields and the vision pipelines read.

``Frame.image`` is a BGR image (OpenCV's channel order), ``H x W x 3`` uint8. ``t`` is
the time in seconds since the source started, increasing from frame to frame; ``index``
counts the source's frames from 0; ``path`` is the file the frame came from when there
is one (a folder replay), else None (a video, a live camera, a rendered frame).

Sources live in ``hardware.camera`` (which re-exports ``Frame``); ``vision`` only reads
frames, it never opens a camera.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Frame:
    """One image (BGR, ``H x W x 3`` uint8) at time ``t`` (seconds), the ``index``-th of its
    source, read from ``path`` when it came from a file."""

    image: NDArray[np.uint8]
    t: float
    index: int
    path: str | None = None
