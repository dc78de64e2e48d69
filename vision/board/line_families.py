"""The grid's two families of lines, and the outline they give (a last first guess of ``find``).

Seen by a camera, the 16 lines of each direction of the grid meet at one vanishing point
(at infinity when the board faces the camera squarely). The two vanishing points fix the
perspective: the homography that sends the line through them to infinity and turns the
two directions to the axes makes every grid line straight, parallel and evenly spaced,
whatever an outline says. An outline whose corner a shadow ate, or that a dim frame
bent, warps the grid crooked and no comb of even lines fits it (issue 20); the lines
themselves still say where the board is.

``frame_segments`` finds the straight segments of the work frame once (OpenCV's line
segment detector, on its stretched grey). ``line_quad`` takes those near an outline,
the two main directions among them (the grid lines, the board's edges and the tiles'
sides share them), each family's vanishing point (least squares over the segments'
lines, segments pointing away from it dropped), and returns the quadrilateral around the
outline whose warp to a square makes both families parallel to the canvas axes: a
``4 x 2`` float64 array of work-frame points (x, y) in pixels, clockwise (y down), as
``outline.outline_quads`` gives, or None when the segments do not show two families.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from .geometry import SIZE, FloatArray, apply_homography

NEAR_OUTLINE: Final = 1.3  # segments within the outline grown this much about its centre count
MIN_SEGMENT_CELLS: Final = 0.5  # shorter segments (letters, wood grain) say little of a direction
FAMILY_DEGREES: Final = 15.0  # a segment within this of a family's main direction belongs to it
MIN_FAMILY_GAP: Final = 30.0  # the two directions are at least this far apart (degrees)
TOWARDS_DEGREES: Final = 2.0  # a family's segment points this close to its vanishing point
MIN_FAMILY_SIDES: Final = 2.0  # each family's segments add up to this many outline sides at least
REWEIGHTS: Final = 4  # least-squares rounds, each dropping the segments pointing elsewhere
SETTLE_ROUNDS: Final = 4  # a line quad found again from itself at most this often
SETTLED_CELLS: Final = 0.25  # a line quad whose corners moved less than this (cells) has settled
EXTENT_PERCENTILE: Final = 1.0  # the board spans the families' segments but this percentile at each end


@dataclass(frozen=True)
class Segments:
    """Straight segments of a frame: ``starts`` and ``ends`` ``N x 2`` (x, y) pixels."""

    starts: FloatArray
    ends: FloatArray

    @property
    def lengths(self) -> NDArray[np.float64]:
        return np.asarray(np.hypot(*(self.ends - self.starts).T), np.float64)

    def where(self, keep: NDArray[np.bool_]) -> Segments:
        return Segments(self.starts[keep], self.ends[keep])


def frame_segments(image: NDArray[np.uint8]) -> Segments:
    """The straight segments of a BGR frame, found on its grey stretched so that its 1st..99th
    percentiles span 0..255 (a dim frame's lines are as clear as a bright one's)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    lo, hi = np.percentile(gray[::2, ::2], [1.0, 99.0])
    stretched = np.clip((gray - lo) * (255.0 / max(float(hi - lo), 8.0)), 0, 255).astype(np.uint8)
    found = cv2.createLineSegmentDetector().detect(stretched)[0]
    flat = np.zeros((0, 4)) if found is None else np.asarray(found, np.float64).reshape(-1, 4)
    return Segments(flat[:, :2], flat[:, 2:])


def line_quad(segments: Segments, outline: FloatArray) -> FloatArray | None:
    """The quadrilateral about ``outline`` (``4 x 2``, clockwise) whose warp to a square
    makes the grid's two line families parallel to the axes, spanning their segments; see
    the module docstring. Found again from itself until it settles (``SETTLE_ROUNDS``), so
    that an outline of part of the board grows to the whole grid its lines cross."""
    quad = _line_quad_once(segments, outline)
    for _ in range(SETTLE_ROUNDS):
        if quad is None:
            return None
        again = _line_quad_once(segments, quad)
        if again is None:
            return quad
        moved = float(np.abs(again - quad).max())
        quad = again
        if moved < SETTLED_CELLS * quad_side(quad) / SIZE:
            break
    return quad


def quad_side(quad: FloatArray) -> float:
    """The side of a square of the quadrilateral's area, in its pixels."""
    return float(np.sqrt(abs(cv2.contourArea(quad.astype(np.float32)))))


def _line_quad_once(segments: Segments, outline: FloatArray) -> FloatArray | None:
    centre = outline.mean(axis=0)
    side = quad_side(outline)
    if side < 1.0:
        return None
    near = _near(segments, centre + NEAR_OUTLINE * (outline - centre))
    near = near.where(near.lengths >= MIN_SEGMENT_CELLS * side / SIZE)
    # board points relative to the outline's centre, in outline sides: well-conditioned
    to_unit = np.array([[1 / side, 0.0, -centre[0] / side], [0.0, 1 / side, -centre[1] / side], [0.0, 0.0, 1.0]])
    unit = Segments(apply_homography(to_unit, near.starts), apply_homography(to_unit, near.ends))
    points, inliers = [], []
    for family in (unit.where(chosen) for chosen in _families(unit)):
        found = _vanishing_point(family)
        if found is None:
            return None
        points.append(found[0])
        inliers.append(family.where(found[1]))
    if len(points) < 2:
        return None
    rectify = _rectifying(points[0], points[1])
    if rectify is None:
        return None
    ends = np.vstack([np.vstack([s.starts, s.ends]) for s in inliers])
    lo, hi = np.percentile(apply_homography(rectify, ends), [EXTENT_PERCENTILE, 100.0 - EXTENT_PERCENTILE], axis=0)
    box = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    return apply_homography(np.linalg.inv(rectify @ to_unit), box)


