"""The arbiter's camera panel, the camera nodes' device API and "cámara sin señal" on the
screens (issue 6.4, issue 7.2-7.4)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from rules_core.classic import ClassicGame
from webapp.services.camera_node import NodeLink, run_node
from webapp.services.cameras import CameraRegistry
from webapp.services.shared import services

from .camera_frames import write_game
from .web_helpers import post

pytest_plugins = ["tests.conftest_web"]

CASA_TILES = [{"square": f"H{8 + i}", "label": letter} for i, letter in enumerate("CASA")]


def _classic(app: Flask) -> str:
    return services(app).games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bruno"]))


def _turns(app: Flask, game_id: str) -> list[str]:
    with services(app).games.reading(game_id) as game:
        assert isinstance(game, ClassicGame)
        return [t.notation for t in game.turns if not t.withdrawn]


def _doubt(number: int, reason: str = "unsure", tiles: list[dict[str, str]] | None = None) -> dict[str, Any]:
    report = {"id": number, "kind": "doubt", "reason": reason, "camera": "mesa1", "t": 1.0, "frame": 10,
              "frame_path": None, "message": f"lectura dudosa {number}", "tiles": tiles if tiles is not None else CASA_TILES}  # fmt: skip
    return {"type": "report", "id": f"run-{number}", "report": report}


def _resolve(arbiter: FlaskClient, item_id: int, action: str, follow_redirects: bool = False, **form: str) -> Any:
    """The arbiter's one click on a doubt: confirm, correct (``play``) or dismiss."""
    data = {"camera": "mesa1", "item": str(item_id), "action": action, **form}
    return post(arbiter, "/arbiter/cameras/dudas", data, follow_redirects=follow_redirects)


def _status(ok: bool, reason: str = "", state: str = "estable") -> dict[str, Any]:
    return {"type": "status", "t": time.time(), "signal": ok, "reason": reason, "state": state, "fps": 5.0,
            "frames": 10, "last_frame": time.time()}  # fmt: skip


@pytest.fixture()
def registry(app: Flask) -> CameraRegistry:
    cameras = services(app).cameras
    cameras.add("mesa1", kind="node", table=1)
    return cameras


def test_the_panel_needs_an_arbiter(client: FlaskClient, registry: CameraRegistry) -> None:
    response = client.get("/arbiter/cameras")
    assert response.status_code in (302, 401)
    assert client.post("/arbiter/cameras/calibrar", data={"camera": "mesa1"}).status_code in (302, 400, 401)
    assert registry.state("mesa1")["calibration"] is None


def test_the_arbiter_attaches_confirms_corrects_and_dismisses(app: Flask, arbiter: FlaskClient, registry: CameraRegistry) -> None:
    game_id = _classic(app)
    assert post(arbiter, "/arbiter/cameras/asignar", {"camera": "mesa1", "game": game_id}).status_code == 302
    assert registry.game_of("mesa1") == game_id
    assert json.loads((Path(app.instance_path) / "cameras.json").read_text())["attachments"] == {"mesa1": game_id}

    registry.receive("mesa1", _status(True))
    registry.receive("mesa1", _doubt(1))
    page = arbiter.get("/arbiter/cameras").get_data(as_text=True)
    assert "lectura dudosa 1" in page and "señal" in page and "Mesa 1" in page
    [item] = registry.state("mesa1")["doubts"]
    assert _resolve(arbiter, item["id"], "confirm").status_code == 302
    assert _turns(app, game_id) == ["H8 CASA"]

    registry.receive("mesa1", _doubt(2, "changed", [{"square": "H9", "label": "E"}]))
    [item] = registry.state("mesa1")["doubts"]
    _resolve(arbiter, item["id"], "dismiss")
    assert registry.state("mesa1")["doubts"] == [] and _turns(app, game_id) == ["H8 CASA"]

    registry.receive("mesa1", _doubt(3, "no_play", [{"square": "I8", "label": "A"}]))
    [item] = registry.state("mesa1")["doubts"]
    refused = _resolve(arbiter, item["id"], "correct", play="A1 CASA", follow_redirects=True)
    assert "flash error" in refused.get_data(as_text=True) and _turns(app, game_id) == ["H8 CASA"]  # refused: kept
    _resolve(arbiter, item["id"], "correct", play="8H CASO")
    assert _turns(app, game_id) == ["H8 CASA", "8H CASO"]
    assert registry.state("mesa1")["doubts"] == []
    with services(app).games.reading(game_id) as game:
        assert game.events[-1].actor == "arbiter:arbitro"


