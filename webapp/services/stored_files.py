"""The files the server stored itself: the only ones an event may name and the evidence file may copy.

Why this is strict (issue 67). SQLite keeps a server's hold on ``veedor.db`` as POSIX
advisory locks, and Linux drops *every* lock a process holds on a file as soon as that
process closes *any* descriptor of it. A camera event naming ``"frame": "<data>/veedor.db"``
was accepted, and building the game's evidence zip then read the database as a plain
file: from that moment the server held no lock on it while SQLite believed it did. The
next process to close the database (``veedor device add``, ``veedor archive``) saw no
other user, checkpointed and *deleted* ``veedor.db-wal``; every later write of the
server, each answered 201 or "guardada", went into a log that no longer had a name, and
``kill -9`` took them all (issue 67: 16 slips, then whole games). The same holds for the
``-wal`` and ``-shm`` files, and the session key must never leave either. So:

* an event may name only a file the server wrote under its data folder: a camera frame
  ``<data>/camera-frames/<camera>/<name>.jpg`` (``frame``) or a scanned page by its
  content address (``scan``: 64 hex digits, a page read into that game, found under
  ``<scans>/escaneres/<scanner>/pages/``); anything else is refused where the event is
  accepted (a 400 naming the field) and skipped when the evidence file is built;
* every path is checked before anything opens it: it must resolve (symlinks followed)
  inside its folder, be a regular file, and not be the database, its ``-wal``, ``-shm``
  or ``-journal``, or the session key, compared by device and inode with ``os.stat``,
  which opens nothing.

Nothing here opens a file; the callers read only the paths returned.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any, Final

from sqlalchemy.engine import make_url

from vision.slips.ingest import read_journal

FRAMES: Final = "camera-frames"
FILE_FIELDS: Final = ("frame", "scan")  # the fields of an event's data that name a stored file
FRAME_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,150}\.jpg$")
CAMERA_FOLDER: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$")
PAGE_SHA: Final = re.compile(r"^[0-9a-f]{64}$")
SQLITE_COMPANIONS: Final = ("", "-wal", "-shm", "-journal")


class NotStored(ValueError):
    """A name that is not a file the server stored; the message names the field (Spanish)."""


def protected_files(database_url: str, instance: Path) -> tuple[Path, ...]:
    """The files never opened as plain files: the SQLite database and its companions, the session key."""
    files = [instance / "secret_key"]
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        database = Path(url.database)
        files += [database.with_name(database.name + suffix) for suffix in SQLITE_COMPANIONS]
    return tuple(files)


class StoredFiles:
    """The server's own files under ``data_dir`` (None: none), never one of ``protected``."""

    def __init__(self, data_dir: Path | None = None, protected: Iterable[Path] = ()) -> None:
        self.data_dir = data_dir
        self.protected = tuple(protected)

    # -- camera frames ---------------------------------------------------------------

    def frame(self, value: Any, cameras: Collection[str] | None = None) -> Path:
        """The stored frame ``value`` names (a path), of one of ``cameras`` when given; else NotStored."""
        if self.data_dir is None or not isinstance(value, str) or not value or len(value) > 1000:
            raise NotStored("'frame' no es un fotograma guardado por el servidor")
        root = self.data_dir / FRAMES
        path = self.inside(Path(value) if Path(value).is_absolute() else self.data_dir / value, root, "frame")
        camera = path.parent.name
        if path.parent.parent != root.resolve() or not FRAME_NAME.match(path.name) or not CAMERA_FOLDER.match(camera):
            raise NotStored("'frame' no es un fotograma guardado por el servidor (camera-frames/<cámara>/<nombre>.jpg)")
        if cameras is not None and camera not in cameras:
            raise NotStored(f"'frame' es un fotograma de la cámara {camera}, que no está asignada a esta partida")
        return path

    def latest_frame(self, camera: str, before: float) -> Path | None:
        """The camera's last stored frame written at or before ``before`` (epoch s), or None."""
        if self.data_dir is None or not CAMERA_FOLDER.match(camera):
            return None
        folder = self.data_dir / FRAMES / camera
        found: list[tuple[float, Path]] = []
        for candidate in folder.glob("*.jpg") if folder.is_dir() else ():
            try:
                path = self.frame(str(candidate), (camera,))
            except NotStored:
                continue
            moment = path.stat().st_mtime
            if moment <= before:
                found.append((moment, path))
        return max(found)[1] if found else None

    # -- scanned pages and the reader's crops -------------------------------------------------

    def page(self, value: Any, pages: dict[str, Path]) -> Path:
        """The stored page ``value`` (a content address) names, among ``pages`` (``scan_pages``); else NotStored."""
        if not isinstance(value, str) or not PAGE_SHA.match(value) or value not in pages:
            raise NotStored("'scan' no es una página escaneada que el servidor guardara y leyera en esta partida")
        return self.inside(pages[value], pages[value].parent, "scan")

    def inside(self, path: Path, folder: Path, field: str) -> Path:
        """``path`` resolved, when it is a regular file inside ``folder`` and not protected; else NotStored."""
        try:
            resolved = path.resolve(strict=True)
            resolved.relative_to(folder.resolve())
            found = os.stat(resolved)
        except (OSError, ValueError, RuntimeError):
            raise NotStored(f"'{field}' no es un archivo guardado por el servidor en {folder.name}/") from None
        if not stat.S_ISREG(found.st_mode) or self._protected(found):
            raise NotStored(f"'{field}' no es un archivo guardado por el servidor en {folder.name}/")
        return resolved

    def _protected(self, found: os.stat_result) -> bool:
        for path in self.protected:
            try:
                other = os.stat(path)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (found.st_dev, found.st_ino):
                return True
        return False


def scan_pages(root: Path | None, game_id: str) -> dict[str, Path]:
    """The pages of every scanner's archive under ``root`` read into ``game_id``, by content address.

    From the archives' journals (``vision.slips.ingest``): a ``read`` record whose results name the
    game (a record of an older journal names no game: its page counts for any game)."""
    if root is None:
        return {}
    pages: dict[str, Path] = {}
    for archive in sorted(p for p in (root / "escaneres").glob("*") if p.is_dir()):
        for record in read_journal(archive / "journal.jsonl"):
            sha = record.get("page")
            if record.get("kind") != "read" or not isinstance(sha, str) or not PAGE_SHA.match(sha):
                continue
            games = {r.get("game") for r in record.get("results") or [] if isinstance(r, dict)}
            if game_id in games or games <= {None}:
                pages.setdefault(sha, archive / "pages" / f"{sha}.png")
    return pages
