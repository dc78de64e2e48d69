"""A venue's devices misbehaving (issue 7.6): a scan still being written, a full scan archive,
a network camera that sends a corrupt frame or drops and comes back, a server restarted
with its cameras connected.

The scanner faults run through the server's own path (``veedor serve --venue``'s app,
``start_scanners``); the camera faults through ``veedor check-venue``; the restart through
the real ``veedor serve --venue`` process. The camera sources and workers themselves are
tested in ``test_cameras.py``.
"""

from __future__ import annotations

import argparse
import errno
import io
import json
import logging
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from PIL import Image
from sqlalchemy import insert

import vision.slips.ingest as ingest
from hardware.venue import Venue
from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.lexicon import Lexicon
from vision.slips.ingest import Ingestor, Page, StorageError
from webapp.cli import main
from webapp.cli.serve import add_serve_commands, load_serve_venue, serve_app
from webapp.services.accounts import arbiters
from webapp.services.games import GameService
from webapp.services.scanning import SETTLE_SECONDS
from webapp.services.shared import scan_service, services, start_scanners, stop_scanners
from webapp.services.store import EventStore
from webapp.views.auth import SESSION_ID

from .conftest import FILE2017
from .test_venue import Served, render_board

POLL = 0.1  # seconds between polls of a watched folder in these tests


def wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def png(gray: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".png", gray)
    assert ok
    return data.tobytes()


def blank_page(seed: int) -> np.ndarray:
    """A page with no slip on it: read, then flagged for the arbiter ("ninguna papeleta")."""
    page = np.full((600, 800), 240, np.uint8)
    cv2.putText(page, f"hoja {seed}", (40, 80), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 30, 3)
    return page


def noise_page(seed: int, shape: tuple[int, int] = (500, 500)) -> np.ndarray:
    """A page PNG cannot compress: its stored copy needs about ``h*w`` bytes."""
    return np.random.default_rng(seed).integers(0, 255, shape, dtype=np.uint8)


def journal(root: Path) -> list[dict[str, Any]]:
    path = root / "journal.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]  # every line whole


def reads(root: Path) -> list[str]:
    return [r["page"] for r in journal(root) if r["kind"] == "read"]


def age(path: Path, seconds: float) -> None:
    """Make ``path`` look last written ``seconds`` ago (the scanner finished then)."""
    then = time.time() - seconds
    os.utime(path, (then, then))


# --- a scan still being written ------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, page: Page, gray: np.ndarray) -> list[dict[str, Any]]:
        self.calls.append(page.sha)
        return [{"status": "read"}]


