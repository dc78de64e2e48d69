"""One board camera's loop: frames -> ``BoardTracker`` -> JSON messages for the server.

The same loop runs in a worker process of the server (``worker_main``, one per local
camera, started with the ``spawn`` method), on a camera node (``veedor camera-node``,
whose messages go to the server's device API) and in the demo. Messages are plain
JSON objects with a ``type``:

* ``status`` (at least every ``status_seconds``, and at once when the signal changes):
  ``signal`` (bool), ``reason`` (why not, Spanish), ``state`` (the tracker's: ``sin
  tablero``, ``buscando tablero``, ``en movimiento``, ``tapado``, ``leyendo``,
  ``estable``, ``duda``), ``fps`` (frames processed a second), ``frames``,
  ``rejected`` (garbage frames skipped), ``last_frame`` (wall-clock time), ``ended``;
* ``report``: a tracker ``Report`` (``report``), with an ``id`` unique to this run of
  the camera; the frame of a play, withdrawal or doubt is written as JPEG under
  ``<data>/camera-frames/<camera>/`` *before* the report is sent (``frame_path``), and
  a node also sends it (``frame_jpeg``, base64) since the server cannot read its disk;
* ``preview``: a downscaled JPEG (base64) every ``preview_seconds``;
* ``calibration``: the outcome of a calibration asked by the server, with its preview
  (``preview_jpeg``; the worker also writes it as PNG under ``<data>/calibration/``).

The server answers with commands (``desk.apply_command``: ``sync`` with the game's
board, ``accept``) and ``{"type": "calibrate"}``. A ``sync`` names the last report the
server applied (``report``); until it names the camera's last play or withdrawal,
older boards are ignored (they would undo the play and have it reported twice).
"""

from __future__ import annotations

import base64
import os
import signal as signals
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from queue import Empty
from typing import Any, Final

import cv2
import numpy as np
from numpy.typing import NDArray

from hardware.camera import Backoff, Frame, FrameSource, ResilientSource, Signal, is_live, open_source
from rules_core.lexicon import Lexicon
from vision.board.calibration import Calibration, calibrate, load_calibration, save_calibration
from vision.board.desk import apply_command
from vision.board.tracker import BoardTracker, Report, TrackerSettings

Message = dict[str, Any]
FRAME_KINDS: Final = frozenset({"play", "withdrawn", "doubt"})  # reports whose frame is kept
SENT_KINDS: Final = frozenset({"play", "withdrawn", "doubt", "resolved", "board_found", "board_lost"})
CALIBRATION_FRAMES: Final = 15  # frames tried before a calibration fails
AWAIT_SECONDS: Final = 15.0  # a play not acknowledged by then: the server's boards are taken again


@dataclass(frozen=True)
class WorkerConfig:
    """What a camera loop needs (picklable: it crosses into the worker process)."""

    name: str
    source: str
    data_dir: str
    fps: float = 5.0
    turn: int | None = None  # quarter turns to row A (the venue's orientation / 90)
    realtime: bool = True  # a replay (folder, video) comes at its own pace
    node: bool = False  # frames travel inside the messages
    preview_seconds: float = 2.0
    status_seconds: float = 1.0
    preview_width: int = 480
    initial_backoff: float = 0.5
    max_backoff: float = 30.0

    @property
    def frames_dir(self) -> Path:
        return Path(self.data_dir) / "camera-frames" / self.name

    @property
    def calibration_dir(self) -> Path:
        return Path(self.data_dir) / "calibration"


