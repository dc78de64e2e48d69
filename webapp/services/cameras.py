"""The server's board cameras: the registry of their live state, their desks and their doubts.

``CameraRegistry`` (``Services.cameras``) knows every camera of the venue: local
cameras read by a worker process of this server (``CameraWorkers``), camera nodes
that post to the device API (``camera_api``) and the demo's in-process table. Every
camera sends the same JSON messages (``hardware.camera_worker``), applied by
``receive(camera, message)``: status and previews are kept for the console; reports
go to the camera's ``CameraDesk`` (``vision.board.desk``), which records plays in the
classic game the camera is attached to and queues doubts for the arbiter.

The game is the source of truth: after every event stored in a game with a camera
attached, the camera is sent the game's board (``sync``), and its tracker follows;
a press of the table's clock that ends a turn is sent on (``{"type": "press"}``): the
camera judges the board as it stands then (with the clock in play, plays wait for it).
A camera has *no signal* when it says so (lost or garbage frames, with the reason),
when its worker has died, or when nothing came from it for ``SILENT_SECONDS``; the
screens of its game then show "cámara sin señal" (``screen_note``) rather than a
board that may be stale. The attachment of each camera to its game is kept in
``<data>/cameras.json`` and the arbiter's doubts in ``<data>/camera-doubts.jsonl``
(``ReviewQueue``'s journal), so a restart finds them attached again and the open
doubts still open, with their frames. Every image a message carries (preview, a report's
frame, a calibration's view) must be a JPEG within ``vision.decoding.CAMERA`` (4
megapixels), checked from its header before it is kept or decoded; else the message is
refused with the reason.

A camera node posts only as what its token was registered for (``receive``'s ``node``):
the cameras named at registration, never a camera of the server itself (local or demo),
and only while its camera is attached to a game the token may write to; a frame path in
a report is kept only when it names a frame the server stored (``stored_files``), so a
report can never point the console or the evidence file at another file.

The worker processes of local cameras are ``camera_workers``' business.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, Protocol

from rules_core.classic import ClassicGame
from rules_core.classic_clock import press_ended_turn
from rules_core.events import Event, GameError
from vision import decoding
from vision.board.desk import CameraDesk, ReviewItem, ReviewQueue, sync_message
from vision.board.tracker import Report

from .accounts import Device
from .live import LiveGames
from .stored_files import NotStored, StoredFiles

log = logging.getLogger(__name__)

Message = dict[str, Any]
SILENT_SECONDS: Final = 5.0  # nothing from a camera for this long: no signal
MAX_CAMERAS: Final = 64  # a device token cannot fill the registry with made-up cameras
SEEN_IDS: Final = 500  # report ids remembered per camera (a node's retries are not applied twice)
HANDS: Final = frozenset({"en movimiento", "tapado"})
SEARCHING: Final = frozenset({"sin tablero", "buscando tablero"})
BOARD_EVENTS: Final = frozenset({"play", "challenge"})  # classic events that change the board


class CameraConfigLike(Protocol):
    """What ``start_cameras`` reads of a camera (``hardware.venue.CameraConfig``)."""

    @property
    def name(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def fps(self) -> float: ...
    @property
    def orientation(self) -> int | None: ...
    @property
    def node(self) -> bool: ...
    @property
    def table(self) -> int | None: ...


class CameraError(ValueError):
    """A camera message or action that cannot be applied; the message says why (Spanish)."""


class CameraRefused(CameraError):
    """A node posting beyond its token: ``status`` 403 (a camera it was not registered for; for good) or
    409 (its camera is attached to a game it may not write to: it may retry once the arbiter changes it)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class CameraEntry:
    """One camera as the server knows it."""

    name: str
    kind: str = "local"  # local (worker process), node (device API), demo (in-process)
    source: str = ""
    fps: float = 0.0
    table: int | None = None
    game_id: str = ""
    status: Message = field(default_factory=dict)
    received_at: float | None = None  # monotonic time of the last message
    down_reason: str = ""  # set when the worker process died
    preview: bytes | None = None
    preview_at: float | None = None  # wall-clock time
    calibration: Message | None = None
    commands: list[Message] = field(default_factory=list)  # waiting for a node's next post
    deliver: Callable[[Message], None] | None = None
    last_report: str = ""  # id of the last report applied: a camera ignores older boards
    seen: deque[str] = field(default_factory=lambda: deque(maxlen=SEEN_IDS))


