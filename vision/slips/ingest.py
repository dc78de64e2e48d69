"""Ingesting scans from a watched folder: every page stored, content-addressed, before it is read.

Folder layout under ``root`` (the state of the slip reader for one event):

* ``pages/<sha256>.png``: each page, named by the SHA-256 of its grey pixels (and
  shape), so the same page delivered twice, whatever its file format, is one page;
* ``originals/<sha256 of file><ext>``: every accepted file as it arrived;
* ``refused/<stored>`` and ``refused/<stored>.motivo.txt``: files that could not be
  taken (not an image, damaged, over a limit of ``vision.decoding.SCANS``, too slow to
  decode), kept for the arbiter with the reason; ``stored`` is the file's name made safe
  (``clean_name``) and unique, so a second refused file of the same name never replaces the first;
* ``journal.jsonl``: what happened, one JSON object per line, flushed and fsynced.

A file is decoded by ``decode`` (by default ``vision.isolation.pages``: in a worker process,
within a time budget, so a file that hangs or crashes the decoder is refused like a damaged one);
whatever the decoder raises refuses the file, never the poll, and the files after it are taken.
A page whose reading raises stays unread and the pages after it are read; it is offered again
after ``retry`` seconds, doubled at each failure up to ``MAX_RETRY_SECONDS`` (``failures`` says why).

A file is handled in steps, each journaled after it is durable: split into pages
and each page written (temp file, then rename) -> ``file`` record -> the original
moved out of the inbox -> each page read -> ``read`` record. Restarted after a
crash at any point, ``Ingestor`` replays the journal and does only what is left:
a page whose ``read`` record is missing is read again, nothing is read twice. A
page the reader cannot place yet (``read_page`` returns None, ``ready`` says no)
stays unread and is offered again on later polls.

A scanner may still be writing a file when the inbox is polled: with ``settle`` > 0
(the servers' watchers), a file modified less than ``settle`` seconds ago is taken only
when it visibly ends (a PNG's IEND, a JPEG's EOI, a PDF's %%EOF), else on a later poll.
When the archive cannot be written (a full disk), ``StorageError`` says so: the file
stays in the inbox for the next poll and nothing stored is touched.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import re
import shutil
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np

from .. import decoding, isolation

log = logging.getLogger(__name__)

IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp", ".pdf")
MAX_FILE_BYTES: Final = 64 * 1024 * 1024
MAX_PAGE_PIXELS: Final = decoding.SCANS.max_pixels
MAX_PAGES: Final = decoding.SCANS.max_pages
PDF_DPI: Final = decoding.PDF_DPI
REASON_SUFFIX: Final = ".motivo.txt"  # beside a refused file: why it was refused
MAX_RETRY_SECONDS: Final = 300.0  # the longest wait before a page whose reading failed is read again


class RefusedFile(ValueError):
    """A file that cannot be ingested; the message says why, for the arbiter."""


class StorageError(OSError):
    """The archive cannot be written (disk full, no permission); the scan stays in the inbox."""


@dataclass(frozen=True)
class ReadFailure:
    """Why the last reading of a page raised, how many times it did, and when (monotonic s) to try it again."""

    reason: str
    count: int
    next_try: float


@dataclass(frozen=True)
class Page:
    """One stored page: its content address, where it came from, the stored PNG."""

    sha: str
    source: str  # the file name as it arrived
    index: int  # page number within the file, from 0
    path: Path


def page_sha(gray: np.ndarray) -> str:
    """The content address of a grey page: SHA-256 of its shape and pixel bytes."""
    digest = hashlib.sha256(f"{gray.shape[0]}x{gray.shape[1]}:".encode())
    digest.update(np.ascontiguousarray(gray, dtype=np.uint8).tobytes())
    return digest.hexdigest()


def split_pages(data: bytes, name: str, limits: decoding.Limits = decoding.SCANS) -> Iterator[np.ndarray]:
    """The grey pages (uint8, rows = y) of an image or a multi-page PDF/TIFF; RefusedFile when it cannot be read
    or is over ``limits`` (every size checked from the headers before the first page is decoded).

    An image is turned as its EXIF orientation says, and its transparent pixels are paper (``grey_page``)."""
    if len(data) > MAX_FILE_BYTES:
        raise RefusedFile(f"{name}: el archivo ocupa {len(data) // 1_000_000} MB, más de {MAX_FILE_BYTES // 1_000_000} MB")
    try:
        yield from decoding.pages(data, limits)
    except decoding.Refused as error:
        raise RefusedFile(f"{name}: {error}") from None


def shown_name(name: str) -> str:
    """A file name as text for the journal and the arbiter: undecodable bytes and control characters as U+FFFD."""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return "".join(ch if ch.isprintable() else "\ufffd" for ch in text)


def clean_name(name: str, fallback: str = "escaneo") -> str:
    """A name safe to store a file under: the last part of a path (``/`` or ``\\``), letters, digits,
    ``.``, ``-`` and ``_`` (anything else ``_``), no leading dot, the stem at most 100 UTF-8 bytes
    and the suffix 10 ASCII characters, lower case; ``fallback`` when no stem is left."""
    base = unicodedata.normalize("NFC", shown_name(re.split(r"[/\\]", name)[-1]))
    text = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in base)
    stem, dot, suffix = text.rpartition(".")
    if not dot:
        stem, suffix = text, ""
    suffix = re.sub(r"[^A-Za-z0-9]", "", suffix)[:10].lower()
    stem = stem.lstrip("._-").encode("utf-8")[:100].decode("utf-8", "ignore") or fallback
    return f"{stem}.{suffix}" if suffix else stem


def unique_name(name: str, taken: Callable[[str], bool]) -> str:
    """``name``, or ``<stem>-2<suffix>``, ``-3``... the first that ``taken`` does not claim."""
    candidate, number = name, 1
    stem, dot, suffix = name.rpartition(".")
    if not dot:
        stem, suffix = name, ""
    while taken(candidate) or candidate.endswith(REASON_SUFFIX):
        number += 1
        candidate = f"{stem}-{number}.{suffix}" if suffix else f"{stem}-{number}"
    return candidate


def read_journal(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a journal, in order; a line cut by a crash is skipped (its step is redone)."""
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            yield record


