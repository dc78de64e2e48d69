"""The projection screens and the JSON API: state, live stream, device input."""

from __future__ import annotations

import json
import threading
import time

from flask import Flask
from flask.testing import FlaskClient

from rules_core.events import Event
from rules_core.slips import Slip
from webapp.services.shared import services
from webapp.views.display import board_labels, screen_state

from .web_helpers import duplicate_game, event_count

pytest_plugins = ["tests.conftest_web"]


def message(client: FlaskClient, game_id: str) -> dict:  # type: ignore[type-arg]
    answer = client.get(f"/api/games/{game_id}")
    assert answer.status_code == 200 and answer.is_json
    return answer.json  # type: ignore[no-any-return]


def test_the_screen_page_is_public_and_carries_its_first_state(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    page = client.get(f"/display/{game_id}")
    assert page.status_code == 200
    assert 'id="initial"' in page.text and "Open de prueba" in page.text
    assert f"/api/games/{game_id}/stream" in page.text
    assert client.get("/display").status_code == 200
    assert client.get("/").status_code == 200


def test_unknown_games_are_404(client: FlaskClient) -> None:
    assert client.get("/display/no-existe").status_code == 404
    assert client.get("/display/00000000-0000-0000-0000-000000000000").status_code == 404
    answer = client.get("/api/games/00000000-0000-0000-0000-000000000000")
    assert answer.status_code == 404 and answer.json["status"] == 404


def test_the_screen_follows_a_round(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    games = services(app).games
    state = message(client, game_id)
    assert state["state"]["phase"] == "ronda" and state["state"]["round"] == 1
    assert state["state"]["rack"] == ["A", "E", "M", "N", "N", "O", "Q"]
    assert state["clock"] == {"state": "idle", "remaining": 180.0, "total": 180}
    games.append(game_id, Event("timer", {"round": 1, "action": "start"}))
    games.append(game_id, Event("slip", {"round": 1, "player": "j1", "slip": Slip("H3 AMONEN").to_json()}))
    state = message(client, game_id)
    assert state["clock"]["state"] == "running" and state["state"]["submitted"] == 1
    assert "AMONEN" not in json.dumps(state)  # slips stay off the screen
    games.append(game_id, Event("master_announced", {"round": 1}))
    state = message(client, game_id)["state"]
    assert state["phase"] == "maestra" and state["master"]["play"] == "H3 AMONEN" and state["master"]["score"] == 22
    assert state["master_total"] == 22
    assert state["last"] == [[7, c] for c in range(2, 8)]  # H3..H8 highlighted
    assert "".join(state["board"][7][2:8]) == "AMONEN"


def test_blanks_are_lowercase_on_the_board(file2017: object) -> None:
    from rules_core.board import Board

    board = Board()
    board[7, 7] = 0x80 | 1  # a blank as A
    assert board_labels(board)[7][7] == "a"


def test_the_stream_sends_the_state_at_once_and_after_each_change(app: Flask) -> None:
    game_id = duplicate_game(app)
    client = app.test_client()
    answer = client.get(f"/api/games/{game_id}/stream", buffered=False)
    assert answer.status_code == 200 and answer.mimetype == "text/event-stream"
    assert answer.headers["Cache-Control"] == "no-cache"
    chunks = answer.response  # type: ignore[attr-defined]
    assert next(chunks).startswith(b"retry:")
    first = next(chunks).decode()
    assert first.startswith("id: 5\nevent: state\ndata: ")

    def later() -> None:
        time.sleep(0.05)
        services(app).games.append(game_id, Event("timer", {"round": 1, "action": "start"}))

    threading.Thread(target=later).start()
    started = time.monotonic()
    second = next(chunks).decode()
    assert time.monotonic() - started < 1.0
    assert second.startswith("id: 6\n") and '"running"' in second
    assert next(chunks) == b"event: ping\ndata: {}\n\n"  # idle (LIVE_PING_SECONDS)
    answer.close()
    assert services(app).streams.open == 0


def test_streams_are_capped(app: Flask) -> None:
    game_id = duplicate_game(app)
    services(app).streams.limit = 0
    answer = app.test_client().get(f"/api/games/{game_id}/stream")
    assert answer.status_code == 503 and answer.is_json


def test_a_device_sends_a_scanned_slip(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    token = services(app).accounts.add_device("escaner-1", "scanner")
    answer = client.post(f"/api/games/{game_id}/slips", json={"table": 2, "notation": "H3 AMONEN", "late": False},
                         headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert answer.status_code == 201 and answer.json["ok"]
    assert answer.json["result"] == {"play": "H3 AMONEN", "score": 22, "reason": ""}
    game = services(app).games.duplicate(game_id)
    assert game.round(1).results["j2"].score == 22
    assert game.round(1).slips["j2"].source == "escáner"
    assert game.events[-1].actor == "dispositivo:escaner-1"


def test_a_device_event_goes_through_the_rules(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    headers = {"Authorization": f"Bearer {services(app).accounts.add_device('escaner-2', 'scanner')}"}
    before = event_count(app, game_id)
    master = client.post(f"/api/games/{game_id}/events", json={"kind": "master_announced", "data": {"round": 1}},
                         headers=headers)  # fmt: skip
    assert master.status_code == 400  # devices do not announce masters
    bad = client.post(f"/api/games/{game_id}/events", json={"kind": "slip", "data": {"round": 9, "player": "j1",
                      "slip": {"notation": "H3 AMONEN"}}}, headers=headers)  # fmt: skip
    assert bad.status_code == 409 and "ronda 9" in bad.json["error"]
    assert client.post(f"/api/games/{game_id}/events", data="no json", headers=headers).status_code == 400
    assert client.post(f"/api/games/{game_id}/slips", json={"table": 99, "notation": "H3 AMONEN"},
                       headers=headers).status_code == 409  # fmt: skip
    assert event_count(app, game_id) == before


def test_the_game_list(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    listing = client.get("/api/games").json
    assert [g["id"] for g in listing] == [game_id] and listing[0]["mode"] == "duplicate"


def test_a_classic_table_on_screen(app: Flask, client: FlaskClient) -> None:
    from rules_core.classic import ClassicGame

    games = services(app).games
    game_id = games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bea"], title="Mesa 1"))
    games.append(game_id, ClassicGame.play_event(0, "H4 MANEN"))
    games.append(game_id, ClassicGame.pass_event(1))
    state = message(client, game_id)["state"]
    assert state["mode"] == "classic" and state["players"][0] == {"name": "Ana", "score": state["players"][0]["score"]}
    assert state["players"][0]["score"] > 0 and state["to_move"] == 0
    assert [t["kind"] for t in state["last_plays"]] == ["pass", "play"]
    assert len(state["last"]) == 5
    assert client.get(f"/display/{game_id}").status_code == 200


def test_screen_state_is_built_once_per_version(app: Flask) -> None:
    game_id = duplicate_game(app)
    games = services(app).games
    calls = []

    def build(game: object) -> str:
        calls.append(1)
        return json.dumps(screen_state(game))  # type: ignore[arg-type]

    for _ in range(3):
        games.view(game_id, "test", build)
    games.append(game_id, Event("timer", {"round": 1, "action": "start"}))
    games.view(game_id, "test", build)
    assert len(calls) == 2
