"""Untrusted scans decoded in a child process: a hang is cut at its deadline, a crash or a memory bomb
ends the child, never the server, and the file is refused with the reason.

``pages(data, limits)`` yields the grey pages of an image or a PDF as ``decoding.pages`` does, but
decoded by a worker process (``python -m vision.isolation``) with its address space capped at
``Budget.memory``. The file must open and give its first page within ``Budget.seconds`` and each
further page within ``Budget.per_page`` more (a 2.6 KB PDF of nested forms took minutes to render
one page; an A4 page scanned at 600 dpi renders in 0.2 s on an idle 2-core machine, 0.4-0.9 s on a
loaded one; a worker's start is not counted). Whatever goes wrong is a
``decoding.Refused`` whose message names it in Spanish: over a limit, damaged, too slow, too big
for memory, or the decoder crashed. A worker that answered whole is kept for the next file (idle
workers are few, ``MAX_IDLE``); one that was cut, crashed or left mid-file is killed.

The protocol (pipes, no pickle: the child handles hostile bytes): each message is a 4-byte big-endian
length and a JSON header, some followed by raw bytes. Parent -> child: ``{"size", "limits"}`` and the
file. Child -> parent: ``{"page": [height, width]}`` and that many grey bytes, then ``{"end": true}``
or ``{"refused": reason}``; a new worker first says ``{"ready": true}``.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, Final

import numpy as np

from . import decoding

MAX_IDLE: Final = 2  # workers kept for the next file
STARTUP_SECONDS: Final = 60.0  # a new worker says it is ready (its imports done) within this, before any budget
_HEADER_BYTES: Final = 64 * 1024  # a header longer than this is a child gone wrong
_PROJECT: Final = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Budget:
    """What decoding one file may take: seconds to open it and give the first page, seconds more for each
    further page, bytes of address space for the worker."""

    seconds: float = 20.0
    per_page: float = 4.0
    memory: int = 2 * 1024**3


DEFAULT: Final = Budget()


class Unavailable(RuntimeError):
    """No worker could be started: the fault is the machine's, not the file's (it is not refused)."""


def pages(data: bytes, limits: decoding.Limits = decoding.SCANS, budget: Budget = DEFAULT) -> Iterator[np.ndarray]:
    """The grey pages (uint8, rows = y) of an image or a PDF, decoded in a worker within ``limits`` and
    ``budget``; ``decoding.Refused`` with the reason when it cannot be, Unavailable when no worker starts."""
    if not data:
        raise decoding.Refused("el archivo está vacío")
    worker = _acquire(budget)
    whole = False
    try:
        worker.wait_ready()
        worker.send({"size": len(data), "limits": asdict(limits)}, data)
        deadline = time.monotonic() + budget.seconds
        largest = max(limits.max_pixels, limits.render_pixels)
        while True:
            header = worker.receive(deadline, budget)
            if header.get("end") is True:
                whole = True
                return
            if "refused" in header:
                whole = True
                raise decoding.Refused(str(header["refused"]))
            height, width = _page_shape(header, largest)
            pixels = worker.read(height * width, deadline, budget)
            deadline = time.monotonic() + budget.per_page
            yield np.frombuffer(pixels, dtype=np.uint8).reshape(height, width)
    finally:
        _release(worker, whole)


def _page_shape(header: dict[str, Any], largest: int) -> tuple[int, int]:
    shape = header.get("page")
    if (not isinstance(shape, list) or len(shape) != 2 or not all(isinstance(n, int) and n > 0 for n in shape)
            or shape[0] * shape[1] > largest):  # fmt: skip
        raise decoding.Refused("el lector de escaneos respondió algo que no es una página")
    return shape[0], shape[1]


class _Worker:
    """One child process and its pipes."""

    def __init__(self, budget: Budget) -> None:
        path = os.pathsep.join(filter(None, [str(_PROJECT), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "VEEDOR_DECODE_MEMORY": str(budget.memory)}  # fmt: skip
        self.memory = budget.memory
        try:
            self.process = subprocess.Popen([sys.executable, "-m", "vision.isolation"], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, env=env, cwd=str(_PROJECT))  # fmt: skip
        except OSError as error:
            raise Unavailable(f"el lector de escaneos no arranca ({error.strerror or error})") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.out = self.process.stdout.fileno()
        self.ready = False

    def wait_ready(self) -> None:
        """Wait (``STARTUP_SECONDS`` at most) for a new worker to have imported its decoders; Unavailable if not."""
        if self.ready:
            return
        try:
            header = self.receive(time.monotonic() + STARTUP_SECONDS, Budget(seconds=STARTUP_SECONDS))
        except decoding.Refused as error:
            raise Unavailable(f"el lector de escaneos no arranca ({error})") from None
        if header.get("ready") is not True:
            raise Unavailable("el lector de escaneos no arranca")
        self.ready = True

    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, header: dict[str, Any], data: bytes) -> None:
        try:
            self.stdin.write(_frame(header) + data)
            self.stdin.flush()
        except OSError:
            raise decoding.Refused(self._ended()) from None

    def receive(self, deadline: float, budget: Budget) -> dict[str, Any]:
        (length,) = struct.unpack(">I", self.read(4, deadline, budget))
        try:
            header = json.loads(self.read(length, deadline, budget)) if length <= _HEADER_BYTES else None
        except ValueError:
            header = None
        if not isinstance(header, dict):
            raise decoding.Refused("el lector de escaneos respondió algo que no es una página")
        return header

    def read(self, size: int, deadline: float, budget: Budget) -> bytes:
        """``size`` bytes from the child before ``deadline``; Refused when it is late or ended."""
        chunks, left = [], size
        while left:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([self.out], [], [], wait)[0]:
                raise decoding.Refused(f"el archivo tarda demasiado en leerse (más de {budget.seconds:g} s, y "
                                       f"{budget.per_page:g} s por cada página más): apartado sin leer")  # fmt: skip
            chunk = os.read(self.out, min(left, 1024 * 1024))
            if not chunk:
                raise decoding.Refused(self._ended())
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _ended(self) -> str:
        """Why the child stopped answering, in words."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and code < 0:
            return f"el archivo hizo fallar al lector de escaneos (señal {-code}): apartado sin leer"
        return "el lector de escaneos se detuvo con este archivo: apartado sin leer"

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        self.stdin.close()
        assert self.process.stdout is not None
        self.process.stdout.close()


