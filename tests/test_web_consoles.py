"""Several arbiters, one round (issue 67): two consoles enter the slips of one round at once.

The game lets one slip in at a time: the same table sent by two consoles at the same moment is
stored once, and the other console is answered with what is stored (play, score, who, when) beside
what it typed, to decide; the same slip typed on both is a repetition. A replacement names the
stored slip it was decided on: one stored meanwhile is shown again, not replaced unseen. A write
refused by the store because another process wrote first is judged again, never lost nor stored twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from rules_core.events import Event
from rules_core.lexicon import Lexicon
from rules_core.slips import Slip
from webapp.services.games import GameService
from webapp.services.shared import services
from webapp.services.store import EventStore
from webapp.views.auth import SESSION_ID

from .web_helpers import ARBITER, CSRF, duplicate_game, post

pytest_plugins = ["tests.conftest_web"]
JSON = {"Accept": "application/json"}
SECOND = "arbitra"  # the second console's arbiter


def console_of(app: Flask, login: str) -> FlaskClient:
    """A console: a client with its own session, logged in as ``login``."""
    accounts = services(app).accounts
    if not accounts.arbiter_exists(login):
        accounts.add_arbiter(login, "clave-de-la-segunda")
    client = app.test_client()
    with client.session_transaction() as session:
        session["arbiter"] = login
        session[SESSION_ID] = accounts.open_session(login)
        session["csrf_token"] = CSRF
    return client


def at_once(monkeypatch: pytest.MonkeyPatch, app: Flask, posts: list[Callable[[], Any]]) -> list[Any]:
    """Run ``posts`` in threads that all reach ``GameService.enter_slip`` before any goes in: each has
    checked the table (nothing stored yet) when the first slip is stored, the race of two Intro keys."""
    games = services(app).games
    real = games.enter_slip
    gate = threading.Barrier(len(posts), timeout=10)

    def gated(*args: Any, **kwargs: Any) -> Any:
        gate.wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(games, "enter_slip", gated)
    answers: list[Any] = [None] * len(posts)

    def run(i: int) -> None:
        answers[i] = posts[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(posts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    monkeypatch.setattr(games, "enter_slip", real)
    return answers


def slip_events(app: Flask, game_id: str, player: str) -> list[tuple[str, str, str | None]]:
    """The stored events of ``player``'s slips in round 1: kind, who, the play written."""
    events = services(app).games.store.events(game_id)
    return [(e.kind, e.actor, e.data["slip"]["notation"]) for e in events
            if e.kind in ("slip", "slip_corrected") and e.data["player"] == player]  # fmt: skip


