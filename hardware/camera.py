"""Frame sources for the board cameras, behind one small Protocol.

``FrameSource.frames()`` yields ``Frame``s (``vision.frames``): a BGR image (``H x W x 3`` uint8), the
time ``t`` in seconds since the source started, its index, and the file it came
from when there is one. Replays (a folder of frames, a video file) let every
pipeline run in tests without a camera; ``DeviceSource`` reads a USB camera (an
index such as ``0``) or a stream URL (``rtsp://``, ``http(s)://``) through OpenCV.
``open_source(spec, fps)`` picks the kind from one string.

``ResilientSource`` is what a venue's camera runs on: frames at the camera's rate
(``fps``), garbage frames (unreadable, empty, wrong shape) skipped and counted, and
a camera that stops or only sends garbage reopened with exponential back-off
(capped), each change of signal told to ``on_signal`` with the reason in Spanish.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

import cv2
import numpy as np

from vision.frames import Frame as Frame  # re-exported: sources yield it, callers import it from here

IMAGE_SUFFIXES: Final = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class SourceError(ValueError):
    """A frame source that cannot be opened; the message names it."""


class FrameSource(Protocol):
    def frames(self) -> Iterator[Frame]: ...


CAMERA_FRAME_SIZE: Final = (1920, 1080)  # what a USB camera is asked for: the size the board reader is measured at
LIVE_SCHEMES: Final = ("rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://")


def _natural_key(path: Path) -> list[object]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


class FolderSource:
    """The images of a folder in natural name order (``frame-2`` before ``frame-10``),
    ``fps`` frames a second."""

    live = False

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

    live = False

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
    """A live camera: a device index (``0``) or a stream URL, timed by the wall clock.

    A USB camera is asked for ``frame_size`` (width, height px): OpenCV otherwise opens most of them at
    640x480, where a board's squares are 16-28 px and the board reader misreads one letter in seventeen
    (``vision.board.cells.MIN_READ_PITCH``). A camera without that size gives its nearest; a stream
    sends the size it is set to. ``delivered`` is the size the camera gives, once opened."""

    live = True

    def __init__(self, device: str | int, frame_size: tuple[int, int] = CAMERA_FRAME_SIZE) -> None:
        self.device = device
        self.frame_size = frame_size
        self.delivered: tuple[int, int] | None = None

    def frames(self) -> Iterator[Frame]:
        usb = isinstance(self.device, int) or str(self.device).isdigit()
        capture = cv2.VideoCapture(int(self.device) if usb else str(self.device))
        if not capture.isOpened():
            raise SourceError(f"no se puede abrir la cámara {self.device!r}")
        if usb:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.frame_size[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.frame_size[1])
        self.delivered = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
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
    if spec.isdigit() or spec.lower().startswith(LIVE_SCHEMES):
        return DeviceSource(spec)
    raise SourceError(f"{spec!r} no es una carpeta, un vídeo, un número de cámara ni una URL")


def is_live(spec: str) -> bool:
    """True for a camera (device index or stream URL), False for a replay."""
    return spec.isdigit() or spec.lower().startswith(LIVE_SCHEMES)


MIN_SIDE: Final = 32  # a frame smaller than this on either side is garbage


def frame_fault(image: object, expected: tuple[int, ...] | None = None) -> str | None:
    """Why ``image`` is not a usable frame (Spanish), or None when it is."""
    if image is None:
        return "imagen ilegible"
    if not isinstance(image, np.ndarray):
        return f"imagen de tipo {type(image).__name__}"
    if image.size == 0:
        return "imagen vacía"
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        return f"imagen de forma {image.shape} ({image.dtype}); se esperaba color de 8 bits"
    if min(image.shape[:2]) < MIN_SIDE:
        return f"imagen demasiado pequeña ({image.shape[1]}x{image.shape[0]})"
    if expected is not None and image.shape != expected:
        return f"imagen de {image.shape[1]}x{image.shape[0]} en una cámara de {expected[1]}x{expected[0]}"
    return None


@dataclass(frozen=True)
class Signal:
    """A camera's signal: ``ok`` or lost with ``reason``; ``retry_in`` seconds to the next attempt."""

    ok: bool
    reason: str = ""
    retry_in: float = 0.0
    attempts: int = 0
    ended: bool = False  # a replay that reached its end (not retried)