_idle: list[_Worker] = []
_idle_lock = threading.Lock()


def _acquire(budget: Budget) -> _Worker:
    """An idle worker with this memory cap that is still alive, else a new one."""
    with _idle_lock:
        for worker in list(_idle):
            _idle.remove(worker)
            if worker.alive() and worker.memory == budget.memory:
                return worker
            worker.kill()
    return _Worker(budget)


def _release(worker: _Worker, whole: bool) -> None:
    """Keep a worker that answered a whole file (up to MAX_IDLE of them); kill the others."""
    with _idle_lock:
        if whole and worker.alive() and len(_idle) < MAX_IDLE:
            _idle.append(worker)
            return
    worker.kill()


@atexit.register
def close_workers() -> None:
    """End every idle worker (at exit; tests may call it)."""
    with _idle_lock:
        workers, _idle[:] = list(_idle), []
    for worker in workers:
        worker.kill()


def _frame(header: dict[str, Any]) -> bytes:
    body = json.dumps(header, ensure_ascii=False).encode("utf-8")
    return struct.pack(">I", len(body)) + body


# -- the child ---------------------------------------------------------------------------------------------


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    data = stream.read(size)
    return data if data is not None and len(data) == size else None


def _serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """Decode file after file until the parent closes the pipe."""
    while (prefix := _read_exactly(requests, 4)) is not None:
        header = json.loads(_read_exactly(requests, struct.unpack(">I", prefix)[0]) or b"{}")
        data = _read_exactly(requests, int(header["size"])) or b""
        limits = decoding.Limits(**{**header["limits"], "formats": tuple(header["limits"]["formats"])})
        try:
            for page in decoding.pages(data, limits):
                page = np.ascontiguousarray(page, dtype=np.uint8)
                answers.write(_frame({"page": list(page.shape)}) + page.tobytes())
                answers.flush()
            answers.write(_frame({"end": True}))
        except decoding.Refused as error:
            answers.write(_frame({"refused": str(error)}))
        except MemoryError:
            megabytes = int(os.environ.get("VEEDOR_DECODE_MEMORY", "0")) // 1024**2
            answers.write(_frame({"refused": f"el archivo necesita más memoria de la permitida ({megabytes} MB) "
                                             "para leerse: apartado sin leer"}))  # fmt: skip
        except Exception as error:  # a decoder's own error on a damaged file: the file is refused, the worker goes on
            answers.write(_frame({"refused": f"archivo dañado: no se puede leer ({error.__class__.__name__})"}))
        answers.flush()


def _end_with_parent() -> None:
    """End this worker as soon as its server has gone, even in the middle of a file (a watch thread: the
    decoders release the GIL while they work)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="padre", daemon=True).start()


def main() -> None:
    """The worker: its memory capped, its answers on a private copy of stdout (a library that prints
    writes to stderr instead), gone with its server."""
    import resource

    _end_with_parent()
    memory = int(os.environ.get("VEEDOR_DECODE_MEMORY", "0"))
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    answers.write(_frame({"ready": True}))
    answers.flush()
    _serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main()
