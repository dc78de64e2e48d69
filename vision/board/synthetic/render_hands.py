"""Hands over the table: a palm, four fingers, a thumb and a sleeve, with their shadow.

A ``Hand`` is placed on the board (fingertips at board point (u, v), in cells) and drawn
in the image (pixels, through ``image_from_board``); ``hand_mask`` gives its skin and
sleeve as ``H x W`` float32 masks of 0..1. ``apply_hands`` paints a scene's hands on a
float32 BGR image in place and returns the mask of what they hide.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from ..geometry import FloatArray, apply_homography
from .render_scene import Hand, Scene


def hand_mask(hand: Hand, image_from_board: FloatArray, shape: tuple[int, int]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(hand, sleeve) masks in image pixels, 0..1, for a hand whose fingertips are at (u, v)."""
    tip = apply_homography(image_from_board, np.array([[hand.u, hand.v]]))[0]
    pitch = float(np.linalg.norm(apply_homography(image_from_board, np.array([[hand.u + 1, hand.v]]))[0] - tip))
    unit = pitch * hand.scale / 4.0
    a = math.radians(hand.angle)
    fwd = np.array([math.cos(a), math.sin(a)])
    side = np.array([-fwd[1], fwd[0]])
    palm_centre = tip - fwd * unit * 3.0
    hand_img = np.zeros(shape, np.float32)
    cv2.ellipse(hand_img, tuple(int(x) for x in palm_centre), (int(unit * 1.3), int(unit * 1.05)), math.degrees(a), 0, 360, 1.0, -1, cv2.LINE_AA)
    for k, (offset, length) in enumerate(((-0.75, 2.0), (-0.25, 2.4), (0.25, 2.3), (0.75, 1.9))):
        spread = (k - 1.5) * hand.spread * 0.25
        direction = fwd * math.cos(spread) + side * math.sin(spread)
        base = palm_centre + side * offset * unit + fwd * unit * 0.6
        end = base + direction * unit * length
        cv2.line(hand_img, tuple(int(x) for x in base), tuple(int(x) for x in end), 1.0, max(2, int(unit * 0.42)), cv2.LINE_AA)
    thumb_base = palm_centre - side * unit * 1.0
    thumb_end = thumb_base + (fwd * 0.6 - side * 0.8) * unit * 1.6
    cv2.line(hand_img, tuple(int(x) for x in thumb_base), tuple(int(x) for x in thumb_end), 1.0, max(2, int(unit * 0.5)), cv2.LINE_AA)
    sleeve = np.zeros(shape, np.float32)
    wrist = palm_centre - fwd * unit * 1.0
    far = wrist - fwd * unit * 40
    cv2.line(hand_img, tuple(int(x) for x in wrist), tuple(int(x) for x in (wrist - fwd * unit * 2.0)), 1.0, int(unit * 1.6), cv2.LINE_AA)
    cv2.line(sleeve, tuple(int(x) for x in (wrist - fwd * unit * 2.0)), tuple(int(x) for x in far), 1.0, int(unit * 2.4), cv2.LINE_AA)
    return hand_img, sleeve


def apply_hands(img: NDArray[np.float32], scene: Scene, image_from_board: FloatArray, rng: np.random.Generator) -> NDArray[np.float32]:
    """Draw the hands (and their shadow) on the image; returns the union mask of what they hide."""
    shape = img.shape[:2]
    hidden = np.zeros(shape, np.float32)
    for hand in scene.hands:
        skin_mask, sleeve_mask = hand_mask(hand, image_from_board, shape)
        body = np.clip(skin_mask + sleeve_mask, 0, 1)
        shift = np.float32([[1, 0, rng.uniform(10, 40)], [0, 1, rng.uniform(10, 40)]])
        shadow = cv2.GaussianBlur(cv2.warpAffine(body, shift, (shape[1], shape[0])), (0, 0), 12)
        img *= (1 - 0.45 * shadow)[..., None]
        yy = np.linspace(0.85, 1.1, shape[0], dtype=np.float32)[:, None, None]
        skin = np.array(hand.skin, np.float32) * yy
        img[:] = img * (1 - sleeve_mask[..., None]) + np.array(hand.sleeve, np.float32) * sleeve_mask[..., None]
        img[:] = img * (1 - skin_mask[..., None]) + skin * skin_mask[..., None]
        hidden = np.maximum(hidden, body)
    return hidden
