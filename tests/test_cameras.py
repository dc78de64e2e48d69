"""Venue cameras: a camera that disconnects and returns, garbage frames skipped, worker
processes that commit plays into the game, restart when they crash, and a server restart
that finds its cameras attached again (issue 7.2, 7.6)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask

from hardware.camera import Backoff, Frame, ResilientSource, Signal, SourceError, open_camera
from rules_core.classic import ClassicGame
from rules_core.lexicon import Lexicon
from webapp.app import create_app
from webapp.services.shared import services, start_cameras, stop_cameras

from .camera_frames import write_game

pytest_plugins = ["tests.conftest_web"]


def _image(value: int = 100, shape: tuple[int, int, int] = (48, 64, 3)) -> np.ndarray:
    return np.full(shape, value, np.uint8)


class _Camera:
    """A fake camera: each opening plays the next script (a list of images) or raises."""

    def __init__(self, scripts: list[list[Any] | Exception]) -> None:
        self.scripts = scripts
        self.opened = 0

    def __call__(self) -> _Camera:
        script = self.scripts[min(self.opened, len(self.scripts) - 1)]
        self.opened += 1
        if isinstance(script, Exception):
            raise script
        self.current = script
        return self

    def frames(self) -> Iterator[Frame]:
        for k, image in enumerate(self.current):
            yield Frame(image, k * 0.1, k)


def _resilient(camera: _Camera, **options: Any) -> tuple[ResilientSource, list[Signal], list[float]]:
    signals: list[Signal] = []
    sleeps: list[float] = []
    source = ResilientSource(camera, 10.0, live=True, on_signal=signals.append, sleep=sleeps.append,
                             backoff=Backoff(0.5, 1.5), **options)  # fmt: skip
    return source, signals, sleeps


def test_a_camera_that_disconnects_and_returns() -> None:
    down = SourceError("no se puede abrir la cámara '0'")
    camera = _Camera([[_image()] * 3, down, down, down, [_image()] * 2, [_image()] * 2])
    source, signals, sleeps = _resilient(camera)
    frames = []
    for frame in source.frames():
        frames.append(frame)
        if len(frames) == 7:
            break
    assert sleeps == [0.5, 1.0, 1.5, 1.5, 0.5]  # doubled, capped, reset once the camera is back
    assert [s.ok for s in signals] == [True, False, False, False, False, True, False, True]
    assert "dejado de enviar" in signals[1].reason and "no se puede abrir" in signals[2].reason
    assert signals[2].retry_in == 1.0
    assert [f.index for f in frames] == list(range(7))
    assert all(b.t > a.t for a, b in zip(frames, frames[1:]))  # time goes on across reconnections


def test_corrupt_frames_are_skipped_and_garbage_is_a_lost_signal() -> None:
    good = _image()
    camera = _Camera([[good, None, np.zeros((0, 0, 3), np.uint8), _image(shape=(48, 64)), good, _image(shape=(96, 64, 3)), good]])
    source, signals, _ = _resilient(camera)
    frames = list(_take(source.frames(), 3))
    assert len(frames) == 3 and all(f.image.shape == (48, 64, 3) for f in frames)
    assert source.rejected == 4
    assert [s.ok for s in signals] == [True]

    garbage = _Camera([[good] + [None] * 5, [good]])
    source, signals, sleeps = _resilient(garbage, bad_frames=3)
    assert len(list(_take(source.frames(), 2))) == 2
    assert not signals[1].ok and "imágenes no válidas: imagen ilegible" in signals[1].reason
    assert sleeps == [0.5] and signals[-1].ok


def test_a_corrupt_file_in_a_folder_of_frames_is_skipped(tmp_path: Path) -> None:
    import cv2

    for k in range(3):
        cv2.imwrite(str(tmp_path / f"f-{k}.png"), _image(60 * k + 20))
    (tmp_path / "f-1.png").write_bytes(b"\x89PNG cortado")
    signals: list[Signal] = []
    frames = list(open_camera(str(tmp_path), 10.0, on_signal=signals.append).frames())
    assert [Path(f.path or "").name for f in frames] == ["f-0.png", "f-2.png"]
    assert signals[-1].ended and "terminado" in signals[-1].reason


def _take(frames: Iterator[Frame], n: int) -> Iterator[Frame]:
    for k, frame in enumerate(frames):
        yield frame
        if k + 1 == n:
            return


# -- worker processes in the server ----------------------------------------------------------


@dataclass(frozen=True)
class _Config:
    name: str
    source: str
    fps: float = 10.0
    orientation: int | None = None
    node: bool = False
    table: int | None = 1


def _wait(condition: Callable[[], Any], timeout: float = 40.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def _venue_app(tmp_path: Path, lexicon: Lexicon) -> Flask:
    return create_app({"TESTING": True, "SECRET_KEY": "k", "DATABASE_URL": f"sqlite:///{tmp_path / 'veedor.db'}",
                       "INSTANCE_PATH": str(tmp_path / "instance"), "DATA_DIR": str(tmp_path / "data"),
                       "LEXICON": lexicon})  # fmt: skip


def _turns(app: Flask, game_id: str) -> list[str]:
    with services(app).games.reading(game_id) as game:
        assert isinstance(game, ClassicGame)
        return [t.notation for t in game.turns]


def test_a_worker_commits_a_play_and_a_restarted_server_finds_its_camera(tmp_path: Path, file2017: Lexicon) -> None:
    app = _venue_app(tmp_path, file2017)
    game_id = services(app).games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bruno"]))
    registry = services(app).cameras
    start_cameras(app, [_Config("mesa1", str(write_game(tmp_path / "partida")))], realtime=False, status_seconds=0.2)
    try:
        registry.attach("mesa1", game_id)
        _wait(lambda: _turns(app, game_id))
        assert _turns(app, game_id) == ["H8 CASA"]
        with services(app).games.reading(game_id) as game:
            assert game.events[-1].actor == "camera:mesa1"
        saved = list((tmp_path / "data" / "camera-frames" / "mesa1").glob("*.jpg"))
        assert len(saved) == 1  # the frame of the play, stored before it was reported
        state = _wait(lambda: (s := registry.state("mesa1"))["frames"] >= 12 and s)
        assert state["game"] == game_id and state["state"] == "estable"
    finally:
        stop_cameras(app)

    # the server restarts; the camera still looks at the board with H8 CASA on it
    again = _venue_app(tmp_path, file2017)
    start_cameras(again, [_Config("mesa1", str(write_game(tmp_path / "sigue", empty=0)))], realtime=False, status_seconds=0.2)
    try:
        restored = services(again).cameras
        assert restored.game_of("mesa1") == game_id
        assert services(again).camera_workers is not None and services(again).camera_workers.pid("mesa1")
        state = _wait(lambda: (s := restored.state("mesa1"))["frames"] >= 8 and s)
        assert state["state"] == "estable" and state["doubts"] == []
        assert _turns(again, game_id) == ["H8 CASA"]  # the worker took the game's board: no second play
    finally:
        stop_cameras(again)


def test_a_crashed_worker_is_restarted(tmp_path: Path, file2017: Lexicon) -> None:
    app = _venue_app(tmp_path, file2017)
    registry = services(app).cameras
    start_cameras(app, [_Config("mesa1", str(write_game(tmp_path / "f", empty=2, played=0)))],
                  realtime=False, status_seconds=0.2, restart=(0.3, 1.0))  # fmt: skip
    try:
        workers = services(app).camera_workers
        assert workers is not None
        _wait(lambda: registry.state("mesa1")["frames"] >= 2)
        first = workers.pid("mesa1")
        assert first is not None
        os.kill(first, signal.SIGKILL)
        down = _wait(lambda: "detenido" in (s := registry.state("mesa1"))["reason"] and s, 10)
        assert down["signal"] is False and down["label"] == "sin señal"
        back = _wait(lambda: workers.pid("mesa1") != first and "detenido" not in (s := registry.state("mesa1"))["reason"]
                     and s["frames"] >= 2 and s, 30)  # fmt: skip
        assert back["state"] != "" and back["kind"] == "local"
    finally:
        stop_cameras(app)


def test_calibrate_a_venue_camera(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    import cv2

    from webapp.cli import main

    write_game(tmp_path / "mesa")
    (tmp_path / "vacia").mkdir()
    for k in range(3):
        cv2.imwrite(str(tmp_path / "vacia" / f"f-{k}.png"), _image(90, (360, 640, 3)))
    venue = tmp_path / "sede.toml"
    venue.write_text('name = "Prueba"\ndata = "datos"\n[[cameras]]\nname = "mesa1"\nsource = "mesa"\n'
                     '[[cameras]]\nname = "mesa2"\nsource = "vacia"\n', encoding="utf-8")  # fmt: skip
    assert main(["calibrate", "--camera", "mesa1", "--venue", str(venue)]) == 0
    assert "fila A a 90 grados" in capsys.readouterr().out
    saved = json.loads((tmp_path / "datos" / "calibration" / "mesa1.json").read_text())
    assert saved["found"] and saved["turn"] == 1 and saved["frame_size"] == [1280, 720]
    preview = cv2.imread(str(tmp_path / "datos" / "calibration" / "mesa1.png"))
    assert preview.shape[0] == preview.shape[1] > 600  # the straightened board, square
    from hardware.camera_worker import CameraLoop, WorkerConfig
    from vision.board.tracker import BoardTracker

    tracker = BoardTracker("mesa1", Lexicon.from_words(["CASA"]))
    CameraLoop(WorkerConfig("mesa1", "mesa", str(tmp_path / "datos")), tracker, lambda m: None).load_calibration()
    assert tracker._upright is not None and tracker._turn == 1  # the worker starts from the calibration
    assert main(["calibrate", "--camera", "mesa2", "--venue", str(venue)]) == 1
    assert "no se encuentra el tablero" in capsys.readouterr().err
    assert main(["calibrate", "--camera", "mesa9", "--venue", str(venue)]) == 2


def test_a_camera_whose_squares_are_too_small_to_read_well_is_calibrated_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same board at 1280x720 (squares of 37 px) and at 640x360 (19 px, a camera far away or left at a small
    frame): both calibrate, and the second tells the arbiter the squares' size and what to do."""
    import json

    import cv2

    from webapp.cli import main

    (tmp_path / "lejos").mkdir()
    for path in sorted(write_game(tmp_path / "mesa").glob("*.jpg")):
        image = cv2.imread(str(path))
        cv2.imwrite(str(tmp_path / "lejos" / path.name), cv2.resize(image, (640, 360), interpolation=cv2.INTER_AREA))
    venue = tmp_path / "sede.toml"
    venue.write_text('name = "Prueba"\ndata = "datos"\n[[cameras]]\nname = "cerca"\nsource = "mesa"\n'
                     '[[cameras]]\nname = "lejos"\nsource = "lejos"\n', encoding="utf-8")  # fmt: skip
    for camera, pitch in (("cerca", 37.0), ("lejos", 18.5)):
        assert main(["calibrate", "--camera", camera, "--venue", str(venue)]) == 0
        saved = json.loads((tmp_path / "datos" / "calibration" / f"{camera}.json").read_text())
        assert saved["pitch"] == pytest.approx(pitch, abs=1.0)
        told = capsys.readouterr().err
        assert bool(saved["warning"]) == (camera == "lejos") == ("las casillas miden 19 px" in told)