@dataclass
class Backoff:
    """Exponential back-off: ``initial``, doubled after each failure, at most ``cap`` seconds."""

    initial: float = 0.5
    cap: float = 30.0
    current: float = 0.0

    def next(self) -> float:
        self.current = self.initial if self.current <= 0 else min(self.cap, self.current * 2)
        return self.current

    def reset(self) -> None:
        self.current = 0.0


class ResilientSource:
    """A camera that may stop or send garbage, kept running (see the module docstring).

    ``opener`` opens the underlying source (again after each loss). Frames come out at
    most ``fps`` a second, with increasing times and indices across reconnections. A
    replay (``live`` False) ends at its last frame, reported as ``Signal(False, ended=True)``;
    a live camera that ends, raises or sends ``bad_frames`` garbage frames in a row is
    lost and reopened after the back-off. ``sleep`` waits (a worker passes one that
    keeps answering the server); ``stopped`` ends the frames.
    """

    def __init__(
        self,
        opener: Callable[[], FrameSource],
        fps: float,
        *,
        live: bool,
        on_signal: Callable[[Signal], None] | None = None,
        backoff: Backoff | None = None,
        bad_frames: int = 5,
        realtime: bool = False,
        sleep: Callable[[float], None] = time.sleep,
        stopped: Callable[[], bool] = lambda: False,
    ) -> None:
        self.opener = opener
        self.period = 1.0 / fps if fps > 0 else 0.0
        self.live = live
        self.on_signal = on_signal
        self.backoff = backoff or Backoff()
        self.bad_frames = bad_frames
        self.realtime = realtime
        self.sleep = sleep
        self.stopped = stopped
        self.rejected = 0  # garbage frames skipped so far
        self.signal = Signal(False, "conectando")
        self._index = 0
        self._offset = 0.0
        self._last_t = -1e9

    def frames(self) -> Iterator[Frame]:
        attempts = 0
        while not self.stopped():
            reason = yield from self._run_once()
            if reason is None:  # a replay's end
                self._tell(Signal(False, "la grabación ha terminado", ended=True))
                return
            if self.stopped():
                return
            attempts += 1
            delay = self.backoff.next()
            self._tell(Signal(False, reason, retry_in=delay, attempts=attempts))
            self.sleep(delay)

    def _run_once(self) -> Generator[Frame, None, str | None]:
        """Frames from one opening; the reason it was lost (None: a replay ended)."""
        try:
            frames = iter(self.opener().frames())
        except (SourceError, OSError, cv2.error) as error:
            return f"no se puede abrir: {error}"
        expected: tuple[int, ...] | None = None
        bad = 0
        started = time.monotonic()
        first_t: float | None = None
        self._offset = max(self._offset, self._last_t + self.period) if self._last_t > -1e9 else 0.0
        while not self.stopped():
            try:
                frame = next(frames, None)
            except (SourceError, OSError, cv2.error) as error:
                return f"error al leer la imagen: {error}"
            if frame is None:
                return "la cámara ha dejado de enviar imágenes" if self.live else None
            fault = frame_fault(frame.image, expected)
            if fault is not None:
                self.rejected += 1
                bad += 1
                if bad >= self.bad_frames:
                    return f"imágenes no válidas: {fault}"
                continue
            bad = 0
            expected = frame.image.shape
            if not self.signal.ok:
                self.backoff.reset()
                self._tell(Signal(True))
            first_t = frame.t if first_t is None else first_t
            t = self._offset + frame.t - first_t
            if t - self._last_t < self.period * 0.999:
                continue  # faster than the camera's rate: dropped
            if self.realtime and not self.live:
                self.sleep(max(0.0, (frame.t - first_t) - (time.monotonic() - started)))
            self._last_t = t
            yield Frame(frame.image, t, self._index, frame.path)
            self._index += 1
        return "parada"

    def _tell(self, signal: Signal) -> None:
        self.signal = signal
        if self.on_signal is not None:
            self.on_signal(signal)


def open_camera(spec: str, fps: float, **options: Any) -> ResilientSource:
    """``open_source(spec, fps)`` kept running by a ``ResilientSource``."""
    return ResilientSource(lambda: open_source(spec, fps), fps, live=is_live(spec), **options)
