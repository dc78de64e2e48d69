"""Streams: overlays per part, per-table URLs, embedding, the delayed views and their analysis."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from flask import Flask
from flask.testing import FlaskClient

from rules_core.classic import ClassicGame
from rules_core.events import Event
from rules_core.slips import Slip
from webapp.services.shared import services
from webapp.views.overlay import PARTS, delayed_message

from .web_helpers import duplicate_game

pytest_plugins = ["tests.conftest_web"]


def test_every_part_has_an_overlay_page(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    for part in PARTS:
        page = client.get(f"/overlay/{game_id}/{part}")
        assert page.status_code == 200, part
        assert 'class="overlay"' in page.text and f'data-part="{part}"' in page.text
        assert f"/api/games/{game_id}/stream" in page.text  # no delay: live
    assert client.get(f"/overlay/{game_id}/reloj").status_code == 404
    assert client.get("/overlay/00000000-0000-0000-0000-000000000000/board").status_code == 404
    assert client.get(f"/overlay/{game_id}/board?retraso=-1").status_code == 400
    assert client.get(f"/overlay/{game_id}/board?retraso=nan").status_code == 400


def test_a_table_url_follows_the_tables_game(app: Flask, client: FlaskClient) -> None:
    games = services(app).games
    assert "todavía no tiene ninguna partida" in client.get("/overlay/mesa/3/scores").text
    first = games.create("classic", "Mesa 3", ClassicGame.create_event(["Ana", "Bea"], title="Mesa 3"))
    assert first in client.get("/overlay/mesa/3/scores").text
    second = games.create("classic", "Mesa 3, ronda 2", ClassicGame.create_event(["Ciro", "Dora"]))
    page = client.get("/overlay/mesa/3/scores").text
    assert second in page and first not in page  # the game the table plays now
    assert 'data-target="/display/mesa/3/objetivo"' in page and 'data-screen="/overlay/mesa/3/scores"' in page
    assert second in client.get("/emision/mesa/3?retraso=1").text


def test_embedding_only_from_the_listed_origins(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    closed = client.get(f"/display/{game_id}")
    assert "frame-ancestors 'none'" in closed.headers["Content-Security-Policy"]
    assert closed.headers["X-Frame-Options"] == "DENY"
    own = client.get(f"/overlay/{game_id}/board")  # framed by the stream's own scene and grid of tables
    assert "frame-ancestors 'self';" in own.headers["Content-Security-Policy"]
    assert own.headers["X-Frame-Options"] == "SAMEORIGIN"
    app.config["EMBED_ORIGINS"] = "https://obs.example.org, https://club.example.es:8443 javascript:alert(1)"
    for url, ours in ((f"/overlay/{game_id}/board", "'self' "), (f"/display/{game_id}", ""), (f"/emision/{game_id}", "'self' ")):
        page = client.get(url)
        policy = page.headers["Content-Security-Policy"]
        assert f"frame-ancestors {ours}https://obs.example.org https://club.example.es:8443;" in policy, url
        assert "javascript" not in policy and "X-Frame-Options" not in page.headers
    arbiter = client.get("/arbiter/")
    assert "frame-ancestors 'none'" in arbiter.headers["Content-Security-Policy"]  # the console never


def test_the_organisers_delay_is_the_least(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    services(app).games.append(game_id, Event("master_announced", {"round": 1}))
    app.config["OVERLAY_DELAY_MINUTES"] = 2
    page = client.get(f"/overlay/{game_id}/board?retraso=0")
    assert f"/api/games/{game_id}/stream" not in page.text and f"/emision/{game_id}/estado?retraso=2" in page.text
    short = client.get(f"/emision/{game_id}/estado?retraso=0").json
    assert short["delay"] == "2" and "analysis" not in short  # less than the broadcast's 5 minutes
    assert "analysis" in client.get(f"/emision/{game_id}/estado?retraso=5").json
    assert 'data-poll="/emision/' in client.get(f"/emision/{game_id}").text  # the broadcast: 5 minutes behind


def test_a_delayed_view_never_shows_a_play_before_the_delay(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    games = services(app).games
    games.append(game_id, Event("slip", {"round": 1, "player": "j1", "slip": Slip("H3 AMONEN").to_json()}))
    games.append(game_id, Event("master_announced", {"round": 1}))
    published = datetime.now(timezone.utc)
    delay = 0.05  # three seconds
    app.config["BROADCAST_DELAY_MINUTES"] = delay  # the analysis comes with a delay this long
    url = f"/emision/{game_id}/estado?retraso={delay}"
    while datetime.now(timezone.utc) < published + timedelta(minutes=delay) - timedelta(seconds=0.3):
        early = client.get(url)
        assert early.status_code == 200 and early.headers["Cache-Control"] == "no-store"
        assert "AMONEN" not in early.text and early.json["state"]["master"] is None
        assert early.json["state"]["board"][7] == [""] * 15
        time.sleep(0.5)
    time.sleep(0.6)
    later = client.get(url).json
    assert later["state"]["master"]["play"] == "H3 AMONEN"
    assert later["analysis"]["plays"][0] == {"play": "H3 AMONEN", "score": 22, "played": True}
    assert later["analysis"]["rank"] == 1 and later["analysis"]["count"] > 1
    live = client.get(f"/api/games/{game_id}").json
    assert "analysis" not in live  # the room's screen never carries the analysis


def test_the_delayed_state_is_the_game_as_it_was(app: Flask) -> None:
    game_id = duplicate_game(app)
    games = services(app).games
    games.append(game_id, Event("master_announced", {"round": 1}))
    with app.test_request_context():
        now = datetime.now(timezone.utc)
        before = delayed_message(game_id, 10, now)
        after = delayed_message(game_id, 10, now + timedelta(minutes=11))
    assert before["state"]["phase"] == "espera" and before.get("analysis") is None
    assert after["state"]["phase"] == "maestra" and after["state"]["master"]["play"] == "H3 AMONEN"


def test_a_classic_plays_analysis_ranks_the_play(app: Flask) -> None:
    games = services(app).games
    app.config["BROADCAST_DELAY_MINUTES"] = 1
    game_id = games.create("classic", "Mesa 2", ClassicGame.create_event(["Ana", "Bea"]))
    games.append(game_id, ClassicGame.play_event(0, "H4 MANEN", rack="AEMNNOQ"))
    with app.test_request_context():
        later = delayed_message(game_id, 1, datetime.now(timezone.utc) + timedelta(minutes=2))
    analysis = later["analysis"]
    assert analysis["title"] == "Ana · H4 MANEN"
    assert analysis["plays"][0]["score"] == 22 and not analysis["plays"][0]["played"]
    assert analysis["rank"] > 1  # MANEN scores less than the top
    games.append(game_id, ClassicGame.play_event(1, "I8 NO"))  # no rack given: no analysis
    with app.test_request_context():
        unknown = delayed_message(game_id, 1, datetime.now(timezone.utc) + timedelta(minutes=2))
    assert unknown["analysis"] == {"title": "Bea · I8 NO", "player": "Bea", "play": "I8 NO", "plays": None}