def test_a_blank_is_named_when_confirming(app: Flask, arbiter: FlaskClient, registry: CameraRegistry) -> None:
    game_id = _classic(app)
    registry.attach("mesa1", game_id)
    registry.receive("mesa1", _doubt(1, "blank", CASA_TILES[:3] + [{"square": "H11", "label": "?"}]))
    [item] = registry.state("mesa1")["doubts"]
    unnamed = _resolve(arbiter, item["id"], "confirm", follow_redirects=True)
    assert "comodín de H11" in unnamed.get_data(as_text=True) and _turns(app, game_id) == []
    _resolve(arbiter, item["id"], "confirm", blanks="H11=a")
    assert _turns(app, game_id) == ["H8 CASa"]


def test_a_screen_says_camera_without_signal(app: Flask, client: FlaskClient, registry: CameraRegistry) -> None:
    game_id = _classic(app)
    registry.attach("mesa1", game_id)
    registry.receive("mesa1", _status(True))
    assert client.get(f"/api/games/{game_id}").get_json()["camera"]["signal"] is True
    registry.receive("mesa1", _status(False, "no se puede abrir: rtsp://10.0.0.9/mesa1"))
    message = client.get(f"/api/games/{game_id}").get_json()
    assert message["camera"] == {"camera": "mesa1", "signal": False, "message": "cámara sin señal",
                                 "reason": "no se puede abrir: rtsp://10.0.0.9/mesa1"}  # fmt: skip
    page = client.get(f"/display/{game_id}").get_data(as_text=True)
    assert "cámara sin señal" in page and '"signal": false' in page
    other = _classic(app)
    assert client.get(f"/api/games/{other}").get_json()["camera"] is None


