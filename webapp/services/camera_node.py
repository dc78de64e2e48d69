"""A camera node: a board camera read on another machine, posting to the server's device API.

``run_node`` runs the camera loop of ``hardware.camera_worker`` locally and hands its
messages to a ``NodeLink``, which posts them to ``POST /api/cameras/messages``
with the node's device token. Reports (plays, withdrawals, doubts) are written to a
spool folder before anything else and deleted only when the server has applied
them, so a server that is unreachable or restarting loses nothing: they are sent,
in order, when it answers again (the server ignores a report it already applied).
Only the latest status and preview are kept (older ones mean nothing). The server's
answer carries commands and the game's board, which the node's tracker takes.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from hardware.camera import Backoff
from hardware.camera_worker import WorkerConfig, run_camera
from rules_core.lexicon import Lexicon

log = logging.getLogger(__name__)

Message = dict[str, Any]
Post = Callable[[str, bytes, dict[str, str]], tuple[int, Message]]  # url, body, headers -> status, JSON
MAX_BODY: Final = 200 * 1024  # the server takes requests up to 256 KiB
LATEST_KINDS: Final = ("status", "preview")


class NodeError(RuntimeError):
    """The server refused the node (bad token, unknown camera): retrying will not help."""


def urllib_post(url: str, body: bytes, headers: dict[str, str], timeout: float = 10.0) -> tuple[int, Message]:
    """POST with the standard library; (status, JSON answer). Network failures raise OSError."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status), json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        try:
            answer = json.loads(error.read() or b"{}")
        except ValueError:
            answer = {"error": str(error)}
        return int(error.code), answer


