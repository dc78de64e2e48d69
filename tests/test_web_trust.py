"""Nothing forged, nothing broken by odd input, no hurried click scored silently (issue 19).

Each test reproduces one of the failures found when Veedor was attacked and misused on
purpose: device tokens writing anything anywhere, a refused slip that still changed the
round, a lone surrogate that broke every page, formula cells in the CSVs, sessions that
outlived their logout, a raced lockout, 500s on odd parameters, and the console's traps.
"""

from __future__ import annotations

import csv
import io
import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text

from rules_core.events import Event
from webapp.services.accounts import Accounts
from webapp.services.login_throttle import MAX_FAILURES
from webapp.services.shared import services

from .web_helpers import ARBITER, CSRF, PASSWORD, csrf_from, duplicate_game, event_count, post

pytest_plugins = ["tests.conftest_web"]

JSON = {"Accept": "application/json"}


def bearer(app: Flask, name: str, role: str, games: tuple[str, ...] = ()) -> dict[str, str]:
    return {"Authorization": f"Bearer {services(app).accounts.add_device(name, role, games)}"}


def slip_event(player: str, notation: Any, number: int = 1, **slip: Any) -> dict[str, Any]:
    return {"kind": "slip", "data": {"round": number, "player": player, "slip": {"notation": notation, **slip}}}


def round_one(app: Flask, game_id: str) -> Any:
    with services(app).games.reading(game_id) as game:
        return game.round(1)


# -- events are all or nothing ----------------------------------------------------------


