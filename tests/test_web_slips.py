"""Scanned slips in the running web app: watched folders into the game, the arbiter's panel, the demo."""

from __future__ import annotations

import io
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from rules_core.duplicate import DuplicateGame
from rules_core.lexicon import Lexicon
from rules_core.slips import Slip
from vision.slips import layout
from vision.slips.review import ReviewQueue
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw
from webapp.app import create_app
from webapp.services.demo import server as demo_server
from webapp.services.demo.server import Demo, Timing
from webapp.services.live import LiveGames
from webapp.services.scanning import FolderScanner, ScanService
from webapp.services.shared import scan_service, services, start_scanners, stop_scanners
from webapp.services.demo.slips import DemoSlips, write_scan
from webapp.services.store import EventStore

from .web_helpers import duplicate_game, post

pytest_plugins = ["tests.conftest_web"]
JSON = {"Accept": "application/json"}


def scan_of(game_id: str, player: str, table: int, coordinate: str, word: str, seed: int = 0) -> np.ndarray:
    """A printed slip of ``player`` (QR with game, table, player) filled in by hand for round 1, scanned."""
    rng = np.random.default_rng(seed)
    printed = layout.render_slip(layout.SlipInfo(game_id, "Open de prueba", table, player, player))
    fields = {"ronda": "1", "coordenada": coordinate, "palabra": word}
    return drawn.scan(drawn.fill_slip(printed, fields, hw.HersheyWriter(hw.TRAIN_HERSHEY[1]), rng), rng)