class NodeLink:
    """The node's outbox (see the module docstring)."""

    def __init__(self, server: str, token: str, camera: str, spool: Path, post: Post = urllib_post,
                 backoff: Backoff | None = None) -> None:  # fmt: skip
        self.url = f"{server.rstrip('/')}/api/cameras/messages"
        self.camera = camera
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Accept": "application/json"}
        self.spool = spool
        self.spool.mkdir(parents=True, exist_ok=True)
        self.post = post
        self.backoff = backoff or Backoff(1.0, 30.0)
        self.connected = False
        self.last_error = ""
        self._latest: dict[str, Message] = {}
        self._commands: list[Message] = []
        self._lock = threading.Lock()
        self._seq = max((int(p.stem) for p in self.spool.glob("*.json") if p.stem.isdigit()), default=0)

    # -- the camera loop's side ------------------------------------------------------

    def send(self, message: Message) -> None:
        """Take one message of the camera loop: a report is on disk when this returns."""
        with self._lock:
            if message.get("type") in LATEST_KINDS:
                self._latest[str(message["type"])] = message
                return
            self._seq += 1
            path = self.spool / f"{self._seq:09d}.json"
            temporary = path.with_name(f".{path.name}.tmp")
            temporary.write_text(json.dumps(message, ensure_ascii=False), encoding="utf-8")
            os.replace(temporary, path)

    def commands(self) -> list[Message]:
        """The server's commands received since the last call (the game's board first)."""
        with self._lock:
            out, self._commands = self._commands, []
            return out

    def pending(self) -> int:
        """Messages spooled and not yet applied by the server."""
        return len(list(self.spool.glob("*.json")))

    # -- the network's side ------------------------------------------------------------

    def flush(self) -> bool:
        """One post of what is waiting; True when the server answered."""
        paths, batch = self._batch()
        body = json.dumps({"camera": self.camera, "messages": batch}, ensure_ascii=False).encode()
        try:
            status, answer = self.post(self.url, body, self.headers)
        except OSError as error:
            self._down(f"servidor inalcanzable: {error}")
            return False
        if status == 413:  # too large for the server: the frames stay on this machine only
            self._without_frames(paths, batch)
            return True
        if status in (401, 403, 404):
            raise NodeError(f"el servidor rechaza el nodo ({status}): {answer.get('error', '')}")
        if status == 400:
            applied = int(answer.get("applied", 0))
            self._done(paths, batch, applied)
            if applied < len(batch):
                self._reject(paths, batch, applied, str(answer.get("error", "")))
            self._answer(answer)
            return True
        if status != 200:
            self._down(f"el servidor responde {status}: {answer.get('error', '')}")
            return False
        self._done(paths, batch, len(batch))
        self._answer(answer)
        self.connected, self.last_error = True, ""
        self.backoff.reset()
        return True

    def run(self, stopped: Callable[[], bool], period: float = 0.5) -> None:
        """Post until ``stopped()``; back off while the server is unreachable."""
        while not stopped():
            ok = self.flush()
            wait = period if ok else self.backoff.next()
            end = time.monotonic() + wait
            while not stopped() and time.monotonic() < end:
                time.sleep(min(0.1, wait))

    def _batch(self) -> tuple[list[Path | None], list[Message]]:
        paths: list[Path | None] = []
        batch: list[Message] = []
        size = 0
        for path in sorted(self.spool.glob("*.json")):
            try:
                message = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            length = len(json.dumps(message))
            if batch and size + length > MAX_BODY:
                break
            paths.append(path)
            batch.append(message)
            size += length
        with self._lock:
            for kind in LATEST_KINDS:
                message = self._latest.get(kind)
                if message is not None and size + len(json.dumps(message)) <= MAX_BODY:
                    paths.append(None)
                    batch.append(message)
                    size += len(json.dumps(message))
        return paths, batch

    def _done(self, paths: list[Path | None], batch: list[Message], count: int) -> None:
        with self._lock:
            for path, message in zip(paths[:count], batch[:count]):
                if path is not None:
                    path.unlink(missing_ok=True)
                elif self._latest.get(str(message.get("type"))) is message:
                    del self._latest[str(message["type"])]

    def _reject(self, paths: list[Path | None], batch: list[Message], index: int, error: str) -> None:
        path = paths[index]
        log.error("camera node: the server refused a message (%s): %s", error, batch[index].get("type"))
        if path is not None:
            rejected = self.spool / "rechazados"
            rejected.mkdir(exist_ok=True)
            os.replace(path, rejected / path.name)  # kept for the arbiter, never resent
        else:
            with self._lock:
                self._latest.pop(str(batch[index].get("type")), None)

    def _without_frames(self, paths: list[Path | None], batch: list[Message]) -> None:
        log.warning("camera node: request too large; frames kept on this machine only")
        for path, message in zip(paths, batch):
            if path is not None and message.pop("frame_jpeg", None) is not None:
                temporary = path.with_name(f".{path.name}.tmp")
                temporary.write_text(json.dumps(message, ensure_ascii=False), encoding="utf-8")
                os.replace(temporary, path)
        with self._lock:
            self._latest.pop("preview", None)

    def _answer(self, answer: Message) -> None:
        with self._lock:
            if isinstance(answer.get("sync"), dict):
                self._commands.append(answer["sync"])
            self._commands += [c for c in answer.get("commands", []) if isinstance(c, dict)]

    def _down(self, reason: str) -> None:
        if self.connected or reason != self.last_error:
            log.warning("camera node: %s", reason)
        self.connected, self.last_error = False, reason


def run_node(
    server: str, token: str, camera: str, source: str, lexicon: Lexicon, data_dir: Path, *,
    fps: float = 5.0, turn: int | None = None, stopped: Callable[[], bool] = lambda: False, post: Post = urllib_post,
    realtime: bool = True,
) -> NodeLink:  # fmt: skip
    """Run a camera node until ``stopped()``; the link is returned with what it still holds."""
    link = NodeLink(server, token, camera, data_dir / "spool" / camera, post)
    failure: list[BaseException] = []

    def network() -> None:
        try:
            link.run(lambda: stopped() or bool(failure))
        except NodeError as error:
            failure.append(error)

    thread = threading.Thread(target=network, name="camera-node-link", daemon=True)
    thread.start()
    config = WorkerConfig(camera, source, str(data_dir), fps=fps, turn=turn, realtime=realtime, node=True)
    run_camera(config, lexicon, link.send, link.commands, lambda: stopped() or bool(failure))
    thread.join(5.0)
    if failure:
        raise failure[0]
    link.flush()  # a last try; what is still spooled goes at the next start
    return link
