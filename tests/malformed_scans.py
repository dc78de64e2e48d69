"""Malformed scans for the ingest's tests: PDFs, images and archives that a decoder may choke on, built by hand.

``cases(seed)`` lists them as (file name, bytes, what it is), deterministic for a seed: the fixed
pathological files first (a page tree that contains itself, a 2.6 KB PDF of nested forms that takes
minutes to render, encrypted, huge page counts and sizes, decompression bombs...), then seeded
mutations of good files (truncated, bytes flipped, a garbage cross-reference table) and random bytes.
"""

from __future__ import annotations

import io
import random
import struct
import zipfile
import zlib

import numpy as np
from PIL import Image

from .test_image_bombs import bmp_header, hand_pdf, jpeg_header, png_bomb, tiff_header, webp_header

Case = tuple[str, bytes, str]  # file name, content, what it is


def pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF of these objects (1 is the catalog), with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref)
    return bytes(out)


CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"


def self_referencing_pdf() -> bytes:
    """The page tree lists itself as its only kid (the file that stopped the room, issue 67)."""
    return pdf([CATALOG, b"<< /Type /Pages /Kids [2 0 R] /Count 1 >>"])


def page_tree_cycle_pdf() -> bytes:
    """Two page-tree nodes, each the other's kid."""
    return pdf([CATALOG, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>"])  # fmt: skip


def deep_page_tree_pdf(depth: int = 3000) -> bytes:
    """A page at the bottom of ``depth`` nested page-tree nodes."""
    nodes = [b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % (n + 1) for n in range(2, depth + 1)]
    return pdf([CATALOG, *nodes, b"<< /Type /Page /MediaBox [0 0 200 200] >>"])


def huge_count_pdf() -> bytes:
    """One page whose tree claims a hundred million."""
    return pdf([CATALOG, b"<< /Type /Pages /Kids [3 0 R] /Count 100000000 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"])  # fmt: skip


def no_root_pdf() -> bytes:
    return pdf([b"<< /Type /Pages /Kids [] /Count 0 >>"]).replace(b"/Root 1 0 R", b"")


def encrypted_pdf() -> bytes:
    """A PDF behind the standard security handler, with a user password nobody gave."""
    handler = b"<< /Filter /Standard /V 1 /R 2 /O <" + b"11" * 32 + b"> /U <" + b"22" * 32 + b"> /P -4 >>"
    objects = [CATALOG, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>", handler]  # fmt: skip
    identifier = b"<0123456789abcdef0123456789abcdef>"
    return pdf(objects, b"/Encrypt 4 0 R /ID [%s %s] " % (identifier, identifier))


def nested_forms_pdf(levels: int) -> bytes:
    """One page drawing a form that draws the one below it four times, ``levels`` deep: 4**levels strokes
    (12 levels: a 2.6 KB file that keeps pdfium busy for minutes)."""
    objects = [CATALOG, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", b""]
    for level in range(levels):
        content = b"/X Do /X Do /X Do /X Do" if level else b"0 0 m 10 10 l S"
        resources = b"/Resources << /XObject << /X %d 0 R >> >>" % len(objects) if level else b""
        objects.append(b"<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] %s /Length %d >>\nstream\n%s\nendstream"
                       % (resources, len(content), content))  # fmt: skip
    objects.append(b"<< /Length 5 >>\nstream\n/X Do\nendstream")
    objects[2] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /X %d 0 R >> >> "
                  b"/Contents %d 0 R >>" % (len(objects) - 1, len(objects)))  # fmt: skip
    return pdf(objects)


def garbage_xref(data: bytes, rng: random.Random) -> bytes:
    """``data`` (a PDF) with every offset of its cross-reference table replaced by a random one."""
    head, _, tail = data.rpartition(b"xref\n")
    lines = tail.split(b"\n")
    for at in range(2, len(lines)):
        if lines[at].endswith(b" n "):
            lines[at] = b"%010d 00000 n " % rng.randrange(10**10)
    return head + b"xref\n" + b"\n".join(lines)


def truncated(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(1, len(data))]


def flipped(data: bytes, rng: random.Random, count: int = 8) -> bytes:
    """``data`` with ``count`` random bytes replaced (the first 8 kept, so the kind stays known)."""
    out = bytearray(data)
    for _ in range(count):
        out[rng.randrange(8, len(out))] = rng.randrange(256)
    return bytes(out)


def encoded(gray: np.ndarray, kind: str, **options: object) -> bytes:
    out = io.BytesIO()
    Image.fromarray(gray).save(out, kind, **options)
    return out.getvalue()


def good_page(seed: int) -> np.ndarray:
    """A small grey page of its own for each seed (so two are never the same page)."""
    return np.random.default_rng(seed).integers(0, 256, (40, 30), dtype=np.uint8)


def zip_of(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return out.getvalue()


def zero_size_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 0, 0, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


def fixed_cases() -> list[Case]:
    """The pathological files, one of each."""
    page = good_page(0)
    a4 = hand_pdf([(595, 842)])
    return [
        ("arbol-propio.pdf", self_referencing_pdf(), "page tree that contains itself"),
        ("arbol-ciclo.pdf", page_tree_cycle_pdf(), "two page-tree nodes in a cycle"),
        ("arbol-hondo.pdf", deep_page_tree_pdf(), "a page under 3000 page-tree nodes"),
        ("cien-millones.pdf", huge_count_pdf(), "page count of a hundred million"),
        ("sin-raiz.pdf", no_root_pdf(), "no catalog"),
        ("cifrado.pdf", encrypted_pdf(), "encrypted"),
        ("formas-4.pdf", nested_forms_pdf(4), "nested forms, shallow (renders)"),
        ("muchas.pdf", hand_pdf([(100, 100)] * 61), "61 pages"),
        ("sabana.pdf", hand_pdf([(100000, 100000)]), "a page of 35 m square"),
        ("sin-tamano.pdf", hand_pdf([(0, 0)]), "a page of no size"),
        ("imagen-bomba.pdf", hand_pdf([(595, 842)], image=(30000, 30000)), "embedded image of 900 Mpx"),
        ("xref-basura.pdf", garbage_xref(a4, random.Random(1)), "garbage cross-reference table"),
        ("solo-cabecera.pdf", b"%PDF-1.7\n", "a PDF header alone"),
        ("bomba.png", png_bomb(), "PNG decompression bomb"),
        ("cero.png", zero_size_png(), "PNG of 0x0 pixels"),
        ("cabecera.jpg", jpeg_header(60000, 60000), "JPEG declaring 60000x60000"),
        ("cabecera.tif", tiff_header(50000, 50000), "TIFF declaring 50000x50000"),
        ("cabecera.bmp", bmp_header(40000, 40000), "BMP declaring 40000x40000"),
        ("cabecera.webp", webp_header(16000, 16000), "WebP declaring 16000x16000"),
        ("vacio.png", b"", "empty file"),
        ("papeletas.zip", zip_of({"a.png": encoded(page, "PNG")}), "zip of a good PNG"),
        ("zip-disfrazado.png", zip_of({"a.png": encoded(page, "PNG")}), "zip named .png"),
        ("bomba.zip", zip_of({"ceros.bin": bytes(50_000_000)}), "zip of 50 MB of zeros"),
        ("png-disfrazado.pdf", encoded(page, "PNG"), "PNG named .pdf (read: the content decides)"),
    ]


GOOD_KINDS: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("png", "PNG", {}), ("jpg", "JPEG", {}), ("tif", "TIFF", {}), ("webp", "WEBP", {"lossless": True}),
    ("bmp", "BMP", {}),
)  # fmt: skip


def mutated_cases(seed: int, count: int) -> list[Case]:
    """``count`` seeded mutations of good files (PDF and each image kind) and random bytes."""
    rng = random.Random(seed)
    out: list[Case] = []
    for number in range(count):
        page = good_page(seed * 100_000 + number)
        choice = rng.randrange(5)
        if choice == 4:
            suffix = rng.choice([".png", ".jpg", ".pdf", ".tif", ".bin"])
            magic = rng.choice([b"", b"%PDF-1.4\n", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"BM"])
            out.append((f"azar-{number}{suffix}", magic + rng.randbytes(rng.randrange(0, 4000)), "random bytes"))
            continue
        if rng.random() < 0.4:
            suffix, good = "pdf", hand_pdf([(rng.uniform(50, 900), rng.uniform(50, 900))] * rng.randrange(1, 4))
        else:
            suffix, kind, options = rng.choice(GOOD_KINDS)
            good = encoded(page, kind, **options)
        how = ["truncated", "flipped", "garbage xref" if suffix == "pdf" else "truncated", "flipped"][choice]
        damaged = {"truncated": truncated, "flipped": flipped, "garbage xref": garbage_xref}[how](good, rng)
        out.append((f"mutado-{number}.{suffix}", damaged, f"{suffix} {how}"))
    return out
