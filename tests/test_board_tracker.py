"""The tracker on a rendered game with hands: plays committed once the hands leave, a blank
named by the lexicon, a phony confirmed by the arbiter and then taken back after a challenge."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hardware.camera import Frame
from rules_core.alphabet import as_blank, tile_from_label
from rules_core.lexicon import Lexicon
from vision.board.synthetic import render as R
from vision.board.synthetic.scenes import game_frames
from vision.board.tracker import BoardTracker, Report, TrackerSettings

from .camera_frames import board_image


def _tiles(spec: str) -> dict[tuple[int, int], int]:
    """``"H8 C, H9 A"`` -> {(7, 7): C, (7, 8): A}; ``?`` is a blank (letter unknown to the camera)."""
    out = {}
    for part in spec.split(","):
        square, letter = part.split()
        row, col = "ABCDEFGHIJKLMNO".index(square[0]), int(square[1:]) - 1
        out[(row, col)] = as_blank(tile_from_label("S")) if letter == "?" else tile_from_label(letter)
    return out


@pytest.fixture(scope="module")
def scene() -> R.Scene:
    rng = np.random.default_rng(5)
    base = R.random_scene(rng, R.empty_labels(), hands=0, width=1280, height=720)
    camera = R.Camera(1280, 720, (640, 360), 560, 93.0, 0.04, 200.0, 40.0)
    return replace(base, camera=camera, lighting=R.Lighting(gain=0.95, noise=2.0, blur=0.6, jpeg=85),
                   tiles=replace(R.TileStyle(), font=R.available_fonts(R.TRAIN_FONTS)[0]))


def test_game_with_hands_blank_and_challenge(scene: R.Scene, small_lexicon: Lexicon) -> None:
    steps = [
        ("place", _tiles("H8 C, H9 A, H10 S, H11 A")),
        ("place", _tiles("H12 ?")),
        ("place", _tiles("I8 L, J8 E")),  # CLE: not a word
        ("lift", _tiles("I8 L, J8 E")),  # challenged and taken back
    ]
    tracker = BoardTracker("mesa-1", small_lexicon, TrackerSettings())
    reports: list[Report] = []
    left_at: dict[int, float] = {}
    shown_wrong = []
    for frame, truth in game_frames(steps, scene, hold=1.2, travel=0.3):
        if truth.left is not None:
            left_at[truth.left] = frame.t
        for report in tracker.feed(frame):
            reports.append(report)
            if report.kind == "doubt" and report.reason == "illegal":
                tracker.accept_proposal()  # the arbiter confirms what is on the board
            if report.kind == "play" and report.notation not in ("H8 CASA", "H8 CASAs"):
                shown_wrong.append(report)
    kinds = [(r.kind, r.notation) for r in reports if r.kind in ("play", "doubt", "withdrawn")]
    assert not shown_wrong, kinds
    assert kinds == [("play", "H8 CASA"), ("play", "H8 CASAs"), ("doubt", "8H CLE"), ("withdrawn", "8H CLE")], kinds
    plays = [r for r in reports if r.kind == "play"]
    for step, report in zip((0, 1), plays):
        assert report.t - left_at[step] <= 1.0, (step, report.t, left_at[step])
    assert tracker.status.cgp == "15/15/15/15/15/15/15/7CASAs3/15/15/15/15/15/15/15"


def test_a_bumped_camera_finds_the_board_again(scene: R.Scene, small_lexicon: Lexicon) -> None:
    from hardware.camera import Frame
    from vision.board.geometry import image_corners

    tracker = BoardTracker("mesa-1", small_lexicon, TrackerSettings(turn=1))
    cells = R.empty_labels()
    before = R.render(replace(scene, cells=cells))
    bumped_camera = replace(scene.camera, centre=(700.0, 380.0), rotation=99.0)
    after = R.render(replace(scene, cells=cells, camera=bumped_camera))
    frames = [before.image] * 4 + [after.image] * 8
    for k, image in enumerate(frames):
        tracker.feed(Frame(image, k / 10, k))
    assert tracker.status.board_found
    assert tracker._upright is not None
    corners = image_corners(tracker._upright)
    truth = image_corners(after.image_from_board)
    assert min(np.abs(np.roll(corners, k, axis=0) - truth).max() for k in range(4)) < 0.2 * 560 / 15


def test_a_board_found_with_squares_too_small_to_read_well_is_reported_with_a_warning(
    scene: R.Scene, small_lexicon: Lexicon
) -> None:
    """Squares of 37 px: "tablero localizado"; the same frame at half size (19 px, ``cells.MIN_READ_PITCH`` is 28):
    the arbiter is told the size and what to do, since letters are misread there (about one in ten)."""
    import cv2

    image = R.render(replace(scene, cells=R.empty_labels())).image
    for frame, warned in ((image, False), (cv2.resize(image, (640, 360), interpolation=cv2.INTER_AREA), True)):
        tracker = BoardTracker("mesa-1", small_lexicon, TrackerSettings(turn=1))
        reports = [r for k in range(3) for r in tracker.feed(Frame(frame, k / 10, k))]
        [found] = [r for r in reports if r.kind == "board_found"]
        assert ("las casillas miden 19 px" in found.message) == warned, found.message


def test_a_two_letter_first_play_tells_row_a_to_a_camera_that_does_not_know_it(file2017: Lexicon) -> None:
    """No calibration, no orientation, the board turned a quarter: two letters cannot show which
    way is up by themselves, but only one turn reads them as a legal first play."""
    empty = board_image({}, jpeg=90)
    played = board_image({(7, 7): tile_from_label("E"), (7, 8): tile_from_label("S")}, jpeg=90)
    tracker = BoardTracker("mesa-1", file2017)
    reports = []
    for k, image in enumerate([empty] * 4 + [played] * 6):
        reports += tracker.feed(Frame(image, k * 0.2, k))
    assert [r.notation for r in reports if r.kind == "play"] == ["H8 ES"]
    assert not [r for r in reports if r.reason == "orientation"]
    assert tracker.status.turn is not None


def test_a_still_view_without_a_board_is_not_searched_again_until_it_moves(
    small_lexicon: Lexicon, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search of a frame without a board costs seconds of a core: the same still view is not
    searched again, a view that moved is, and the still one again after ``research_seconds``."""
    from vision.board import tracker as tracker_module
    from vision.board.find import not_found

    searched: list[float] = []

    def search(image: np.ndarray) -> object:
        searched.append(float(image.mean()))
        return not_found("sin tablero")

    monkeypatch.setattr(tracker_module, "find_board", search)
    table = np.random.default_rng(1).integers(0, 255, (180, 320, 3), dtype=np.uint8)
    moved = np.roll(table, 40, axis=1)
    tracker = BoardTracker("mesa-1", small_lexicon, TrackerSettings(research_seconds=30.0))
    for k in range(6):
        tracker.feed(Frame(table, k * 0.2, k))
    assert len(searched) == 1
    for k in range(6, 12):
        tracker.feed(Frame(moved, k * 0.2, k))
    assert len(searched) == 2
    tracker.feed(Frame(moved, 40.0, 12))
    assert len(searched) == 3
    assert not tracker.status.board_found


