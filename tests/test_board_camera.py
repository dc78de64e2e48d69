"""Frame sources: a folder of frames replays in natural order at its rate; bad sources are named."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import FolderSource, SourceError, VideoFileSource, open_source


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