def _near(segments: Segments, region: FloatArray) -> Segments:
    polygon = region.astype(np.float32).reshape(-1, 1, 2)
    middles = 0.5 * (segments.starts + segments.ends)
    inside = np.array([cv2.pointPolygonTest(polygon, (float(x), float(y)), False) >= 0 for x, y in middles], bool)
    return segments.where(inside.reshape(-1))


def _families(segments: Segments) -> list[NDArray[np.bool_]]:
    """The segments of the two main directions (the length-weighted histogram's two peaks at
    least ``MIN_FAMILY_GAP`` apart); fewer than two when the segments show no second one."""
    if len(segments.starts) == 0:
        return []
    d = segments.ends - segments.starts
    angles = np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180.0
    histogram = np.bincount(np.round(angles).astype(int) % 180, weights=segments.lengths, minlength=180)
    smooth = np.convolve(np.r_[histogram[-3:], histogram, histogram[:3]], np.ones(5), "same")[3:-3]
    degrees = np.arange(180.0)
    first = float(np.argmax(smooth))
    rest = np.where(_apart(degrees, first) >= MIN_FAMILY_GAP, smooth, 0.0)
    if rest.max() <= 0:
        return []
    second = float(np.argmax(rest))
    return [_apart(angles, first) < FAMILY_DEGREES, _apart(angles, second) < FAMILY_DEGREES]


def _apart(angles: NDArray[np.float64], direction: float) -> NDArray[np.float64]:
    """Degrees between undirected directions."""
    gap = np.abs(angles - direction) % 180.0
    return np.asarray(np.minimum(gap, 180.0 - gap), np.float64)


def _vanishing_point(family: Segments) -> tuple[FloatArray, NDArray[np.bool_]] | None:
    """The homogeneous point (unit 3-vector) the family's lines meet at: the least-squares
    point of their lines weighted by length, segments not pointing at it (within
    ``TOWARDS_DEGREES``) dropped and the fit redone; None when too little is left."""
    ones = np.ones((len(family.starts), 1))
    lines = np.cross(np.hstack([family.starts, ones]), np.hstack([family.ends, ones]))
    lines /= np.hypot(lines[:, 0], lines[:, 1])[:, None] + 1e-12
    lengths = family.lengths
    weight = lengths.copy()
    point = np.zeros(3)
    for _ in range(REWEIGHTS):
        if weight.sum() < MIN_FAMILY_SIDES:  # in outline sides
            return None
        _, vectors = np.linalg.eigh((lines * weight[:, None]).T @ lines)
        point = vectors[:, 0]
        weight = np.where(_pointing_off(family, point) < TOWARDS_DEGREES, lengths, 0.0)
    return (point, weight > 0) if weight.sum() >= MIN_FAMILY_SIDES else None


def _pointing_off(family: Segments, point: FloatArray) -> NDArray[np.float64]:
    """Degrees between each segment and the way from its middle to ``point``."""
    middles = 0.5 * (family.starts + family.ends)
    towards = point[:2] - point[2] * middles  # the way to the point, scaled by its w (any sign)
    along = family.ends - family.starts
    cosine = np.abs((towards * along).sum(axis=1)) / (np.hypot(*towards.T) * np.hypot(*along.T) + 1e-12)
    return np.asarray(np.degrees(np.arccos(np.clip(cosine, 0.0, 1.0))), np.float64)


def _rectifying(first: FloatArray, second: FloatArray) -> FloatArray | None:
    """The homography (unit points -> rectified points) that sends both vanishing points to
    infinity, the ``second`` family's direction to x and the ``first`` one's to y, without a
    mirror; None when the line through them passes the board (no camera sees a board so)."""
    horizon = np.cross(first, second)
    if abs(horizon[2]) < np.hypot(horizon[0], horizon[1]):  # within an outline side of the centre
        return None
    to_parallel = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], horizon / horizon[2]])
    directions = []
    for point in (second, first):
        away = to_parallel @ point  # now a point at infinity: a direction
        directions.append(away[:2] / (np.hypot(away[0], away[1]) + 1e-12))
    axes = np.column_stack(directions)
    if abs(np.linalg.det(axes)) < 0.3:
        return None
    if np.linalg.det(axes) < 0:
        axes[:, 0] = -axes[:, 0]
    turn = np.eye(3)
    turn[:2, :2] = np.linalg.inv(axes)
    return np.asarray(turn @ to_parallel, np.float64)
