"""The board's outline in a frame, from its colours or its busy edges (step (1) of ``find``).

``board_mask`` marks the board's green (a hue, OpenCV's 0..180, from
``green_candidates``) with the small patches of other strong colours that touch it
(premium squares): ``H x W`` uint8, 255 on the board, the size of the BGR frame it
comes from; ``detail_mask`` marks where the frame is busy with sharp edges instead (a
board of several colours). ``outline_quads`` turns a mask into the quadrilaterals that
may be the board's outline, likeliest first: ``4 x 2`` float64 image points (x, y) in pixels,
clockwise in the image (y down) from the top-left-most corner.
"""

from __future__ import annotations

import itertools
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from .geometry import FloatArray

MIN_BOARD_FRACTION: Final = 0.02  # the board covers at least this much of the frame
PREMIUM_PATCH_MAX: Final = 0.01  # a premium square's patch is at most this much of the frame


def stretch_channels(image: NDArray[np.uint8], low: float = 1.0, high: float = 99.0) -> NDArray[np.uint8]:
    """Each channel stretched so its ``low``..``high`` percentiles span 0..255 (dim light, colour casts)."""
    sample = image[::4, ::4].reshape(-1, 3).astype(np.float32)
    lo = np.percentile(sample, low, axis=0)
    hi = np.percentile(sample, high, axis=0)
    scale = 255.0 / np.maximum(hi - lo, 8.0)
    out = (image.astype(np.float32) - lo) * scale
    return np.asarray(np.clip(out, 0, 255), np.uint8)