def test_a_node_posts_with_its_token_and_is_refused_without(app: Flask, client: FlaskClient, registry: CameraRegistry) -> None:
    game_id = _classic(app)
    registry.attach("mesa1", game_id)
    token = services(app).accounts.add_device("nodo-mesa1", "node", cameras=["mesa1"])
    url = "/api/cameras/messages"
    body = {"camera": "mesa1", "messages": [_status(True), {"type": "report", "id": "n-1", "report": {**_doubt(1)["report"], "kind": "play", "notation": "H8 CASA"}}]}
    assert client.post(url, json=body).status_code == 401
    assert client.post(url, json=body, headers={"Authorization": "Bearer falso"}).status_code == 401
    assert _turns(app, game_id) == []
    answer = client.post(url, json=body, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    assert _turns(app, game_id) == ["H8 CASA"]
    assert answer.get_json()["sync"]["cgp"] == "15/15/15/15/15/15/15/7CASA4/15/15/15/15/15/15/15"
    again = client.post(url, json=body, headers={"Authorization": f"Bearer {token}"})  # a retry after a lost answer
    assert again.status_code == 200 and _turns(app, game_id) == ["H8 CASA"]
    bad = client.post(url, json={"camera": "mesa1", "messages": [{"type": "misterio"}]}, headers={"Authorization": f"Bearer {token}"})
    assert bad.status_code == 400 and "misterio" in bad.get_json()["error"]


def _client_post(client: FlaskClient, down: list[bool]) -> Any:
    def post_(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if down[0]:
            raise ConnectionRefusedError("conexión rechazada")
        response = client.post(url.removeprefix("http://veedor"), data=body, headers=headers)
        return response.status_code, response.get_json()

    return post_


def test_a_node_keeps_its_reports_while_the_server_is_down(app: Flask, client: FlaskClient, registry: CameraRegistry, tmp_path: Path) -> None:
    game_id = _classic(app)
    registry.attach("mesa1", game_id)
    token = services(app).accounts.add_device("nodo-mesa1", "node", cameras=["mesa1"])
    down = [True]
    link = NodeLink("http://veedor", token, "mesa1", tmp_path / "spool", _client_post(client, down))
    link.send(_status(True))
    link.send({"type": "report", "id": "n-1", "report": {**_doubt(1)["report"], "kind": "play", "notation": "H8 CASA"}})
    assert not link.flush() and link.pending() == 1 and "rechazada" in link.last_error
    restarted = NodeLink("http://veedor", token, "mesa1", tmp_path / "spool", _client_post(client, down))  # the node restarts too
    down[0] = False
    assert restarted.flush() and restarted.pending() == 0
    assert _turns(app, game_id) == ["H8 CASA"]
    assert restarted.commands()[0]["type"] == "sync"


def test_a_camera_node_reads_frames_and_posts_a_play(app: Flask, client: FlaskClient, registry: CameraRegistry, tmp_path: Path) -> None:
    game_id = _classic(app)
    registry.attach("mesa1", game_id)
    token = services(app).accounts.add_device("nodo-mesa1", "node", cameras=["mesa1"])
    stop = threading.Event()
    watcher = threading.Thread(target=lambda: (_until(lambda: _turns(app, game_id), 40), stop.set()))
    watcher.start()
    link = run_node("http://veedor", token, "mesa1", str(write_game(tmp_path / "frames")), app.config["LEXICON"],
                    tmp_path / "node", fps=10, stopped=stop.is_set, post=_client_post(client, [False]), realtime=False)  # fmt: skip
    watcher.join()
    assert _turns(app, game_id) == ["H8 CASA"] and link.pending() == 0
    [stored] = (Path(app.instance_path) / "camera-frames" / "mesa1").glob("node-*.jpg")  # the node's frame, kept here
    assert stored.stat().st_size > 10_000


def _until(condition: Any, timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end and not condition():
        time.sleep(0.1)


def test_calibrate_from_the_console(app: Flask, arbiter: FlaskClient, registry: CameraRegistry, tmp_path: Path) -> None:
    import cv2

    from hardware.camera import Frame
    from hardware.camera_worker import CameraLoop, WorkerConfig
    from vision.board.tracker import BoardTracker

    assert arbiter.get("/arbiter/cameras/mesa1/calibration.png").status_code == 404
    assert post(arbiter, "/arbiter/cameras/calibrar", {"camera": "mesa1"}).status_code == 302
    commands = registry.poll("mesa1")["commands"]  # what the node gets in its next answer
    assert commands == [{"type": "calibrate"}]
    sent: list[dict[str, Any]] = []
    loop = CameraLoop(WorkerConfig("mesa1", "x", str(tmp_path / "node"), node=True), BoardTracker("mesa1", app.config["LEXICON"]), sent.append)
    loop.commands(commands)
    image = cv2.imread(str(sorted(write_game(tmp_path / "frames").glob("*.jpg"))[-1]))
    loop.process(Frame(image, 0.0, 0))
    [message] = [m for m in sent if m["type"] == "calibration"]
    assert message["found"] and message["turn"] == 1 and len(json.dumps(message)) < 200_000  # fits in one request
    registry.receive("mesa1", message)
    png = arbiter.get("/arbiter/cameras/mesa1/calibration.png")
    assert png.status_code == 200 and png.data[:4] == b"\x89PNG"
    page = arbiter.get("/arbiter/cameras").get_data(as_text=True)
    assert "Calibrada" in page and "fila A a 90 grados" in page and "Aviso" not in page
    # the camera moved away (or set to a small frame): its squares are too small to read well, and the console says so
    loop.commands([{"type": "calibrate"}])
    loop.process(Frame(cv2.resize(image, (640, 360), interpolation=cv2.INTER_AREA), 1.0, 1))
    registry.receive("mesa1", [m for m in sent if m["type"] == "calibration"][-1])
    page = arbiter.get("/arbiter/cameras").get_data(as_text=True)
    assert "Calibrada" in page and "Aviso" in page and "las casillas miden 19 px" in page


def test_the_live_stream_tells_the_screen_when_the_camera_goes_down(app: Flask, client: FlaskClient, registry: CameraRegistry) -> None:
    game_id = _classic(app)
    registry.attach("mesa1", game_id)
    registry.receive("mesa1", _status(True))
    response = client.get(f"/api/games/{game_id}/stream", buffered=False)
    chunks = iter(response.response)
    first = next(c for c in chunks if b"event: state" in c)
    assert b'"signal": true' in first
    registry.receive("mesa1", _status(False, "cable suelto"))  # no game event: only the camera changed
    second = next(c for c in chunks if b"event: state" in c)
    assert b'"signal": false' in second and "cámara sin señal" in second.decode()
    response.close()


def test_a_play_entered_at_the_console_closes_the_cameras_doubts(app: Flask, registry: CameraRegistry) -> None:
    game_id = _classic(app)
    registry.attach("mesa1", game_id)
    registry.receive("mesa1", _doubt(1))
    assert len(registry.state("mesa1")["doubts"]) == 1
    services(app).games.append(game_id, ClassicGame.play_event(0, "H8 CASA", actor="arbitro"))
    assert registry.state("mesa1")["doubts"] == []
    assert registry.poll("mesa1")["commands"][-1]["cgp"] == "15/15/15/15/15/15/15/7CASA4/15/15/15/15/15/15/15"
