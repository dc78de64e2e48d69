"""Only files the server stored travel, and the database is never opened as a plain file (issue 67).

A camera token posted ``"frame": "<data>/secret_key"`` (or ``veedor.db``): accepted, and the
evidence zip then held the session key and the whole database. Reading the database as a
plain file also dropped the server's SQLite locks (Linux drops a process's POSIX locks on a
file when it closes any descriptor of it), so that another process deleted the WAL and
later acknowledged writes were lost. Each test below is one way in.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from hardware.venue import VenueError, load_venue
from rules_core.classic import ClassicGame
from rules_core.events import Event
from webapp.cli import main
from webapp.services.shared import services

from .conftest import FILE2017
from .web_helpers import duplicate_game, event_count

pytest_plugins = ["tests.conftest_web"]

JPEG = bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffd9")  # a JPEG's first and last bytes


def classic(app: Flask) -> str:
    return services(app).games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bruno"]))


def camera_token(app: Flask) -> dict[str, str]:
    return {"Authorization": f"Bearer {services(app).accounts.add_device('camara-1', 'camera')}"}


def server_files(app: Flask, tmp_path: Path) -> dict[str, Path]:
    """The files no event may name: the database and its companions, the session key, and links to them."""
    key = Path(app.instance_path) / "secret_key"
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text("clave")
    frames = Path(app.instance_path) / "camera-frames" / "mesa1"
    frames.mkdir(parents=True, exist_ok=True)
    (frames / "enlace.jpg").symlink_to(tmp_path / "veedor.db")
    os.link(tmp_path / "veedor.db", frames / "copia.jpg")  # a hard link: the same file under another name
    return {"db": tmp_path / "veedor.db", "wal": tmp_path / "veedor.db-wal", "shm": tmp_path / "veedor.db-shm",
            "key": key, "symlink": frames / "enlace.jpg", "hardlink": frames / "copia.jpg",
            "up": frames / ".." / ".." / "secret_key", "relative": Path("../veedor.db")}  # fmt: skip


def test_an_event_naming_a_file_the_server_did_not_store_is_a_400(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    game_id = classic(app)
    services(app).cameras.add("mesa1", kind="node")
    services(app).cameras.attach("mesa1", game_id)
    headers = camera_token(app)
    services(app).games.store.games()  # the database in use: its -wal and -shm exist
    for what, path in server_files(app, tmp_path).items():
        answer = client.post(f"/api/games/{game_id}/events", json={"kind": "pass", "data": {"player": 0, "frame": str(path)}},
                             headers=headers)  # fmt: skip
        assert answer.status_code == 400 and "'frame'" in answer.json["error"], what
    for odd in (None, 7, "", "x" * 2000, "/etc/passwd"):
        answer = client.post(f"/api/games/{game_id}/events", json={"kind": "pass", "data": {"player": 0, "frame": odd}},
                             headers=headers)  # fmt: skip
        assert answer.status_code == 400 and "'frame'" in answer.json["error"], odd
    assert event_count(app, game_id) == 1


def test_a_frame_the_server_stored_for_the_games_camera_is_accepted(app: Flask, client: FlaskClient) -> None:
    game_id, other = classic(app), classic(app)
    registry = services(app).cameras
    for name, game in (("mesa1", game_id), ("mesa2", other)):
        registry.add(name, kind="node")
        registry.attach(name, game)
        folder = Path(app.instance_path) / "camera-frames" / name
        folder.mkdir(parents=True)
        (folder / "node-1.jpg").write_bytes(JPEG)
    headers = camera_token(app)
    mine = str(Path(app.instance_path) / "camera-frames" / "mesa1" / "node-1.jpg")
    theirs = str(Path(app.instance_path) / "camera-frames" / "mesa2" / "node-1.jpg")
    refused = client.post(f"/api/games/{game_id}/events", json={"kind": "pass", "data": {"player": 0, "frame": theirs}},
                          headers=headers)  # fmt: skip
    assert refused.status_code == 400 and "mesa2" in refused.json["error"]
    answer = client.post(f"/api/games/{game_id}/events", json={"kind": "pass", "data": {"player": 0, "frame": mine}},
                         headers=headers)  # fmt: skip
    assert answer.status_code == 201


def test_a_device_slip_names_only_a_page_read_into_its_game(app: Flask, client: FlaskClient) -> None:
    game_id, other = duplicate_game(app), duplicate_game(app)
    archive = Path(app.instance_path) / "papeletas" / "escaneres" / "sala"
    (archive / "pages").mkdir(parents=True)
    sha = "ab" * 32
    (archive / "pages" / f"{sha}.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    record = {"kind": "read", "page": sha, "results": [{"game": game_id, "index": 0}]}
    (archive / "journal.jsonl").write_text(json.dumps(record) + "\n")
    headers = {"Authorization": f"Bearer {services(app).accounts.add_device('escaner-1', 'scanner')}"}

    def slip(game: str, scan: object) -> object:
        data = {"round": 1, "player": "j1", "slip": {"notation": "H3 AMONEN"}, "scan": scan}
        return client.post(f"/api/games/{game}/events", json={"kind": "slip", "data": data}, headers=headers)

    for game, scan in ((other, sha), (game_id, "cd" * 32), (game_id, "../../veedor.db"), (game_id, 5)):
        answer = slip(game, scan)
        assert answer.status_code == 400 and "'scan'" in answer.json["error"], scan  # type: ignore[attr-defined]
    assert slip(game_id, sha).status_code == 201  # type: ignore[attr-defined]


def _held_locks(path: Path) -> int:
    """POSIX locks this process holds on ``path`` (``/proc/locks``): SQLite's hold on its database."""
    inode = os.stat(path).st_ino
    count = 0
    for line in Path("/proc/locks").read_text().splitlines():
        parts = line.split()
        if len(parts) > 5 and parts[1] == "POSIX" and parts[4] == str(os.getpid()) and parts[5].endswith(f":{inode}"):
            count += 1
    return count


