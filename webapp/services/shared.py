"""The services one web app shares, and the one typed way to reach them.

``create_app`` builds a ``Services`` once and keeps it in ``app.extensions["veedor"]``;
views, commands and the demo reach it through ``services(app)`` (default: the current
app), never by importing the app. The functions below start and stop what runs
beside the requests: the slip scanners' threads and the local cameras' processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from flask import Flask, current_app

from hardware.camera_worker import WorkerConfig
from vision.isolation import DEFAULT as DECODE_BUDGET

from .accounts import Accounts
from .camera_workers import CameraWorkers
from .cameras import CameraConfigLike, CameraRegistry
from .live import LiveGames, StreamSlots
from .login_throttle import LoginThrottle
from .scanning import POLL_SECONDS, ScannerSpec, ScanService
from .stored_files import StoredFiles

EXTENSION = "veedor"  # the key of ``Services`` in ``app.extensions``


@dataclass
class Services:
    """What the views share: the live games, the accounts, the stream cap, the slip scanners, the cameras,
    and the rule of which files the server may name and hand out (``stored_files``)."""

    games: LiveGames
    accounts: Accounts
    streams: StreamSlots
    throttle: LoginThrottle
    scans: ScanService = field(default_factory=ScanService)  # attached on first use (``scan_service``)
    cameras: CameraRegistry = field(default_factory=CameraRegistry)
    camera_workers: CameraWorkers | None = None  # the local cameras' processes, once started
    files: StoredFiles = field(default_factory=StoredFiles)  # none until ``create_app`` names the data folder


def services(app: Flask | None = None) -> Services:
    """The services of ``app`` (default: the current app)."""
    return cast(Services, (app or current_app).extensions[EXTENSION])


def scan_service(app: Flask | None = None) -> ScanService:
    """The app's ScanService, attached to its games and data folder on first use."""
    app = app or current_app
    found = services(app)
    if found.scans.games is None:
        root = app.config.get("SCANS_PATH") or Path(app.config.get("DATA_DIR") or app.instance_path) / "papeletas"
        seconds = float(app.config.get("SCAN_DECODE_SECONDS", DECODE_BUDGET.seconds))
        found.scans.budget = replace(DECODE_BUDGET, seconds=seconds)
        found.scans.attach(found.games, Path(root))
    return found.scans


def start_scanners(app: Flask, scanners: Sequence[ScannerSpec]) -> None:
    """Watch each scanner's folder from a background thread, into the current duplicate game."""
    scan_service(app).start(scanners, float(app.config.get("SCAN_POLL_SECONDS", POLL_SECONDS)))


def stop_scanners(app: Flask) -> None:
    """Stop the scanners' threads (what they stored is kept; a restart reads the rest)."""
    scan_service(app).stop()


def start_cameras(app: Flask, cameras: Sequence[CameraConfigLike], **options: Any) -> None:
    """Register the venue's cameras and start a worker process for each local one.

    ``options`` go to each ``WorkerConfig`` (``realtime``, ``status_seconds``...), but
    ``restart`` (first and longest back-off, seconds) goes to ``CameraWorkers``.
    """
    found = services(app)
    registry = found.cameras
    data_dir = registry.data_dir or Path(app.instance_path)
    restart = options.pop("restart", (1.0, 30.0))
    workers = found.camera_workers or CameraWorkers(registry, found.games.lexicon, restart=restart)
    found.camera_workers = workers
    for camera in cameras:
        registry.add(camera.name, kind="node" if camera.node else "local", source=camera.source, fps=camera.fps, table=camera.table)
        if not camera.node:
            turn = None if camera.orientation is None else (camera.orientation // 90) % 4
            workers.start(WorkerConfig(camera.name, camera.source, str(data_dir), fps=camera.fps, turn=turn, **options))


def stop_cameras(app: Flask) -> None:
    """Stop every camera worker of the app (the server is stopping)."""
    found = services(app)
    if found.camera_workers is not None:
        found.camera_workers.stop()
        found.camera_workers = None