@pytest.mark.parametrize("kind", ["png", "jpg", "pdf"])
def test_a_file_being_written_waits_until_it_ends_then_is_read_once(tmp_path: Path, kind: str) -> None:
    data = _encoded(kind, blank_page(1))
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    reader = Recorder()
    ingestor = Ingestor(inbox, tmp_path / "archivo", reader, SETTLE_SECONDS)
    scan = inbox / f"papeleta.{kind}"
    for cut in (0, 1, len(data) // 3, len(data) - 2):  # the scanner writes on and on
        scan.write_bytes(data[:cut])
        assert ingestor.poll() == [] and reader.calls == []
        assert scan.read_bytes() == data[:cut] and ingestor.refused == []
    scan.write_bytes(data)  # the end written: taken at once, not after the settling time
    assert len(ingestor.poll()) == 1 and len(reader.calls) == 1
    assert not scan.exists() and ingestor.poll() == [] and len(reader.calls) == 1
    assert len(reads(tmp_path / "archivo")) == 1


def test_a_file_with_no_visible_end_is_taken_once_the_scanner_leaves_it(tmp_path: Path) -> None:
    out = io.BytesIO()
    Image.fromarray(blank_page(2)).save(out, format="TIFF")
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    reader = Recorder()
    ingestor = Ingestor(inbox, tmp_path / "archivo", reader, SETTLE_SECONDS)
    scan = inbox / "lote.tif"
    scan.write_bytes(out.getvalue())
    assert ingestor.poll() == [] and scan.exists()  # a TIFF may still grow by a page
    age(scan, SETTLE_SECONDS)
    assert len(ingestor.poll()) == 1 and len(reader.calls) == 1 and not scan.exists()


def test_a_scan_cut_short_for_good_is_refused_and_kept_once_the_scanner_leaves_it(tmp_path: Path) -> None:
    data = _encoded("jpg", blank_page(3))
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    ingestor = Ingestor(inbox, tmp_path / "archivo", Recorder(), SETTLE_SECONDS)
    scan = inbox / "cortada.jpg"
    scan.write_bytes(data[: len(data) // 2])
    assert ingestor.poll() == [] and ingestor.refused == []
    age(scan, SETTLE_SECONDS)
    assert ingestor.poll() == []
    assert ingestor.refused and "cortada.jpg" in ingestor.refused[0]["reason"]
    assert (tmp_path / "archivo" / "refused" / "cortada.jpg").read_bytes() == data[: len(data) // 2]


def _encoded(kind: str, gray: np.ndarray) -> bytes:
    if kind == "png":
        return png(gray)
    out = io.BytesIO()
    Image.fromarray(gray).save(out, format={"jpg": "JPEG", "pdf": "PDF"}[kind])
    return out.getvalue()


def venue_app(tmp_path: Path, data: Path) -> tuple[Flask, Venue]:
    """The app ``veedor serve --venue`` builds for a venue with one scanner, its archive in ``data``,
    and a duplicate game in play (where scanned slips go)."""
    (tmp_path / "escaneos").mkdir()
    path = tmp_path / "sede.toml"
    path.write_text(f"""
name = "Sala"
data = "{data}"
database = "sqlite:///{tmp_path / 'veedor.db'}"
[[scanners]]
name = "escaner1"
folder = "escaneos"
""", encoding="utf-8")  # fmt: skip
    parser = argparse.ArgumentParser()
    add_serve_commands(parser.add_subparsers(required=True))
    args = parser.parse_args(["serve", "--venue", str(path), "--port", "0"])
    assert load_serve_venue(args)
    app = serve_app(args)
    app.config["SCAN_POLL_SECONDS"] = POLL
    games = services(app).games
    game_id = games.create_duplicate("Open de la sala", DuplicateSettings(), actor="arbitro")
    games.append(game_id, Event("player_added", {"player": "j1", "name": "Ana", "table": 1}))
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    scan_service(app).choose(game_id, "arbitro")  # plain slips go where the arbiter says
    return app, args.venue_config


def test_the_server_reads_a_scan_being_written_once_when_it_is_whole(tmp_path: Path) -> None:
    app, venue = venue_app(tmp_path, tmp_path / "datos")
    archive = venue.data_dir / "papeletas" / "escaneres" / "escaner1"
    data = png(blank_page(4))
    scan = venue.scanners[0].folder / "mesa1.png"
    start_scanners(app, venue.scanners)
    try:
        scan.write_bytes(data[: len(data) // 2])
        time.sleep(10 * POLL)  # several polls see the half file
        assert scan.read_bytes() == data[: len(data) // 2]
        assert reads(archive) == [] and not list((archive / "refused").iterdir())
        with open(scan, "ab") as handle:
            handle.write(data[len(data) // 2 :])
        wait_for(lambda: len(reads(archive)) == 1)
        time.sleep(5 * POLL)
    finally:
        stop_scanners(app)
    assert len(reads(archive)) == 1 and not scan.exists()
    assert not list((archive / "refused").iterdir())
    (item,) = services(app).scans.queue.pending()  # the page reached the arbiter once
    assert "ninguna papeleta" in item.note


# --- a full disk under the scan archive ------------------------------------------------


class SmallDisk:
    """A 16 MB tmpfs (mounted when this runs as root; room for the word list's copy, ``lexicons``), else a
    folder whose writes by the ingestor fail with ENOSPC while ``full``: the same error a full disk gives."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.folder = folder
        folder.mkdir()
        try:
            command = ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)]
            self.mounted = subprocess.run(command, capture_output=True).returncode == 0
        except OSError:
            self.mounted = False
        self.filler = folder / "relleno"
        self.full = False
        if not self.mounted:
            monkeypatch.setattr(ingest, "open", self._open, raising=False)
            monkeypatch.setattr(ingest.shutil, "copyfile", self._copyfile)

    def fill(self) -> None:
        """Leave 16 KB free: a small journal line fits, a scanned page does not."""
        self.full = True
        if self.mounted:
            stats = os.statvfs(self.folder)
            self.filler.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize - 16 * 1024))

    def free(self) -> None:
        self.full = False
        self.filler.unlink(missing_ok=True)

    def unmount(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.folder)], check=True)

    def _open(self, file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = open(file, mode, *args, **kwargs)
        if self.full and any(m in mode for m in "wa") and Path(file).is_relative_to(self.folder):
            handle.close()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(file))
        return handle

    def _copyfile(self, source: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
        if self.full and Path(target).is_relative_to(self.folder):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))
        return _real_copyfile(source, target, *args, **kwargs)


_real_copyfile = ingest.shutil.copyfile


@pytest.fixture
def small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SmallDisk]:
    disk = SmallDisk(tmp_path / "disco", monkeypatch)
    try:
        yield disk
    finally:
        disk.unmount()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_full_archive_refuses_the_scan_with_a_clear_error_and_loses_nothing(
    tmp_path: Path, small_disk: SmallDisk
) -> None:
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    archive = small_disk.folder / "archivo"
    reader = Recorder()
    ingestor = Ingestor(inbox, archive, reader, SETTLE_SECONDS)
    (inbox / "primera.png").write_bytes(png(blank_page(5)))
    assert len(ingestor.poll()) == 1
    before = snapshot(archive)
    small_disk.fill()
    second = png(noise_page(6))
    (inbox / "segunda.png").write_bytes(second)
    with pytest.raises(StorageError) as refused:
        ingestor.poll()
    message = str(refused.value)
    assert refused.value.errno == errno.ENOSPC
    assert "segunda.png: no se puede guardar en el archivo de escaneos" in message
    assert "sigue en la bandeja y se reintentará" in message
    assert (inbox / "segunda.png").read_bytes() == second  # left to retry
    assert snapshot(archive) == before  # nothing stored is touched, no half page, no half journal line
    small_disk.free()
    assert len(ingestor.poll()) == 1 and len(reader.calls) == 2
    assert not (inbox / "segunda.png").exists() and len(reads(archive)) == 2
    restarted = Recorder()
    assert Ingestor(inbox, archive, restarted, SETTLE_SECONDS).poll() == [] and restarted.calls == []


def arbiter_console(app: Flask) -> str:
    """The arbiter console's main page, as a logged-in arbiter sees it."""
    accounts = services(app).accounts
    if not accounts.arbiter_exists("arbitro"):
        with accounts.engine.begin() as connection:
            connection.execute(insert(arbiters).values(login="arbitro", password_hash="-",
                                                       created_at=datetime.now(timezone.utc)))  # fmt: skip
    client = app.test_client()
    with client.session_transaction() as session:
        session["arbiter"] = "arbitro"
        session[SESSION_ID] = accounts.open_session("arbitro")
    return client.get("/arbiter/").get_data(as_text=True)


def test_the_server_keeps_a_scan_that_does_not_fit_and_reads_it_once_there_is_room(
    tmp_path: Path, small_disk: SmallDisk, caplog: pytest.LogCaptureFixture
) -> None:
    app, venue = venue_app(tmp_path, small_disk.folder)
    archive = venue.data_dir / "papeletas" / "escaneres" / "escaner1"
    inbox = venue.scanners[0].folder
    start_scanners(app, venue.scanners)
    try:
        (inbox / "primera.png").write_bytes(png(blank_page(7)))
        wait_for(lambda: len(reads(archive)) == 1)
        before = snapshot(archive)
        small_disk.fill()
        second = png(noise_page(8))
        with caplog.at_level(logging.ERROR, logger="webapp.services.scanning"):
            (inbox / "segunda.png").write_bytes(second)
            wait_for(lambda: "no se puede guardar en el archivo de escaneos" in caplog.text)
        assert "segunda.png" in caplog.text and "se reintentará" in caplog.text
        wait_for(lambda: bool(services(app).scans.problems()))
        alert = services(app).scans.problems()[0]
        assert alert.scanner == "escaner1" and "no se puede guardar en el archivo de escaneos" in alert.message
        console = arbiter_console(app)  # the arbiter sees it, not only the log
        assert "Escáneres sin leer" in console and "escáner escaner1" in console
        assert "segunda.png: no se puede guardar en el archivo de escaneos" in console
        assert (inbox / "segunda.png").read_bytes() == second
        assert snapshot(archive) == before
        small_disk.free()
        wait_for(lambda: len(reads(archive)) == 2)
        time.sleep(5 * POLL)
        assert services(app).scans.problems() == [] and "Escáneres sin leer" not in arbiter_console(app)
    finally:
        stop_scanners(app)
    assert len(reads(archive)) == 2 and not (inbox / "segunda.png").exists()
    assert len(services(app).scans.queue.pending()) == 2


# --- cameras, through check-venue --------------------------------------------------------


class NetworkCamera:
    """An MJPEG camera on HTTP (as IP cameras serve it): ``frames`` in order, the last one repeated;
    a client that reconnects gets the frames the camera is at now."""

    def __init__(self, frames: list[bytes], port: int = 0) -> None:
        self.frames = frames
        self.sent = 0
        camera = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                try:
                    for _ in range(600):
                        if camera.stopping.is_set():
                            return
                        part = camera.frames[min(camera.sent, len(camera.frames) - 1)]
                        camera.sent += 1
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(part))
                        self.wfile.write(part + b"\r\n")
                        time.sleep(0.05)
                except OSError:
                    return

            def log_message(self, *args: Any) -> None:
                pass

        self.stopping = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/video.mjpg"

    def unplug(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


def jpeg(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes()


@pytest.fixture(scope="module")
def board_jpeg() -> bytes:
    return jpeg(render_board())


def camera_venue(folder: Path, source: str, orientation: int | None = 0) -> Path:
    path = folder / "sede.toml"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path.write_text(f"""
name = "Sala"
data = "datos"
[server]
host = "127.0.0.1"
port = {port}
[[tables]]
number = 1
camera = "mesa1"
[[cameras]]
name = "mesa1"
source = "{source}"
{f"orientation = {orientation}" if orientation is not None else ""}
""", encoding="utf-8")  # fmt: skip
    return path


def check_camera_line(path: Path, capsys: pytest.CaptureFixture[str], timeout: float = 8) -> tuple[int, list[str]]:
    status = main(["check-venue", str(path), "--timeout", str(timeout)])
    return status, [line for line in capsys.readouterr().out.splitlines() if "cámara mesa1" in line]


def test_a_network_camera_that_drops_and_comes_back(tmp_path: Path, board_jpeg: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    camera = NetworkCamera([board_jpeg])
    path = camera_venue(tmp_path, camera.url)
    status, lines = check_camera_line(path, capsys)
    assert status == 0 and lines and lines[0].startswith("ok ") and "imagen de 640x480" in lines[0], lines
    assert not any(line.startswith("aviso") for line in lines), lines  # the board is seen
    camera.unplug()
    status, lines = check_camera_line(path, capsys, timeout=3)
    assert status == 1 and lines == [f"PROBLEMA cámara mesa1: sin señal de '{camera.url}': " + lines[0].split("': ", 1)[1]]
    again = NetworkCamera([board_jpeg], port=camera.port)  # plugged in again, same address
    try:
        status, lines = check_camera_line(path, capsys)
    finally:
        again.unplug()
    assert status == 0 and lines[0].startswith("ok "), lines


def test_a_corrupt_frame_is_skipped_and_a_camera_sending_only_garbage_is_reported(
    tmp_path: Path, board_jpeg: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = np.random.default_rng(9).integers(0, 255, 5000, dtype=np.uint8).tobytes()
    camera = NetworkCamera([garbage, board_jpeg[: len(board_jpeg) // 3], board_jpeg])
    try:
        status, lines = check_camera_line(camera_venue(tmp_path, camera.url), capsys)
    finally:
        camera.unplug()
    assert status == 0 and lines[0].startswith("ok ") and "640x480" in lines[0], lines
    broken = NetworkCamera([garbage])
    try:
        status, lines = check_camera_line(camera_venue(tmp_path, broken.url), capsys, timeout=3)
    finally:
        broken.unplug()
    assert status == 1 and lines[0].startswith("PROBLEMA cámara mesa1: sin señal de"), lines
    black = NetworkCamera([jpeg(np.zeros((480, 640, 3), np.uint8))])
    try:
        status, lines = check_camera_line(camera_venue(tmp_path, black.url), capsys)
    finally:
        black.unplug()
    assert status == 1 and lines == ["PROBLEMA cámara mesa1: la imagen es de un solo color: ¿cámara tapada, apagada o sin señal?"]


# --- a server restart with its cameras connected ----------------------------------------------


def _children(pid: int) -> list[int]:
    """The processes started by ``pid`` (its camera workers), from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _screen(server: Served, game_id: str) -> dict[str, Any]:
    message: dict[str, Any] = server.get(f"/api/games/{game_id}")
    return message


def _plays(message: dict[str, Any]) -> list[str]:
    return [turn["text"] for turn in message["state"]["last_plays"] if turn["kind"] == "play"]


def test_a_server_restarted_with_its_cameras_connected_carries_on(tmp_path: Path, file2017: Lexicon) -> None:
    from tests.camera_frames import _shots

    empty, played = _shots()
    camera = NetworkCamera([empty] * 60 + [played])  # 3 s of an empty board, then H8 CASA for good
    (tmp_path / "datos").mkdir()
    store = EventStore(f"sqlite:///{tmp_path / 'datos' / 'veedor.db'}")
    game_id = GameService(store, file2017).create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bruno"]))
    store.engine.dispose()
    # the arbiter attached the camera to the game at the table (kept by the camera service)
    (tmp_path / "datos" / "cameras.json").write_text(json.dumps({"attachments": {"mesa1": game_id}}), encoding="utf-8")
    venue = camera_venue(tmp_path, camera.url, orientation=None)  # row A found from the letters, as before
    text = venue.read_text(encoding="utf-8").replace('data = "datos"', f'data = "datos"\nlexicon = "{FILE2017}"')
    venue.write_text(text, encoding="utf-8")
    try:
        server = Served(venue)
        try:
            wait_for(lambda: _plays(_screen(server, game_id)) == ["H8 CASA"], 90)
            assert _screen(server, game_id)["camera"]["signal"] is True
            workers = _children(server.process.pid)
            assert workers, "no camera worker process"
        finally:
            status, err = server.stop()  # SIGTERM with the camera streaming
        assert status == 0, err
        wait_for(lambda: not any(_running(pid) for pid in workers), 10)  # no worker left behind

        again = Served(venue)  # the camera never stopped: it still shows H8 CASA
        try:
            wait_for(lambda: (_screen(again, game_id)["camera"] or {}).get("signal") is True, 90)
            time.sleep(3.0)  # stable frames of the same board: nothing new to record
            message = _screen(again, game_id)
            assert _plays(message) == ["H8 CASA"] and message["camera"]["camera"] == "mesa1"
        finally:
            status, err = again.stop()
        assert status == 0, err
    finally:
        camera.unplug()
