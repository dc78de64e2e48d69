"""Image and PDF bombs (issue 19.2): every size read from the headers and checked before anything is decoded.

A 110 KB PNG declaring 30000x30000 pixels made ``cv2.imdecode`` allocate 2.7 GB (5.4 GB at the peak,
22 s) when posted as a camera's calibration preview; now it is refused from its header, by the
device API and by the scan archive alike, for a few megabytes and milliseconds (measured in a fresh
process, ``test_the_bomb_costs_under_100_mb_and_1_s``). A PDF is refused for its page count or for
an embedded image's declared size before any page is rendered, and renders large pages at a lower DPI.
"""

from __future__ import annotations

import base64
import io
import json
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image

from vision import decoding
from vision.slips.ingest import RefusedFile, split_pages
from webapp.services.cameras import CameraError, CameraRegistry
from webapp.services.shared import services

pytest_plugins = ["tests.conftest_web"]
ROOT = Path(__file__).resolve().parent.parent
BOMB_SIDE = 30000


def zeros_stream(row_bytes: int, rows: int) -> bytes:
    """A zlib stream of ``rows`` x ``row_bytes`` zero bytes, made in milliseconds: one block of rows
    compressed once after a full flush and repeated, then an empty final block and the checksum."""
    block_rows = min(rows, 1000)
    assert rows % block_rows == 0
    block = b"\x00" * (row_bytes * block_rows)
    compressor = zlib.compressobj(9)
    first = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    checksum = 1
    for _ in range(rows // block_rows):
        checksum = zlib.adler32(block, checksum)
    return first + again * (rows // block_rows - 1) + b"\x01\x00\x00\xff\xff" + struct.pack(">I", checksum)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb(side: int = BOMB_SIDE) -> bytes:
    """A real decompression bomb: a valid 1-bit PNG of ``side`` x ``side`` black pixels (about 110 KB)."""
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    rows = zeros_stream(1 + (side + 7) // 8, side)  # each row: filter byte 0, then the bits
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", rows) + _chunk(b"IEND", b"")


def jpeg_header(width: int, height: int) -> bytes:
    """The start of a JPEG whose frame header (SOF0) declares ``width`` x ``height``."""
    app0 = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0\x00\x0b\x08" + struct.pack(">HH", height, width) + b"\x01\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00" + b"\x00" * 64 + b"\xff\xd9"


def tiff_header(width: int, height: int) -> bytes:
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 1, 8), (277, 3, 1, 1), (278, 4, 1, height), (279, 4, 1, 0)]  # fmt: skip
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries) + b"\x00" * 4
    return b"II*\x00" + struct.pack("<I", 8) + ifd


def tiff_pages(*sizes: tuple[int, int]) -> bytes:
    """A TIFF of grey 8-bit pages of these sizes (a page of more than a megapixel: its header alone)."""
    out = bytearray(b"II*\x00" + struct.pack("<I", 8))
    for number, (width, height) in enumerate(sizes):
        entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
                   (273, 4, 1, 0), (277, 3, 1, 1), (278, 4, 1, height), (279, 4, 1, width * height)]  # fmt: skip
        data_at = len(out) + 2 + 12 * len(entries) + 4
        entries[5] = (273, 4, 1, data_at)
        last = number == len(sizes) - 1
        pixels = b"\x80" * (width * height) if width * height <= 1_000_000 else b""
        next_ifd = 0 if last else data_at + len(pixels)
        out += struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries)
        out += struct.pack("<I", next_ifd) + pixels
    return bytes(out)


def bmp_header(width: int, height: int) -> bytes:
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + 64, 0, 0, 54) + info + b"\x00" * 64


def webp_header(width: int, height: int) -> bytes:
    vp8x = b"\x00\x00\x00\x00" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    body = b"WEBP" + b"VP8X" + struct.pack("<I", len(vp8x)) + vp8x
    return b"RIFF" + struct.pack("<I", len(body)) + body