class CameraRegistry:
    """Every camera of the server (see the module docstring)."""

    def __init__(self, games: LiveGames | None = None, data_dir: Path | None = None,
                 files: StoredFiles | None = None) -> None:  # fmt: skip
        self.games = games
        self.data_dir = data_dir
        self.files = files or StoredFiles(data_dir)
        self.queue = ReviewQueue(None if data_dir is None else data_dir / "camera-doubts.jsonl")
        self._cameras: dict[str, CameraEntry] = {}
        self._desks: dict[str, CameraDesk] = {}
        self._lock = threading.RLock()
        self._saved = self._load_attachments()
        if games is not None:
            games.subscribe(self._on_event)

    def __len__(self) -> int:
        return len(self._cameras)

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._cameras)

    # -- cameras and their games -------------------------------------------------------

    def add(self, name: str, *, kind: str = "local", source: str = "", fps: float = 0.0, table: int | None = None,
            deliver: Callable[[Message], None] | None = None, game_id: str | None = None) -> CameraEntry:  # fmt: skip
        """Register (or update) a camera; it keeps the game it was attached to before a restart."""
        with self._lock:
            entry = self._cameras.get(name) or CameraEntry(name)
            entry.kind, entry.source, entry.fps, entry.table = kind, source, fps, table
            entry.deliver = deliver or entry.deliver
            self._cameras[name] = entry
            wanted = game_id if game_id is not None else self._saved.get(name, entry.game_id)
            self._set_game(entry, wanted if wanted and self._is_classic(wanted) else "")
            return entry

    def set_deliver(self, name: str, deliver: Callable[[Message], None] | None) -> None:
        """Where the camera's commands go (its worker's queue); None: kept for its next post."""
        with self._lock:
            entry = self._entry(name)
            entry.deliver = deliver
            self._desks.pop(name, None)

    def attach(self, name: str, game_id: str) -> None:
        """Attach the camera to a classic game ('' detaches it); remembered across restarts."""
        with self._lock:
            entry = self._entry(name)
            if game_id and not self._is_classic(game_id):
                raise CameraError(f"la partida {game_id} no existe o no es una partida clásica")
            self._set_game(entry, game_id)
            self._saved[name] = game_id
            self._save_attachments()
        self.resync(name)

    def game_of(self, name: str) -> str:
        with self._lock:
            return self._entry(name).game_id

    def cameras_of(self, game_id: str) -> set[str]:
        """The cameras attached to ``game_id`` now."""
        with self._lock:
            return {entry.name for entry in self._cameras.values() if entry.game_id == game_id}

    def resync(self, name: str) -> None:
        """Send the camera its game's board."""
        with self._lock:
            entry = self._entry(name)
            if entry.game_id and self.games is not None:
                with self.games.reading(entry.game_id) as game:
                    message = sync_message(game, entry.game_id)
                self._send(entry, {**message, "report": entry.last_report})

    # -- messages from the cameras -----------------------------------------------------------

    def receive(self, name: str, message: Message, node: Device | None = None) -> Message:
        """Apply one message of a camera; the reply (commands for a node, the game's board).

        ``node``: the device posting it (the device API), held to its token (``CameraRefused``)."""
        kind = message.get("type") if isinstance(message, dict) else None
        with self._lock:
            entry = self._node(name) if node is None else self._node_of(name, node)
            entry.received_at = time.monotonic()
            entry.down_reason = ""
            if kind == "status":
                entry.status = dict(message)
            elif kind == "preview":
                entry.preview = _image(message.get("jpeg"), "jpeg")
                entry.preview_at = _number(message.get("t")) or time.time()
            elif kind == "report":
                self._report(entry, message)
            elif kind == "calibration":
                self._calibration(entry, message)
            else:
                raise CameraError(f"mensaje de cámara de tipo desconocido: {kind!r}")
            return self._reply(entry)

    def poll(self, name: str, node: Device | None = None) -> Message:
        """The reply to a node that has nothing to send."""
        with self._lock:
            return self._reply(self._node(name) if node is None else self._node_of(name, node))

    def heard_at(self, name: str) -> float | None:
        """Monotonic time of the camera's last message (None: never)."""
        with self._lock:
            entry = self._cameras.get(name)
            return None if entry is None else entry.received_at

    def mark_down(self, name: str, reason: str) -> None:
        """The camera's worker is not running: no signal, with ``reason``."""
        with self._lock:
            self._entry(name).down_reason = reason

    def _report(self, entry: CameraEntry, message: Message) -> None:
        ident = str(message.get("id") or "")
        if ident and ident in entry.seen:
            return  # a node's retry of a report already applied
        data = message.get("report")
        if not isinstance(data, dict):
            raise CameraError("un mensaje 'report' necesita el objeto 'report'")
        try:
            report = Report.from_json({**data, "camera": entry.name})
        except (KeyError, ValueError, TypeError) as error:
            raise CameraError(f"informe de cámara no válido: {error}") from None
        frame = message.get("frame_jpeg")
        if frame:
            path = self._store_frame(entry.name, ident or f"{time.time():.3f}", _image(frame, "frame_jpeg"))
            report = _with_frame(report, str(path))
        elif report.frame_path:
            report = _with_frame(report, self._stored_frame(entry, report.frame_path))
        if ident:
            entry.seen.append(ident)
            entry.last_report = ident
        self._desk(entry).handle(report)

    def _calibration(self, entry: CameraEntry, message: Message) -> None:
        preview = message.get("preview_jpeg")
        kept = preview and self.data_dir is not None and entry.kind == "node"  # a local worker wrote them already
        png = _png_of_jpeg(_decode(preview, "preview_jpeg"), "preview_jpeg") if kept else None  # refused: no change
        entry.calibration = {k: message.get(k) for k in ("found", "reason", "turn", "calibration")}
        entry.calibration["at"] = time.time()
        if png is not None and self.data_dir is not None:
            folder = self.data_dir / "calibration"
            folder.mkdir(parents=True, exist_ok=True)
            _write_atomic(folder / f"{entry.name}.png", png)
            calibration = message.get("calibration")
            if isinstance(calibration, dict):
                _write_atomic(folder / f"{entry.name}.json", json.dumps(calibration, ensure_ascii=False).encode())

    def _reply(self, entry: CameraEntry) -> Message:
        commands, entry.commands = entry.commands, []
        reply: Message = {"ok": True, "commands": commands, "game": entry.game_id or None}
        if entry.game_id and self.games is not None:
            with self.games.reading(entry.game_id) as game:
                reply["sync"] = {**sync_message(game, entry.game_id), "report": entry.last_report}
        return reply

    # -- the arbiter's actions ----------------------------------------------------------------

    def confirm(self, name: str, item_id: int, arbiter: str, blanks: dict[str, str] | None = None) -> str | None:
        with self._lock:
            return self._desk(self._entry(name)).confirm(item_id, arbiter, blanks)

    def correct(self, name: str, item_id: int, notation: str, arbiter: str) -> str:
        with self._lock:
            return self._desk(self._entry(name)).correct(item_id, notation, arbiter)

    def dismiss(self, name: str, item_id: int, arbiter: str) -> None:
        with self._lock:
            self._desk(self._entry(name)).dismiss(item_id, arbiter)

    def request_calibration(self, name: str) -> None:
        """Ask the camera to calibrate on its next frames; the outcome comes as a message."""
        with self._lock:
            entry = self._entry(name)
            entry.calibration = {"pending": True, "at": time.time()}
            self._send(entry, {"type": "calibrate"})

    def doubt(self, name: str, item_id: int) -> ReviewItem:
        with self._lock:
            item = self.queue.get(item_id)
            if item.camera != name:
                raise KeyError(f"la duda {item_id} no es de la cámara {name}")
            return item

    # -- what the console and the screens show ------------------------------------------------

    def state(self, name: str) -> Message:
        """The camera's live state for the console (see ``signal_of`` for ``label``)."""
        with self._lock:
            entry = self._entry(name)
            ok, reason = self._signal(entry)
            status = entry.status
            last = _number(status.get("last_frame"))
            return {
                "name": entry.name, "kind": entry.kind, "source": entry.source, "table": entry.table,
                "game": entry.game_id or None, "signal": ok, "label": _label(ok, status), "reason": reason,
                "state": status.get("state", ""), "fps": status.get("fps", 0.0), "frames": status.get("frames", 0),
                "rejected": status.get("rejected", 0), "ms_per_frame": status.get("ms_per_frame"),
                "last_frame": _iso(last), "last_frame_ago": round(time.time() - last, 1) if last else None,
                "preview": entry.preview is not None, "preview_at": _iso(entry.preview_at),
                "calibration": entry.calibration, "calibrated": self._calibrated(entry.name),
                "doubts": [i.to_json() for i in self.queue.pending(entry.name)],
            }  # fmt: skip

    def states(self) -> list[Message]:
        return [self.state(name) for name in self.names()]

    def preview(self, name: str) -> bytes | None:
        with self._lock:
            return self._entry(name).preview

    def screen_note(self, game_id: str) -> Message | None:
        """For a game's screens: None without a camera, else whether its camera has a signal."""
        with self._lock:
            for entry in self._cameras.values():
                if entry.game_id == game_id:
                    ok, reason = self._signal(entry)
                    return {"camera": entry.name, "signal": ok, "message": "" if ok else "cámara sin señal", "reason": reason}
        return None

    def _calibrated(self, name: str) -> bool:
        return self.data_dir is not None and (self.data_dir / "calibration" / f"{name}.png").is_file()

    def _signal(self, entry: CameraEntry) -> tuple[bool, str]:
        if entry.down_reason:
            return False, entry.down_reason
        if entry.received_at is None:
            return False, "esperando la primera imagen de la cámara"
        if time.monotonic() - entry.received_at > SILENT_SECONDS:
            return False, "la cámara no responde"
        if not entry.status.get("signal", False):
            return False, str(entry.status.get("reason") or "sin imagen")
        return True, ""

    # -- internals ----------------------------------------------------------------------

    def _node(self, name: str) -> CameraEntry:
        """The camera, registered as a node when the venue did not list it."""
        entry = self._cameras.get(name)
        if entry is None:
            if len(self._cameras) >= MAX_CAMERAS:
                raise CameraError(f"demasiadas cámaras: la cámara {name!r} no está en la sede")
            entry = self.add(name, kind="node")
        return entry

    def _node_of(self, name: str, node: Device) -> CameraEntry:
        """The camera ``name`` for the node ``node``: one it was registered for, a node camera, attached to no
        game or to one the node may write to; else CameraRefused (the refusal also shown on the console)."""
        if node.cameras is None:
            raise CameraRefused(f"el nodo {node.name} no tiene cámaras: regístrelo de nuevo con --camera", 403)
        if name not in node.cameras:
            raise CameraRefused(f"el nodo {node.name} no está registrado para la cámara {name}", 403)
        known = self._cameras.get(name)
        if known is not None and known.kind != "node":
            raise CameraRefused(f"la cámara {name} es del propio servidor, no de un nodo", 403)
        entry = self._node(name)
        if entry.game_id and not node.may_write(entry.game_id):
            entry.down_reason = f"el nodo {node.name} no puede escribir en la partida a la que está asignada la cámara"
            raise CameraRefused(f"la cámara {name} está asignada a una partida en la que el nodo {node.name} "
                                "no puede escribir", 409)  # fmt: skip
        return entry

    def _stored_frame(self, entry: CameraEntry, path: str) -> str | None:
        """A report's frame path, kept only when it names a frame the server stored for this camera (a local
        worker's); a node's path is on the node's disk and means nothing here."""
        if entry.kind == "node":
            return None
        try:
            return str(self.files.frame(path, (entry.name,)))
        except NotStored as error:
            log.warning("camera %s: report frame dropped: %s", entry.name, error)
            return None

    def _entry(self, name: str) -> CameraEntry:
        entry = self._cameras.get(name)
        if entry is None:
            raise KeyError(f"no hay ninguna cámara {name!r}")
        return entry

    def _desk(self, entry: CameraEntry) -> CameraDesk:
        desk = self._desks.get(entry.name)
        if desk is None or desk.game_id != entry.game_id:
            assert self.games is not None, "a registry without games cannot record plays"
            desk = CameraDesk(None, self.games, entry.game_id, self.queue, link=lambda m: self._send(entry, m), name=entry.name)
            self._desks[entry.name] = desk
        return desk

    def _set_game(self, entry: CameraEntry, game_id: str) -> None:
        if entry.game_id != game_id:
            self.queue.close_camera(entry.name, "descartada", "la cámara cambió de partida")
        entry.game_id = game_id

    def _send(self, entry: CameraEntry, message: Message) -> None:
        if message.get("type") == "sync":
            message = {**message, "report": entry.last_report}
        if entry.deliver is None:  # a node: with its next answer; only the latest board matters
            if message.get("type") == "sync":
                entry.commands = [m for m in entry.commands if m.get("type") != "sync"]
            entry.commands.append(message)
            return
        try:
            entry.deliver(message)
        except Exception as error:  # a dead worker's queue: it is resynchronised on restart
            log.warning("camera %s: command not delivered: %s", entry.name, error)

    def _on_event(self, game_id: str, event: Event) -> None:
        for name in [n for n, e in list(self._cameras.items()) if e.game_id == game_id]:
            if event.kind in BOARD_EVENTS and event.actor != f"camera:{name}":
                with self._lock:  # the board changed by hand: the camera's older doubts are moot
                    self.queue.close_camera(name, "descartada", f"la partida cambió ({event.actor})")
            try:
                self.resync(name)
                if event.kind == "clock_press" and self._turn_ended(game_id):
                    with self._lock:  # the play is finished: the camera judges the board as it stands
                        self._send(self._entry(name), {"type": "press"})
            except (GameError, KeyError) as error:
                log.warning("camera %s: no sync: %s", name, error)

    def _turn_ended(self, game_id: str) -> bool:
        assert self.games is not None
        with self.games.reading(game_id) as game:
            return isinstance(game, ClassicGame) and press_ended_turn(game.state)

    def _is_classic(self, game_id: str) -> bool:
        if self.games is None:
            return False
        try:
            with self.games.reading(game_id) as game:
                return isinstance(game, ClassicGame)
        except GameError:
            return False

    def _store_frame(self, name: str, ident: str, data: bytes) -> Path:
        if self.data_dir is None:
            raise CameraError("el servidor no tiene carpeta de datos para las imágenes")
        folder = self.data_dir / "camera-frames" / name
        folder.mkdir(parents=True, exist_ok=True)
        safe = "".join(ch for ch in ident if ch.isalnum() or ch in "-_.")[:80] or "frame"
        path = folder / f"node-{safe}.jpg"
        _write_atomic(path, data)
        return path

    def _attachments_path(self) -> Path | None:
        return None if self.data_dir is None else self.data_dir / "cameras.json"

    def _load_attachments(self) -> dict[str, str]:
        path = self._attachments_path()
        if path is None or not path.exists():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return {str(k): str(v) for k, v in data.get("attachments", {}).items()}
        except (OSError, ValueError, AttributeError) as error:
            log.warning("camera attachments unreadable (%s): %s", path, error)
            return {}

    def _save_attachments(self) -> None:
        path = self._attachments_path()
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(path, json.dumps({"attachments": self._saved}, ensure_ascii=False, indent=1).encode())


