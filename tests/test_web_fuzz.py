"""Every route, fed at random: never a 500, never a change without the right to make it (issue 19).

Hypothesis draws requests for every route of the app: a method, the route's path with
real or odd values, a query, a form or a JSON body of odd values (wrong types, huge
numbers, NaN, control characters, deep nesting), and who asks: nobody, a device of
each role, an arbiter without the CSRF token, or an arbiter with it. An answer of 500 fails; so
does any change to the stored games or accounts by a caller who may not make it.
The live stream is left out (it holds its request open by design; ``test_web_live``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from webapp.services.accounts import arbiters, devices
from webapp.services.shared import services
from webapp.services.store import events as stored_events

from .web_helpers import CSRF, arbiter_client, duplicate_game

pytest_plugins = ["tests.conftest_web"]

PLAUSIBLE = st.sampled_from(["1", "2", "3", "0", "H3 AMONEN", "H8 CASA", "8C AMONEN", "start", "pause", "close", "draw",
                             "manual", "AEMNNOQ", "Ana", "j1", "mesa1", "1", "on", "aceptar", "descartar", "es", "-"])
ODD = st.sampled_from(["", "h3 adoreis", "CASA H8", "1e400", "NaN", "[1]", "\r\n", "x\x00y", "../../etc/passwd", "9" * 30])
PRINTABLE = st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=12)
ODD_TEXT = st.one_of(PLAUSIBLE, PLAUSIBLE, PLAUSIBLE, PRINTABLE, ODD)  # mostly plausible: reach the rules
ODD_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(), ODD_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(ODD_TEXT, inner, max_size=3)),
    max_leaves=8,
)
KEYS = ["round", "table", "play", "notation", "kind", "data", "slip", "player", "reason", "action", "rack", "name",
        "camera", "messages", "title", "player1", "player2", "players", "login", "password", "next", "item", "decision",
        "game", "early", "confirm", "ronda", "lang"]  # fmt: skip
CALLERS = ["nobody", "scanner", "camera", "node", "arbiter_no_csrf", "arbiter", "arbiter", "arbiter", "arbiter"]


def _state(app: Flask) -> tuple[int, ...]:
    """What a forbidden request must not change: stored events, games, accounts, devices."""
    engine = services(app).accounts.engine
    with engine.connect() as connection:
        counts = [connection.execute(select(func.count()).select_from(t)).scalar_one()
                  for t in (stored_events, arbiters, devices)]  # fmt: skip
    return (*counts, len(services(app).games.store.games()))


def _routes(app: Flask) -> list[tuple[str, list[str]]]:
    found = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in ("static", "api.stream"):
            continue
        found.append((rule.rule, sorted((rule.methods or set()) - {"OPTIONS"})))
    return sorted(found)


def _fill(rule: str, game_id: str, draw: Any) -> str:
    """The route's path with each placeholder a real value or an odd one."""
    def value(match: re.Match[str]) -> str:
        name = match.group(2)
        choices = {"game_id": [game_id, "no-existe", "0" * 36], "int": ["1", "0", "99999999999"]}
        pool = choices.get(name) or choices.get(match.group(1) or "", []) or ["mesa1", "recorte", "x"]
        return str(draw(st.sampled_from([*pool, "%00", "a" * 300])))

    return re.sub(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>", value, rule)


@st.composite
def requests(draw: Any, routes: list[tuple[str, list[str]]], game_id: str) -> dict[str, Any]:
    rule, methods = draw(st.sampled_from(routes))
    method = draw(st.sampled_from([*methods, "POST", "PUT", "DELETE", "PATCH"]))
    fields = draw(st.dictionaries(st.sampled_from(KEYS), ODD_TEXT, max_size=4))
    body_kind = draw(st.sampled_from(["form", "json", "raw", "none"]))
    request: dict[str, Any] = {"method": method, "path": _fill(rule, game_id, draw), "caller": draw(st.sampled_from(CALLERS))}
    if body_kind == "form":
        request["data"] = fields
    elif body_kind == "json":
        body = draw(st.dictionaries(st.sampled_from(KEYS), ODD_JSON, max_size=4))
        request["data"] = json.dumps(body, allow_nan=True)
        request["content_type"] = "application/json"
    elif body_kind == "raw":
        request["data"] = draw(st.sampled_from([b"{" * 3000, b"\xff\xfe", b"[" * 20 + b"]" * 20, b"a=%ff&b=\x00"]))
        request["content_type"] = draw(st.sampled_from(["application/json", "application/x-www-form-urlencoded"]))
    request["query_string"] = draw(st.dictionaries(st.sampled_from(KEYS), ODD_TEXT, max_size=2))
    return request


def _client(app: Flask, caller: str, tokens: dict[str, str]) -> tuple[FlaskClient, dict[str, str]]:
    """A fresh client for ``caller`` (an earlier request may have logged the arbiter out)."""
    if caller.startswith("arbiter"):
        return arbiter_client(app), ({"X-CSRF-Token": CSRF} if caller == "arbiter" else {})
    headers = {"Authorization": f"Bearer {tokens[caller]}"} if caller in tokens else {}
    return app.test_client(), headers


def _may_change(caller: str, path: str, method: str) -> bool:
    """Who may change the state of this route at all (the finer rules are the other tests')."""
    if caller == "arbiter":
        return True
    if method != "POST":
        return False
    if caller in ("scanner", "camera"):
        return path.startswith("/api/games/")
    return caller == "node" and path.startswith("/api/cameras/")


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_route_answers_500_or_changes_what_it_may_not(app: Flask, data: st.DataObject) -> None:
    if not hasattr(app, "_fuzz"):
        game_id = duplicate_game(app)
        tokens = {role: services(app).accounts.add_device(f"fuzz-{role}", role, cameras=["mesa1"] if role == "node" else [])
                  for role in ("scanner", "camera", "node")}  # fmt: skip
        app._fuzz = (game_id, tokens, _routes(app))  # type: ignore[attr-defined]
    game_id, tokens, routes = app._fuzz  # type: ignore[attr-defined]
    request = data.draw(requests(routes, game_id))
    caller = request.pop("caller")
    client, headers = _client(app, caller, tokens)
    before = _state(app)
    answer = client.open(headers=headers, **request)
    assert answer.status_code != 500, (caller, request, answer.text[:300])
    answer.close()
    if not _may_change(caller, request["path"], request["method"]):
        assert _state(app) == before, (caller, request)
