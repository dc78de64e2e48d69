"""Untrusted images and PDFs decoded within limits: every size is read from the headers first.

An image's width and height come from its header (PNG, JPEG, TIFF, BMP, WebP: ``header_size``,
a few bytes read, nothing decoded), a PDF's page sizes (points) and the pixel sizes of the
images it embeds from pypdfium2 before any page is rendered; only then is anything decoded.
A file over a limit is refused with ``Refused``, whose message names the problem in Spanish
("imagen de 30000x30000 píxeles: el máximo es 40 megapíxeles"), before any large buffer exists.

Conventions: sizes are (width, height) in pixels; PDF pages are in points (1/72 inch) and are
rendered at ``PDF_DPI``, less for pages larger than A3 so that no rendering exceeds
``Limits.render_pixels``. Decoded pages are grey uint8 arrays (rows = y); camera images are
BGR uint8 (OpenCV's order).
"""

from __future__ import annotations

import io
import math
import struct
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import cv2
import numpy as np
from PIL import Image, ImageOps, ImageSequence

if TYPE_CHECKING:
    import pypdfium2

PDF_DPI: Final = 200  # slips are read at 200 dpi (the reader's rectified slip is 203 dpi)


@dataclass(frozen=True)
class Limits:
    """What one file may hold: pixels per image or page, pages per file, the formats accepted."""

    max_pixels: int  # width x height of one image or page (as stored, before any rendering)
    max_pages: int  # pages (PDF) or frames (TIFF, WebP) in one file
    formats: tuple[str, ...]  # header kinds accepted: "PNG", "JPEG", "TIFF", "BMP", "WEBP", "PDF"
    render_pixels: int = 0  # a PDF page is rendered at PDF_DPI or less, to at most this many pixels


# A4 at 600 dpi is about 35 Mpx; a round of slips (8 per A4 page) for 480 players is 60 pages;
# A3 at 200 dpi is 7.8 Mpx, so A4 and A3 pages render at 200 dpi and larger ones at less.
SCANS: Final = Limits(40_000_000, 60, ("PNG", "JPEG", "TIFF", "BMP", "WEBP", "PDF"), 8_000_000)
# Camera nodes send previews 480 px wide, frames 1024 px wide, the calibrated board about 900 px
# square; 4 Mpx is twice a 1080p frame.
CAMERA: Final = Limits(4_000_000, 1, ("JPEG",))


class Refused(ValueError):
    """A file not decoded: over a limit, of a kind not accepted, or damaged; the message says why."""


def _megapixels(pixels: int) -> str:
    return f"{pixels / 1_000_000:g} megapíxeles"


def check_size(width: int, height: int, limits: Limits, what: str = "imagen") -> None:
    """Refused when ``width`` x ``height`` is empty or over ``limits.max_pixels``."""
    if width <= 0 or height <= 0:
        raise Refused(f"{what} sin tamaño ({width}x{height} píxeles)")
    if width * height > limits.max_pixels:
        raise Refused(f"{what} de {width}x{height} píxeles: el máximo es {_megapixels(limits.max_pixels)}")


def check_pages(count: int, limits: Limits) -> None:
    if count > limits.max_pages:
        raise Refused(f"{count} páginas: el máximo es {limits.max_pages} por archivo "
                      "(divida el lote en varios archivos)")
    if count == 0:
        raise Refused("el archivo no tiene ninguna página")


# -- headers ---------------------------------------------------------------------------------


