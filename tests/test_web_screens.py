"""The venue's named screens (issue 7.1): each shows the game the venue file says, and follows it."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from hardware.venue import load_venue
from rules_core.classic import ClassicGame
from webapp.services.shared import services
from webapp.views import screens

from .web_helpers import duplicate_game

pytest_plugins = ["tests.conftest_web"]

VENUE = """
name = "Sede de prueba"
database = "sqlite:///veedor.db"
data = "datos"

[[tables]]
number = 1
camera = "mesa1"

[[tables]]
number = 2
camera = "mesa2"

[[cameras]]
name = "mesa1"
source = "marcos1"

[[cameras]]
name = "mesa2"
source = "marcos2"

[[screens]]
name = "pantalla1"
shows = "table:1"

[[screens]]
name = "sala"
shows = "rotate:1,2"

[[screens]]
name = "duplicada"
shows = "duplicate"
"""


@pytest.fixture()
def venue_app(app: Flask, tmp_path: Path) -> Flask:
    for folder in ("marcos1", "marcos2"):
        (tmp_path / folder).mkdir()
    (tmp_path / "sede.toml").write_text(VENUE, encoding="utf-8")
    app.config["VENUE"] = load_venue(tmp_path / "sede.toml")
    for camera in ("mesa1", "mesa2"):
        services(app).cameras.add(camera, kind="node", table=int(camera[-1]))
    return app


def _classic(app: Flask, name: str) -> str:
    return services(app).games.create("classic", name, ClassicGame.create_event(["Ana", "Bruno"]))


def test_a_table_screen_waits_then_shows_the_game_its_camera_is_attached_to(venue_app: Flask, client: FlaskClient) -> None:
    waiting = client.get("/display/pantalla/pantalla1")
    assert waiting.status_code == 200 and "todavía no tiene ninguna partida" in waiting.get_data(as_text=True)
    assert client.get("/display/pantalla/pantalla1/objetivo").get_json()["game"] is None

    game_id = _classic(venue_app, "Mesa 1, ronda 1")
    services(venue_app).cameras.attach("mesa1", game_id)
    shown = client.get("/display/pantalla/pantalla1")
    assert shown.status_code == 302 and shown.headers["Location"].endswith(f"/display/{game_id}?pantalla=pantalla1")
    page = client.get(shown.headers["Location"]).get_data(as_text=True)
    assert "screen_follow.js" in page  # the page keeps asking what to show

    next_round = _classic(venue_app, "Mesa 1, ronda 2")
    services(venue_app).cameras.attach("mesa1", next_round)
    assert client.get("/display/pantalla/pantalla1/objetivo").get_json()["game"] == next_round


def test_a_rotating_screen_shows_each_table_in_turn(venue_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _classic(venue_app, "Mesa 1"), _classic(venue_app, "Mesa 2")
    services(venue_app).cameras.attach("mesa1", first)
    services(venue_app).cameras.attach("mesa2", second)
    with venue_app.app_context():
        period = screens.ROTATE_SECONDS
        assert [screens.target("rotate:1,2", t) for t in (0, period, 2 * period)] == [first, second, first]
        assert screens.target("rotate:3", 0) is None  # a table with no game is skipped


def test_the_duplicate_screen_follows_the_current_duplicate_game(venue_app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(venue_app)
    response = client.get("/display/pantalla/duplicada")
    assert response.status_code == 302 and f"/display/{game_id}" in response.headers["Location"]


def test_an_unknown_screen_is_a_404_naming_it(venue_app: Flask, client: FlaskClient) -> None:
    response = client.get("/display/pantalla/cocina")
    assert response.status_code == 404 and "cocina" in response.get_data(as_text=True)


def test_the_screen_list_names_the_venue_screens(venue_app: Flask, client: FlaskClient) -> None:
    page = client.get("/display").get_data(as_text=True)
    assert "/display/pantalla/sala" in page and "rotate:1,2" in page