def test_a_refused_device_slip_leaves_the_round_as_it_was(app: Flask, client: FlaskClient, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    scanner = bearer(app, "escaner-1", "scanner")
    refused = client.post(f"/api/games/{game_id}/events", json=slip_event("j1", 123), headers=scanner)
    assert refused.status_code == 409 and "notation" in refused.json["error"]
    assert "j1" not in round_one(app, game_id).slips  # no phantom slip
    state = arbiter.get(f"/arbiter/g/{game_id}/state", headers=JSON).json
    assert 1 in state["missing"]  # table 1 still has to hand in
    real = client.post(f"/api/games/{game_id}/events", json=slip_event("j1", "H3 AMONEN"), headers=scanner)
    assert real.status_code == 201 and round_one(app, game_id).results["j1"].score == 22


# -- text at the boundary ---------------------------------------------------------------


def test_a_lone_surrogate_is_refused_and_breaks_no_page(app: Flask, client: FlaskClient, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    scanner = bearer(app, "escaner-1", "scanner")
    before = event_count(app, game_id)
    body = '{"kind": "slip", "data": {"round": 1, "player": "j1", "slip": {"notation": "x\\ud800y"}}}'
    answer = client.post(f"/api/games/{game_id}/events", data=body, content_type="application/json", headers=scanner)
    assert answer.status_code == 400 and "Unicode" in answer.json["error"]
    assert event_count(app, game_id) == before
    for page in (f"/arbiter/g/{game_id}", f"/arbiter/g/{game_id}/papeletas"):
        assert arbiter.get(page).status_code == 200
    assert client.get(f"/results/{game_id}").status_code == 200


@pytest.mark.parametrize("field", ["x\x00y", "a\x1bb", "H3 AMONEN\x7f"])
def test_control_characters_in_a_form_are_a_400_naming_the_field(app: Flask, arbiter: FlaskClient, field: str) -> None:
    game_id = duplicate_game(app)
    answer = post(arbiter, f"/arbiter/g/{game_id}/slip", {"table": "1", "play": field}, headers=JSON)
    assert answer.status_code == 400 and "play" in answer.json["error"]
    assert "j1" not in round_one(app, game_id).slips


@pytest.mark.parametrize("number", ["abc", [1], 1e400, float("nan"), True, -3, 0])
def test_a_bad_round_number_is_a_400(app: Flask, client: FlaskClient, number: Any) -> None:
    game_id = duplicate_game(app)
    scanner = bearer(app, "escaner-1", "scanner")
    import json

    body = json.dumps({"table": 1, "round": number, "notation": "H3 AMONEN"})  # NaN and Infinity as Python writes them
    answer = client.post(f"/api/games/{game_id}/slips", data=body, content_type="application/json", headers=scanner)
    assert answer.status_code == 400, answer.text
    assert "j1" not in round_one(app, game_id).slips


def test_deeply_nested_json_is_a_400(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    scanner = bearer(app, "escaner-1", "scanner")
    deep = "[" * 50_000 + "]" * 50_000
    answer = client.post(f"/api/games/{game_id}/slips", data=deep, content_type="application/json", headers=scanner)
    assert answer.status_code == 400 and "anidado" in answer.json["error"]


def test_a_line_break_in_next_is_not_followed(client: FlaskClient) -> None:
    token = csrf_from(client.get("/login").text)
    data = {"csrf_token": token, "login": ARBITER, "password": PASSWORD, "next": "/arbiter/\r\nSet-Cookie: x=1"}
    answer = client.post("/login", data=data)
    assert answer.status_code in (302, 400) and "Set-Cookie: x" not in str(answer.headers)
    assert client.get("/login?next=/arbiter/%0d%0aX:1").status_code in (200, 400)


# -- device scopes ----------------------------------------------------------------------


def test_a_scanner_token_cannot_post_a_classic_turn_or_camera_messages(app: Flask, client: FlaskClient) -> None:
    from rules_core.classic import ClassicGame

    classic = services(app).games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bea"]))
    scanner = bearer(app, "escaner-1", "scanner")
    turn = {"kind": "play", "data": {"player": 0, "notation": "H8 CASA"}}
    assert client.post(f"/api/games/{classic}/events", json=turn, headers=scanner).status_code == 400
    assert client.post("/api/cameras/messages", json={"camera": "mesa1", "messages": []}, headers=scanner).status_code == 403
    camera = bearer(app, "camara-1", "camera")
    assert client.post(f"/api/games/{classic}/events", json=turn, headers=camera).status_code == 201
    game_id = duplicate_game(app)
    assert client.post(f"/api/games/{game_id}/events", json=slip_event("j1", "H3 AMONEN"), headers=camera).status_code == 400


def test_a_device_limited_to_games_writes_only_to_them(app: Flask, client: FlaskClient) -> None:
    mine, other = duplicate_game(app), duplicate_game(app)
    scanner = bearer(app, "escaner-1", "scanner", (mine,))
    slip = {"table": 1, "notation": "H3 AMONEN"}
    assert client.post(f"/api/games/{other}/slips", json=slip, headers=scanner).status_code == 403
    assert client.post(f"/api/games/{mine}/slips", json=slip, headers=scanner).status_code == 201


def test_the_server_sets_the_source_from_the_token(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    scanner = bearer(app, "escaner-1", "scanner")
    answer = client.post(f"/api/games/{game_id}/slips", json={"table": 1, "notation": "H3 AMONEN", "source": "teclado"},
                         headers=scanner)  # fmt: skip
    assert answer.status_code == 201 and round_one(app, game_id).slips["j1"].source == "escáner"


def test_a_device_slip_for_a_published_round_or_an_ended_game_is_refused(app: Flask, client: FlaskClient,
                                                                         arbiter: FlaskClient) -> None:  # fmt: skip
    game_id = duplicate_game(app)
    scanner = bearer(app, "escaner-1", "scanner")
    services(app).games.append(game_id, Event("master_announced", {"round": 1}, ARBITER))
    late = client.post(f"/api/games/{game_id}/slips", json={"table": 1, "round": 1, "notation": "H3 AMONEN"}, headers=scanner)
    assert late.status_code == 409 and "no está en juego" in late.json["error"]
    assert "j1" not in round_one(app, game_id).slips  # a player did not move from 14th to 1st
    without = post(arbiter, f"/arbiter/g/{game_id}/slip", {"round": "1", "table": "1", "play": "H3 AMONEN"}, headers=JSON)
    assert without.status_code == 409 and "motivo" in without.json["error"]
    services(app).games.append(game_id, Event("game_ended", {}, ARBITER))
    ended = client.post(f"/api/games/{game_id}/slips", json={"table": 2, "round": 1, "notation": "H3 AMONEN"}, headers=scanner)
    assert ended.status_code == 409 and "terminado" in ended.json["error"]


def test_a_token_made_before_roles_is_refused_until_registered_again(tmp_path: Any) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'vieja.db'}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE devices (name VARCHAR(64) PRIMARY KEY, token_sha256 VARCHAR(64) "
                                "NOT NULL UNIQUE, created_at DATETIME NOT NULL)"))  # fmt: skip
        connection.execute(text("INSERT INTO devices VALUES ('viejo', "
                                "'2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae', '2026-01-01')"))
    device = Accounts(engine).device_for_token("foo")  # sha256("foo") is the stored hash
    assert device is not None and device.name == "viejo" and device.role is None


# -- CSV ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ['=HYPERLINK("http://x","y")', "@SUM(A1)", "+1", "-1+1"])
def test_a_formula_name_is_written_as_text_in_the_csvs(app: Flask, client: FlaskClient, name: str) -> None:
    game_id = duplicate_game(app)
    services(app).games.append(game_id, Event("player_added", {"player": "j9", "name": f"{name} X", "table": 9}))
    services(app).games.append(game_id, Event("master_announced", {"round": 1}))
    for csv_name in ("clasificacion.csv", "rondas.csv"):
        body = client.get(f"/results/{game_id}/{csv_name}").data.decode("utf-8-sig")
        cells = [cell for row in csv.reader(io.StringIO(body), delimiter=";") for cell in row]
        assert f"'{name} X" in cells and f"{name} X" not in cells, csv_name


def test_a_cell_starting_with_a_tab_or_a_carriage_return_is_text_too() -> None:
    from rules_core.results_csv import as_text_cell

    assert [as_text_cell(v) for v in ("\tx", "\rx", "Ana", 12, -3)] == ["'\tx", "'\rx", "Ana", 12, -3]


# -- sessions and logins ------------------------------------------------------------------


def login(app: Flask) -> FlaskClient:
    client = app.test_client()
    token = csrf_from(client.get("/login").text)
    client.post("/login", data={"csrf_token": token, "login": ARBITER, "password": PASSWORD})
    assert client.get("/arbiter/").status_code == 200
    return client


def copied(app: Flask, client: FlaskClient) -> FlaskClient:
    """Another browser with a copy of ``client``'s session cookie."""
    thief = app.test_client()
    cookie = client.get_cookie("session")
    assert cookie is not None
    thief.set_cookie("session", cookie.value)
    return thief


def test_a_cookie_copied_before_logout_no_longer_works(app: Flask) -> None:
    client = login(app)
    thief = copied(app, client)
    assert thief.get("/arbiter/").status_code == 200
    client.post("/logout", data={"csrf_token": csrf_from(client.get("/arbiter/").text)})
    assert thief.get("/arbiter/").status_code == 302


def test_removing_and_adding_an_arbiter_again_does_not_revive_a_session(app: Flask) -> None:
    thief = copied(app, login(app))
    accounts = services(app).accounts
    accounts.remove_arbiter(ARBITER)
    accounts.add_arbiter(ARBITER, PASSWORD)
    assert thief.get("/arbiter/").status_code == 302


def test_a_password_change_ends_every_session(app: Flask) -> None:
    first, second = login(app), login(app)
    services(app).accounts.set_password(ARBITER, "otra-clave-larga")
    assert first.get("/arbiter/").status_code == 302 and second.get("/arbiter/").status_code == 302


def test_simultaneous_wrong_passwords_are_not_all_checked(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    accounts = services(app).accounts
    checked = []
    real = accounts.check_password
    monkeypatch.setattr(accounts, "check_password", lambda login, password: checked.append(login) or real(login, password))
    client = app.test_client()
    token = csrf_from(client.get("/login").text)
    cookie = client.get_cookie("session")
    assert cookie is not None

    def attempt() -> None:
        other = app.test_client()
        other.set_cookie("session", cookie.value)
        other.post("/login", data={"csrf_token": token, "login": ARBITER, "password": "clave-mala-123"})

    threads = [threading.Thread(target=attempt) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(checked) == MAX_FAILURES


def test_one_arbiters_typos_do_not_lock_out_another_from_the_same_address(app: Flask) -> None:
    services(app).accounts.add_arbiter("segunda", "clave-de-la-segunda")
    client = app.test_client()
    token = csrf_from(client.get("/login").text)
    for _ in range(MAX_FAILURES + 2):
        client.post("/login", data={"csrf_token": token, "login": ARBITER, "password": "clave-mala-123"})
    locked = client.post("/login", data={"csrf_token": token, "login": ARBITER, "password": PASSWORD})
    assert locked.status_code == 429
    other = client.post("/login", data={"csrf_token": token, "login": "segunda", "password": "clave-de-la-segunda"})
    assert other.status_code == 302


# -- the console's safeguards ---------------------------------------------------------------


def test_enter_pressed_twice_shows_the_stored_slip(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    slip = {"table": "1", "play": "H3 AMONEN"}
    first = post(arbiter, f"/arbiter/g/{game_id}/slip", slip, headers=JSON).json
    again = post(arbiter, f"/arbiter/g/{game_id}/slip", slip, headers=JSON)
    assert again.status_code == 200 and again.json["repeated"] and again.json["result"] == first["result"]
    assert len(round_one(app, game_id).history) == 1


@pytest.mark.parametrize("typed", ["CASA H8", "H16ADOREIS", "h3 adoreis"])  # H3ADOREIS reads as H3 ADOREIS
def test_a_typing_slip_asks_for_a_second_enter(app: Flask, arbiter: FlaskClient, typed: str) -> None:
    game_id = duplicate_game(app)
    asked = post(arbiter, f"/arbiter/g/{game_id}/slip", {"table": "1", "play": typed}, headers=JSON)
    assert asked.status_code == 200 and asked.json["confirm"] and typed in asked.json["confirm"]
    assert "j1" not in round_one(app, game_id).slips
    confirmed = post(arbiter, f"/arbiter/g/{game_id}/slip", {"table": "1", "play": typed, "confirm": "1"}, headers=JSON)
    assert confirmed.json["result"]["score"] == 0 and "j1" in round_one(app, game_id).slips


def test_publishing_the_master_before_time_asks_for_a_confirmation(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    post(arbiter, f"/arbiter/g/{game_id}/timer", {"action": "start"})
    early = post(arbiter, f"/arbiter/g/{game_id}/master", {}, follow_redirects=True)
    assert "Quedan 2:5" in early.text or "Quedan 3:00" in early.text
    assert round_one(app, game_id).master is None
    post(arbiter, f"/arbiter/g/{game_id}/master", {"early": "1"})
    assert round_one(app, game_id).master is not None


def test_a_published_master_after_time_needs_no_confirmation(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    post(arbiter, f"/arbiter/g/{game_id}/timer", {"action": "start"})
    post(arbiter, f"/arbiter/g/{game_id}/timer", {"action": "close"})
    post(arbiter, f"/arbiter/g/{game_id}/master", {})
    assert round_one(app, game_id).master is not None


def test_the_csrf_fixture_token_is_the_sessions(app: Flask, arbiter: FlaskClient) -> None:
    """Guards the fixtures the tests above rely on: a POST without the token changes nothing."""
    game_id = duplicate_game(app)
    before = event_count(app, game_id)
    arbiter.post(f"/arbiter/g/{game_id}/slip", data={"table": "1", "play": "H3 AMONEN"})
    assert event_count(app, game_id) == before and CSRF
