"""A venue file: loaded with its paths relative to it, every problem listed; ``veedor check-venue``."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from sqlalchemy import create_engine, text

from hardware.venue import VenueError, VenueFileError, load_venue
from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.lexicon import Lexicon
from tests.conftest import FILE2017, REPO
from vision.board.synthetic import render as R
from webapp.cli import main
from webapp.services.accounts import Accounts
from webapp.services.games import GameService
from webapp.services.store import EventStore

pytest_plugins = ["tests.postgres"]

EXAMPLE = REPO / "hardware" / "venue.example.toml"


def write(folder: Path, text: str, name: str = "sede.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def render_board() -> np.ndarray:
    """A rendered 640x480 camera frame of a board with some tiles on it."""
    rng = np.random.default_rng(11)
    scene = R.random_scene(rng, R.random_cells(rng, 0.2), hands=0, width=640, height=480)
    scene = replace(scene, camera=R.Camera(640, 480, (320, 240), 300, 17.0, 0.05, 30.0), lighting=R.Lighting())
    return R.render(scene).image


@pytest.fixture(scope="module")
def board_frame() -> np.ndarray:
    return render_board()


# --- the file ------------------------------------------------------------------------


def test_the_example_venue_loads_with_its_tables_linked_to_cameras(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # paths are relative to the file, not to where veedor runs
    venue = load_venue(EXAMPLE)
    folder = EXAMPLE.parent
    assert venue.name == "Open de Madrid 2026"
    assert venue.data_dir == folder / "veedor-venue"
    assert venue.database_url == f"sqlite:///{folder / 'veedor-venue' / 'veedor.db'}"
    assert (venue.host, venue.port) == ("0.0.0.0", 8080)
    assert [(t.number, t.camera) for t in venue.tables] == [(1, "mesa1"), (2, "mesa2"), (3, None)]
    assert venue.camera("mesa1").table == 1 and venue.camera("mesa1").orientation == 90
    assert venue.camera("mesa2").node and venue.camera("mesa2").source.startswith("rtsp://")
    assert venue.scanners[0].folder == folder / "escaneos"
    assert [s.shows for s in venue.screens] == ["table:1", "rotate:1,2,3", "duplicate"]
    with pytest.raises(VenueError, match="ninguna cámara llamada 'mesa9'"):
        venue.camera("mesa9")


def test_paths_are_relative_to_the_venue_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "sala"
    (folder / "lexico.txt").parent.mkdir(parents=True)
    (folder / "lexico.txt").write_text("CASA\nCASAS\n", encoding="utf-8")
    path = write(folder, """
