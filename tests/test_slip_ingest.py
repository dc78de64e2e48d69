"""Ingesting scans: pages stored content-addressed before reading, bad files refused and kept, restart-safe."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from hardware.scanner import FolderReplay
from vision.slips.ingest import Ingestor, Page, RefusedFile, page_sha, split_pages


def page(seed: int, size: tuple[int, int] = (60, 80)) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, size, dtype=np.uint8)


def png_bytes(gray: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(gray).save(out, format="PNG")
    return out.getvalue()


def tiff_bytes(pages: list[np.ndarray]) -> bytes:
    out = io.BytesIO()
    first, *rest = [Image.fromarray(p) for p in pages]
    first.save(out, format="TIFF", save_all=True, append_images=rest)
    return out.getvalue()


def huge_png_header(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` x ``height`` pixels (a decompression bomb's header)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * 10)) + chunk(b"IEND", b"")


class Recorder:
    """A read_page callback that records what it read, and can crash on a given call."""

    def __init__(self, crash_on: int | None = None) -> None:
        self.calls: list[str] = []
        self.crash_on = crash_on

    def __call__(self, p: Page, gray: np.ndarray) -> list[dict[str, Any]]:
        if self.crash_on is not None and len(self.calls) == self.crash_on:
            raise KeyboardInterrupt("the process stops here")
        self.calls.append(p.sha)
        return [{"status": "read", "shape": list(gray.shape)}]


def test_pages_of_a_multipage_tiff_and_a_pdf(tmp_path: Path) -> None:
    pages = [page(1), page(2), page(3)]
    split = list(split_pages(tiff_bytes(pages), "lote.tif"))
    assert [page_sha(p) for p in split] == [page_sha(p) for p in pages]
    from vision.slips.printing import pads, slips_pdf

    pdf = slips_pdf(pads("g1", "Prueba", [("j1", "Ana", 1), ("j2", "Bruno", 2)], per_player=5))
    rendered = list(split_pages(pdf, "papeletas.pdf"))
    assert len(rendered) == 2 and rendered[0].shape == (2339, 1654)  # A4 at 200 dpi


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("vacio.png", b"", "vacío"),
        ("nota.txt", b"hola", "tipo de archivo no admitido"),
        ("roto.jpg", b"\xff\xd8\xff\xe0 esto no es un JPEG", "JPEG dañada"),
        ("bomba.png", huge_png_header(20000, 20000), "megapíxeles"),
        ("roto.pdf", b"%PDF-1.4 basura", "PDF dañado"),
    ],
)
def test_bad_files_are_refused_with_a_reason_and_kept(tmp_path: Path, name: str, data: bytes, reason: str) -> None:
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    (inbox / name).write_bytes(data)
    reader = Recorder()
    ingestor = Ingestor(inbox, tmp_path / "estado", reader)
    assert ingestor.poll() == []
    assert reader.calls == []
    kept = tmp_path / "estado" / "refused" / name
    assert kept.read_bytes() == data
    assert reason in (tmp_path / "estado" / "refused" / f"{name}.motivo.txt").read_text()
    assert ingestor.refused[0]["name"] == name and reason in ingestor.refused[0]["reason"]
    assert not (inbox / name).exists()


def test_split_pages_refuses_by_exception() -> None:
    with pytest.raises(RefusedFile, match="megapíxeles"):
        list(split_pages(huge_png_header(9000, 9000), "grande.png"))


def test_the_same_page_twice_is_stored_and_read_once(tmp_path: Path) -> None:
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    gray = page(7)
    (inbox / "a.png").write_bytes(png_bytes(gray))
    (inbox / "b.tif").write_bytes(tiff_bytes([gray]))  # the same pixels in another container
    (inbox / "c.png").write_bytes(png_bytes(gray))  # the same file again
    reader = Recorder()
    ingestor = Ingestor(inbox, tmp_path / "estado", reader)
    done = ingestor.poll()
    assert [p.sha for p in done] == [page_sha(gray)]
    assert reader.calls == [page_sha(gray)]
    assert (tmp_path / "estado" / "pages" / f"{page_sha(gray)}.png").exists()
    assert list(inbox.iterdir()) == []


def test_a_restart_mid_batch_loses_nothing_and_reads_nothing_twice(tmp_path: Path) -> None:
    scans = tmp_path / "escaneos"
    scans.mkdir()
    grays = [page(i) for i in range(5)]
    for i, gray in enumerate(grays[:4]):
        (scans / f"{i}.png").write_bytes(png_bytes(gray))
    (scans / "4.tif").write_bytes(tiff_bytes([grays[4], page(99)]))
    inbox, state = tmp_path / "bandeja", tmp_path / "estado"
    FolderReplay(scans, batch=10).deliver(inbox)
    crashing = Recorder(crash_on=2)
    with pytest.raises(KeyboardInterrupt):
        Ingestor(inbox, state, crashing).poll()
    assert len(crashing.calls) == 2
    # the journal ends mid-write, as after a power cut
    with open(state / "journal.jsonl", "a") as journal:
        journal.write('{"kind": "read", "page": "abc')
    restarted = Recorder()
    Ingestor(inbox, state, restarted).poll()
    every = [page_sha(g) for g in grays] + [page_sha(page(99))]
    assert sorted(crashing.calls + restarted.calls) == sorted(every)
    again = Recorder()
    Ingestor(inbox, state, again).poll()
    assert again.calls == []


def test_a_transparent_background_is_white_paper_and_sixteen_bit_greys_are_scaled() -> None:
    """A play cut out by a drawing app is black ink on transparent pixels (their colour black too): read
    as paper it stays legible; a 16-bit grey scan keeps its greys."""
    rgba = np.zeros((40, 120, 4), np.uint8)
    rgba[15:25, 10:110, 3] = 255  # a black stroke, everything else transparent black
    buffer = io.BytesIO()
    Image.fromarray(rgba, "RGBA").save(buffer, "PNG")
    grey = next(split_pages(buffer.getvalue(), "jugada.png"))
    assert grey[0, 0] == 255 and grey[20, 60] == 0
    deep = np.full((40, 120), 60000, np.uint16)
    deep[15:25, 10:110] = 5000
    buffer = io.BytesIO()
    Image.fromarray(deep).save(buffer, "PNG")
    grey = next(split_pages(buffer.getvalue(), "escaneo16.png"))
    assert abs(int(grey[0, 0]) - 233) <= 1 and abs(int(grey[20, 60]) - 19) <= 1


def test_a_photo_stands_as_its_exif_orientation_says() -> None:
    """Phones store a photo taken upright sideways with an orientation tag (EXIF 274): the page is
    turned as the tag says before it is read, so a photographed play reads left to right."""
    gray = np.full((40, 120), 230, np.uint8)
    gray[:, :10] = 20  # ink along the stored image's left edge
    image = Image.fromarray(gray)
    exif = image.getexif()
    exif[274] = 6  # "rotate 90° clockwise to display"
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", exif=exif.tobytes())
    page = next(split_pages(buffer.getvalue(), "foto.jpg"))
    assert page.shape == (120, 40)
    assert page[:10].mean() < 60 and page[-10:].mean() > 200  # the left edge is now the top


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    from vision.slips.ingest import MAX_FILE_BYTES

    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    with open(inbox / "enorme.tif", "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used, and never read into memory
    ingestor = Ingestor(inbox, tmp_path / "estado", Recorder())
    assert ingestor.poll() == [] and "más de 67 MB" in ingestor.refused[0]["reason"]
    assert (tmp_path / "estado" / "refused" / "enorme.tif").stat().st_size == MAX_FILE_BYTES + 1


def test_a_refused_name_is_never_reused_and_survives_a_restart(tmp_path: Path) -> None:
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    ingestor = Ingestor(inbox, tmp_path / "estado", Recorder())
    for content in (b"uno", b"dos"):
        (inbox / "escaneo.png").write_bytes(content)
        ingestor.poll()
    assert [(r["name"], r["stored"]) for r in ingestor.refused] == [("escaneo.png", "escaneo.png"),
                                                                    ("escaneo.png", "escaneo-2.png")]  # fmt: skip
    assert (tmp_path / "estado" / "refused" / "escaneo.png").read_bytes() == b"uno"
    again = Ingestor(inbox, tmp_path / "estado", Recorder())
    assert again.refused == ingestor.refused
