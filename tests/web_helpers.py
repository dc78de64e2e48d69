"""Helpers for the web app's tests: the test arbiter, a game in play, POSTs with the CSRF token."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from webapp.services.shared import services
from webapp.views.auth import SESSION_ID

ARBITER = "arbitro"
PASSWORD = "clave-de-prueba-1"
CSRF = "token-de-prueba"
PLAYERS = [(1, "Ana"), (2, "Bea"), (3, "Ciro")]


def post(client: FlaskClient, url: str, data: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """A console POST with the session's CSRF token."""
    return client.post(url, data={"csrf_token": CSRF, **(data or {})}, **kwargs)


def csrf_from(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "no CSRF token in the page"
    return match.group(1)


def duplicate_game(app: Flask, *, rounds: int | None = None, bonuses: bool = True, rack: str | None = "AEMNNOQ") -> str:
    """A duplicate game with three players and, unless ``rack`` is None, round 1's rack set.

    Round 1 with A E M N N O Q on the empty board: the top score is 22 (H3 AMONEN).
    """
    from rules_core.duplicate import DuplicateSettings
    from rules_core.events import Event

    games = services(app).games
    game_id = games.create_duplicate("Open de prueba", DuplicateSettings(rounds=rounds, bonuses=bonuses), actor=ARBITER)
    for table, name in PLAYERS:
        games.append(game_id, Event("player_added", {"player": f"j{table}", "name": name, "table": table}))
    if rack:
        games.append(game_id, Event("rack_set", {"round": 1, "rack": list(rack), "source": "manual"}))
    return game_id


def event_count(app: Flask, game_id: str) -> int:
    return services(app).games.store.game(game_id).event_count


def arbiter_client(app: Flask) -> FlaskClient:
    """A new client logged in as the test arbiter, with the CSRF token ``CSRF``."""
    client = app.test_client()
    with client.session_transaction() as session:
        session["arbiter"] = ARBITER
        session[SESSION_ID] = services(app).accounts.open_session(ARBITER)
        session["csrf_token"] = CSRF
    return client