name = "Sala"
database = "sqlite:///datos/base.db"
data = "datos"
lexicon = "lexico.txt"
[[cameras]]
name = "m1"
source = "grabaciones/mesa1"
[[cameras]]
name = "m2"
source = 2
fps = 2.5
[[scanners]]
name = "e1"
folder = "../escaneos"
""")
    monkeypatch.chdir(tmp_path)
    venue = load_venue(Path("sala") / "sede.toml")
    assert venue.path == path
    assert venue.database_url == f"sqlite:///{folder / 'datos' / 'base.db'}"
    assert venue.data_dir == folder / "datos" and venue.lexicon == str(folder / "lexico.txt")
    assert venue.camera("m1").source == str(folder / "grabaciones" / "mesa1")
    assert venue.camera("m2").source == "2" and venue.camera("m2").fps == 2.5  # a USB index as written
    assert venue.scanners[0].folder == tmp_path / "escaneos"


def test_a_minimal_venue_has_defaults(tmp_path: Path) -> None:
    venue = load_venue(write(tmp_path, 'name = "Club"\n'))
    assert venue.data_dir == tmp_path / "veedor-venue"
    assert venue.database_url == f"sqlite:///{tmp_path / 'veedor-venue' / 'veedor.db'}"
    assert venue.lexicon is None and (venue.host, venue.port) == ("0.0.0.0", 8080)
    assert venue.cameras == venue.scanners == venue.screens == venue.tables == ()


def test_a_postgresql_url_is_kept_as_written(tmp_path: Path) -> None:
    url = "postgresql+psycopg://veedor:clave@192.168.1.10:5432/veedor"
    assert load_venue(write(tmp_path, f'name = "Club"\ndatabase = "{url}"\n')).database_url == url


BAD = """
nombre = "sin querer"
database = "mysql://jefe:secreta@servidor/base"
lexicon = "no-existe.txt"
[server]
port = 70000
puerto = 1
[[tables]]
number = 1
camera = "fantasma"
[[tables]]
number = 1
[[tables]]
number = 2
camera = "m1"
[[tables]]
number = 3
camera = "m1"
[[cameras]]
source = "0"
fps = 45
[[cameras]]
name = "Mesa 1"
source = "1"
orientation = 45
[[cameras]]
name = "m1"
source = "2"
node = "sí"
[[cameras]]
name = "m1"
source = "3"
fps = 0
[[scanners]]
folder = "escaneos"
[[scanners]]
name = "e2"
[[screens]]
name = "p1"
shows = "table:9"
[[screens]]
name = "p1"
shows = "rotate:1,x"
[[screens]]
name = "p2"
shows = "todo"
"""

EXPECTED = [
    "la sede: clave desconocida 'nombre'",
    "la sede: falta 'name'",
    "[server]: clave desconocida 'puerto'",
    "[server]: 'port' debe ser un número entero entre 1 y 65535, no 70000",
    "cámara 1: falta 'name'",
    "cámara 1: 'fps' debe estar entre 0 (sin incluir) y 30, no 45",
    "cámara 2 (Mesa 1): el nombre solo puede tener minúsculas",
    "cámara 2 (Mesa 1): 'orientation' debe ser 0, 90, 180 o 270 grados, no 45",
    "cámara 3 (m1): 'node' debe ser true o false, no 'sí'",
    "cámara 4 (m1): 'fps' debe estar entre 0 (sin incluir) y 30, no 0",
    "escáner 1: falta 'name'",
    "escáner 2 (e2): falta 'folder'",
    "hay más de una cámara llamada 'm1'",
    "hay más de una pantalla llamada 'p1'",
    "la mesa 1 aparece más de una vez",
    "mesa 1: la cámara 'fantasma' no existe",
    "mesa 3: la cámara 'm1' ya filma la mesa 2",
    "pantalla p1: muestra la mesa 9, que no está en [[tables]]",
    "pantalla p1: 'x' no es un número de mesa",
    "pantalla p2: 'shows' debe ser table:N, game:ID, duplicate o rotate:N,M,…, no 'todo'",
    "la sede: la base de datos 'mysql://jefe:***@servidor/base' no es una URL admitida",
    "la sede: no se puede leer el léxico",
]


def test_every_problem_is_listed_once_on_its_own_line(tmp_path: Path) -> None:
    with pytest.raises(VenueError) as caught:
        load_venue(write(tmp_path, BAD))
    problems = caught.value.problems
    assert str(caught.value).splitlines() == problems
    for expected in EXPECTED:
        assert sum(p.startswith(expected) for p in problems) == 1, (expected, problems)
    assert len(problems) == len(EXPECTED)
    assert "secreta" not in str(caught.value)  # a password is never printed


@pytest.mark.parametrize(
    ("database", "reason"),
    [("sqlite://", "en memoria"), ("sqlite:///:memory:", "en memoria"), ("veedor.db", "no es una URL admitida")],
)
def test_databases_a_venue_cannot_use(tmp_path: Path, database: str, reason: str) -> None:
    with pytest.raises(VenueError, match=reason):
        load_venue(write(tmp_path, f'name = "Club"\ndatabase = "{database}"\n'))


def test_an_unreadable_or_malformed_file_is_a_file_error(tmp_path: Path) -> None:
    with pytest.raises(VenueFileError, match="no se puede leer el archivo de sede"):
        load_venue(tmp_path / "no-existe.toml")
    with pytest.raises(VenueFileError, match="no es TOML válido"):
        load_venue(write(tmp_path, 'name = "sin cerrar\n'))


# --- check-venue ---------------------------------------------------------------------


@pytest.fixture
def hall(tmp_path: Path, board_frame: np.ndarray) -> Iterator[Path]:
    """A venue whose every device works: a camera replaying board frames, a scanner folder, SQLite."""
    frames = tmp_path / "mesa1"
    frames.mkdir()
    for i in range(3):
        cv2.imwrite(str(frames / f"frame-{i}.png"), board_frame)
    (tmp_path / "escaneos").mkdir()
    yield write(tmp_path, f"""
