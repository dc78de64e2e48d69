"""The table's clock through the web app: the console sets the time control, the tablet presses
with its device key, only the arbiter pauses, the screens carry both clocks, the game ends on
time (C.45.5) with the overtime taken off (C.35), and the history says so in words.

Times that must have passed are given to the events themselves (``at``), so nothing waits.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from rules_core.classic import ClassicGame
from webapp.services.shared import services

from .web_helpers import CSRF, post

pytest_plugins = ["tests.conftest_web"]

JSON = {"Accept": "application/json"}


def clock_game(app: Flask, mode: str = "corrido", **settings: Any) -> str:
    event = ClassicGame.create_event(["Ana", "Bea"], title="Mesa 3", clock=mode, **settings)
    return services(app).games.create("classic", "Mesa 3", event)


def device(app: Flask) -> dict[str, str]:
    token = services(app).accounts.add_device("reloj-mesa-3", "clock")
    return {"Authorization": f"Bearer {token}"}


def test_the_console_creates_a_table_with_its_time_control(app: Flask, arbiter: FlaskClient) -> None:
    answer = post(arbiter, "/arbiter/classic", {"title": "Mesa 3", "player1": "Ana", "player2": "Bea",
                                                "clock": "no_corrido", "minutes": "", "duration": "70"})  # fmt: skip
    assert answer.status_code == 302
    [record] = [r for r in services(app).games.store.games() if r.mode == "classic"]
    with services(app).games.reading(record.id) as game:
        assert isinstance(game, ClassicGame) and game.state.timer is not None
        settings = game.state.timer.settings
    assert (settings.mode, settings.minutes, settings.duration) == ("no_corrido", 25, 70)  # C.34: 25 by default
    page = arbiter.get(f"/arbiter/g/{record.id}").get_data(as_text=True)
    assert f"/display/{record.id}/reloj" in page


def test_the_tablet_starts_and_presses_and_the_screens_carry_both_clocks(app: Flask, client: FlaskClient) -> None:
    game_id = clock_game(app)
    url = f"/api/games/{game_id}/clock"
    assert client.post(url, json={"action": "start"}).status_code == 401  # no key: no press
    key = device(app)
    assert client.post(url, json={"action": "start"}, headers=key).status_code == 201
    refused = client.post(url, json={"action": "press", "player": 1}, headers=key)
    assert refused.status_code == 409 and "el reloj de Bea no está en marcha" in refused.json["error"]
    answer = client.post(url, json={"action": "press", "player": 0, "delay_ms": 300}, headers=key)
    assert answer.status_code == 201
    clock = answer.json["clock"]
    assert clock["kind"] == "classic" and clock["state"] == "running" and clock["running"] == 1
    assert clock["players"][1]["remaining"] <= 1800 and clock["turns"] == [1, 0]
    assert client.get(f"/api/games/{game_id}").json["clock"]["running"] == 1  # what the screens follow
    screen = client.get(f"/display/{game_id}").get_data(as_text=True)
    assert 'id="clocks"' in screen and "classic_clock.js" in screen
    page = client.get(f"/display/{game_id}/reloj").get_data(as_text=True)
    assert "Empezar" in page and '"arbiter": false' in page


def test_only_the_arbiter_pauses(app: Flask, client: FlaskClient, arbiter: FlaskClient) -> None:
    game_id = clock_game(app)
    key = device(app)
    client.post(f"/api/games/{game_id}/clock", json={"action": "start"}, headers=key)
    refused = client.post(f"/api/games/{game_id}/clock", json={"action": "pause"}, headers=key)
    assert refused.status_code == 403 and "solo un árbitro" in refused.json["error"]
    assert client.post(f"/display/{game_id}/reloj", json={"action": "pause"}, headers=JSON).status_code in (400, 401)
    answer = arbiter.post(f"/display/{game_id}/reloj", json={"action": "pause"}, headers={**JSON, "X-CSRF-Token": CSRF})
    assert answer.status_code == 201 and answer.json["clock"]["state"] == "paused"
    refused = client.post(f"/api/games/{game_id}/clock", json={"action": "press", "player": 0}, headers=key)
    assert refused.status_code == 409 and "en pausa" in refused.json["error"]
    page = arbiter.get(f"/display/{game_id}/reloj").get_data(as_text=True)
    assert '"arbiter": true' in page and "Reanudar" in page


def test_the_game_ends_on_time_with_the_overtime_taken_off(app: Flask, client: FlaskClient, arbiter: FlaskClient) -> None:
    """A 40-minute game with 30 minutes each began 45 minutes ago: Ana used 31:01, Bea 13:59."""
    games = services(app).games
    began = datetime.now(timezone.utc) - timedelta(minutes=45)
    game_id = games.create("classic", "Mesa 3", ClassicGame.create_event(["Ana", "Bea"], clock="corrido", duration=40, at=began))
    for event in (ClassicGame.clock_event("start", at=began),
                  ClassicGame.play_event(0, "H8 CASA", at=began + timedelta(seconds=1861)),
                  ClassicGame.clock_event("press", 0, at=began + timedelta(seconds=1861)),
                  ClassicGame.play_event(1, "H8 CASADA", at=began + timedelta(seconds=2700)),
                  ClassicGame.clock_event("press", 1, at=began + timedelta(seconds=2700))):  # fmt: skip
        games.append(game_id, event)
    with games.reading(game_id) as game:  # nobody pressed since: the first read ends it (C.45.5)
        assert game.finished and game.events[-1].actor == "servidor"
    answer = client.post(f"/api/games/{game_id}/clock", json={"action": "time"}, headers=device(app))
    assert answer.status_code == 201  # the tablet that asks for it too finds it ended
    final = answer.json["state"]
    assert final["ended"] and final["ending"] == "45.5" and answer.json["clock"]["state"] == "ended"
    assert [p["score"] for p in final["players"]] == [12 - 20, 11]  # 1:01 over: two minutes begun (C.35)
    assert final["adjustments"] == [{"player": 0, "kind": "time", "points": -20, "rack": ""}]
    log = arbiter.get(f"/arbiter/g/{game_id}/log").get_data(as_text=True)
    assert "Ana pulsa el reloj: turno de 31:01; le quedan -1:01" in log
    assert "Partida terminada por tiempo (C.45.5); Ana pierde 20 puntos por exceder su tiempo en 1:01 (C.35)" in log


def test_the_end_on_time_waits_for_even_turns(app: Flask, client: FlaskClient) -> None:
    games = services(app).games
    began = datetime.now(timezone.utc) - timedelta(minutes=11)
    game_id = games.create("classic", "Mesa 3", ClassicGame.create_event(["Ana", "Bea"], clock="corrido", duration=10, at=began))
    games.append(game_id, ClassicGame.clock_event("start", at=began))
    games.append(game_id, ClassicGame.play_event(0, "H8 CASA", at=began + timedelta(seconds=60)))
    answer = client.post(f"/api/games/{game_id}/clock", json={"action": "time"}, headers=device(app))
    assert answer.status_code == 409 and "C.30" in answer.json["error"]  # Bea still owes her turn


def test_a_table_follows_its_game_and_a_game_without_a_clock_says_so(app: Flask, client: FlaskClient) -> None:
    plain = services(app).games.create("classic", "Mesa 5", ClassicGame.create_event(["Ana", "Bea"]))
    page = client.get("/display/mesa/5/reloj").get_data(as_text=True)
    assert plain in page and "screen_follow.js" in page
    assert client.get(f"/api/games/{plain}").json["clock"] == {"state": "none"}
    assert "Reloj de la mesa 6" in client.get("/display/mesa/6/reloj").get_data(as_text=True)


def test_the_server_ends_the_game_on_time_once_without_a_press(app: Flask, client: FlaskClient) -> None:
    """C.45.5 with nobody at the tablet: the state's reads (screens, overlays, the clock's page)
    end it, the end is stored once, and a restart (the game rebuilt from the store) keeps it."""
    games = services(app).games
    began = datetime.now(timezone.utc) - timedelta(minutes=11)
    game_id = games.create("classic", "Mesa 3", ClassicGame.create_event(["Ana", "Bea"], clock="corrido", duration=10, at=began))
    games.append(game_id, ClassicGame.clock_event("start", at=began))
    state = client.get(f"/api/games/{game_id}").json
    assert state["clock"]["state"] == "ended" and state["state"]["ending"] == "45.5"
    for page in (f"/display/{game_id}/reloj", f"/overlay/{game_id}/clock", f"/display/{game_id}"):
        assert '"ending": "45.5"' in client.get(page).get_data(as_text=True)
    stored = services(app).games.store.events(game_id)
    assert [e.kind for e in stored].count("end") == 1
    assert stored[-1].at == began + timedelta(minutes=10)  # when the time ran out, not when it was seen
    fresh = ClassicGame.replay(stored, games.lexicon)
    assert fresh.ending == "45.5" and fresh.state.timer is not None and fresh.state.timer.state() == "ended"


def test_only_an_arbiter_corrects_a_clock_and_the_history_says_why(app: Flask, client: FlaskClient,
                                                                   arbiter: FlaskClient) -> None:  # fmt: skip
    """C.36: Ana came four minutes late; the arbiter puts her clock at 26:00 with the reason."""
    game_id = clock_game(app)
    key = device(app)
    client.post(f"/api/games/{game_id}/clock", json={"action": "start", "player": 0}, headers=key)
    correction = {"action": "set", "player": 0, "remaining": 1560, "reason": "llegó 4 minutos tarde (C.36)"}
    refused = client.post(f"/api/games/{game_id}/clock", json=correction, headers=key)
    assert refused.status_code == 403 and "solo un árbitro" in refused.json["error"]  # the clock tablet may not
    assert client.post(f"/display/{game_id}/reloj", json=correction, headers=JSON).status_code in (400, 401)  # no session
    assert client.get(f"/api/games/{game_id}").json["clock"]["players"][0]["remaining"] > 1790  # nothing changed
    without = arbiter.post(f"/display/{game_id}/reloj", json={**correction, "reason": " "},
                           headers={**JSON, "X-CSRF-Token": CSRF})  # fmt: skip
    assert without.status_code == 400 and "motivo" in without.json["error"]
    answer = arbiter.post(f"/display/{game_id}/reloj", json=correction, headers={**JSON, "X-CSRF-Token": CSRF})
    assert answer.status_code == 201
    assert 1555 < answer.json["clock"]["players"][0]["remaining"] <= 1560
    log = arbiter.get(f"/arbiter/g/{game_id}/log").get_data(as_text=True)
    assert "Reloj de Ana corregido por el árbitro: le quedan 26:00 (antes 30:00); motivo: llegó 4 minutos tarde (C.36)" in log
