"""Ingesting scans from a watched folder: every page stored, content-addressed, before it is read.

Folder layout under ``root`` (the state of the slip reader for one event):

* ``pages/<sha256>.png``: each page, named by the SHA-256 of its grey pixels (and
  shape), so the same page delivered twice, whatever its file format, is one page;
* ``originals/<sha256 of file><ext>``: every accepted file as it arrived;
* ``refused/<name>`` and ``refused/<name>.motivo.txt``: files that could not be
  taken (not an image, unreadable, too large), kept for the arbiter with the reason;
* ``journal.jsonl``: what happened, one JSON object per line, flushed and fsynced.

A file is handled in steps, each journaled after it is durable: split into pages
and each page written (temp file, then rename) -> ``file`` record -> the original
moved out of the inbox -> each page read -> ``read`` record. Restarted after a
crash at any point, ``Ingestor`` replays the journal and does only what is left:
a page whose ``read`` record is missing is read again, nothing is read twice.

A scanner may still be writing a file when the inbox is polled: with ``settle`` > 0
(the servers' watchers), a file modified less than ``settle`` seconds ago is taken only
when it visibly ends (a PNG's IEND, a JPEG's EOI, a PDF's %%EOF), else on a later poll.
When the archive cannot be written (a full disk), ``StorageError`` says so: the file
stays in the inbox for the next poll and nothing stored is touched.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
from PIL import Image, ImageOps, ImageSequence

IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".pdf")
MAX_FILE_BYTES: Final = 64 * 1024 * 1024
MAX_PAGE_PIXELS: Final = 40_000_000  # an A4 page at 600 dpi is about 35 Mpx
MAX_PAGES: Final = 300
PDF_DPI: Final = 200


class RefusedFile(ValueError):
    """A file that cannot be ingested; the message says why, for the arbiter."""


class StorageError(OSError):
    """The archive cannot be written (disk full, no permission); the scan stays in the inbox."""


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


def _check_size(width: int, height: int, name: str, index: int) -> None:
    if width * height > MAX_PAGE_PIXELS:
        raise RefusedFile(
            f"{name}: la página {index + 1} mide {width}x{height} píxeles, más de {MAX_PAGE_PIXELS // 1_000_000} "
            "megapíxeles; escanee a 300 ppp o menos"
        )


def split_pages(data: bytes, name: str) -> Iterator[np.ndarray]:
    """The grey pages (uint8, rows = y) of an image or a multi-page PDF/TIFF; RefusedFile when it cannot be read.

    An image is turned as its EXIF orientation says, and its transparent pixels are paper (``grey_page``)."""
    if len(data) > MAX_FILE_BYTES:
        raise RefusedFile(f"{name}: el archivo ocupa {len(data) // 1_000_000} MB, más de {MAX_FILE_BYTES // 1_000_000} MB")
    if not data:
        raise RefusedFile(f"{name}: el archivo está vacío")
    if data[:5] == b"%PDF-":
        yield from _pdf_pages(data, name)
        return
    Image.MAX_IMAGE_PIXELS = None  # sizes are checked page by page below, before decoding
    try:
        image = Image.open(io.BytesIO(data))
    except Exception:
        raise RefusedFile(f"{name}: no es una imagen ni un PDF que se pueda leer") from None
    count = 0
    try:
        for index, frame in enumerate(ImageSequence.Iterator(image)):
            if index >= MAX_PAGES:
                raise RefusedFile(f"{name}: más de {MAX_PAGES} páginas")
            _check_size(frame.width, frame.height, name, index)
            yield grey_page(ImageOps.exif_transpose(frame))  # a phone's photo stands as it was taken
            count += 1
    except RefusedFile:
        raise
    except Exception as error:
        raise RefusedFile(f"{name}: imagen dañada o incompleta ({error.__class__.__name__})") from None
    if count == 0:
        raise RefusedFile(f"{name}: la imagen no tiene ninguna página")


def grey_page(frame: Image.Image) -> np.ndarray:
    """One decoded page as grey uint8: transparent pixels are white paper (a play cut out by a drawing app
    keeps its ink and loses its background), 16-bit and float greys scaled to 0..255."""
    if frame.mode in ("RGBA", "LA", "PA") or (frame.mode == "P" and "transparency" in frame.info):
        paper = Image.new("RGBA", frame.size, (255, 255, 255, 255))
        return np.asarray(Image.alpha_composite(paper, frame.convert("RGBA")).convert("L"), dtype=np.uint8).copy()
    if frame.mode in ("I", "I;16", "I;16B", "I;16L", "F"):
        values = np.asarray(frame, dtype=np.float64)
        top = 65535.0 if frame.mode.startswith("I;16") else max(float(values.max()), 1.0)
        return np.clip(values * (255.0 / top), 0, 255).round().astype(np.uint8)
    return np.asarray(frame.convert("L"), dtype=np.uint8).copy()


def _pdf_pages(data: bytes, name: str) -> Iterator[np.ndarray]:
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(data)
    except Exception:
        raise RefusedFile(f"{name}: PDF dañado o protegido") from None
    if len(document) > MAX_PAGES:
        raise RefusedFile(f"{name}: más de {MAX_PAGES} páginas")
    for index in range(len(document)):
        page = document[index]
        width, height = page.get_size()  # points
        scale = PDF_DPI / 72.0
        _check_size(int(width * scale), int(height * scale), name, index)
        bitmap = page.render(scale=scale, grayscale=True)
        yield np.asarray(bitmap.to_pil().convert("L"), dtype=np.uint8).copy()


ReadPage = Callable[[Page, np.ndarray], list[dict[str, Any]]]


@dataclass
class Ingestor:
    """The watched folder ``inbox`` and the state under ``root`` (see the module docstring)."""

    inbox: Path
    root: Path
    read_page: ReadPage
    settle: float = 0.0  # seconds a file must rest before it is taken unless it visibly ends
    files: dict[str, list[str]] = field(default_factory=dict)  # file sha -> page shas
    read: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # page sha -> results
    pages: dict[str, Page] = field(default_factory=dict)
    refused: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for folder in (self.inbox, self.root / "pages", self.root / "originals", self.root / "refused"):
            folder.mkdir(parents=True, exist_ok=True)
        self._replay()

    @property
    def journal_path(self) -> Path:
        return self.root / "journal.jsonl"

    def _replay(self) -> None:
        if not self.journal_path.exists():
            return
        text = self.journal_path.read_text(encoding="utf-8")
        if text and not text.endswith("\n"):
            with open(self.journal_path, "a", encoding="utf-8") as handle:
                handle.write("\n")  # close a line cut by a crash, so the next record starts clean
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a crash: its step is redone
            kind = record.get("kind")
            if kind == "file":
                self.files[record["file_sha"]] = record["pages"]
                for i, sha in enumerate(record["pages"]):
                    self.pages.setdefault(sha, Page(sha, record["name"], i, self.root / "pages" / f"{sha}.png"))
            elif kind == "read":
                self.read[record["page"]] = record["results"]
            elif kind == "refused":
                self.refused.append({"name": record["name"], "reason": record["reason"]})

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
                error.errno, f"{path.name}: no se puede guardar en el archivo de escaneos {str(self.root)!r} "
                f"({error.strerror or error}); el escaneo sigue en la bandeja y se reintentará"
            ) from error

    def _take(self, path: Path) -> list[str]:
        data = path.read_bytes()
        file_sha = hashlib.sha256(data).hexdigest()
        if file_sha in self.files:
            self._keep_original(path, file_sha)  # the same file again: its pages are stored already
            return self.files[file_sha]
        try:
            if path.suffix.lower() not in IMAGE_SUFFIXES and data[:5] != b"%PDF-":
                raise RefusedFile(f"{path.name}: tipo de archivo no admitido (se esperan {', '.join(IMAGE_SUFFIXES)})")
            shas = [self._store_page(gray) for gray in split_pages(data, path.name)]
        except RefusedFile as error:
            self._refuse(path, str(error))
            return []
        self._journal({"kind": "file", "name": path.name, "file_sha": file_sha, "pages": shas})
        self.files[file_sha] = shas
        for i, sha in enumerate(shas):
            self.pages.setdefault(sha, Page(sha, path.name, i, self.root / "pages" / f"{sha}.png"))
        self._keep_original(path, file_sha)
        return shas

    def _keep_original(self, path: Path, file_sha: str) -> None:
        """Move the file into ``originals/`` unless an identical one is there (then drop it)."""
        target = self.root / "originals" / f"{file_sha}{path.suffix.lower()}"
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
        target = self.root / "refused" / path.name
        (self.root / "refused" / f"{path.name}.motivo.txt").write_text(reason + "\n", encoding="utf-8")
        _move_whole(path, target)
        self._journal({"kind": "refused", "name": path.name, "reason": reason})
        self.refused.append({"name": path.name, "reason": reason})

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
        done = []
        for page in self.pending():
            gray = cv2.imread(str(page.path), cv2.IMREAD_GRAYSCALE)
            results = self.read_page(page, gray) if gray is not None else [{"error": "página ilegible en disco"}]
            try:
                self._journal({"kind": "read", "page": page.sha, "results": results})
            except OSError as error:
                raise StorageError(error.errno, f"no se puede anotar en el diario {str(self.journal_path)!r} "
                                   f"({error.strerror or error}); la página se leerá otra vez") from error
            self.read[page.sha] = results
            done.append(page)
        return done


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
