"""Finding slips on a scan and rectifying them to the slip frame, at any rotation.

Printed slips: the four ArUco markers (``layout.MARKERS``) name their corners, so
the homography ``slip_from_image`` (image pixels x, y -> slip mm x, y) follows from
matched corners whatever the rotation, mirror excepted; a page with several slips
gives one ``Registration`` each (markers grouped around each id-0 marker: the guess from its own corners,
refitted once on the markers it groups, so that a far marker the first guess put too far off joins). Plain
slips an organiser already has: ``PlainTemplate`` holds one blank slip scanned
once, the fields the arbiter marked on it (template pixels), and registers every
scan to it by ORB features (rotation invariant) and a RANSAC homography. Nothing found is a value (an empty list, None), not an exception.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from . import layout

DETECT_SIDE: Final = 2000  # px: markers are searched on an image at most this large (``detect_markers``)
OVERSAMPLED: Final = 1.5  # an image holding a slip at more than this times the straightened slip's px/mm is shrunk

@dataclass(frozen=True)
class Registration:
    """A slip found on a scan: ``slip_from_image`` maps image (x, y) px to slip (x, y) mm."""

    slip_from_image: np.ndarray  # (3, 3) float64
    markers: tuple[int, ...]  # the marker ids that were used
    error_mm: float  # RMS reprojection error of the marker corners

    def rectify(self, image: np.ndarray, px_per_mm: float = layout.PX_PER_MM) -> np.ndarray:
        """The slip cut out and straightened: (SLIP_H, SLIP_W) mm at ``px_per_mm`` (from a phone's photo, after
        ``sampled_for``)."""
        scale = np.diag([px_per_mm, px_per_mm, 1.0])
        size = (int(round(layout.SLIP_W * px_per_mm)), int(round(layout.SLIP_H * px_per_mm)))
        return cv2.warpPerspective(image, scale @ self.slip_from_image, size, flags=cv2.INTER_AREA,
                                   borderMode=cv2.BORDER_REPLICATE)  # fmt: skip

    def outline(self) -> np.ndarray:
        """The slip's corners in image pixels (4, 2), clockwise from its top-left."""
        corners = np.array([[0, 0], [layout.SLIP_W, 0], [layout.SLIP_W, layout.SLIP_H], [0, layout.SLIP_H]], np.float64)
        image_from_slip = np.linalg.inv(self.slip_from_image)
        return cv2.perspectiveTransform(corners[None], image_from_slip)[0]