name = "Sala de pruebas"
database = "sqlite:///datos/veedor.db"
data = "datos"
[server]
host = "127.0.0.1"
port = {free_port()}
[[tables]]
number = 1
camera = "mesa1"
[[cameras]]
name = "mesa1"
source = "mesa1"
orientation = 0
[[cameras]]
name = "remota"
source = "rtsp://192.0.2.1/stream"
node = true
[[scanners]]
name = "escaner1"
folder = "escaneos"
""")


def check(path: Path, capsys: pytest.CaptureFixture[str] | None, *extra: str) -> tuple[int, list[str]]:
    """``veedor check-venue`` run as the real command (in process with ``capsys``, else its own)."""
    argv = ["check-venue", str(path), "--timeout", "5", *extra]
    if capsys is None:
        done = subprocess.run([sys.executable, "-m", "webapp.cli", *argv], cwd=REPO, capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout.splitlines()
    status = main(argv)
    return status, capsys.readouterr().out.splitlines()


def test_check_venue_says_ok_for_every_working_device(hall: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = check(hall, capsys)
    assert status == 0, lines
    ok = [line for line in lines if line.startswith("ok ")]
    for device in ("cámara mesa1: imagen de 640x480", "cámara remota: la lee otra máquina", "escáner escaner1",
                   "carpeta de datos", "base de datos", "léxico", "servidor"):  # fmt: skip
        assert any(device in line for line in ok), (device, lines)
    assert not any(line.startswith(("PROBLEMA", "aviso")) for line in lines), lines
    assert lines[-1] == "0 problema(s), 0 aviso(s)"
    assert not (hall.parent / "datos").exists()  # checking creates nothing


def test_check_venue_reports_each_faulty_device(hall: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = hall.parent
    for path in (folder / "mesa1").iterdir():
        cv2.imwrite(str(path), np.full((480, 640, 3), 40, np.uint8))  # a covered lens: one flat colour
    (folder / "escaneos").rmdir()
    (folder / "escaneos").write_text("no es una carpeta")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        text = hall.read_text(encoding="utf-8")
        text = text.replace("port = ", f"port = {busy.getsockname()[1]}\n# ").replace(
            "sqlite:///datos/veedor.db", f"postgresql+psycopg://veedor@/veedor?host={folder}&port=1")
        hall.write_text(text, encoding="utf-8")
        status, lines = check(hall, capsys)
    assert status == 1
    problems = [line for line in lines if line.startswith("PROBLEMA")]
    assert any("cámara mesa1: la imagen es de un solo color" in line for line in problems), lines
    assert any("escáner escaner1: no existe la carpeta" in line for line in problems), lines
    assert any("base de datos: no se puede conectar con postgresql+psycopg://veedor@/veedor" in line for line in problems)
    assert any("servidor: no se puede escuchar en 127.0.0.1" in line for line in problems), lines
    assert len(problems) == 4, lines
    assert any(line.startswith("ok ") and "léxico" in line for line in lines)


def test_a_camera_without_a_board_in_view_is_a_warning(hall: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    table = (rng.normal(0, 12, (480, 640, 3)) + np.array([60, 90, 130])).clip(0, 255).astype(np.uint8)
    for path in (hall.parent / "mesa1").iterdir():
        cv2.imwrite(str(path), table)
    status, lines = check(hall, capsys)
    assert status == 0, lines
    assert any(line.startswith("ok ") and "cámara mesa1" in line for line in lines)
    assert any(line.startswith("aviso") and "cámara mesa1: no se ve el tablero" in line for line in lines), lines


def test_a_camera_with_no_orientation_is_a_warning_until_calibrated(hall: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hall.write_text(hall.read_text(encoding="utf-8").replace("orientation = 0\n", ""), encoding="utf-8")
    status, lines = check(hall, capsys)
    assert status == 0 and any(line.startswith("aviso") and "calibrate --camera mesa1" in line for line in lines), lines
    calibrations = hall.parent / "datos" / "calibration"
    calibrations.mkdir(parents=True)
    (calibrations / "mesa1.json").write_text(json.dumps(
        {"camera": "mesa1", "found": True, "image_from_board": np.eye(3).tolist(), "turn": 0}), encoding="utf-8")
    status, lines = check(hall, capsys)
    assert not any("calibrate --camera" in line for line in lines), lines


def test_a_missing_camera_is_reported_without_waiting_forever(hall: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = hall.read_text(encoding="utf-8").replace('source = "mesa1"', 'source = "no-existe"')
    hall.write_text(text, encoding="utf-8")
    status, lines = check(hall, capsys)
    assert status == 1
    assert any(line.startswith("PROBLEMA") and "cámara mesa1: sin señal de" in line for line in lines), lines


def _fake_scanimage(folder: Path, listing: str) -> None:
    """A ``scanimage`` that lists ``listing``, as SANE's does for a connected scanner."""
    folder.mkdir()
    program = folder / "scanimage"
    (folder / "listing.txt").write_text(listing + "\n", encoding="utf-8")
    program.write_text(f"#!/bin/sh\n[ \"$1\" = -L ] && cat '{folder / 'listing.txt'}'\n", encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IEXEC)