def stored_refusals(root: Path, journal: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The files refused by the archive at ``root``, oldest first: ``name`` (as it arrived), ``stored``
    (under ``refused/``), ``reason``, ``at`` (epoch s, 0 when unknown). From the journal (``journal``: its
    records already read), then any file in ``refused/`` it does not name (a crash before the record)."""
    records = journal if journal is not None else list(read_journal(root / "journal.jsonl"))
    out = [{"name": str(r.get("name", "")), "stored": str(r.get("stored") or r.get("name", "")),
            "reason": str(r.get("reason", "")), "at": float(r.get("at") or 0)}
           for r in records if r.get("kind") == "refused"]  # fmt: skip
    named = {r["stored"] for r in out}
    folder = root / "refused"
    for path in sorted(folder.iterdir()) if folder.is_dir() else ():
        if path.name in named or path.name.startswith(".") or path.name.endswith(REASON_SUFFIX) or not path.is_file():
            continue
        note = folder / f"{path.name}{REASON_SUFFIX}"
        reason = note.read_text(encoding="utf-8", errors="replace").strip() if note.is_file() else ""
        name = shown_name(path.name)
        out.append({"name": name, "stored": path.name, "at": path.stat().st_mtime,
                    "reason": reason or f"{name}: rechazado (el motivo no llegó a anotarse)"})
    return out


ReadPage = Callable[[Page, np.ndarray], list[dict[str, Any]] | None]  # None: not now, offer it again later
Decode = Callable[[bytes, decoding.Limits], Iterator[np.ndarray]]  # a file's grey pages; decoding.Refused when not


@dataclass
class Ingestor:
    """The watched folder ``inbox`` and the state under ``root`` (see the module docstring)."""

    inbox: Path
    root: Path
    read_page: ReadPage
    settle: float = 0.0  # seconds a file must rest before it is taken unless it visibly ends
    ready: Callable[[Page], bool] | None = None  # False: the page is not offered to ``read_page`` now
    decode: Decode = isolation.pages
    retry: float = 5.0  # seconds before a page whose reading raised is read again (doubled at each failure)
    files: dict[str, list[str]] = field(default_factory=dict)  # file sha -> page shas
    read: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # page sha -> results
    pages: dict[str, Page] = field(default_factory=dict)
    refused: list[dict[str, Any]] = field(default_factory=list)  # see ``stored_refusals``
    names: dict[str, str] = field(default_factory=dict)  # file name as taken -> file sha ("" when refused)
    failures: dict[str, ReadFailure] = field(default_factory=dict)  # page sha -> why its last reading raised

    def __post_init__(self) -> None:
        for folder in (self.inbox, self.root / "pages", self.root / "originals", self.root / "refused"):
            folder.mkdir(parents=True, exist_ok=True)
        self._replay()

    @property
    def journal_path(self) -> Path:
        return self.root / "journal.jsonl"

    def _replay(self) -> None:
        if self.journal_path.exists():
            with open(self.journal_path, "rb+") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - 1))
                if size and handle.read(1) != b"\n":
                    handle.write(b"\n")  # close a line cut by a crash, so the next record starts clean
        records = list(read_journal(self.journal_path))
        for record in records:
            kind = record.get("kind")
            if kind == "file":
                self._note_file(record["name"], record["file_sha"], record["pages"])
            elif kind == "read":
                self.read[record["page"]] = record["results"]
        self.refused = stored_refusals(self.root, records)
        self.names.update({r["stored"]: "" for r in self.refused})

    def _note_file(self, name: str, file_sha: str, shas: list[str]) -> None:
        self.files[file_sha] = shas
        self.names[name] = file_sha
        for i, sha in enumerate(shas):
            self.pages.setdefault(sha, Page(sha, name, i, self.root / "pages" / f"{sha}.png"))

    def _journal(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        with open(self.journal_path, "ab") as handle:
            size = handle.tell()
            try:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
            except OSError:
                handle.truncate(size)  # no half record for the next one to be glued to
                raise

    def poll(self) -> list[Page]:
        """Take every file now in the inbox, then read every page not yet read; returns the pages read now."""
        for path in sorted(self.inbox.iterdir()):
            if path.is_file() and not path.name.startswith(".") and self._settled(path):
                self.take(path)
        return self.read_pending()

    def waiting(self) -> bool:
        """Whether files wait in the inbox to be taken."""
        return any(p.is_file() and not p.name.startswith(".") for p in self.inbox.iterdir())

    def _settled(self, path: Path) -> bool:
        """Whether the scanner is done writing ``path`` (see the module docstring)."""
        if self.settle <= 0:
            return True
        try:
            if time.time() - path.stat().st_mtime >= self.settle:
                return True
            return _visibly_complete(path)
        except OSError:
            return False  # renamed or removed meanwhile

    def take(self, path: Path) -> list[str]:
        """Store a file's pages (or refuse it); returns its page shas ([] when refused).

        StorageError when the archive cannot be written: the file is left in the inbox."""
        try:
            return self._take(path)
        except OSError as error:
            if not path.exists():
                raise
            raise StorageError(
                error.errno, f"{shown_name(path.name)}: no se puede guardar en el archivo de escaneos "
                f"{str(self.root)!r} ({error.strerror or error}); el escaneo sigue en la bandeja y se reintentará"
            ) from error

    def _take(self, path: Path) -> list[str]:
        name = shown_name(path.name)
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:  # refused unread: a huge file never enters memory
            limit = MAX_FILE_BYTES // 1_000_000
            self._refuse(path, f"{name}: el archivo ocupa {size // 1_000_000} MB, más de {limit} MB")
            return []
        data = path.read_bytes()
        file_sha = hashlib.sha256(data).hexdigest()
        if file_sha in self.files:  # the same file again: its pages are stored already
            shas = self.files[file_sha]
        else:
            try:
                if path.suffix.lower() not in IMAGE_SUFFIXES and decoding.kind_of(data) is None:
                    raise RefusedFile(f"{name}: tipo de archivo no admitido (se esperan {', '.join(IMAGE_SUFFIXES)})")
                pages = self._decoded(data, name)
                try:
                    shas = [self._store_page(gray) for gray in pages]
                finally:
                    pages.close()
            except RefusedFile as error:
                self._refuse(path, str(error))
                return []
        self._journal({"kind": "file", "name": name, "file_sha": file_sha, "pages": shas})
        self._note_file(name, file_sha, shas)
        self._keep_original(path, file_sha)
        return shas

    def _decoded(self, data: bytes, name: str) -> Iterator[np.ndarray]:
        """The file's pages by ``decode``; whatever the decoder raises is a RefusedFile naming it, but
        ``isolation.Unavailable`` (no decoder at all)."""
        try:
            yield from self.decode(data, decoding.SCANS)
        except decoding.Refused as error:
            raise RefusedFile(f"{name}: {error}") from None
        except isolation.Unavailable:  # the machine's fault: the file stays in the inbox, the poll fails
            raise
        except Exception as error:
            log.warning("%s: el decodificador falló", name, exc_info=True)
            raise RefusedFile(f"{name}: archivo dañado: no se puede leer ({error.__class__.__name__})") from None

    def _keep_original(self, path: Path, file_sha: str) -> None:
        """Move the file into ``originals/`` unless an identical one is there (then drop it)."""
        suffix = re.sub(r"[^a-z0-9.]", "", path.suffix.lower())[:11]
        target = self.root / "originals" / f"{file_sha}{suffix}"
        if target.exists():
            path.unlink()
        else:
            _move_whole(path, target)

    def _store_page(self, gray: np.ndarray) -> str:
        sha = page_sha(gray)
        final = self.root / "pages" / f"{sha}.png"
        if not final.exists():
            encoded, png = cv2.imencode(".png", gray)
            if not encoded:
                raise RefusedFile(f"no se pudo codificar la página {sha[:12]}")
            temporary = final.with_suffix(".tmp.png")
            try:
                with open(temporary, "wb") as handle:
                    handle.write(png.tobytes())
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temporary, final)
            except OSError:
                temporary.unlink(missing_ok=True)
                raise
        return sha

    def _refuse(self, path: Path, reason: str) -> None:
        """Keep a refused file under a safe name of its own in ``refused/``, its reason beside it, then journal it."""
        folder = self.root / "refused"
        stored = unique_name(clean_name(path.name), self._archived)
        (folder / f"{stored}{REASON_SUFFIX}").write_text(reason + "\n", encoding="utf-8")
        _move_whole(path, folder / stored)
        record = {"name": shown_name(path.name), "stored": stored, "reason": reason, "at": time.time()}
        self._journal({"kind": "refused", **record})
        self.refused.append(record)
        self.names[stored] = ""

    def name_taken(self, name: str) -> bool:
        """Whether a file waits in the inbox as ``name``, or one was taken or refused under it."""
        return (self.inbox / name).exists() or self._archived(name)

    def _archived(self, name: str) -> bool:
        folder = self.root / "refused"
        return name in self.names or (folder / name).exists() or (folder / f"{name}{REASON_SUFFIX}").exists()

    def pending(self) -> list[Page]:
        """Stored pages not read yet, in arrival order; each page once however often it came."""
        seen: set[str] = set()
        out = []
        for shas in self.files.values():
            for sha in shas:
                if sha not in self.read and sha not in seen:
                    seen.add(sha)
                    out.append(self.pages[sha])
        return out

    def read_pending(self) -> list[Page]:
        """Read the pending pages that are ``ready``; those ``read_page`` answers None for stay pending, and so
        do those whose reading raises (``failures`` says why), while the pages after them are read."""
        done = []
        for page in self.pending():
            if self.ready is not None and not self.ready(page):
                continue
            failed = self.failures.get(page.sha)
            if failed is not None and time.monotonic() < failed.next_try:
                continue
            gray = cv2.imread(str(page.path), cv2.IMREAD_GRAYSCALE)
            try:
                results = self.read_page(page, gray) if gray is not None else [{"error": "página ilegible en disco"}]
            except StorageError:
                raise
            except Exception as error:
                self._failed(page, error)
                continue
            self.failures.pop(page.sha, None)
            if results is None:
                continue
            try:
                self._journal({"kind": "read", "page": page.sha, "results": results})
            except OSError as error:
                raise StorageError(error.errno, f"no se puede anotar en el diario {str(self.journal_path)!r} "
                                   f"({error.strerror or error}); la página se leerá otra vez") from error
            self.read[page.sha] = results
            done.append(page)
        return done

    def _failed(self, page: Page, error: Exception) -> None:
        """Note that reading ``page`` raised ``error`` (logged the first time), to try it again later."""
        count = self.failures[page.sha].count + 1 if page.sha in self.failures else 1
        if count == 1:
            log.error("%s, página %d: fallo al leerla", page.source, page.index + 1, exc_info=error)
        wait = min(MAX_RETRY_SECONDS, self.retry * 2 ** (count - 1))
        reason = (f"{page.source}, página {page.index + 1}: fallo al leerla ({error.__class__.__name__}: {error}); "
                  f"se volverá a intentar")  # fmt: skip
        self.failures[page.sha] = ReadFailure(reason, count, time.monotonic() + wait)

    def outcome(self, name: str) -> dict[str, Any] | None:
        """What became of the file taken as ``name``: ``{"state": "refused", "reason"}``, ``{"state": "reading",
        "pages", "read"}`` or ``{"state": "read", "pages", "results"}``; None when no file of that name was taken."""
        file_sha = self.names.get(name)
        if file_sha is None:
            return None
        if file_sha == "":
            reason = next((r["reason"] for r in reversed(self.refused) if r["stored"] == name), "")
            return {"state": "refused", "reason": reason}
        shas = self.files[file_sha]
        read = [sha for sha in shas if sha in self.read]
        if len(read) < len(shas):
            return {"state": "reading", "pages": len(shas), "read": len(read)}
        return {"state": "read", "pages": len(shas), "results": [r for sha in shas for r in self.read[sha]]}


def _move_whole(source: Path, target: Path) -> None:
    """Move a file so that ``target`` is never a partial copy (the inbox may be on another disk)."""
    try:
        os.replace(source, target)
        return
    except OSError as error:
        if error.errno != errno.EXDEV:
            raise
    temporary = target.with_name(f".{target.name}.part")
    try:
        shutil.copyfile(source, temporary)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    source.unlink()


def _visibly_complete(path: Path) -> bool:
    """Whether a file ends as a finished PNG, JPEG or PDF does (other formats: unknown, False)."""
    with open(path, "rb") as handle:
        head = handle.read(8)
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - 1024))
        tail = handle.read()
    if head.startswith(b"\x89PNG"):
        return tail.endswith(b"IEND\xaeB`\x82")
    if head.startswith(b"\xff\xd8"):
        return tail.rstrip(b"\x00").endswith(b"\xff\xd9")
    if head.startswith(b"%PDF-"):
        return b"%%EOF" in tail[-64:]
    return False
