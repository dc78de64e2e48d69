"""Phone photos of filled-in slips, drawn: how a club without a scanner hands its slips to the reader.

``photograph`` lays a slip (grey uint8 in the slip frame, ``drawn.fill_slip``) on a table and takes it as a
phone does: at a phone's resolution (``SIDES``: a photo sent by a messaging app up to a 12 MP camera's), the slip
filling half the frame or more, turned any way round and a little off square, seen from a camera tilted up to about
25 degrees (perspective); lit unevenly (``Light``: a gradient across the slip, darker corners, soft shadow bands of a
hand, a phone or a lamp's arm, and sometimes glare, a reflection that washes the paper and the ink under it to
white); then the camera's own marks: defocus or a little shake, noise heavier in the dark, sharpening, JPEG.
Randomness comes only from the caller's ``numpy.random.Generator``. Only the benchmark and calibration make these;
the reader never imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from vision.slips import layout
from vision.slips.synthetic import drawn

SIDES: Final = (1600, 4032)  # px: the photo's long side (4:3), drawn between these
FILL: Final = (0.55, 0.85)  # share of the frame's width the slip's long side covers


@dataclass(frozen=True)
class Light:
    """How a photo is lit, over the slip (lengths in mm of the slip frame): ``shadows`` bands (each a centre point,
    an angle in degrees, a width, 0 for a half-plane, the softness of its edges and how much light it takes away),
    a ``gradient`` (fraction of the light lost from one side of the slip to the other, and its direction),
    ``vignette`` (light lost at the frame's corners) and ``glare`` (a centre, a radius and grey levels added)."""

    shadows: tuple[tuple[float, float, float, float, float, float], ...]
    gradient: tuple[float, float]
    vignette: float
    glare: tuple[float, float, float, float] | None

    @classmethod
    def random(cls, rng: np.random.Generator, size_mm: tuple[float, float], shadows: int | None = None,
               glare: bool | None = None) -> Light:  # fmt: skip
        """Light drawn for a slip of ``size_mm`` (width, height): ``shadows`` bands (drawn when None: none in a
        fifth of photos, one in three fifths, two in a fifth) and ``glare`` (drawn when None: one photo in four)."""
        w, h = size_mm
        count = int(rng.choice([0, 1, 2], p=[0.2, 0.6, 0.2])) if shadows is None else shadows
        bands = tuple((float(rng.uniform(0.1, 0.9) * w), float(rng.uniform(0.1, 0.9) * h), float(rng.uniform(0, 180)),
                       0.0 if rng.random() < 0.5 else float(rng.uniform(8, 40)), float(rng.uniform(0.5, 4.0)),
                       float(rng.uniform(0.3, 0.65))) for _ in range(count))  # fmt: skip
        shine = rng.random() < 0.25 if glare is None else glare
        spot = ((float(rng.uniform(0.1, 0.9) * w), float(rng.uniform(0.1, 0.9) * h), float(rng.uniform(5, 18)),
                 float(rng.uniform(40, 160))) if shine else None)  # fmt: skip
        return cls(bands, (float(rng.uniform(0.0, 0.35)), float(rng.uniform(0, 360))), float(rng.uniform(0.0, 0.25)),
                   spot)  # fmt: skip

    def field(self, size_mm: tuple[float, float], px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
        """(light, glare) over the slip frame at ``px_per_mm``: the light's share (float32, 1 = full) and the grey
        levels glare adds."""
        w, h = size_mm
        ys, xs = np.mgrid[0 : int(round(h * px_per_mm)), 0 : int(round(w * px_per_mm))].astype(np.float32) / px_per_mm
        amount, direction = self.gradient
        along = np.cos(np.deg2rad(direction)) * (xs - w / 2) + np.sin(np.deg2rad(direction)) * (ys - h / 2)
        light = 1.0 - amount * (along / max(w, h) + 0.5)
        for cx, cy, angle, width, soft, depth in self.shadows:
            across = -np.sin(np.deg2rad(angle)) * (xs - cx) + np.cos(np.deg2rad(angle)) * (ys - cy)
            if width > 0:  # a band: in the shade between its two edges
                inside = _soft_step((width / 2 - np.abs(across)) / soft)
            else:  # a half-plane: in the shade on one side of its edge
                inside = _soft_step(across / soft)
            light = light * (1.0 - depth * inside)
        shine = np.zeros_like(light)
        if self.glare is not None:
            gx, gy, radius, levels = self.glare
            shine = levels * np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * radius**2))
        return light.astype(np.float32), shine.astype(np.float32)


def _soft_step(z: np.ndarray) -> np.ndarray:
    """0 to 1 across z = 0, smoothly (a logistic step: a shadow's penumbra)."""
    return (1.0 / (1.0 + np.exp(-1.7 * np.clip(z, -30, 30)))).astype(np.float32)