@pytest.mark.parametrize(
    ("installed", "listing", "expected"),
    [
        (False, "", "PROBLEMA escáner escaner1: pide el escáner SANE 'fujitsu:fi-7160' pero falta scanimage"),
        (True, "device `fujitsu:fi-7160' is a FUJITSU fi-7160 scanner", "ok       escáner escaner1: scanimage encuentra"),
        (True, "device `epson2:libusb:001:004' is a Epson scanner", "PROBLEMA escáner escaner1: scanimage -L no encuentra"),
    ],
)
def test_a_sane_scanner_is_looked_up_with_scanimage(
    hall: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    installed: bool, listing: str, expected: str,
) -> None:  # fmt: skip
    hall.write_text(hall.read_text(encoding="utf-8") + 'scanimage = "fujitsu:fi-7160"\n', encoding="utf-8")
    bin_folder = hall.parent / "bin"
    if installed:
        _fake_scanimage(bin_folder, listing)
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}/usr/bin{os.pathsep}/bin")
    if not installed:
        assert not any((Path(p) / "scanimage").exists() for p in ("/usr/bin", "/bin")), "scanimage is installed here"
    status, lines = check(hall, capsys)
    assert any(line.startswith(expected) for line in lines), lines
    assert status == (0 if expected.startswith("ok") else 1)


def test_check_venue_exit_status_for_a_bad_or_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = check(write(tmp_path, BAD), capsys)
    assert status == 1
    assert len(lines) == len(EXPECTED) and all(line.startswith("PROBLEMA configuración: ") for line in lines)
    assert main(["check-venue", str(tmp_path / "no-existe.toml")]) == 2
    assert "no se puede leer el archivo de sede" in capsys.readouterr().err


# --- veedor serve --venue ------------------------------------------------------------