def encode_jpeg(image: NDArray[np.uint8], width: int | None = None, quality: int = 80) -> bytes:
    """JPEG bytes of ``image``, downscaled to ``width`` pixels wide when it is wider."""
    if width is not None and image.shape[1] > width:
        scale = width / image.shape[1]
        image = cv2.resize(image, (width, max(1, int(round(image.shape[0] * scale)))), interpolation=cv2.INTER_AREA)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("no se pudo codificar la imagen en JPEG")
    return encoded.tobytes()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class CameraLoop:
    """Frames into the tracker, reports and status out as messages (see the module docstring)."""

    def __init__(self, config: WorkerConfig, tracker: BoardTracker, send: Callable[[Message], None], clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.tracker = tracker
        self.send = send
        self.clock = clock
        self.signal = Signal(False, "conectando")
        self.run_id = f"{int(clock() * 1000):x}-{os.getpid():x}"
        self.rejected = 0
        self.last_frame: float | None = None
        self._times: deque[float] = deque(maxlen=30)
        self._status_at = 0.0
        self._preview_at = 0.0
        self._calibrating = 0
        self._awaiting: tuple[str, float] | None = None  # the last play or withdrawal sent, not yet applied

    # -- the server's side -----------------------------------------------------------

    def commands(self, messages: list[Message]) -> None:
        for message in messages:
            if message.get("type") == "calibrate":
                self._calibrating = CALIBRATION_FRAMES
            elif message.get("type") == "sync" and self._stale(message):
                continue
            else:
                apply_command(self.tracker, message)

    def _stale(self, sync: Message) -> bool:
        """A board sent before the server applied this camera's last play or withdrawal:
        taking it would undo the play here and report it twice."""
        if self._awaiting is None:
            return False
        ident, since = self._awaiting
        if sync.get("report") == ident or time.monotonic() - since > AWAIT_SECONDS:
            self._awaiting = None
            return False
        return True

    def load_calibration(self) -> Calibration | None:
        found = load_calibration(self.config.calibration_dir, self.config.name)
        if found is not None and found.found and found.homography is not None:
            self.tracker.use_calibration(found.homography, self.config.turn if self.config.turn is not None else found.turn)
        return found

    # -- frames ------------------------------------------------------------------------

    def on_signal(self, signal: Signal) -> None:
        self.signal = signal
        self.heartbeat(force=True)

    def process(self, frame: Frame) -> list[Report]:
        """Feed one frame; send its reports, the status and the preview when due."""
        if self._calibrating:
            self._calibrate(frame)
        reports = self.tracker.feed(frame)
        for report in reports:
            if report.kind in SENT_KINDS:
                self._send_report(report, frame)
        self.last_frame = self.clock()
        self._times.append(time.monotonic())
        self.heartbeat()
        if self.last_frame - self._preview_at >= self.config.preview_seconds:
            self._preview_at = self.last_frame
            self.send({"type": "preview", "t": self.last_frame, "jpeg": b64(encode_jpeg(frame.image, self.config.preview_width, 70))})
        return reports

    def heartbeat(self, force: bool = False) -> None:
        now = self.clock()
        if force or now - self._status_at >= self.config.status_seconds:
            self._status_at = now
            self.send(self.status())

    def status(self) -> Message:
        s = self.tracker.status
        return {
            "type": "status", "t": self.clock(), "signal": self.signal.ok, "reason": self.signal.reason,
            "retry_in": self.signal.retry_in, "ended": self.signal.ended, "state": s.status,
            "board_found": s.board_found, "fps": round(self._fps(), 2), "frames": s.frames,
            "rejected": self.rejected, "last_frame": self.last_frame, "ms_per_frame": round(1000 * s.seconds_per_frame, 1),
            "pending": s.pending, "turn": s.turn, "cgp": s.cgp,
        }  # fmt: skip

    def _fps(self) -> float:
        if len(self._times) < 2 or time.monotonic() - self._times[-1] > 3.0:
            return 0.0
        return (len(self._times) - 1) / max(self._times[-1] - self._times[0], 1e-6)

    def _send_report(self, report: Report, frame: Frame) -> None:
        message: Message = {"type": "report", "id": f"{self.run_id}-{report.id}"}
        if report.kind in FRAME_KINDS:
            data = encode_jpeg(frame.image, quality=85)
            path = self._store_frame(frame, data)  # stored before it is reported
            report = replace(report, frame_path=str(path))
            if self.config.node:  # at most ~150 KB: a node's request must stay under the server's limit
                sent = encode_jpeg(frame.image, 1024, 70)
                message["frame_jpeg"] = b64(sent if len(sent) < 110_000 else encode_jpeg(frame.image, 640, 60))
        message["report"] = report.to_json()
        if report.kind in ("play", "withdrawn"):
            self._awaiting = (str(message["id"]), time.monotonic())
        self.send(message)

    def _store_frame(self, frame: Frame, data: bytes) -> Path:
        folder = self.config.frames_dir
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.run_id}-{frame.index:06d}.jpg"
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, path)
        return path

    def _calibrate(self, frame: Frame) -> None:
        self._calibrating -= 1
        result, preview = calibrate(self.config.name, [frame.image], self.config.turn)
        if not result.found and self._calibrating > 0:
            return
        self._calibrating = 0
        message: Message = {"type": "calibration", "found": result.found, "reason": result.reason, "turn": result.turn,
                            "calibration": result.to_json()}  # fmt: skip
        if result.found and result.homography is not None:
            save_calibration(self.config.calibration_dir, result, preview)
            self.tracker.use_calibration(result.homography, self.config.turn if self.config.turn is not None else result.turn)
            if preview is not None:  # JPEG: it must fit in a node's request
                message["preview_jpeg"] = b64(encode_jpeg(preview, quality=80))
        self.send(message)


def run_camera(
    config: WorkerConfig,
    lexicon: Lexicon,
    send: Callable[[Message], None],
    receive: Callable[[], list[Message]],
    stopped: Callable[[], bool],
    opener: Callable[[], FrameSource] | None = None,
    settings: TrackerSettings | None = None,
) -> CameraLoop:
    """Run one camera until ``stopped()``: a replay that ends keeps answering the server."""
    tracker = BoardTracker(config.name, lexicon, settings or TrackerSettings(turn=config.turn))
    loop = CameraLoop(config, tracker, send)
    loop.load_calibration()

    def idle(seconds: float) -> None:
        """Wait ``seconds``, answering the server and beating meanwhile."""
        end = time.monotonic() + seconds
        while not stopped():
            loop.commands(receive())
            loop.heartbeat()
            left = end - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(0.1, left))

    source = ResilientSource(
        opener or (lambda: open_source(config.source, config.fps)), config.fps, live=is_live(config.source),
        on_signal=loop.on_signal, backoff=Backoff(config.initial_backoff, config.max_backoff),
        realtime=config.realtime, sleep=idle, stopped=stopped,
    )  # fmt: skip
    loop.heartbeat(force=True)
    for frame in source.frames():
        loop.rejected = source.rejected
        loop.commands(receive())
        loop.process(frame)
    loop.rejected = source.rejected
    while not stopped():
        idle(0.5)
    return loop


def drain(inbox: Any) -> list[Message]:
    """Every message waiting in a multiprocessing queue, without blocking."""
    out: list[Message] = []
    while True:
        try:
            out.append(inbox.get_nowait())
        except (Empty, OSError, EOFError, ValueError):
            return out


def worker_main(config: WorkerConfig, lexicon: Lexicon, outbox: Any, inbox: Any, stop: Any) -> None:
    """Entry point of a camera's worker process (``multiprocessing`` with ``spawn``)."""
    signals.signal(signals.SIGINT, signals.SIG_IGN)  # the server stops its workers itself
    parent = os.getppid()

    def stopped() -> bool:  # asked to stop, or the server is gone (killed): never an orphan
        return bool(stop.is_set()) or os.getppid() != parent

    run_camera(config, lexicon, outbox.put, lambda: drain(inbox), stopped)