def photograph(slip: np.ndarray, rng: np.random.Generator, light: Light | None = None,
               px_per_mm: float = layout.PX_PER_MM, long_side: int | None = None) -> np.ndarray:  # fmt: skip
    """The slip (grey uint8, its frame at ``px_per_mm``) as a phone photographs it on a table (see the module);
    ``light`` drawn when None, and the photo's ``long_side`` (px) between ``SIDES``. Grey uint8."""
    h, w = slip.shape
    size_mm = (w / px_per_mm, h / px_per_mm)
    light = light or Light.random(rng, size_mm)
    shade, shine = light.field(size_mm, px_per_mm)
    lit = slip.astype(np.float32) * shade
    long_side = long_side or int(rng.uniform(*SIDES))
    width, height = long_side, long_side * 3 // 4
    homography = _camera(w, h, width, height, rng)
    table = _table(width, height, rng)
    exposure = float(rng.uniform(0.8, 0.98))
    page = cv2.warpPerspective(lit, homography, (width, height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=-1)  # fmt: skip
    glare = cv2.warpPerspective(shine, homography, (width, height), flags=cv2.INTER_LINEAR)
    image = np.where(page >= 0, page, table) * exposure
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    corner = ((xs - width / 2) ** 2 + (ys - height / 2) ** 2) / ((width / 2) ** 2 + (height / 2) ** 2)
    image = image * (1.0 - light.vignette * corner) + glare
    return _camera_marks(image, rng, homography[0, 0] ** 2 + homography[1, 0] ** 2)


class PhoneCapture:
    """A set's slips photographed (``photograph``) instead of scanned, with their own random draws (``seed``): the
    scan is still drawn from the set's generator and put aside, so that a set's slips are written exactly as in
    the same set scanned (``cases.Capture``)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, slip: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        drawn.scan(slip, rng)  # the scanned set's draws, so that the next slips are written as there
        return photograph(slip, self.rng)


def _camera(w: int, h: int, width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """The homography (slip px -> photo px): the slip turned a quarter turn any way round and a few degrees off,
    centred near the frame's middle at ``FILL`` of its width, seen from a camera tilted up to about 25 degrees."""
    quarter = int(rng.integers(4))
    angle = np.deg2rad(90.0 * quarter + float(rng.normal(0, 6)))
    across = width if quarter % 2 == 0 else height  # the frame's side along the slip's long side
    scale = float(rng.uniform(*FILL)) * across / w
    cos, sin = abs(np.cos(angle)), abs(np.sin(angle))
    scale = min(scale, 0.92 * width / (w * cos + h * sin), 0.92 * height / (w * sin + h * cos))  # all of it in frame
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    centre = np.array([width / 2, height / 2]) + rng.normal(0, 0.03, 2) * [width, height]
    placed = (corners - [w / 2, h / 2]) * scale @ rotation.T + centre
    tilt = float(rng.uniform(0.0, 0.18))  # the far side seen this much shorter: a camera tilted up to ~25 degrees
    toward = rng.normal(0, 1, 2)
    toward /= np.linalg.norm(toward) + 1e-9
    offsets = placed - centre
    far = (offsets @ toward) / (np.abs(offsets @ toward).max() + 1e-9)  # -1 near side .. 1 far side
    placed = centre + offsets * (1.0 - tilt * (far[:, None] + 1) / 2)
    placed += rng.normal(0, 0.01, placed.shape) * scale * w
    return cv2.getPerspectiveTransform(corners, placed.astype(np.float32))


def _table(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A table under the slip: a darker grey, with a grain."""
    grain = cv2.resize(rng.normal(0, 1, (height // 32 + 1, width // 4 + 1)).astype(np.float32), (width, height),
                       interpolation=cv2.INTER_CUBIC)  # fmt: skip
    return (float(rng.uniform(60, 190)) + float(rng.uniform(3, 15)) * grain).astype(np.float32)


def _camera_marks(image: np.ndarray, rng: np.random.Generator, scale2: float) -> np.ndarray:
    """Defocus (or a little shake), noise heavier where it is dark, sharpening and JPEG, as a phone's camera adds
    them; ``scale2`` the square of the photo's px per slip px (blur grows with it)."""
    sigma = float(rng.uniform(0.4, 1.1)) * float(np.sqrt(scale2))
    if rng.random() < 0.15:  # a little shake
        length = max(3, int(rng.uniform(0.5, 1.5) * np.sqrt(scale2)) | 1)
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rotation = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, rotation, (length, length))
        image = cv2.filter2D(image, -1, kernel / max(float(kernel.sum()), 1e-6))
    image = cv2.GaussianBlur(image, (0, 0), sigma)
    clipped = np.clip(image, 0, 255)
    noise = rng.normal(0, 1, image.shape).astype(np.float32)
    # shot noise of a phone's small sensor (some thousands of electrons at full light: 1-3 % of the paper's grey,
    # more in the shade), before the phone's own noise reduction, which is left out
    image = clipped + noise * np.sqrt(float(rng.uniform(0.03, 0.15)) * (clipped + 10.0))
    if rng.random() < 0.7:  # the phone sharpens
        amount = float(rng.uniform(0.3, 0.8))
        image = image * (1 + amount) - cv2.GaussianBlur(image, (0, 0), 1.5 * sigma) * amount
    out = np.clip(image, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 93))])
    return cv2.imdecode(data, cv2.IMREAD_GRAYSCALE) if ok else out