def hand_pdf(pages: list[tuple[float, float]], image: tuple[int, int] | None = None) -> bytes:
    """A PDF of empty pages of these sizes (points); with ``image``, each page draws one 1-bit image XObject
    whose dictionary declares that many pixels (its data: zeros, compressed)."""
    objects: list[bytes] = [b"", b""]  # 1: catalog, 2: page tree
    resources = b""
    if image is not None:
        width, height = image
        data = zeros_stream((width + 7) // 8, height)
        objects.append(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /BitsPerComponent 1 /ColorSpace "
                       b"/DeviceGray /Filter /FlateDecode /Length %d >>\nstream\n" % (width, height, len(data))
                       + data + b"\nendstream")  # fmt: skip
        resources = b" /Resources << /XObject << /Im0 %d 0 R >> >>" % len(objects)
    content = b"q 100 0 0 100 0 0 cm /Im0 Do Q" if image is not None else b""
    objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    contents = len(objects)
    kids = []
    for width_pt, height_pt in pages:
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents %d 0 R%s >>"
                       % (width_pt, height_pt, contents, resources))  # fmt: skip
        kids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def encoded(image: Image.Image, kind: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, kind, **options)
    return out.getvalue()


@pytest.mark.parametrize(("kind", "mode", "options"), [
    ("PNG", "L", {}), ("PNG", "RGBA", {}), ("JPEG", "RGB", {}), ("JPEG", "L", {"progressive": True}),
    ("TIFF", "L", {}), ("TIFF", "RGB", {"compression": "tiff_lzw"}), ("BMP", "RGB", {}), ("BMP", "L", {}),
    ("WEBP", "RGB", {"lossless": True}), ("WEBP", "RGB", {}), ("WEBP", "RGBA", {}),
])  # fmt: skip
def test_the_headers_give_the_size_pillow_decodes(kind: str, mode: str, options: dict[str, object]) -> None:
    data = encoded(Image.new(mode, (123, 45)), kind, **options)
    assert decoding.header_size(data) == (kind, 123, 45)
    assert next(decoding.pages(data)).shape == (45, 123)


@pytest.mark.parametrize(("header", "side"), [(png_bomb, BOMB_SIDE), (jpeg_header, BOMB_SIDE), (tiff_header, BOMB_SIDE),
                                             (bmp_header, BOMB_SIDE), (webp_header, 16000)])  # fmt: skip
def test_a_bomb_in_any_format_is_refused_from_its_header(header: Callable[..., bytes], side: int) -> None:
    data = png_bomb(side) if header is png_bomb else header(side, side)  # a WebP is at most 16384 a side
    with pytest.raises(RefusedFile, match=f"bomba: imagen de {side}x{side} píxeles: el máximo es 40 megapíxeles"):
        next(split_pages(data, "bomba"))


def test_every_page_of_a_tiff_is_checked_before_the_first_is_decoded() -> None:
    assert [p.shape for p in split_pages(tiff_pages((8, 6), (8, 6)), "dos.tif")] == [(6, 8), (6, 8)]
    with pytest.raises(RefusedFile, match="lote.tif: la página 2 es una imagen de 30000x30000 píxeles"):
        next(split_pages(tiff_pages((8, 6), (BOMB_SIDE, BOMB_SIDE)), "lote.tif"))
    with pytest.raises(RefusedFile, match="lote.tif: más de 60 páginas: el máximo es 60 por archivo"):
        next(split_pages(tiff_pages(*[(8, 6)] * 61), "lote.tif"))


def test_a_pdf_is_refused_for_its_pages_or_its_images_before_any_page_is_rendered() -> None:
    with pytest.raises(RefusedFile, match="lote.pdf: 61 páginas: el máximo es 60 por archivo"):
        next(split_pages(hand_pdf([(595, 842)] * 61), "lote.pdf"))
    with pytest.raises(RefusedFile, match="foto.pdf: la página 1 lleva una imagen de 30000x30000 píxeles"):
        next(split_pages(hand_pdf([(595, 842)] * 2, image=(BOMB_SIDE, BOMB_SIDE)), "foto.pdf"))
    pages = list(split_pages(hand_pdf([(595, 842)], image=(2000, 2000)), "escaneo.pdf"))
    assert pages[0].shape == (2339, 1653)  # A4 at 200 dpi, its image drawn
    for width in (0.0, -5.0, float("nan"), float("inf")):  # pdfium itself gives such a page a Letter size
        with pytest.raises(decoding.Refused, match="página sin tamaño"):
            decoding.pdf_scale(width, 842.0, decoding.SCANS)


def test_a_large_pdf_page_is_rendered_at_a_lower_dpi() -> None:
    """A page of 80 x 80 cm would be 40 megapixels at 200 dpi: it is rendered at 8 (A3 at 200 dpi), and A4 as ever."""
    (page,) = split_pages(hand_pdf([(2276, 2276)]), "cartel.pdf")
    assert page.size <= decoding.SCANS.render_pixels and page.shape[0] == page.shape[1] > 2800
    assert decoding.pdf_scale(595.28, 841.89, decoding.SCANS) == pytest.approx(200 / 72)


