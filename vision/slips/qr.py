"""The slip's QR code: game, table and player (``layout.qr_payload``), read with OpenCV."""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

from . import layout


def read_qr(gray: np.ndarray) -> str | None:
    """The text of the QR code on a grey image, or None when none can be decoded.

    OpenCV's classic decoder misses about one code in 250 at one scale that it reads at another, or once
    binarised, and about one in 800 at every scale (it depends on the code's content: CI met one whose two
    slips it never read). Its ArUco-based detector finds the finder patterns another way and reads those, so
    both are tried on each view in turn until one decodes."""
    detectors = (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco())
    for image in _qr_views(gray):
        for detector in detectors:
            try:
                text, _points, _ = detector.detectAndDecode(image)
            except cv2.error:
                continue
            if text:
                return str(text)
    return None


def _qr_views(gray: np.ndarray) -> Iterator[np.ndarray]:
    """The image as it is, enlarged 2x and 3x (bicubic), each also binarised (Otsu), cheapest first."""
    for scale in (1, 2, 3):
        image = gray if scale == 1 else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        yield image
        yield cv2.threshold(image, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]


def read_slip_qr(rectified: np.ndarray, px_per_mm: float = layout.PX_PER_MM) -> tuple[str, int, str] | None:
    """(game, table, player) from the QR region of a rectified slip, or None."""
    x0, y0, x1, y1 = layout.QR_BOX
    margin = 2.0
    crop = rectified[
        max(0, int((y0 - margin) * px_per_mm)) : int((y1 + margin) * px_per_mm),
        max(0, int((x0 - margin) * px_per_mm)) : int((x1 + margin) * px_per_mm),
    ]
    text = read_qr(crop)
    return layout.parse_qr_payload(text) if text else None
