"""Slip scanners behind one small Protocol: where scanned files come from.

A ``Scanner`` delivers scan files into a folder (the ingest inbox); the slip
reader never talks to a device. Implementations:

* ``FolderReplay``: replays the files of a folder (recorded scans, or scans a
  simulation renders) into the inbox, a batch at a time: tests and the demo;
* ``WatchedFolder``: a document scanner that already writes into the inbox by
  itself (its own software, a network folder); ``deliver`` does nothing;
* ``ScanImage``: a SANE scanner driven by ``scanimage`` (Debian package
  ``sane-utils``), one batch from the feeder per call.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


class Scanner(Protocol):
    """Puts the next batch of scan files into ``inbox``; returns their paths ([] when none)."""

    def deliver(self, inbox: Path) -> list[Path]: ...


def _atomic_copy(source: Path, inbox: Path) -> Path:
    """Copy under a hidden name, then rename: the watcher never sees half a file."""
    target = inbox / source.name
    temporary = inbox / f".{source.name}.part"
    shutil.copyfile(source, temporary)
    temporary.replace(target)
    return target


@dataclass
class FolderReplay:
    """The files of ``folder`` (sorted by name), ``batch`` per call, copied into the inbox."""

    folder: Path
    batch: int = 10
    _queue: list[Path] = field(default_factory=list)
    _started: bool = False

    def deliver(self, inbox: Path) -> list[Path]:
        if not self._started:
            self._queue = sorted(p for p in self.folder.iterdir() if p.is_file() and not p.name.startswith("."))
            self._started = True
        taken, self._queue = self._queue[: self.batch], self._queue[self.batch :]
        inbox.mkdir(parents=True, exist_ok=True)
        return [_atomic_copy(p, inbox) for p in taken]


@dataclass
class WatchedFolder:
    """A scanner that writes into the inbox itself: nothing to deliver."""

    def deliver(self, inbox: Path) -> list[Path]:
        return []


@dataclass
class ScanImage:
    """A SANE scanner: ``scanimage --batch`` from the document feeder, grey, at ``dpi``."""

    device: str | None = None
    dpi: int = 200
    extra: Sequence[str] = ()

    def deliver(self, inbox: Path) -> list[Path]:
        if shutil.which("scanimage") is None:
            raise RuntimeError("falta scanimage (paquete de Debian sane-utils)")
        stamp = time.strftime("%Y%m%d-%H%M%S")
        staging = inbox / f".scan-{stamp}"
        staging.mkdir(parents=True, exist_ok=True)
        command = ["scanimage", "--format=tiff", "--mode", "Gray", "--resolution", str(self.dpi),
                   f"--batch={staging}/{stamp}-%03d.tif", *self.extra]  # fmt: skip
        if self.device:
            command[1:1] = ["-d", self.device]
        subprocess.run(command, check=False, capture_output=True, timeout=600)
        delivered = []
        for path in sorted(staging.glob("*.tif")):
            target = inbox / path.name
            path.replace(target)
            delivered.append(target)
        shutil.rmtree(staging, ignore_errors=True)
        return delivered