class Served:
    """``veedor serve --venue FILE`` run as the real command, in its own process."""

    def __init__(self, venue: Path, *extra: str) -> None:
        command = [sys.executable, "-m", "webapp.cli", "serve", "--venue", str(venue), *extra]
        self.process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        deadline = time.monotonic() + 60
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            if line.startswith("Veedor en "):
                self.base = line.split()[2].rstrip("/")
                return
        self.process.kill()
        raise AssertionError(f"the server did not start: {self.lines} {self.process.stderr.read() if self.process.stderr else ''}")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=10) as response:
            return json.load(response)

    def post(self, path: str, body: dict[str, Any], token: str) -> Any:
        request = urllib.request.Request(self.base + path, json.dumps(body).encode(), method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {token}"})  # fmt: skip
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def stop(self) -> tuple[int, str]:
        """SIGTERM, as a service manager stops it; the exit status and what it said on stderr."""
        self.process.send_signal(signal.SIGTERM)
        _out, err = self.process.communicate(timeout=30)
        return self.process.returncode, err


def a_game_with_a_device(url: str, lexicon: Lexicon) -> tuple[str, str]:
    """A duplicate game in round 1 (rack AEMNNOQ, Ana at table 1) and a device token, stored at ``url``."""
    store = EventStore(url)
    games = GameService(store, lexicon)
    game_id = games.create_duplicate("Open de la sede", DuplicateSettings(bonuses=True), actor="arbitro")
    games.append(game_id, Event("player_added", {"player": "j1", "name": "Ana", "table": 1}))
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    token = Accounts(store.engine).add_device("escaner-sala", "scanner")
    store.engine.dispose()
    return game_id, token


def test_serve_a_venue_uses_its_data_folder_database_and_port(tmp_path: Path, file2017: Lexicon) -> None:
    port = free_port()
    path = write(tmp_path / "sala", f"""
name = "Sala"
data = "datos"
lexicon = "{FILE2017}"
[server]
host = "127.0.0.1"
port = {port}
""")
    database = f"sqlite:///{tmp_path / 'sala' / 'datos' / 'veedor.db'}"
    (tmp_path / "sala" / "datos").mkdir()
    game_id, token = a_game_with_a_device(database, file2017)
    server = Served(path)
    try:
        assert server.base == f"http://127.0.0.1:{port}"
        assert [g["id"] for g in server.get("/api/games")] == [game_id]
        answer = server.post(f"/api/games/{game_id}/slips", {"table": 1, "notation": "H4 AMONEN"}, token)
        assert answer["result"]["score"] > 0
    finally:
        status, err = server.stop()
    assert status == 0, err
    assert "Traceback" not in err
    assert GameService(EventStore(database), file2017).duplicate(game_id).round(1).slips["j1"].notation == "H4 AMONEN"
    assert (tmp_path / "sala" / "datos" / "secret_key").exists()


def test_serve_refuses_a_venue_with_problems(tmp_path: Path) -> None:
    path = write(tmp_path, 'name = "Sala"\n[[tables]]\nnumber = 1\ncamera = "fantasma"\n')
    done = subprocess.run([sys.executable, "-m", "webapp.cli", "serve", "--venue", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2
    assert "la cámara 'fantasma' no existe" in done.stderr and not (tmp_path / "veedor-venue").exists()


def test_a_venue_on_postgresql_serves_and_stores_its_events_there(
    tmp_path: Path, postgres_url: str, file2017: Lexicon
) -> None:
    # as the README says: one database for the venue on the PostgreSQL server
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text("DROP DATABASE IF EXISTS veedor_sede"))
        connection.execute(text("CREATE DATABASE veedor_sede"))
    admin.dispose()
    url = postgres_url.replace("/postgres?", "/veedor_sede?")
    game_id, token = a_game_with_a_device(url, file2017)
    path = write(tmp_path, f"""
name = "Sala en red"
database = "{url}"
lexicon = "{FILE2017}"
[server]
host = "127.0.0.1"
port = {free_port()}
""")
    status, lines = check(path, capsys=None)
    assert status == 0 and any(line.startswith("ok ") and "base de datos: conectada" in line for line in lines)
    server = Served(path)
    try:
        answer = server.post(f"/api/games/{game_id}/slips", {"table": 1, "notation": "H4 AMONEN"}, token)
        assert answer["ok"] and answer["result"]["score"] > 0
    finally:
        status, err = server.stop()
    assert status == 0, err
    stored = GameService(EventStore(url), file2017).duplicate(game_id).round(1)
    assert stored.slips["j1"].notation == "H4 AMONEN" and stored.results["j1"].score == answer["result"]["score"]
    assert not (tmp_path / "veedor-venue" / "veedor.db").exists()  # nothing went to SQLite
