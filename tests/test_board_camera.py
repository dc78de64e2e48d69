"""Frame sources: a folder of frames replays in natural order at its rate; bad sources are named; a USB camera is
asked for the frame size the board reader is measured at."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import (
    DeviceSource,
    FolderSource,
    SourceError,
    VideoFileSource,
    open_source,
)


def test_a_folder_replays_in_natural_order(tmp_path: Path) -> None:
    for n in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame-{n}.png"), np.full((20, 30, 3), n, np.uint8))
    (tmp_path / "notas.txt").write_text("no es una imagen", encoding="utf-8")
    frames = list(FolderSource(tmp_path, fps=5).frames())
    assert [Path(f.path or "").name for f in frames] == ["frame-1.png", "frame-2.png", "frame-10.png"]
    assert [f.t for f in frames] == [0.0, 0.2, 0.4]
    assert frames[2].image.shape == (20, 30, 3) and int(frames[2].image[0, 0, 0]) == 10


def test_a_video_file_replays(tmp_path: Path) -> None:
    path = tmp_path / "mesa.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    for k in range(5):
        writer.write(np.full((48, 64, 3), 40 * k, np.uint8))
    writer.release()
    frames = list(open_source(str(path)).frames())
    assert isinstance(open_source(str(path)), VideoFileSource)
    assert len(frames) == 5 and frames[1].t == pytest.approx(0.1)


def test_bad_sources_are_named(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no-hay"):
        open_source(str(tmp_path / "no-hay"))


class _Capture:
    """A fake ``cv2.VideoCapture`` of a UVC camera: opened at 640x480, as OpenCV opens most USB cameras, taking
    any size it is asked for up to 1920x1080; two frames at the size it holds."""

    def __init__(self, target: int | str) -> None:
        self.target, self.size, self.frames = target, [640, 480], 2

    def isOpened(self) -> bool:
        return True

    def set(self, prop: int, value: float) -> bool:
        axis = {cv2.CAP_PROP_FRAME_WIDTH: 0, cv2.CAP_PROP_FRAME_HEIGHT: 1}[prop]
        self.size[axis] = min(int(value), (1920, 1080)[axis])
        return True

    def get(self, prop: int) -> float:
        return float(self.size[{cv2.CAP_PROP_FRAME_WIDTH: 0, cv2.CAP_PROP_FRAME_HEIGHT: 1}[prop]])

    def read(self) -> tuple[bool, np.ndarray | None]:
        self.frames -= 1
        return (True, np.zeros((self.size[1], self.size[0], 3), np.uint8)) if self.frames >= 0 else (False, None)

    def release(self) -> None:
        pass


@pytest.mark.parametrize(("spec", "expected"), [("0", (1920, 1080)), ("rtsp://192.168.1.21:554/stream1", (640, 480))])
def test_a_usb_camera_is_asked_for_the_frame_size_the_reader_is_measured_at(
    monkeypatch: pytest.MonkeyPatch, spec: str, expected: tuple[int, int]
) -> None:
    """A USB camera left at OpenCV's 640x480 gives the board reader squares of 16-28 px, where it misreads
    one letter in seventeen: it is asked for 1920x1080. A stream sends the size its camera is set to."""
    monkeypatch.setattr(cv2, "VideoCapture", _Capture)
    source = open_source(spec)
    frames = list(source.frames())
    assert isinstance(source, DeviceSource) and source.delivered == expected
    assert [f.image.shape[:2] for f in frames] == [expected[::-1]] * 2