def jpeg(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return data.tobytes()


def game_of(app: Flask, game_id: str) -> DuplicateGame:
    return services(app).games.duplicate(game_id)


def wait_for(condition: Any, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the scanner did not read the slip in time"
        time.sleep(0.05)


def upload(client: FlaskClient, game_id: str, files: dict[str, bytes]) -> Any:
    """Post scans as the panel's form does: stored at once (202), read by the scanning service's thread."""
    data = {"scan": [(io.BytesIO(content), name) for name, content in files.items()]}
    return post(client, f"/arbiter/g/{game_id}/escaneos", data, content_type="multipart/form-data", headers=JSON)


def outcomes(client: FlaskClient, answer: Any, seconds: float = 60.0) -> dict[str, dict[str, Any]]:
    """What became of each file of an upload's answer, once none is being stored or read any more."""
    assert answer.status_code == 202, answer.get_data(as_text=True)
    found: dict[str, dict[str, Any]] = {}

    def done() -> bool:
        for name, url in answer.get_json()["outcomes"].items():
            found[name] = client.get(url, headers=JSON).get_json()
        return all(o["state"] in ("read", "refused", "waiting") for o in found.values())

    wait_for(done, seconds)
    return found


def read_upload(client: FlaskClient, game_id: str, files: dict[str, bytes]) -> list[dict[str, Any]]:
    """Upload, wait until read, and return what happened to each slip, file by file."""
    found = outcomes(client, upload(client, game_id, files))
    return [r for o in found.values() for r in o.get("results", [])]


def choose(client: FlaskClient, game_id: str) -> None:
    """The arbiter sends plain slips (no readable QR code) to ``game_id``."""
    assert post(client, f"/arbiter/g/{game_id}/papeletas/seguir").status_code == 302


def decide(client: FlaskClient, game_id: str, item_id: str, action: str, headers: dict[str, str] | None = None,
           **fields: str) -> Any:  # fmt: skip
    """The arbiter's decision on a flagged slip, posted as the panel's form does."""
    return post(client, f"/arbiter/g/{game_id}/papeletas/decidir", {"item": item_id, "action": action, **fields},
                headers=headers or {})  # fmt: skip


def scan_amonen_through_the_watched_folder(app: Flask, game_id: str, folder: Path) -> None:
    """Ana's slip (table 1, H3 AMONEN) dropped in a scanner's watched folder, waited for until read."""
    app.config["SCAN_POLL_SECONDS"] = 0.05
    start_scanners(app, [FolderScanner("escaner1", folder)])
    try:
        write_scan(folder, "ana.jpg", scan_of(game_id, "j1", 1, "H3", "AMONEN"))
        wait_for(lambda: "j1" in game_of(app, game_id).round(1).slips)
    finally:
        stop_scanners(app)


def test_a_scan_dropped_in_the_watched_folder_is_read_into_the_game(app: Flask, arbiter: FlaskClient,
                                                                    tmp_path: Path) -> None:  # fmt: skip
    game_id = duplicate_game(app)  # round 1: A E M N N O Q; H3 AMONEN scores 22
    folder = tmp_path / "escaner"
    scan_amonen_through_the_watched_folder(app, game_id, folder)
    r = game_of(app, game_id).round(1)
    assert r.slips["j1"].notation == "H3 AMONEN" and r.slips["j1"].source == "escáner"
    assert r.results["j1"].score == 22
    assert not any(folder.iterdir())  # taken out of the inbox, kept in the archive
    slip_event = next(e for e in r.history if e.data["player"] == "j1")
    stored = arbiter.get(f"/arbiter/g/{game_id}/escaneos/{slip_event.data['scan']}.png")
    assert stored.status_code == 200 and stored.mimetype == "image/png"
    assert cv2.imdecode(np.frombuffer(stored.data, np.uint8), cv2.IMREAD_GRAYSCALE) is not None
    status = arbiter.get(f"/arbiter/g/{game_id}/papeletas/estado", headers=JSON).get_json()
    assert status["status"] == {"j1": "read", "j2": "missing", "j3": "missing"} and status["pending"] == 0


def test_flagged_slips_are_shown_and_resolved_by_accept_correct_and_void(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    choose(arbiter, game_id)  # a slip of a game not on this server is held here
    results = read_upload(arbiter, game_id, {
        "bea.jpg": jpeg(scan_of(game_id, "j2", 2, "3H", "AMONEN")),  # coordinates in the wrong order
        "ciro.jpg": jpeg(scan_of(game_id, "j3", 3, "", "MANO")),  # no coordinate: position unknown
        "ana.jpg": jpeg(scan_of("otra-partida", "j1", 1, "H8", "MANO")),  # a slip of another game
    })  # fmt: skip
    assert [r["status"] for r in results] == ["flagged"] * 3
    assert game_of(app, game_id).round(1).slips == {}
    items = {i.player: i for i in scan_service(app).pending(game_id)}
    assert set(items) == {None, "j2", "j3"}  # the other game's j1 is nobody here

    page = arbiter.get(f"/arbiter/g/{game_id}/papeletas")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "coordenadas en orden incorrecto" in html and "ronda o posición no identificable" in html
    assert "«3H AMONEN»" in html and "H3 AMONEN" in html and "otra partida" in html
    assert html.count('class="slip-item') == 3
    assert html.count("en revisión</a>") == 2  # the other game's slip is held here, for no player of this game
    for item in items.values():
        crop = arbiter.get(f"/arbiter/g/{game_id}/papeletas/{item.id}/recorte.png")
        whole = arbiter.get(f"/arbiter/g/{game_id}/papeletas/{item.id}/papeleta.png")
        assert crop.status_code == whole.status_code == 200 and crop.mimetype == "image/png"
    assert f'/papeletas/{items["j2"].id}/recorte.png' in html
    console = arbiter.get("/arbiter/").get_data(as_text=True)  # the console's main page points at them
    assert "3 papeletas por revisar" in console and f"/arbiter/g/{game_id}/papeletas" in console

    # accept: the reader's proposal goes into the game as it is
    bea = items["j2"]
    assert bea.proposal is not None
    assert decide(arbiter, game_id, bea.id, "accept").status_code == 302
    r = game_of(app, game_id).round(1)
    assert r.slips["j2"] == Slip.from_json(bea.proposal) and r.results["j2"].score == 0
    # an item with no proposal cannot be accepted: it is corrected with a typed play
    ciro = items["j3"]
    refused = decide(arbiter, game_id, ciro.id, "accept", headers=JSON)
    assert refused.status_code == 409 and "corríjala" in refused.get_json()["error"]
    assert "j3" not in game_of(app, game_id).round(1).slips
    decide(arbiter, game_id, ciro.id, "correct", play="H8 MANO")
    r = game_of(app, game_id).round(1)
    assert r.slips["j3"].notation == "H8 MANO" and r.results["j3"].score == 12
    # void, with the reason chosen, for the player the arbiter names
    ana = items[None]
    decide(arbiter, game_id, ana.id, "void", reason="jugador no identificable", player="j1", round="1")
    r = game_of(app, game_id).round(1)
    assert r.slips["j1"].void == "jugador no identificable" and r.results["j1"].score == 0
    assert scan_service(app).pending(game_id) == []
    assert "por revisar" not in arbiter.get("/arbiter/").get_data(as_text=True)
    again = decide(arbiter, game_id, ana.id, "void", headers=JSON)
    assert again.status_code == 409 and "ya se resolvió" in again.get_json()["error"]
    assert arbiter.get(f"/arbiter/g/{game_id}/papeletas/estado", headers=JSON).get_json()["status"] == {
        "j1": "read", "j2": "read", "j3": "read"}  # fmt: skip


def test_a_refused_file_is_listed_for_the_arbiter_with_its_reason_and_kept_as_it_came(
        app: Flask, arbiter: FlaskClient) -> None:  # fmt: skip
    game_id = duplicate_game(app)
    note = "esto no es un escaneo\n".encode()
    found = outcomes(arbiter, upload(arbiter, game_id, {"nota.png": note}))
    assert found["nota.png"]["state"] == "refused" and "nota.png" in found["nota.png"]["reason"]
    html = arbiter.get(f"/arbiter/g/{game_id}/papeletas").get_data(as_text=True)
    assert "Escaneos rechazados (1)" in html and found["nota.png"]["reason"] in html
    kept = arbiter.get(f"/arbiter/g/{game_id}/escaneos/rechazados/subidas/nota.png")
    assert kept.status_code == 200 and kept.data == note
    assert arbiter.get(f"/arbiter/g/{game_id}/escaneos/rechazados/subidas/otra.png").status_code == 404


def test_a_slip_with_no_player_needs_one_chosen(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    choose(arbiter, game_id)
    blank = np.full((700, 900), 235, np.uint8)
    read_upload(arbiter, game_id, {"vacia.jpg": jpeg(blank)})
    (item,) = scan_service(app).pending(game_id)
    assert item.player is None and item.round is None
    html = arbiter.get(f"/arbiter/g/{game_id}/papeletas").get_data(as_text=True)
    assert "Jugador sin identificar" in html and 'name="player"' in html
    missing = decide(arbiter, game_id, item.id, "correct", play="H8 MANO", headers=JSON)
    assert missing.status_code == 409 and "jugador y la ronda" in missing.get_json()["error"]
    decide(arbiter, game_id, item.id, "correct", play="H8 MANO", player="j2", round="1")
    assert game_of(app, game_id).round(1).slips["j2"].notation == "H8 MANO"
    # another empty page is no slip at all: dismissed, nothing entered
    read_upload(arbiter, game_id, {"otra.jpg": jpeg(np.full((600, 800), 240, np.uint8))})
    (empty,) = scan_service(app).pending(game_id)
    before = len(game_of(app, game_id).events)
    assert decide(arbiter, game_id, empty.id, "dismiss", reason="x").status_code == 302
    assert len(game_of(app, game_id).events) == before and scan_service(app).pending(game_id) == []
    assert ReviewQueue(scan_service(app).queue.root).items[empty.id].status == "dismissed"


def test_the_panel_and_its_images_need_an_arbiter(app: Flask, client: FlaskClient, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    read_upload(arbiter, game_id, {"ciro.jpg": jpeg(scan_of(game_id, "j3", 3, "", "MANO"))})
    (item,) = scan_service(app).pending(game_id)
    for url in (f"/arbiter/g/{game_id}/papeletas", f"/arbiter/g/{game_id}/papeletas/{item.id}/recorte.png",
                f"/arbiter/g/{game_id}/escaneos/{item.page}.png"):  # fmt: skip
        answer = client.get(url)
        assert answer.status_code == 302 and "/login" in answer.location
        assert client.get(url, headers=JSON).status_code == 401
        assert arbiter.get(url).status_code == 200
    with client.session_transaction() as session:
        session["csrf_token"] = "x"
    refused = client.post(f"/arbiter/g/{game_id}/papeletas/decidir",
                          data={"csrf_token": "x", "item": item.id, "action": "void"})  # fmt: skip
    assert refused.status_code == 302 and "/login" in refused.location
    assert scan_service(app).pending(game_id) == [item]
    console = arbiter.get(f"/arbiter/g/{game_id}").get_data(as_text=True)
    assert f'href="/arbiter/g/{game_id}/papeletas"' in console


def test_a_restart_rebuilds_the_queue_and_reads_what_was_left(app: Flask, arbiter: FlaskClient,
                                                              tmp_path: Path, file2017: Lexicon) -> None:  # fmt: skip
    game_id = duplicate_game(app)
    read_upload(arbiter, game_id, {"ciro.jpg": jpeg(scan_of(game_id, "j3", 3, "", "MANO"))})
    (flagged,) = scan_service(app).pending(game_id)
    folder = tmp_path / "escaner"
    ingestor = scan_service(app).add_scanner("escaner1", folder)
    ingestor.take(write_scan(folder, "bea.jpg", scan_of(game_id, "j2", 2, "H8", "MANO")))  # stored, then a crash
    assert "j2" not in game_of(app, game_id).round(1).slips
    services(app).games.close()

    restarted = create_app({**{k: app.config[k] for k in ("TESTING", "SECRET_KEY", "DATABASE_URL", "LEXICON")},
                            "INSTANCE_PATH": app.instance_path, "SCAN_POLL_SECONDS": 0.05})  # fmt: skip
    again = scan_service(restarted)
    assert again.pending(game_id) == [flagged] and Path(again.pending(game_id)[0].crop).exists()
    start_scanners(restarted, [FolderScanner("escaner1", folder)])
    try:
        wait_for(lambda: "j2" in game_of(restarted, game_id).round(1).slips)
    finally:
        stop_scanners(restarted)
        services(restarted).games.close()
    assert game_of(restarted, game_id).round(1).slips["j2"].notation == "H8 MANO"
    assert len(again.ingestors["escaner1"].read) == 1  # read once, after the restart


class Clock:
    """``datetime`` for the demo driver, with time that the test moves on."""

    offset = timedelta()

    @classmethod
    def now(cls, tz: timezone | None = None) -> datetime:
        return datetime.now(tz) + cls.offset


def test_the_demo_hands_in_scanned_slips_read_by_the_real_reader(tmp_path: Path, file2017: Lexicon,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setattr(demo_server, "datetime", Clock)
    Clock.offset = timedelta()
    games = LiveGames(EventStore(f"sqlite:///{tmp_path / 'v.db'}"), file2017)
    scans = ScanService()
    scans.attach(games, tmp_path / "papeletas")
    slips = DemoSlips(scans, tmp_path / "bandeja", seed=3)
    scans.add_scanner(slips.name, slips.folder)
    fast = Timing(round_seconds=10, show_rack=0, after_close=0, after_master=0, classic_turn=0, restart=0, tick=0.01)
    demo = Demo(games, fast, seed=3, slips=slips)
    game = games.duplicate(demo.duplicate_id)
    for _ in range(2):  # rack, clock started
        demo._duplicate_step()
    Clock.offset = timedelta(seconds=11)  # every slip is due, and the round's time is up
    for _ in range(3):
        demo._duplicate_step()
    r = game.round(1)
    assert r.timer and r.timer[-1][0] == "close" and r.master is None  # the scans are not read yet
    assert len(list(slips.folder.glob("*.jpg"))) >= 10 and r.slips == {}
    scans.poll(slips.name)
    demo._duplicate_step()
    assert r.master is not None and r.master == game.top_plays(1)[0]
    status = scans.round_status(demo.duplicate_id, game, 1)
    read = [p for p, s in status.items() if s == "read"]
    assert len(read) >= 8 and set(status.values()) <= {"read", "flagged", "missing"}
    assert all(r.slips[p].source == "escáner" for p in read)
    assert {e.actor for e in r.history} == {"escáner"}
    kinds = [e.kind for e in game.events]
    assert kinds.index("timer") < kinds.index("slip") < kinds.index("master_announced")