def test_the_same_table_sent_by_two_consoles_at_once_is_stored_once_and_shown_to_the_other(
        app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    game_id = duplicate_game(app)  # round 1: H3 AMONEN 22, H4 MANEN 20
    url = f"/arbiter/g/{game_id}/slip"
    first, second = console_of(app, ARBITER), console_of(app, SECOND)
    answers = at_once(monkeypatch, app, [
        lambda: post(first, url, {"table": "1", "play": "H3 AMONEN"}, headers=JSON),
        lambda: post(second, url, {"table": "1", "play": "H4 MANEN"}, headers=JSON),
    ])  # fmt: skip
    assert sorted(a.status_code for a in answers) == [200, 409]
    stored, refused = sorted(answers, key=lambda a: a.status_code)
    winner = stored.json["entry"]
    assert refused.json["stored"] == winner  # what is stored: play, score, who, when
    assert (winner["round"], winner["table"], winner["source"]) == (1, 1, "tecleada")
    typed = refused.json["typed"]
    assert {winner["play"], typed["written"]} == {"H3 AMONEN", "H4 MANEN"}  # both entries shown
    assert typed["score"] == (20 if typed["written"] == "H4 MANEN" else 22) and typed["valid"]
    assert f"por {winner['by']} a las {winner['when']}" in refused.json["error"]
    assert slip_events(app, game_id, "j1") == [("slip", winner["by"], winner["play"])]  # never twice

    state = first.get(f"/arbiter/g/{game_id}/state", headers=JSON).json
    (row,) = state["slips"]
    assert (row["table"], row["by"], row["at"]) == (1, winner["by"], winner["at"]) and state["missing"] == [2, 3]


def test_the_same_slip_typed_on_two_consoles_at_once_is_stored_once_and_said_repeated(
        app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    game_id = duplicate_game(app)
    url = f"/arbiter/g/{game_id}/slip"
    first, second = console_of(app, ARBITER), console_of(app, SECOND)
    answers = at_once(monkeypatch, app, [
        lambda: post(first, url, {"table": "2", "play": "H3 AMONEN"}, headers=JSON),
        lambda: post(second, url, {"table": "2", "play": "H3 AMONEN"}, headers=JSON),
    ])  # fmt: skip
    assert [a.status_code for a in answers] == [200, 200]
    assert sorted(a.json["repeated"] for a in answers) == [False, True]
    assert answers[0].json["entry"] == answers[1].json["entry"]
    assert len(slip_events(app, game_id, "j2")) == 1


def test_every_table_typed_on_both_consoles_is_stored_once(app: Flask) -> None:
    """Both consoles type every table, each its own play, with no order between them."""
    game_id = duplicate_game(app)
    url = f"/arbiter/g/{game_id}/slip"
    consoles = {"H3 AMONEN": console_of(app, ARBITER), "H4 MANEN": console_of(app, SECOND)}
    answers: list[Any] = []

    def type_all(play: str) -> None:
        for table in ("1", "2", "3"):
            answers.append(post(consoles[play], url, {"table": table, "play": play}, headers=JSON))

    threads = [threading.Thread(target=type_all, args=(play,)) for play in consoles]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert sorted(a.status_code for a in answers) == [200] * 3 + [409] * 3
    for player in ("j1", "j2", "j3"):
        assert [kind for kind, _, _ in slip_events(app, game_id, player)] == ["slip"]
    for refused in (a for a in answers if a.status_code == 409):
        assert refused.json["stored"]["play"] != refused.json["typed"]["written"]


def test_a_replacement_decided_on_a_slip_replaced_meanwhile_is_shown_again(app: Flask) -> None:
    game_id = duplicate_game(app)
    url = f"/arbiter/g/{game_id}/slip"
    first, second = console_of(app, ARBITER), console_of(app, SECOND)
    seen = post(first, url, {"table": "3", "play": "H4 MANEN"}, headers=JSON).json["entry"]
    replaced = post(second, url, {"table": "3", "play": "H3 AMONEN", "reason": "era la de Ciro",
                                  "replaces": seen["at"]}, headers=JSON)  # fmt: skip
    assert replaced.status_code == 200 and replaced.json["corrected"]
    now = replaced.json["entry"]

    late = post(first, url, {"table": "3", "play": "8H MANEN", "reason": "mal tecleada", "replaces": seen["at"]},
                headers=JSON)  # decided on H4 MANEN, which is no longer what is stored  # fmt: skip
    assert late.status_code == 409 and late.json["changed"] and late.json["stored"] == now
    assert "ha cambiado mientras usted decidía: ahora H3 AMONEN, 22 puntos" in late.json["error"]
    assert [play for _, _, play in slip_events(app, game_id, "j3")] == ["H4 MANEN", "H3 AMONEN"]

    decided = post(first, url, {"table": "3", "play": "8H MANEN", "reason": "mal tecleada", "replaces": now["at"]},
                   headers=JSON)  # fmt: skip
    assert decided.status_code == 200 and decided.json["entry"]["play"] == "8H MANEN"
    bad = post(first, url, {"table": "3", "play": "H4 MANEN", "reason": "x", "replaces": "ayer"}, headers=JSON)
    assert bad.status_code == 409 and "«ayer» no es una hora de entrada" in bad.json["error"]


def test_a_slip_stored_by_another_process_first_is_judged_again_not_lost_nor_doubled(app: Flask,
                                                                                      file2017: Lexicon) -> None:
    """The store refuses a write made on a game another writer changed (expected_seq): the server reads
    the game again and judges the slip against it."""
    game_id = duplicate_game(app)
    url = f"/arbiter/g/{game_id}/slip"
    console = console_of(app, ARBITER)
    assert console.get(f"/arbiter/g/{game_id}/state", headers=JSON).json["missing"] == [1, 2, 3]  # the game is live
    other = GameService(EventStore(services(app).games.store.url), file2017)  # another process on the database
    other.enter_slip(game_id, 1, "j1", Slip("H4 MANEN", source="teclado"), "consola-2")

    refused = post(console, url, {"table": "1", "play": "H3 AMONEN"}, headers=JSON)
    assert refused.status_code == 409 and refused.json["stored"]["by"] == "consola-2"
    assert refused.json["stored"]["play"] == "H4 MANEN"
    other.append(game_id, Event("timer", {"round": 1, "action": "start"}, "consola-2"))
    stored = post(console, url, {"table": "2", "play": "H3 AMONEN"}, headers=JSON)
    assert stored.status_code == 200 and stored.json["state"]["missing"] == [3]
    assert slip_events(app, game_id, "j1") == [("slip", "consola-2", "H4 MANEN")]
    assert slip_events(app, game_id, "j2") == [("slip", ARBITER, "H3 AMONEN")]
    assert services(app).games.store.game(game_id).event_count == len(services(app).games.store.events(game_id))