def sampled_for(image: np.ndarray, slip_from_image: np.ndarray,
                px_per_mm: float = layout.PX_PER_MM) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The image to straighten a slip from, and its homography (image px -> slip mm): an image holding the slip at
    more than ``OVERSAMPLED`` times ``px_per_mm`` (a phone's photo) shrunk by area to that, so that straightening
    averages its pixels (a perspective warp samples them: the photo's noise and its finest strokes would alias);
    any other as it is."""
    centre = np.array([[[layout.SLIP_W / 2, layout.SLIP_H / 2]]])
    image_from_slip = np.linalg.inv(slip_from_image)
    ends = cv2.perspectiveTransform(np.concatenate([centre, centre + [[[1.0, 0.0]]], centre + [[[0.0, 1.0]]]], 1),
                                    image_from_slip)[0]  # fmt: skip
    (ax, ay), (bx, by) = ends[1] - ends[0], ends[2] - ends[0]
    seen = float(np.sqrt(abs(ax * by - ay * bx)))  # image px per slip mm, there
    factor = OVERSAMPLED * px_per_mm / max(seen, 1e-9)
    if factor >= 1.0:
        return image, slip_from_image
    small = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    return small, slip_from_image @ np.diag([1.0 / factor, 1.0 / factor, 1.0])


def _detector() -> cv2.aruco.ArucoDetector:
    dictionary = cv2.aruco.getPredefinedDictionary(layout.MARKER_DICT)
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(dictionary, parameters)


def detect_markers(gray: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Every slip marker on the image: (id, corners (4, 2) image px, clockwise from the marker's top-left).
    An image larger than ``DETECT_SIDE`` (a phone's photo) is searched at that size: a marker is still some
    hundred pixels wide there, and the search takes a fraction of the time."""
    scale = min(1.0, DETECT_SIDE / max(gray.shape))
    small = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    corners, ids, _ = _detector().detectMarkers(small)
    if ids is None:
        return []
    return [(int(i), c.reshape(4, 2).astype(np.float64) / scale) for i, c in zip(ids.ravel(), corners)
            if int(i) in layout.MARKERS]  # fmt: skip


def _grouped(markers: list[tuple[int, np.ndarray]], used: set[int], group: dict[int, int],
             guess: np.ndarray) -> dict[int, int]:  # fmt: skip
    """``group`` (marker id -> index in ``markers``) with every unused marker that ``guess`` (image px -> slip mm)
    puts within a fifth of the slip's width of where its id is printed."""
    mm = layout.marker_corners_mm()
    group = dict(group)
    for j, (mid, corners) in enumerate(markers):
        if j in used or mid in group:
            continue
        centre = cv2.perspectiveTransform(corners.mean(axis=0)[None, None], guess)[0, 0]
        if np.linalg.norm(centre - mm[mid].mean(axis=0)) < 0.2 * layout.SLIP_W:
            group[mid] = j
    return group


def _fitted(markers: list[tuple[int, np.ndarray]], group: dict[int, int]) -> tuple[np.ndarray | None, float]:
    """The homography (image px -> slip mm) that the corners of ``group``'s markers fit best, and the RMS
    distance (mm) of its corners from where they are printed; (None, inf) when none fits."""
    mm = layout.marker_corners_mm()
    source = np.concatenate([markers[j][1] for j in group.values()])
    target = np.concatenate([mm[mid] for mid in group])
    homography, _ = cv2.findHomography(source, target, 0)
    if homography is None:
        return None, float("inf")
    projected = cv2.perspectiveTransform(source[None], homography)[0]
    return homography, float(np.sqrt(np.mean(np.sum((projected - target) ** 2, axis=1))))


def find_slips(gray: np.ndarray, max_error_mm: float = 1.5) -> list[Registration]:
    """Every printed slip on a grey scan, top to bottom (empty when none is found)."""
    markers = detect_markers(gray)
    mm = layout.marker_corners_mm()
    used: set[int] = set()
    found: list[Registration] = []
    anchors = [i for i, (mid, _) in enumerate(markers) if mid == 0] + [i for i, (mid, _) in enumerate(markers) if mid != 0]
    for a in anchors:
        if a in used:
            continue
        anchor_id, anchor = markers[a]
        group = _grouped(markers, used, {anchor_id: a}, cv2.getPerspectiveTransform(anchor.astype(np.float32),
                                                                                     mm[anchor_id]))  # fmt: skip
        if len(group) < 2:
            continue
        homography, error = _fitted(markers, group)
        if homography is not None and len(group) < len(layout.MARKERS):  # a far marker the first guess missed
            group = _grouped(markers, used, group, homography)
            homography, error = _fitted(markers, group)
        if homography is None or error > max_error_mm:
            continue
        used.update(group.values())
        found.append(Registration(homography, tuple(sorted(group)), error))
    return sorted(found, key=lambda r: tuple(r.outline().mean(axis=0)[::-1]))


@dataclass
class PlainTemplate:
    """A plain (unmarked) slip: its blank scan and the fields marked on it, in template pixels.

    ``fields`` maps a field name (``ronda``, ``mesa``, ``nombre``, ``coordenada``,
    ``palabra``) to (x0, y0, x1, y1) pixels of ``image``.
    """

    image: np.ndarray  # grey uint8, the blank slip as scanned
    fields: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / "template.png"), self.image)
        (folder / "fields.json").write_text(json.dumps({k: list(v) for k, v in self.fields.items()}, indent=1))

    @classmethod
    def load(cls, folder: Path) -> PlainTemplate:
        image = cv2.imread(str(folder / "template.png"), cv2.IMREAD_GRAYSCALE)
        if image is None:
            raise ValueError(f"{folder}: falta template.png (la papeleta en blanco escaneada)")
        fields = json.loads((folder / "fields.json").read_text())
        return cls(image, {k: (int(v[0]), int(v[1]), int(v[2]), int(v[3])) for k, v in fields.items()})

    def register(self, gray: np.ndarray, min_inliers: int = 25) -> np.ndarray | None:
        """``template_from_image`` (3, 3), image px -> template px, or None when the slip is not found."""
        orb = cv2.ORB_create(3000)
        scale = 1000.0 / max(self.image.shape)
        small_t = cv2.resize(self.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        kt, dt = orb.detectAndCompute(small_t, None)
        scale_i = 1000.0 / max(gray.shape)
        small_i = cv2.resize(gray, None, fx=scale_i, fy=scale_i, interpolation=cv2.INTER_AREA)
        ki, di = orb.detectAndCompute(small_i, None)
        if dt is None or di is None or len(kt) < 8 or len(ki) < 8:
            return None
        matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(di, dt)
        if len(matches) < min_inliers:
            return None
        src = np.float64([ki[m.queryIdx].pt for m in matches]) / scale_i
        dst = np.float64([kt[m.trainIdx].pt for m in matches]) / scale
        homography, inliers = cv2.findHomography(src, dst, cv2.RANSAC, 4.0 / scale)
        if homography is None or int(inliers.sum()) < min_inliers:
            return None
        return homography

    def rectify(self, gray: np.ndarray, template_from_image: np.ndarray) -> np.ndarray:
        """The scan warped onto the template's pixels."""
        h, w = self.image.shape[:2]
        return cv2.warpPerspective(gray, template_from_image, (w, h), flags=cv2.INTER_AREA,
                                   borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
