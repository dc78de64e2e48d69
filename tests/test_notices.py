"""Notices to the room (issue 70): the director posts a short text, every screen and stream shows it until
it is removed, a restart keeps it; and the screens show a QR code to the event's results."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from webapp.records.notices import MAX_NOTICES, NoticeError, Notices, notices_of
from webapp.records.tournaments import tournaments_of
from webapp.services.shared import services
from webapp.views.api import _events

from .web_helpers import ARBITER, duplicate_game, post

pytest_plugins = ["tests.conftest_web"]


def states(stream: Any) -> Any:
    """The ``state`` messages of a live stream, as JSON."""
    for chunk in stream:
        text = chunk.decode()
        if text.startswith("id:"):
            yield json.loads(text.split("data: ", 1)[1])


def test_a_notice_posted_in_the_console_is_on_every_screen_until_removed(app: Flask, arbiter: FlaskClient,
                                                                         client: FlaskClient) -> None:  # fmt: skip
    game_id = duplicate_game(app)
    assert client.get(f"/api/games/{game_id}").json["notices"] == []
    post(arbiter, "/arbiter/avisos", {"text": "  Pausa de 10   minutos "})
    (notice,) = client.get(f"/api/games/{game_id}").json["notices"]
    assert notice["text"] == "Pausa de 10 minutos" and set(notice) == {"id", "text"}  # never who posted it
    assert "Pausa de 10 minutos" in arbiter.get("/arbiter/").text
    assert client.get(f"/emision/{game_id}/estado").json["notices"] == [notice]  # the stream's, not delayed
    assert client.get(f"/overlay/{game_id}/notices").status_code == 200
    post(arbiter, f"/arbiter/avisos/{notice['id']}/quitar")
    assert client.get(f"/api/games/{game_id}").json["notices"] == []


def test_a_live_stream_sends_a_notice_as_it_is_posted(app: Flask) -> None:
    game_id = duplicate_game(app)
    notices = notices_of(app)
    stream = states(_events(services(app).games, game_id, ping=30.0, lifetime=30.0, notices=notices))
    assert next(stream)["notices"] == []
    notices.post("La partida 2 empieza a las 18:00", ARBITER)
    assert [n["text"] for n in next(stream)["notices"]] == ["La partida 2 empieza a las 18:00"]


def test_notices_outlive_a_restart(app: Flask) -> None:
    notices_of(app).post("Pausa de 10 minutos", ARBITER)
    again = Notices(services(app).games.store.engine)
    assert [n.text for n in again.current()] == ["Pausa de 10 minutos"]


@pytest.mark.parametrize(("text", "problem"), [
    ("", "el aviso está vacío"),
    ("Pausa\u202e", "carácter de control o invisible (U+202E)"),
    ("x" * 121, "121 caracteres; como mucho 120"),
])  # fmt: skip
def test_a_bad_notice_is_refused_naming_the_problem(app: Flask, text: str, problem: str) -> None:
    with pytest.raises(NoticeError, match=re.escape(problem)):
        notices_of(app).post(text, ARBITER)
    assert notices_of(app).current() == []


def test_a_screen_holds_a_few_notices_at_most(app: Flask, arbiter: FlaskClient) -> None:
    for number in range(MAX_NOTICES):
        notices_of(app).post(f"Aviso {number}", ARBITER)
    answer = post(arbiter, "/arbiter/avisos", {"text": "Uno más"}, follow_redirects=True)
    assert "quite uno antes de poner otro" in answer.text and len(notices_of(app).current()) == MAX_NOTICES


def test_the_screens_show_a_qr_code_to_the_event_results(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    page = client.get(f"/display/{game_id}").text
    assert 'class="results-qr"' in page and "data:image/svg+xml" in page
    tournament = tournaments_of(app).create("Open", "average_place")
    tournaments_of(app).add_game(tournament, game_id)
    app.config["PUBLIC_URL"] = "https://torneo.example.org/"
    with app.test_request_context():
        from webapp.views.display import results_link

        assert results_link(game_id)["url"] == f"https://torneo.example.org/results/torneo/{tournament}"
    assert 'class="results-qr"' not in client.get(f"/overlay/{game_id}/board").text  # a stream's part: no QR


def test_the_waiting_screen_between_games_shows_the_notices(app: Flask, arbiter: FlaskClient,
                                                            client: FlaskClient) -> None:  # fmt: skip
    """A table with no game yet (before the round, between games) shows the room's notices, and the
    answer its page polls carries them, so a notice posted or removed reaches it without a reload."""
    assert 'class="notice"' not in client.get("/display/mesa/9").text
    post(arbiter, "/arbiter/avisos", {"text": "La partida 2 empieza a las 18:00"})
    page = client.get("/display/mesa/9").text
    assert '<span class="notice">La partida 2 empieza a las 18:00</span>' in page and "with-notices" in page
    (notice,) = client.get("/display/mesa/9/objetivo").json["notices"]
    assert notice["text"] == "La partida 2 empieza a las 18:00"
    assert "La partida 2 empieza a las 18:00" in client.get("/display/mesa/9/reloj").text  # the table's clock too
    post(arbiter, f"/arbiter/avisos/{notice['id']}/quitar")
    assert client.get("/display/mesa/9/objetivo").json["notices"] == []
