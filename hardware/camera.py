"""Frame sources for the board cameras, behind one small Protocol.

``FrameSource.frames()`` yields ``Frame``s: a BGR image (``H x W x 3`` uint8), the
time ``t`` in seconds since the source started, its index, and the file it came
from when there is one. Replays (a folder of frames, a video file) let every
pipeline run in tests without a camera; ``DeviceSource`` reads a USB camera (an
index such as ``0``) or a stream URL (``rtsp://...``) through OpenCV.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

IMAGE_SUFFIXES: Final = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class SourceError(ValueError):
    """A frame source that cannot be opened; the message names it."""


@dataclass(frozen=True)
class Frame:
    image: NDArray[np.uint8]
    t: float
    index: int
    path: str | None = None


class FrameSource(Protocol):
    def frames(self) -> Iterator[Frame]: ...


def _natural_key(path: Path) -> list[object]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


class FolderSource:
    """The images of a folder in natural name order (``frame-2`` before ``frame-10``),
    ``fps`` frames a second."""

    def __init__(self, folder: str | Path, fps: float = 10.0) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"no existe la carpeta de imágenes {str(self.folder)!r}")
        self.fps = fps
        self.paths = sorted((p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES), key=_natural_key)

    def frames(self) -> Iterator[Frame]:
        for index, path in enumerate(self.paths):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                continue
            yield Frame(image, index / self.fps, index, str(path))


class VideoFileSource:
    """The frames of a video file, timed by the file's own clock."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"no existe el vídeo {str(self.path)!r}")

    def frames(self) -> Iterator[Frame]:
        capture = cv2.VideoCapture(str(self.path))
        if not capture.isOpened():
            raise SourceError(f"no se puede abrir el vídeo {str(self.path)!r}")
        fps = capture.get(cv2.CAP_PROP_FPS) or 10.0
        yield from _read_capture(capture, lambda index: index / fps)


class DeviceSource:
    """A live camera: a device index (``0``) or a stream URL, timed by the wall clock."""

    def __init__(self, device: str | int) -> None:
        self.device = device

    def frames(self) -> Iterator[Frame]:
        target = int(self.device) if isinstance(self.device, int) or str(self.device).isdigit() else str(self.device)
        capture = cv2.VideoCapture(target)
        if not capture.isOpened():
            raise SourceError(f"no se puede abrir la cámara {self.device!r}")
        start = time.monotonic()
        yield from _read_capture(capture, lambda _index: time.monotonic() - start)


def _read_capture(capture: cv2.VideoCapture, clock: Callable[[int], float]) -> Iterator[Frame]:
    """Frames until the capture ends, each timed by ``clock(index)`` (seconds); releases it."""
    index = 0
    try:
        while True:
            ok, image = capture.read()
            if not ok:
                break
            yield Frame(image, clock(index), index)
            index += 1
    finally:
        capture.release()


def open_source(spec: str, fps: float = 10.0) -> FrameSource:
    """A folder of frames, a video file, a device index or a stream URL, from one string."""
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, fps)
    if path.is_file():
        return VideoFileSource(path)
    if spec.isdigit() or "://" in spec:
        return DeviceSource(spec)
    raise SourceError(f"{spec!r} no es una carpeta, un vídeo, un número de cámara ni una URL")