def kind_of(data: bytes) -> str | None:
    """The file's kind from its first bytes: PNG, JPEG, TIFF, BMP, WEBP, PDF, or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF"
    if data.startswith(b"BM"):
        return "BMP"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data.startswith(b"%PDF-"):
        return "PDF"
    return None


def header_size(data: bytes) -> tuple[str, int, int]:
    """(kind, width, height) of an image from its header alone; Refused when there is none to read.

    TIFF: the first page (the others are checked as they are reached, ``image_pages``)."""
    kind = kind_of(data)
    try:
        size = {"PNG": _png, "JPEG": _jpeg, "TIFF": _tiff, "BMP": _bmp, "WEBP": _webp}[kind or ""](data)
    except KeyError:
        raise Refused("no es una imagen PNG, JPEG, TIFF, BMP ni WebP, ni un PDF") from None
    except (struct.error, IndexError, ValueError):
        size = None
    if size is None:
        raise Refused(f"imagen {kind} dañada: su cabecera no dice el tamaño")
    return kind or "", size[0], size[1]


def _png(data: bytes) -> tuple[int, int] | None:
    if data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


_SOF: Final = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # frame headers; C4 C8 CC are not


def _jpeg(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD9)):  # no length
            at += 2
            continue
        if marker in (0xD9, 0xDA):  # end, or the scan before any frame header
            return None
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return int(width), int(height)
        at += 2 + length
    return None


def _tiff(data: bytes) -> tuple[int, int] | None:
    order = "<" if data[:2] == b"II" else ">"
    (offset,) = struct.unpack(order + "I", data[4:8])
    (count,) = struct.unpack(order + "H", data[offset : offset + 2])
    found: dict[int, int] = {}
    for entry in range(count):
        at = offset + 2 + 12 * entry
        tag, kind = struct.unpack(order + "HH", data[at : at + 4])
        if tag in (256, 257):  # ImageWidth, ImageLength: SHORT (3) or LONG (4)
            value = data[at + 8 : at + 12]
            found[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), value[: 2 if kind == 3 else 4])[0]
    return (found[256], found[257]) if len(found) == 2 else None


def _bmp(data: bytes) -> tuple[int, int] | None:
    (header,) = struct.unpack("<I", data[14:18])
    if header == 12:  # OS/2 BITMAPCOREHEADER
        width, height = struct.unpack("<HH", data[18:22])
    else:
        width, height = struct.unpack("<ii", data[18:26])
    return abs(int(width)), abs(int(height))  # a negative height: rows stored top-down


def _webp(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 ":  # lossy: the key frame's header after the start code 9d 01 2a
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":  # lossless: 14 bits each, minus one, after the signature byte
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":  # extended: the canvas, 24 bits each, minus one
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    return None


# -- images ---------------------------------------------------------------------------------------


def open_image(data: bytes, limits: Limits) -> Image.Image:
    """The image, opened (header read, nothing decoded) after its header's size passed ``limits``."""
    kind, width, height = header_size(data)
    check_size(width, height, limits)
    if kind not in limits.formats:
        raise Refused(f"imagen {kind}: se admiten {', '.join(k for k in limits.formats)}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # the size is ours to check
        try:
            image = Image.open(io.BytesIO(data), formats=[kind])
        except Exception:
            raise Refused(f"imagen {kind} dañada o incompleta") from None
    check_size(image.width, image.height, limits)  # what Pillow read must agree
    return image


def image_pages(data: bytes, limits: Limits) -> Iterator[np.ndarray]:
    """The grey pages of an image (TIFF and WebP: every frame): all sizes checked before the first
    is decoded. Each page turns as its EXIF orientation says; transparent pixels are paper."""
    image = open_image(data, limits)
    count = 0
    try:
        for index, frame in enumerate(ImageSequence.Iterator(image)):  # reads each frame's header only
            if index >= limits.max_pages:
                raise Refused(f"más de {limits.max_pages} páginas: el máximo es {limits.max_pages} por archivo "
                              "(divida el lote en varios archivos)")
            check_size(frame.width, frame.height, limits, f"la página {index + 1} es una imagen")
            count += 1
        for index in range(count):
            image.seek(index)
            if image.format == "JPEG":
                image.draft("L", image.size)  # libjpeg decodes straight to grey: a third of the memory
            yield grey_page(ImageOps.exif_transpose(image))  # a phone's photo stands as it was taken
    except (Refused, MemoryError):  # out of memory: the caller's limit, not a damaged image
        raise
    except Exception as error:
        raise Refused(f"imagen dañada o incompleta ({error.__class__.__name__})") from None
    if count == 0:
        raise Refused("la imagen no tiene ninguna página")


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


def decode_color(data: bytes, limits: Limits = CAMERA) -> np.ndarray:
    """A camera's image (JPEG) as BGR uint8, (height, width, 3), decoded only when its header passed."""
    check_image(data, limits)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise Refused("imagen dañada o incompleta")
    return image


def check_image(data: bytes, limits: Limits = CAMERA) -> tuple[int, int]:
    """(width, height) of an image kept as it came (a camera's preview): its header checked, nothing decoded."""
    with open_image(data, limits) as image:
        return image.width, image.height


# -- PDF ----------------------------------------------------------------------------------------------


def pdf_scale(width_pt: float, height_pt: float, limits: Limits) -> float:
    """Pixels per point for a page of this size: PDF_DPI, less when that would exceed ``render_pixels``."""
    if not (math.isfinite(width_pt) and math.isfinite(height_pt)) or width_pt <= 0 or height_pt <= 0:
        raise Refused(f"página sin tamaño ({width_pt}x{height_pt} puntos)")
    scale = PDF_DPI / 72.0
    if limits.render_pixels and width_pt * height_pt * scale * scale > limits.render_pixels:
        scale = math.sqrt(limits.render_pixels / (width_pt * height_pt))
        while math.ceil(width_pt * scale) * math.ceil(height_pt * scale) > limits.render_pixels:
            scale *= 0.999  # pdfium rounds a bitmap's sides up
    return scale


def pdf_pages(data: bytes, limits: Limits = SCANS) -> Iterator[np.ndarray]:
    """The grey pages of a PDF, each rendered at ``pdf_scale``: the page count, each page's size and every
    embedded image's pixel size are checked before the first page is rendered."""
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as error:
        protected = getattr(error, "err_code", None) == pypdfium2.raw.FPDF_ERR_PASSWORD
        raise Refused("PDF protegido con contraseña" if protected else "PDF dañado: no se puede abrir") from None
    except Exception:
        raise Refused("PDF dañado: no se puede abrir") from None
    try:
        check_pages(len(document), limits)
        scales = [_checked_page(document, index, limits) for index in range(len(document))]
        for index, scale in enumerate(scales):
            page = _page(document, index)
            try:
                bitmap = page.render(scale=scale, grayscale=True)
            except pypdfium2.PdfiumError:
                raise Refused(f"PDF dañado: la página {index + 1} no se puede dibujar") from None
            yield np.asarray(bitmap.to_pil().convert("L"), dtype=np.uint8).copy()
            page.close()
    finally:
        document.close()


def _page(document: object, index: int) -> pypdfium2.PdfPage:
    """Page ``index`` of an open PDF; Refused when pdfium cannot load it (a page tree that contains itself)."""
    import pypdfium2

    assert isinstance(document, pypdfium2.PdfDocument)
    try:
        return document[index]
    except pypdfium2.PdfiumError:
        raise Refused(f"PDF dañado: la página {index + 1} no se puede abrir") from None


def _checked_page(document: object, index: int, limits: Limits) -> float:
    """Page ``index``'s rendering scale, after its size and its embedded images' sizes passed ``limits``."""
    import pypdfium2
    import pypdfium2.raw as pdfium_c

    assert isinstance(document, pypdfium2.PdfDocument)
    page = _page(document, index)
    try:
        try:
            scale = pdf_scale(*page.get_size(), limits)
        except Refused as error:
            raise Refused(f"la página {index + 1} es una {error}") from None
        for found in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)):
            try:
                width, height = found.get_px_size()
            except pypdfium2.PdfiumError:
                continue  # no size: pdfium will not decode it either
            check_size(width, height, limits, f"la página {index + 1} lleva una imagen")
        return scale
    finally:
        page.close()


def pages(data: bytes, limits: Limits = SCANS) -> Iterator[np.ndarray]:
    """The grey pages of an image or a PDF within ``limits`` (Refused, with the reason, when not)."""
    if not data:
        raise Refused("el archivo está vacío")
    if kind_of(data) == "PDF":
        if "PDF" not in limits.formats:
            raise Refused("no se admiten PDF aquí")
        return pdf_pages(data, limits)
    return image_pages(data, limits)
