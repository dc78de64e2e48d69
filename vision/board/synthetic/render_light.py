"""Light on the table: gain, colour cast, a gradient, a hard shadow, glare, then blur and noise.

``apply_light(img, light, rng)`` works on a float32 BGR image (``H x W x 3``, 0..255 but
not clipped) and returns a new one; positions in ``Lighting`` are fractions of the
image's width and height, angles in degrees, blur and noise in pixels and grey levels.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from .render_scene import Lighting


def apply_light(img: NDArray[np.float32], light: Lighting, rng: np.random.Generator) -> NDArray[np.float32]:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = math.radians(light.gradient_direction)
    ramp = ((xx / w - 0.5) * math.cos(d) + (yy / h - 0.5) * math.sin(d)) * light.gradient
    gain = light.gain * (1.0 + ramp)
    if light.shadow[3] > 0:
        angle, offset, softness, darkness = light.shadow
        a = math.radians(angle)
        signed = (xx / w - 0.5) * math.cos(a) + (yy / h - 0.5) * math.sin(a) - offset
        edge = 1.0 / (1.0 + np.exp(np.clip(-signed / max(softness, 1e-3), -50, 50)))
        gain = gain * (1.0 - darkness * edge)
    img = img * gain[..., None] * np.array(light.cast, np.float32)
    if light.glare[3] > 0:
        gx, gy, radius, strength = light.glare
        r2 = ((xx / w - gx) ** 2 + (yy / h - gy) ** 2) / max(radius, 1e-3) ** 2
        img += (255.0 * strength * np.exp(-r2))[..., None]
    if light.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), light.blur)
    if light.noise > 0:
        img += rng.normal(0, light.noise, img.shape).astype(np.float32)
    return img
