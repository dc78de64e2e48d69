"""A camera node keeps to what its token was registered for (issue 67).

A node token limited with ``--game G2`` wrote a play into G1 through a camera attached to
G1, and could post under any camera name and create cameras. Now a node posts only for
the cameras it was registered for (``--camera``), never for a camera of the server itself,
and only while its camera is attached to a game it may write to.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from rules_core.classic import ClassicGame
from webapp.cli import main
from webapp.services.accounts import AccountError
from webapp.services.shared import services

pytest_plugins = ["tests.conftest_web"]

URL = "/api/cameras/messages"


def classic(app: Flask, name: str = "Mesa 1") -> str:
    return services(app).games.create("classic", name, ClassicGame.create_event(["Ana", "Bruno"]))


def turns(app: Flask, game_id: str) -> list[str]:
    with services(app).games.reading(game_id) as game:
        assert isinstance(game, ClassicGame)
        return [t.notation for t in game.turns]


def node(app: Flask, cameras: tuple[str, ...] = ("mesa1",), games: tuple[str, ...] = ()) -> dict[str, str]:
    token = services(app).accounts.add_device("nodo-1", "node", games, cameras)
    return {"Authorization": f"Bearer {token}"}


def play(ident: str = "n-1", notation: str = "H8 CASA", **extra: Any) -> dict[str, Any]:
    report = {"id": 1, "kind": "play", "camera": "mesa1", "t": 1.0, "frame": 10, "message": notation,
              "notation": notation, "frame_path": None}  # fmt: skip
    return {"type": "report", "id": ident, "report": {**report, **extra}}


def test_a_node_limited_to_a_game_writes_nothing_into_another(app: Flask, client: FlaskClient) -> None:
    first, second = classic(app), classic(app, "Mesa 2")
    registry = services(app).cameras
    registry.add("mesa1", kind="node")
    registry.attach("mesa1", first)
    headers = node(app, games=(second,))
    refused = client.post(URL, json={"camera": "mesa1", "messages": [play()]}, headers=headers)
    assert refused.status_code == 409 and "no puede escribir" in refused.json["error"]
    assert turns(app, first) == [] and refused.json["applied"] == 0
    assert "no puede escribir" in registry.state("mesa1")["reason"]  # the console says why the camera is silent
    registry.attach("mesa1", second)  # the arbiter attaches it to the node's game: the node's retry goes in
    assert client.post(URL, json={"camera": "mesa1", "messages": [play()]}, headers=headers).status_code == 200
    assert turns(app, second) == ["H8 CASA"] and turns(app, first) == []


def test_a_node_posts_only_for_its_cameras_and_creates_no_other(app: Flask, client: FlaskClient) -> None:
    headers = node(app, cameras=("mesa1",))
    status = {"type": "status", "signal": True, "state": "estable"}
    for name in ("mesa2", "intrusa"):
        answer = client.post(URL, json={"camera": name, "messages": [status]}, headers=headers)
        assert answer.status_code == 403 and "no está registrado" in answer.json["error"]
        assert client.post(URL, json={"camera": name, "messages": []}, headers=headers).status_code == 403
    assert services(app).cameras.names() == []
    assert client.post(URL, json={"camera": "mesa1", "messages": [status]}, headers=headers).status_code == 200
    assert services(app).cameras.names() == ["mesa1"]  # the camera the organiser registered it for


def test_a_node_cannot_post_as_a_camera_of_the_server(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    game_id = classic(app)
    registry = services(app).cameras
    registry.add("mesa1", kind="local")
    registry.attach("mesa1", game_id)
    database = str(tmp_path / "veedor.db")
    answer = client.post(URL, json={"camera": "mesa1", "messages": [play(frame_path=database)]}, headers=node(app))
    assert answer.status_code == 403 and "del propio servidor" in answer.json["error"]
    assert turns(app, game_id) == [] and registry.state("mesa1")["kind"] == "local"


def test_a_frame_path_from_a_node_never_names_a_file_of_the_server(app: Flask, client: FlaskClient, arbiter: FlaskClient,
                                                                  tmp_path: Path) -> None:  # fmt: skip
    game_id = classic(app)
    registry = services(app).cameras
    registry.add("mesa1", kind="node")
    registry.attach("mesa1", game_id)
    doubt = play("n-2", kind="doubt", reason="unsure", frame_path=str(tmp_path / "veedor.db"), tiles=[])
    assert client.post(URL, json={"camera": "mesa1", "messages": [doubt]}, headers=node(app)).status_code == 200
    [item] = registry.state("mesa1")["doubts"]
    assert item["report"]["frame_path"] is None
    assert arbiter.get(f"/arbiter/cameras/mesa1/doubts/{item['id']}/frame.jpg").status_code == 404


def test_a_local_cameras_frame_is_kept_only_when_the_server_stored_it(app: Flask, tmp_path: Path) -> None:
    game_id = classic(app)
    registry = services(app).cameras
    registry.add("mesa1", kind="local")
    registry.attach("mesa1", game_id)
    folder = Path(app.instance_path) / "camera-frames" / "mesa1"
    folder.mkdir(parents=True)
    ok, jpeg = cv2.imencode(".jpg", np.full((32, 32, 3), 200, np.uint8))
    (folder / "run-000010.jpg").write_bytes(jpeg.tobytes())
    registry.receive("mesa1", play("w-1", frame_path=str(folder / "run-000010.jpg")))
    with services(app).games.reading(game_id) as game:
        [frame] = [e.data.get("frame") for e in game.events if e.kind == "play"]
    assert frame == str(folder / "run-000010.jpg")
    (folder / "bd.jpg").symlink_to(tmp_path / "veedor.db")
    for named in (tmp_path / "veedor.db", folder / "bd.jpg", folder / ".." / ".." / "secret_key"):
        registry.receive("mesa1", play(f"w-{named.name}", kind="doubt", reason="unsure", frame_path=str(named), tiles=[]))
        [item] = registry.state("mesa1")["doubts"]
        assert item["report"]["frame_path"] is None


def test_a_node_needs_its_cameras_to_be_registered(app: Flask, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    accounts = services(app).accounts
    with pytest.raises(AccountError, match="--camera"):
        accounts.add_device("nodo-x", "node")
    with pytest.raises(AccountError, match="solo un nodo"):
        accounts.add_device("escaner-x", "scanner", cameras=["mesa1"])
    with pytest.raises(AccountError, match="nombre de cámara no válido"):
        accounts.add_device("nodo-y", "node", cameras=["Mesa 1"])
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["device", "add", "nodo-1", "--role", "node", "--db", db]) == 2
    assert "--camera" in capsys.readouterr().err
    assert main(["device", "add", "nodo-1", "--role", "node", "--camera", "mesa1", "--camera", "mesa2", "--db", db]) == 0


def test_a_node_registered_before_cameras_is_refused_until_registered_again(app: Flask, client: FlaskClient) -> None:
    headers = node(app)
    with services(app).accounts.engine.begin() as connection:
        connection.execute(text("UPDATE devices SET cameras = NULL"))  # as a token made before issue 67
    answer = client.post(URL, json={"camera": "mesa1", "messages": []}, headers=headers)
    assert answer.status_code == 403 and "--camera" in answer.json["error"]


def test_a_nodes_stored_frame_goes_with_its_play(app: Flask, client: FlaskClient) -> None:
    game_id = classic(app)
    registry = services(app).cameras
    registry.add("mesa1", kind="node")
    registry.attach("mesa1", game_id)
    ok, jpeg = cv2.imencode(".jpg", np.full((32, 32, 3), 120, np.uint8))
    message = {**play(), "frame_jpeg": base64.b64encode(jpeg.tobytes()).decode()}
    assert client.post(URL, json={"camera": "mesa1", "messages": [message]}, headers=node(app, games=(game_id,))).status_code == 200
    with services(app).games.reading(game_id) as game:
        [frame] = [e.data["frame"] for e in game.events if e.kind == "play"]
    assert Path(frame).parent == Path(app.instance_path) / "camera-frames" / "mesa1"
