"""The worker processes of the server's local board cameras, restarted when they die or hang.

``CameraWorkers`` runs ``hardware.camera_worker.worker_main`` for each local camera
in its own process (``multiprocessing``'s ``spawn`` method: a script that starts
cameras must guard its top level with ``if __name__ == "__main__"``), pumps its
messages into the ``CameraRegistry`` and sends the registry's commands back. A worker
silent for ``HUNG_SECONDS`` is killed; a dead one is restarted with back-off.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from dataclasses import dataclass, field
from queue import Empty
from typing import Any, Final

from hardware.camera import Backoff
from hardware.camera_worker import WorkerConfig, worker_main

from .cameras import CameraRegistry

log = logging.getLogger(__name__)

HUNG_SECONDS: Final = 30.0  # a worker silent this long is killed and restarted


@dataclass
class _Worker:
    config: WorkerConfig
    backoff: Backoff
    process: Any = None
    outbox: Any = None
    inbox: Any = None
    stop: Any = None
    started: float = 0.0
    restart_at: float | None = None
    done: threading.Event = field(default_factory=threading.Event)


class CameraWorkers:
    """One worker process per local camera, restarted with back-off when it dies or hangs.

    Each worker has its own queues and its own pump thread, so that a slow or crashed
    camera never holds the others up.
    """

    def __init__(self, registry: CameraRegistry, lexicon: Any, *, restart: tuple[float, float] = (1.0, 30.0),
                 hung_seconds: float = HUNG_SECONDS) -> None:  # fmt: skip
        self.registry = registry
        self.lexicon = lexicon
        self.restart = restart
        self.hung_seconds = hung_seconds
        self._context = multiprocessing.get_context("spawn")
        self._workers: dict[str, _Worker] = {}
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._supervisor = threading.Thread(target=self._supervise, name="camera-supervisor", daemon=True)
        self._supervisor.start()

    def start(self, config: WorkerConfig) -> None:
        worker = _Worker(config, Backoff(*self.restart))
        with self._lock:
            self._workers[config.name] = worker
            self._spawn(worker)

    def pid(self, name: str) -> int | None:
        worker = self._workers.get(name)
        pid = None if worker is None or worker.process is None else worker.process.pid
        return None if pid is None else int(pid)

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        with self._lock:
            workers = list(self._workers.values())
        for worker in workers:
            worker.stop.set()
        deadline = time.monotonic() + timeout
        for worker in workers:
            worker.process.join(max(0.1, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(1.0)
            worker.done.set()
        self._supervisor.join(2.0)

    def _spawn(self, worker: _Worker) -> None:
        ctx = self._context
        worker.done.set()  # the previous generation's pump ends
        worker.done = threading.Event()
        worker.outbox, worker.inbox, worker.stop = ctx.Queue(), ctx.Queue(), ctx.Event()
        args = (worker.config, self.lexicon, worker.outbox, worker.inbox, worker.stop)
        worker.process = ctx.Process(target=worker_main, args=args, name=f"veedor-camera-{worker.config.name}", daemon=True)
        worker.process.start()
        worker.started = time.monotonic()
        worker.restart_at = None
        self.registry.set_deliver(worker.config.name, worker.inbox.put)
        self.registry.resync(worker.config.name)
        threading.Thread(target=self._pump, args=(worker, worker.outbox, worker.done), daemon=True,
                         name=f"camera-pump-{worker.config.name}").start()  # fmt: skip

    def _pump(self, worker: _Worker, outbox: Any, done: threading.Event) -> None:
        name = worker.config.name
        while not done.is_set():
            try:
                message = outbox.get(timeout=0.25)
            except Empty:
                continue
            except (EOFError, OSError, ValueError):
                return
            try:
                self.registry.receive(name, message)
            except Exception:  # one bad message must not stop the camera
                log.exception("camera %s: message not applied", name)

    def _supervise(self) -> None:
        while not self._stopping.wait(0.2):
            with self._lock:
                for worker in self._workers.values():
                    self._check(worker)

    def _check(self, worker: _Worker) -> None:
        if self._stopping.is_set():
            return
        name, now = worker.config.name, time.monotonic()
        process = worker.process
        if process.is_alive():
            heard = max(self.registry.heard_at(name) or worker.started, worker.started)
            if now - heard > self.hung_seconds:
                log.warning("camera %s: worker silent for %.0f s, restarted", name, now - heard)
                process.kill()
            return
        if worker.restart_at is None:
            if now - worker.started > 60.0:
                worker.backoff.reset()
            delay = worker.backoff.next()
            worker.restart_at = now + delay
            reason = f"el proceso de la cámara se ha detenido (código {process.exitcode}); se reinicia en {delay:.3g} s"
            log.warning("camera %s: %s", name, reason)
            self.registry.mark_down(name, reason)
        elif now >= worker.restart_at:
            self._spawn(worker)
