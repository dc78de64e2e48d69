"""Who may change what: arbiter logins, CSRF, device tokens; anonymous requests change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from webapp.records.notices import notices_of
from webapp.records.tournaments import TournamentPlayer, tournaments_of
from webapp.services.shared import services

from .web_helpers import ARBITER, CSRF, PASSWORD, csrf_from, duplicate_game, event_count, post

pytest_plugins = ["tests.conftest_web"]


def url_values(app: Flask, game_id: str) -> dict[str, Any]:
    tournament = tournaments_of(app).create("Open", "average_place", [TournamentPlayer("1001", "Ana", 1, licence="1001"),
                                                                      TournamentPlayer("1002", "Bea", 2, licence="1002")])
    notice = notices_of(app).post("Pausa de 10 minutos", ARBITER)
    return {"game_id": game_id, "number": 1, "player": "j1", "tournament_id": tournament, "notice_id": notice.id}


def state_changing_urls(app: Flask, game_id: str) -> list[str]:
    """Every POST route of the app, its placeholders filled for ``game_id``."""
    urls = []
    filled = url_values(app, game_id)
    with app.test_request_context():
        from flask import url_for

        for rule in app.url_map.iter_rules():
            if "POST" in (rule.methods or set()) and rule.endpoint != "static":
                values = {k: v for k, v in filled.items() if k in rule.arguments}
                urls.append(url_for(rule.endpoint, **values))
    return urls


def test_login_with_the_right_password_opens_the_console(client: FlaskClient) -> None:
    page = client.get("/login")
    token = csrf_from(page.text)
    answer = client.post("/login", data={"csrf_token": token, "login": ARBITER, "password": PASSWORD})
    assert answer.status_code == 302 and answer.location.endswith("/arbiter/")
    assert client.get("/arbiter/").status_code == 200


def test_a_wrong_password_is_refused(client: FlaskClient) -> None:
    token = csrf_from(client.get("/login").text)
    answer = client.post("/login", data={"csrf_token": token, "login": ARBITER, "password": "otra-clave-mala"})
    assert answer.status_code == 401
    assert "incorrectos" in answer.text
    assert client.get("/arbiter/").status_code == 302


def test_login_follows_only_local_next_pages(client: FlaskClient) -> None:
    token = csrf_from(client.get("/login").text)
    data = {"csrf_token": token, "login": ARBITER, "password": PASSWORD, "next": "https://evil.example/x"}
    assert client.post("/login", data=data).location.endswith("/arbiter/")


def test_repeated_failures_lock_the_address_out(client: FlaskClient) -> None:
    token = csrf_from(client.get("/login").text)
    for _ in range(5):
        client.post("/login", data={"csrf_token": token, "login": ARBITER, "password": "mala-clave-123"})
    answer = client.post("/login", data={"csrf_token": token, "login": ARBITER, "password": PASSWORD})
    assert answer.status_code == 429


def test_passwords_are_stored_hashed(app: Flask) -> None:
    from sqlalchemy import select

    from webapp.services.accounts import arbiters

    with services(app).accounts.engine.connect() as connection:
        stored = connection.execute(select(arbiters.c.password_hash)).scalar_one()
    assert PASSWORD not in stored and stored.startswith("scrypt:")


def test_logout_ends_the_session(arbiter: FlaskClient) -> None:
    assert arbiter.get("/arbiter/").status_code == 200
    assert post(arbiter, "/logout").status_code == 302
    assert arbiter.get("/arbiter/").status_code == 302


def test_the_console_pages_need_a_login(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    for url in ["/arbiter/", f"/arbiter/g/{game_id}", f"/arbiter/g/{game_id}/log"]:
        answer = client.get(url)
        assert answer.status_code == 302 and "/login" in answer.location, url
    assert client.get(f"/arbiter/g/{game_id}/state", headers={"Accept": "application/json"}).status_code == 401
    assert client.get(f"/arbiter/g/{game_id}/check?table=1&play=H8+CASA").status_code in (302, 401)


def test_an_anonymous_post_changes_nothing(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    games_before = len(services(app).games.store.games())
    before = event_count(app, game_id)
    urls = state_changing_urls(app, game_id)
    assert len(urls) >= 12
    for url in urls:
        data = {"csrf_token": "adivinado", "table": "1", "play": "H3 AMONEN", "action": "start", "players": "9 Intrusa",
                "name": "x", "player1": "a", "player2": "b", "login": ARBITER, "password": "no-es-la-clave"}  # fmt: skip
        answer = client.post(url, data=data)
        assert answer.status_code in (302, 400, 401, 404, 405), url
        assert answer.status_code != 200 or url == "/login", url
    assert event_count(app, game_id) == before
    assert len(services(app).games.store.games()) == games_before
    assert [n.text for n in notices_of(app).current()] == ["Pausa de 10 minutos"] and len(tournaments_of(app).all()) == 1


def test_an_arbiter_post_without_the_csrf_token_is_refused(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    before = event_count(app, game_id)
    for url in state_changing_urls(app, game_id):
        if url.startswith("/api/"):
            continue
        answer = arbiter.post(url, data={"table": "1", "play": "H3 AMONEN", "action": "start"})
        assert answer.status_code == 400, url
        assert "caducado" in answer.text
    assert event_count(app, game_id) == before


def test_the_csrf_token_may_come_in_a_header(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    answer = arbiter.post(f"/arbiter/g/{game_id}/slip", data={"table": "1", "play": "H3 AMONEN"},
                          headers={"X-CSRF-Token": CSRF, "Accept": "application/json"})  # fmt: skip
    assert answer.status_code == 200 and answer.json["result"]["score"] == 22


def test_the_api_needs_a_device_token_to_write(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    before = event_count(app, game_id)
    body = {"kind": "slip", "data": {"round": 1, "player": "j1", "slip": {"notation": "H3 AMONEN"}}}
    for headers in ({}, {"Authorization": "Bearer inventado"}, {"Authorization": "Basic abc"}):
        answer = client.post(f"/api/games/{game_id}/events", json=body, headers=headers)
        assert answer.status_code == 401 and answer.is_json and answer.json["status"] == 401
    assert event_count(app, game_id) == before


def test_an_arbiter_session_does_not_open_the_device_api(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    answer = arbiter.post(f"/api/games/{game_id}/slips", json={"table": 1, "notation": "H3 AMONEN"},
                          headers={"X-CSRF-Token": CSRF})  # fmt: skip
    assert answer.status_code == 401


def test_a_revoked_device_token_stops_working(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    token = services(app).accounts.add_device("escaner-1", "scanner")
    headers = {"Authorization": f"Bearer {token}"}
    assert client.post(f"/api/games/{game_id}/slips", json={"table": 1, "notation": "H3 AMONEN"},
                       headers=headers).status_code == 201  # fmt: skip
    services(app).accounts.remove_device("escaner-1")
    assert client.post(f"/api/games/{game_id}/slips", json={"table": 2, "notation": "H3 AMONEN"},
                       headers=headers).status_code == 401  # fmt: skip


def test_the_session_cookie_is_http_only_and_same_site(client: FlaskClient) -> None:
    answer = client.get("/login")
    cookie = answer.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


@pytest.mark.parametrize("password", ["", "corta"])
def test_short_passwords_are_refused(app: Flask, password: str) -> None:
    from webapp.services.accounts import AccountError

    with pytest.raises(AccountError, match="al menos 8"):
        services(app).accounts.add_arbiter("otro", password)