def _with_frame(report: Report, path: str | None) -> Report:
    from dataclasses import replace

    return replace(report, frame_path=path)


def _label(ok: bool, status: Message) -> str:
    """The console's words: señal, sin señal, buscando tablero, manos sobre el tablero."""
    if not ok:
        return "sin señal"
    state = status.get("state", "")
    if state in SEARCHING:
        return "buscando tablero"
    if state in HANDS:
        return "manos sobre el tablero"
    return "señal"


def _decode(text: Any, what: str) -> bytes:
    if not isinstance(text, str):
        raise CameraError(f"falta '{what}' (base64)")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise CameraError(f"'{what}' no es base64 válido") from None


def _image(text: Any, what: str) -> bytes:
    """A message's base64 JPEG, kept as it came once its header passed ``decoding.CAMERA``."""
    data = _decode(text, what)
    try:
        decoding.check_image(data, decoding.CAMERA)
    except decoding.Refused as error:
        raise CameraError(f"'{what}': {error}") from None
    return data


def _png_of_jpeg(data: bytes, what: str) -> bytes:
    """A JPEG as PNG, decoded only once its header passed ``decoding.CAMERA``."""
    import cv2

    try:
        image = decoding.decode_color(data, decoding.CAMERA)
    except decoding.Refused as error:
        raise CameraError(f"'{what}': {error}") from None
    ok, png = cv2.imencode(".png", image)
    if not ok:
        raise CameraError(f"'{what}': no se pudo guardar como PNG")
    return bytes(png.tobytes())


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _iso(t: float | None) -> str | None:
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds") if t else None


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