MEASURE = """
import base64, json, os, resource, sys, time
from pathlib import Path

from vision.slips.ingest import RefusedFile, split_pages
from webapp.services.cameras import CameraError, CameraRegistry


def rss():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak():
    # the peak resident size since the last reset (VmHWM), else since the process began
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure(action):
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")  # the peak starts again from now (Linux >= 4.0)
    except OSError:
        pass  # the peak of the whole process: an overestimate
    before, start = rss(), time.perf_counter()
    try:
        action()
        message = None
    except (CameraError, RefusedFile) as error:
        message = str(error)
    seconds = time.perf_counter() - start
    return {"mb": max(0, peak() - before) / 1e6, "seconds": seconds, "message": message}


png, pdf = [Path(p).read_bytes() for p in sys.argv[1:3]]
registry = CameraRegistry(None, Path(sys.argv[3]))
registry.add("mesa1", kind="node")
calibration = {"type": "calibration", "found": True, "preview_jpeg": base64.b64encode(png).decode()}
print(json.dumps({
    "calibration": measure(lambda: registry.receive("mesa1", calibration)),
    "scan": measure(lambda: list(split_pages(png, "bomba.png"))),
    "pdf": measure(lambda: list(split_pages(pdf, "bomba.pdf"))),
}))
"""


def test_the_bomb_costs_under_100_mb_and_1_s(tmp_path: Path) -> None:
    """Measured in a fresh process: the peak resident memory over what it used before, and the time."""
    (tmp_path / "bomba.png").write_bytes(png_bomb())
    (tmp_path / "bomba.pdf").write_bytes(hand_pdf([(595, 842)], image=(BOMB_SIDE, BOMB_SIDE)))
    files = [str(tmp_path / name) for name in ("bomba.png", "bomba.pdf", "datos")]
    done = subprocess.run([sys.executable, "-c", MEASURE, *files], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    for what, figure in figures.items():
        assert figure["message"] and "30000x30000 píxeles" in figure["message"], what
        assert figure["mb"] < 100 and figure["seconds"] < 1, (what, figure)
    assert not (tmp_path / "datos" / "calibration" / "mesa1.png").exists()


def test_a_calibration_preview_bomb_is_refused_by_the_device_api(app: Flask, client: FlaskClient) -> None:
    token = services(app).accounts.add_device("nodo-mesa1", "node", cameras=["mesa1"])
    bomb = {"type": "calibration", "found": True, "reason": "", "turn": 0,
            "preview_jpeg": base64.b64encode(png_bomb()).decode()}  # fmt: skip
    answer = client.post("/api/cameras/messages", json={"camera": "mesa1", "messages": [bomb]},
                         headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert answer.status_code == 400
    assert "imagen de 30000x30000 píxeles: el máximo es 4 megapíxeles" in answer.get_json()["error"]
    assert not (Path(app.instance_path) / "calibration" / "mesa1.png").exists()
    assert services(app).cameras.state("mesa1")["calibration"] is None  # the refused message changed nothing


def test_camera_images_must_be_jpegs_within_the_camera_limit(tmp_path: Path) -> None:
    registry = CameraRegistry(None, tmp_path)
    registry.add("mesa1", kind="node")
    photo = encoded(Image.fromarray(np.full((270, 480, 3), 128, np.uint8)), "JPEG")
    registry.receive("mesa1", {"type": "preview", "t": 1.0, "jpeg": base64.b64encode(photo).decode()})
    assert registry.preview("mesa1") == photo
    wrong = [(encoded(Image.new("RGB", (48, 27)), "PNG"), "imagen PNG: se admiten JPEG"),
             (jpeg_header(4000, 3000), "imagen de 4000x3000 píxeles: el máximo es 4 megapíxeles")]
    for data, reason in wrong:
        text = base64.b64encode(data).decode()
        with pytest.raises(CameraError, match=reason):
            registry.receive("mesa1", {"type": "preview", "t": 2.0, "jpeg": text})
        report = {"id": 1, "kind": "doubt", "reason": "unsure", "camera": "mesa1", "t": 1.0, "frame": 10,
                  "frame_path": None, "message": "dudosa", "tiles": []}  # fmt: skip
        with pytest.raises(CameraError, match=reason):
            registry.receive("mesa1", {"type": "report", "id": "r-1", "report": report, "frame_jpeg": text})
    assert registry.preview("mesa1") == photo and not (tmp_path / "camera-frames" / "mesa1").exists()