class _DoubtfulSquare:
    """The committed classifier, but the tile on ``square`` read as ``read`` at 0.45 beside
    ``truth`` at 0.3 (a tile font the classifier never saw)."""

    def __init__(self, square: tuple[int, int], read: str, truth: str) -> None:
        from vision.board.classify import default_classifier

        self.inner, self.index, self.read, self.truth = default_classifier(), square[0] * 15 + square[1], read, truth

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        from vision.board.labels import CLASSES, INDEX, is_tile

        out = self.inner.probabilities(crops)
        if len(out) == 225 and is_tile(CLASSES[int(out[self.index].argmax())]):
            out[self.index] = 0.25 / (len(CLASSES) - 2)
            out[self.index, INDEX[self.read]], out[self.index, INDEX[self.truth]] = 0.45, 0.3
        return out


@pytest.mark.parametrize("look_alike, proposed", [("A", "H8 CASA"), ("X", None)])
def test_an_unsure_tile_is_a_doubt_whose_proposal_makes_the_words(
    scene: R.Scene, small_lexicon: Lexicon, look_alike: str, proposed: str | None
) -> None:
    """H9's A read as O (COSA is no word of the lexicon), unsure: a doubt, never a play. Where a
    look-alike of the O makes a legal play (the A), the arbiter is asked to confirm that play and
    confirming records it; where none does (X: CXSA), the tiles as read, with no play."""
    classifier = _DoubtfulSquare((7, 8), "O", look_alike)
    tracker = BoardTracker("mesa-1", small_lexicon, TrackerSettings(turn=1), classifier=classifier)  # type: ignore[arg-type]
    reports = [r for frame, _ in game_frames([("place", _tiles("H8 C, H9 A, H10 S, H11 A"))], scene, hold=1.5)
               for r in tracker.feed(frame) if r.kind in ("play", "doubt")]
    assert [(r.kind, r.reason) for r in reports] == [("doubt", "unsure")]
    assert reports[0].notation == proposed
    assert dict(reports[0].tiles)[(7, 8)] == ("A" if proposed else "O")
    play = tracker.accept_proposal()
    if proposed:
        assert play is not None and play.notation() == "H8 CASA"
        assert tracker.status.cgp == "15/15/15/15/15/15/15/7CASA4/15/15/15/15/15/15/15"