def test_a_board_older_than_the_cameras_last_play_is_ignored(tmp_path: Path, small_lexicon: Lexicon) -> None:
    from hardware.camera_worker import CameraLoop, WorkerConfig
    from rules_core.board import Board
    from vision.board.tracker import BoardTracker, Report

    from .camera_frames import CASA

    tracker = BoardTracker("mesa1", small_lexicon)
    sent: list[dict[str, Any]] = []
    loop = CameraLoop(WorkerConfig("mesa1", "x", str(tmp_path)), tracker, sent.append)
    casa = Board()
    for square, tile in CASA.items():
        casa[square] = tile
    tracker.sync(casa)  # as if the tracker had just committed H8 CASA
    loop._send_report(Report("play", "mesa1", 1.0, 3, "H8 CASA: 12 puntos", notation="H8 CASA", id=7), Frame(_image(), 1.0, 3))
    [message] = sent
    assert Path(message["report"]["frame_path"]).is_file()  # the frame is stored before the report goes
    empty = {"type": "sync", "cgp": "/".join(["15"] * 15), "last": []}
    loop.commands([{**empty, "report": ""}])  # sent by the server before it applied the play
    assert tracker.board == casa
    loop.commands([{**empty, "report": message["id"]}])  # after it (the arbiter undid the play): followed
    assert tracker.board == Board()