def test_the_evidence_file_leaves_out_what_an_old_event_names_and_keeps_the_servers_locks(
        app: Flask, client: FlaskClient, tmp_path: Path) -> None:  # fmt: skip
    """An event stored before the check existed names the database: the zip leaves it out and says so,
    and the server's SQLite locks on its database survive building it (the root of the lost slips)."""
    games = services(app).games
    files = list(server_files(app, tmp_path).values())
    game_ids = [classic(app), classic(app)]  # four passes each: six in a row would end a game (C.45.2)
    for number, path in enumerate(files):
        games.append(game_ids[number // 4], Event("pass", {"player": number % 2, "frame": str(path)}, "dispositivo:viejo"))
    from webapp.records.evidence import evidence_zip
    from webapp.services.shared import scan_service

    with games.store.engine.connect() as connection, app.app_context():  # a connection open, as in a request
        held = _held_locks(tmp_path / "veedor.db")
        assert held > 0
        scan_service()
        bodies = [evidence_zip(services(app), game_id) for game_id in game_ids]
        assert _held_locks(tmp_path / "veedor.db") == held
        connection.exec_driver_sql("SELECT 1")
    left_out = ""
    for body in bodies:
        archive = zipfile.ZipFile(io.BytesIO(body))
        assert not [n for n in archive.namelist() if n.startswith("fotogramas/")]
        assert b"SQLite format" not in b"".join(archive.read(n) for n in archive.namelist())
        left_out += archive.read("omitidos.txt").decode()
    assert left_out.count("'frame'") == len(files)


def test_the_archive_command_never_copies_the_database(app: Flask, tmp_path: Path) -> None:
    game_id = classic(app)
    url = app.config["DATABASE_URL"]
    services(app).games.append(game_id, Event("pass", {"player": 0, "frame": str(tmp_path / "veedor.db")}, "dispositivo:viejo"))
    out = tmp_path / "expediente.zip"
    # the game's word list is FILE2017's (the app's): given, as a server started with it would have it
    assert main(["archive", game_id, "--out", str(out), "--db", url, "--data", str(tmp_path),
                 "--lexicon", str(FILE2017)]) == 0  # fmt: skip
    names = zipfile.ZipFile(out).namelist()
    assert "omitidos.txt" in names and not [n for n in names if n.startswith("fotogramas/")]


def test_a_scanner_folder_never_holds_the_database(tmp_path: Path) -> None:
    venue = tmp_path / "sede.toml"
    venue.write_text('name = "Club"\ndata = "datos"\n[[scanners]]\nname = "e1"\nfolder = "datos"\n')
    with pytest.raises(VenueError, match="escáner e1: su carpeta"):
        load_venue(venue)
    venue.write_text('name = "Club"\ndata = "datos"\n[[scanners]]\nname = "e1"\nfolder = "escaneos"\n')
    assert load_venue(venue).scanners[0].folder == tmp_path / "escaneos"
