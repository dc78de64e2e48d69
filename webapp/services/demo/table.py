"""The demo table: a rendered game, seen by a simulated camera, through the real pipeline.

``run_demo_table(service, game_id)`` renders a game of ``plays`` plays (best play
of each rack, moves from the move generator), feeds every frame to a
``BoardTracker`` and its ``CameraDesk``, so each play reaches the classic game
(and whatever shows it, such as the projection screen) exactly as a real
camera's would. With ``realtime`` the frames come at their own pace (10 a
second); ``on_frame`` sees each frame and the desk (for a live view).

With ``send`` the table behaves as a venue camera instead: its messages (status,
previews, reports with their frames under ``data_dir``; ``hardware.camera_worker``)
go to ``send`` (the server's ``CameraRegistry``), which records the plays, and the
server's commands come back through ``receive``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hardware.camera import Signal
from rules_core.lexicon import Lexicon
from vision.board.synthetic import render as R
from vision.board.desk import CameraDesk, Games
from vision.board.synthetic.scenes import game_frames, solitaire_steps
from vision.board.tracker import BoardTracker, TrackerSettings
from vision.frames import Frame

DEMO_CAMERA = "mesa-demo"


def create_demo_game(service: Games, lexicon: Lexicon, players: tuple[str, str] = ("Ana", "Bruno")) -> str:
    """A new classic game for the demo table (``service`` is a ``GameService``)."""
    from rules_core.classic import ClassicGame

    create = getattr(service, "create")
    return str(create("classic", "Mesa 1 (demostración)", ClassicGame.create_event(list(players), lexicon=lexicon.name)))


def run_demo_table(
    service: Games,
    game_id: str,
    lexicon: Lexicon,
    *,
    plays: int = 8,
    seed: int = 1,
    realtime: bool = False,
    on_frame: Callable[[Frame, CameraDesk], None] | None = None,
    send: Callable[[dict[str, Any]], None] | None = None,
    receive: Callable[[], list[dict[str, Any]]] | None = None,
    data_dir: Path | None = None,
    camera: str = DEMO_CAMERA,
) -> CameraDesk:
    """Play a rendered game into ``game_id`` through tracker and desk; returns the desk."""
    from hardware.camera_worker import CameraLoop, WorkerConfig

    tracker = BoardTracker(camera, lexicon, TrackerSettings())
    desk = CameraDesk(tracker, service, game_id)
    loop = None
    if send is not None:
        config = WorkerConfig(camera, "demo", str(data_dir or Path(".")), fps=10.0)
        loop = CameraLoop(config, tracker, send)
        loop.on_signal(Signal(True))
    else:
        tracker.on_report = desk.handle
    steps = [("place", placed) for _, placed in solitaire_steps(lexicon, plays, seed=seed)]
    rng = np.random.default_rng(seed)
    scene = R.random_scene(rng, R.empty_labels(), hands=0, width=1280, height=720)
    start = time.monotonic()
    for frame, _ in game_frames(steps, scene):
        if realtime:
            delay = frame.t - (time.monotonic() - start)
            if delay > 0:
                time.sleep(delay)
        if loop is not None:
            loop.commands(receive() if receive else [])
            loop.process(frame)
        else:
            tracker.feed(frame)
        if on_frame:
            on_frame(frame, desk)
    return desk