def green_candidates(image: NDArray[np.uint8], count: int = 3) -> list[int]:
    """Hues (OpenCV 0..180) that may be the board's green: the main peaks of the
    saturated hues between yellow and cyan, largest first (a colour cast moves them)."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    chosen = hue[(sat > 50) & (val > 20) & (hue >= 25) & (hue <= 105)]
    if chosen.size < 0.02 * hue.size:
        return []
    histogram = np.convolve(np.bincount(chosen, minlength=181).astype(np.float64), np.ones(7), mode="same")
    peaks: list[int] = []
    for h in np.argsort(histogram)[::-1]:
        if histogram[h] < 0.1 * histogram.max() or len(peaks) == count:
            break
        if all(abs(int(h) - p) > 12 for p in peaks):
            peaks.append(int(h))
    return peaks


def board_mask(image: NDArray[np.uint8], green: int, strict: bool = False) -> NDArray[np.uint8]:
    """255 where a pixel has the hue ``green``, or belongs to a small patch of another strong
    colour touching it (a premium square); tiles are holes in it. ``strict`` also asks for
    a saturation above the Otsu split of that hue's pixels (a paler table of the same hue)."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0].astype(np.int16), hsv[..., 1], hsv[..., 2]
    same = (np.abs(hue - green) <= 8) & (sat > 50) & (val > 20)
    green_sat = float(np.median(sat[same])) if same.any() else 100.0
    hued = np.abs(hue - green) <= 16
    floor = max(35.0, 0.35 * green_sat)
    if strict and hued.any():
        split, _ = cv2.threshold(np.ascontiguousarray(sat[hued]).reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        floor = max(floor, float(split))
    near_green = hued & (sat > floor) & (val > 15)
    closed = cv2.morphologyEx(near_green.astype(np.uint8) * 255, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    mask = np.asarray(cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
    return np.maximum(mask, _premium_squares(mask, ~near_green & (sat > max(60.0, 0.5 * green_sat)) & (val > 30)))


def _premium_squares(green: NDArray[np.uint8], coloured: NDArray[np.bool_]) -> NDArray[np.uint8]:
    """Small patches of another strong colour that touch the green (premium squares: a
    red corner square would otherwise cut the outline's corner); large ones (a coloured
    table) are left out."""
    patches = cv2.morphologyEx(coloured.astype(np.uint8) * 255, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(patches, connectivity=8)
    if count < 2:
        return np.zeros_like(green)
    near = cv2.dilate(green, np.ones((5, 5), np.uint8)) > 0
    touching = np.bincount(labels[near & (patches > 0)], minlength=count) > 0
    keep = touching & (stats[:, cv2.CC_STAT_AREA] <= PREMIUM_PATCH_MAX * green.size)
    keep[0] = False
    return np.where(keep[labels], np.uint8(255), np.uint8(0))


def detail_mask(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """255 where the frame is busy with sharp edges: the grid's lines and the tiles' borders,
    averaged over about a cell (a fortieth of the frame's longest side), split from the
    calmer rest at Otsu's threshold. The outline of a board whose squares are of several
    colours (a wooden board's lit and shaded squares, split apart by ``outline_colours``)
    when the table around it is plainer than the board (issue 20)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    edges = cv2.magnitude(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3))
    reach = max(5, int(max(image.shape[:2]) / 40))
    busy = cv2.blur(edges, (reach, reach))
    scaled = np.clip(busy * (255.0 / max(1e-6, float(np.percentile(busy, 99)))), 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return np.asarray(mask, np.uint8)


def outline_quad(mask: NDArray[np.uint8]) -> FloatArray | None:
    """The quadrilateral around the largest board-coloured region (``4 x 2``), or None
    (the first of ``outline_quads``)."""
    quads = outline_quads(mask)
    return quads[0] if quads else None


def outline_quads(mask: NDArray[np.uint8]) -> list[FloatArray]:
    """Quadrilaterals (``4 x 2``, clockwise) that may be the board's outline, likeliest first.

    Specks of board colour far smaller than the largest piece (a table's texture) are
    dropped; the pieces left, cut apart by tiles, are joined (dilation) and the largest
    region is taken. When that region reaches the frame's edge (a table of the board's
    colour) the largest region inside the frame is tried too. Each region gives the
    largest quadrilateral on its hull's vertices and the one whose sides extend the
    hull's four longest sides (a corner square that is not green cuts the hull's corner).
    """
    clean = _drop_specks(mask)
    reach = max(3, int(round(max(mask.shape) / 50)))  # bridges green cut apart by rows of tiles
    grown = np.asarray(cv2.dilate(clean, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1,) * 2)), np.uint8)
    hulls = [hull for hull in (_largest_region(grown, clean),) if hull is not None]
    if hulls and _touches_edge(hulls[0], mask.shape):
        hulls += [hull for hull in (_inside_region(mask),) if hull is not None]
    quads: list[FloatArray] = []
    for hull in hulls:
        if cv2.contourArea(hull.astype(np.float32)) < MIN_BOARD_FRACTION * mask.size:
            continue
        for quad in (_largest_inscribed_quad(hull), _extended_sides_quad(hull)):
            if quad is not None and all(np.abs(quad - q).max() > 2.0 for q in quads):
                quads.append(quad)
    return quads


def _drop_specks(mask: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The mask without pieces under a twentieth of the largest piece's area."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count < 3:
        return mask
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = np.concatenate([[False], areas >= areas.max() / 20])
    return np.where(keep[labels], np.uint8(255), np.uint8(0))


def _largest_region(grown: NDArray[np.uint8], mask: NDArray[np.uint8]) -> FloatArray | None:
    """The convex hull (``n x 2``) of the mask pixels of the largest region of ``grown``, or None."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    if count < 2:
        return None
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return _hull((labels == biggest) & (mask > 0))


def _inside_region(mask: NDArray[np.uint8]) -> FloatArray | None:
    """The hull of the board-coloured pieces clear of the frame's edge, once thin bridges
    are cut (a table of the board's colour touching the board's green through gaps in
    its light frame), or None."""
    opened = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    h, w = mask.shape
    x, y, bw, bh, area = (stats[:, i] for i in range(5))
    inside = (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
    inside[0] = False
    if not inside.any():
        return None
    keep = inside & (area >= area[inside].max() / 20)
    return _hull(keep[labels])


def _hull(pixels: NDArray[np.bool_]) -> FloatArray | None:
    ys, xs = np.nonzero(pixels)
    if len(xs) < 4:
        return None
    hull = cv2.convexHull(np.stack([xs, ys], axis=1).astype(np.int32))
    return np.asarray(hull.reshape(-1, 2), np.float64)


def _touches_edge(hull: FloatArray, shape: tuple[int, ...]) -> bool:
    h, w = shape[:2]
    return bool(hull[:, 0].min() <= 1 or hull[:, 1].min() <= 1 or hull[:, 0].max() >= w - 2 or hull[:, 1].max() >= h - 2)


def _extended_sides_quad(hull: FloatArray) -> FloatArray | None:
    """The quadrilateral whose sides lie on the hull's four longest sides, or None when
    that is not a sensible outline (not convex, or far larger than the hull)."""
    perimeter = cv2.arcLength(hull.astype(np.float32), True)
    poly = cv2.approxPolyDP(hull.astype(np.float32), 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64)
    if len(poly) <= 4:
        return None
    lengths = np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)
    sides = sorted(np.argsort(lengths)[-4:])
    corners = []
    for a, b in zip(sides, sides[1:] + sides[:1]):
        p1, p2 = poly[a], poly[(a + 1) % len(poly)]
        q1, q2 = poly[b], poly[(b + 1) % len(poly)]
        d1, d2 = p2 - p1, q2 - q1
        det = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(det) < 1e-6 * (np.linalg.norm(d1) * np.linalg.norm(d2) + 1e-9):
            return None
        t = ((q1[0] - p1[0]) * d2[1] - (q1[1] - p1[1]) * d2[0]) / det
        corners.append(p1 + t * d1)
    quad = np.array(corners, np.float64)
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    hull_area = abs(cv2.contourArea(hull.astype(np.float32)))
    if not cv2.isContourConvex(quad.astype(np.float32)) or area > 1.3 * hull_area or area < hull_area:
        return None
    return _clockwise(quad)


def _largest_inscribed_quad(hull: FloatArray) -> FloatArray:
    """The four hull vertices that enclose the largest area, clockwise (a hidden corner
    is cut, not extended: the grid fit that follows has slack for it)."""
    perimeter = cv2.arcLength(hull.astype(np.float32), True)
    poly = hull
    for eps in (0.002, 0.005, 0.01, 0.02, 0.04):
        poly = cv2.approxPolyDP(hull.astype(np.float32), eps * perimeter, True).reshape(-1, 2).astype(np.float64)
        if len(poly) <= 24:
            break
    if len(poly) < 4:
        rect = cv2.boxPoints(cv2.minAreaRect(hull.astype(np.float32)))
        return _clockwise(np.asarray(rect, np.float64))
    idx = np.array(list(itertools.combinations(range(len(poly)), 4)))
    quads = poly[idx]  # n x 4 x 2, in hull order
    x, y = quads[..., 0], quads[..., 1]
    area = 0.5 * np.abs((x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1))
    return _clockwise(quads[int(np.argmax(area))])


def _clockwise(points: FloatArray) -> FloatArray:
    """Order points clockwise in the image (y down), starting top-left-most."""
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]
    start = int(np.argmin(ordered.sum(axis=1)))
    return np.roll(ordered, -start, axis=0)
