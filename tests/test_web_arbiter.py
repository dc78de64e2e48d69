"""The arbiter console runs a duplicate game end to end, and the classic top tables."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from rules_core.duplicate import DuplicateGame
from webapp.services.shared import services
from webapp.views.arbiter.games import parse_players
from webapp.views.arbiter.slips import slip_from_form

from .web_helpers import ARBITER, duplicate_game, event_count, post

pytest_plugins = ["tests.conftest_web"]
JSON = {"Accept": "application/json"}


def game_of(app: Flask, game_id: str) -> DuplicateGame:
    game = services(app).games.duplicate(game_id)
    return game


def csrf_confirm(page: str) -> str:
    """The preview's Save token."""
    match = re.search(r'name="confirm" value="([0-9a-f]+)"', page)
    assert match, "no Save button on the preview"
    return match.group(1)


def test_create_a_game_with_its_players(app: Flask, arbiter: FlaskClient) -> None:
    form = {"name": "Open de Sevilla", "rounds": "3", "round_seconds": "120", "bonuses": "on",
            "notation_relativa": "on", "players": "1 Ana\n2 Bea\n\n7 Ciro\nDora"}
    preview = post(arbiter, "/arbiter/duplicate", form)  # a preview first: nothing stored yet
    assert preview.status_code == 200 and "Dora" in preview.text and not services(app).games.store.games()
    answer = post(arbiter, "/arbiter/duplicate", {**form, "confirm": csrf_confirm(preview.text)})
    assert answer.status_code == 302
    game_id = answer.location.rsplit("/", 1)[1]
    game = game_of(app, game_id)
    assert [(p.table, p.name) for p in game.players.values()] == [(1, "Ana"), (2, "Bea"), (7, "Ciro"), (8, "Dora")]
    assert game.settings.rounds == 3 and game.settings.round_seconds == 120 and game.settings.bonuses
    assert game.settings.notations == ("canonica", "relativa")  # D.III.20.1: kept through the preview
    assert services(app).games.store.game(game_id).name == "Open de Sevilla"
    page = arbiter.get(answer.location)
    assert page.status_code == 200 and "Sortear atril" in page.text


def test_a_bad_setting_is_said_and_nothing_is_created(app: Flask, arbiter: FlaskClient) -> None:
    answer = post(arbiter, "/arbiter/duplicate", {"name": "x", "round_seconds": "5"}, follow_redirects=True)
    assert "al menos 10 segundos" in answer.text
    assert services(app).games.store.games() == []


def test_a_whole_round_from_the_console(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app, rack=None)
    base = f"/arbiter/g/{game_id}"
    post(arbiter, f"{base}/rack", {"action": "manual", "rack": "aemnnoq"})
    game = game_of(app, game_id)
    assert game.current is not None and game.current.source == "manual"
    post(arbiter, f"{base}/timer", {"action": "start"})
    assert game.current.timer_running
    # the score as the arbiter types, nothing stored
    before = event_count(app, game_id)
    preview = arbiter.get(f"{base}/check", query_string={"table": "1", "play": "8C AMONEN"}, headers=JSON).json
    assert preview["name"] == "Ana" and preview["result"] == {"play": "8C AMONEN", "score": 22, "reason": "", "valid": True}
    assert event_count(app, game_id) == before
    reply = post(arbiter, f"{base}/slip", {"table": "1", "play": "8C AMONEN"}, headers=JSON).json
    assert reply["result"]["score"] == 22 and reply["state"]["missing"] == [2, 3]
    reply = post(arbiter, f"{base}/slip", {"table": "2", "play": "H4 MANEN", "late": "1"}, headers=JSON).json
    assert reply["result"]["score"] == 0 and "fuera de tiempo" in reply["result"]["reason"]
    post(arbiter, f"{base}/timer", {"action": "close"})
    page = arbiter.get(base).text
    assert 'value="H3 AMONEN" checked' in page  # the rules' master pre-selected (D.III.15)
    post(arbiter, f"{base}/master", {"play": "8C AMONEN"})
    assert game.round(1).master is not None and game.round(1).master.notation == "8C AMONEN"
    assert game.master_total == 22
    assert [e.actor for e in game.events[-1:]] == [ARBITER]
    post(arbiter, f"{base}/rack", {"action": "draw"})
    assert len(game.rounds) == 2 and game.round(2).source == "sorteo" and len(game.round(2).rack) == 7


def test_a_slip_for_a_table_that_already_handed_in_is_a_correction_with_a_reason(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    base = f"/arbiter/g/{game_id}"
    post(arbiter, f"{base}/slip", {"table": "3", "play": "H4 MANEN"}, headers=JSON)
    preview = arbiter.get(f"{base}/check", query_string={"table": "3", "play": "H3 AMONEN"}, headers=JSON).json
    assert preview["existing"]["play"] == "H4 MANEN"
    refused = post(arbiter, f"{base}/slip", {"table": "3", "play": "H3 AMONEN"}, headers=JSON)
    assert refused.status_code == 409 and "motivo" in refused.json["error"]
    reply = post(arbiter, f"{base}/slip", {"table": "3", "play": "H3 AMONEN", "reason": "mal tecleada"}, headers=JSON).json
    assert reply["corrected"] and reply["result"]["score"] == 22
    game = game_of(app, game_id)
    history = [(e.kind, e.data.get("reason")) for e in game.round(1).history]
    assert history == [("slip", None), ("slip_corrected", "mal tecleada")]


def test_slip_choices_blank_late_void(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app, rack="AEMNNO?")
    base = f"/arbiter/g/{game_id}"
    void = post(arbiter, f"{base}/slip", {"table": "1", "play": "H3 AMONEN", "void": "caligrafía ininteligible"},
                headers=JSON).json  # fmt: skip
    assert void["result"]["score"] == 0 and "nula" in void["result"]["reason"]
    blank = post(arbiter, f"{base}/slip", {"table": "2", "play": "H4 MANEN", "blank": "1"}, headers=JSON).json
    assert blank["result"]["score"] > 0  # no blank from the rack in MANEN: nothing to circle
    empty = post(arbiter, f"{base}/slip", {"table": "3", "play": "-"}, headers=JSON).json
    assert empty["result"] == {"play": None, "score": 0, "reason": "sin jugada", "valid": False}


def test_unknown_tables_and_bad_notation_are_explained(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    base = f"/arbiter/g/{game_id}"
    assert "mesa '9'" in arbiter.get(f"{base}/check?table=9&play=H8+CASA", headers=JSON).json["error"]
    bad = arbiter.get(f"{base}/check?table=1&play=Z99+CASA", headers=JSON).json
    assert bad["result"]["valid"] is False and "notación" in bad["result"]["reason"]
    answer = post(arbiter, f"{base}/slip", {"table": "9", "play": "H3 AMONEN"}, headers=JSON)
    assert answer.status_code == 409


def test_a_slip_without_scripts_comes_back_as_a_page(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    answer = post(arbiter, f"/arbiter/g/{game_id}/slip", {"table": "1", "play": "H3 AMONEN"}, follow_redirects=True)
    assert "Mesa 1: H3 AMONEN, 22 puntos" in answer.text


def test_the_console_state_lists_who_has_not_handed_in(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    post(arbiter, f"/arbiter/g/{game_id}/slip", {"table": "2", "play": "H3 AMONEN"}, headers=JSON)
    state = arbiter.get(f"/arbiter/g/{game_id}/state", headers=JSON).json
    assert state["missing"] == [1, 3] and state["round"] == 1 and state["phase"] == "ronda"
    assert [s["table"] for s in state["slips"]] == [2]


def test_the_rack_is_checked_against_the_rules(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app, rack=None)
    answer = post(arbiter, f"/arbiter/g/{game_id}/rack", {"action": "manual", "rack": "AEIOUAE"}, follow_redirects=True)
    assert "D.III.12" in answer.text
    assert game_of(app, game_id).current is None


def test_a_seeded_draw_is_reproducible(app: Flask, arbiter: FlaskClient) -> None:
    from rules_core.duplicate import DuplicateSettings

    racks = []
    for _ in range(2):
        game_id = services(app).games.create_duplicate("x", DuplicateSettings(seed=7))
        post(arbiter, f"/arbiter/g/{game_id}/rack", {"action": "draw"})
        racks.append(game_of(app, game_id).round(1).rack)
    assert racks[0] == racks[1]


def test_pause_resume_and_the_clock(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    base = f"/arbiter/g/{game_id}"
    for action in ("start", "pause"):
        post(arbiter, f"{base}/timer", {"action": action})
    state = arbiter.get(f"{base}/state", headers=JSON).json
    assert state["clock"]["state"] == "paused" and 179 < state["clock"]["remaining"] <= 180
    post(arbiter, f"{base}/timer", {"action": "resume"})
    assert arbiter.get(f"{base}/state", headers=JSON).json["clock"]["state"] == "running"
    answer = post(arbiter, f"{base}/timer", {"action": "explode"}, follow_redirects=True)
    assert "desconocida" in answer.text


def test_annul_a_wrong_master_and_end_the_game(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    base = f"/arbiter/g/{game_id}"
    post(arbiter, f"{base}/slip", {"table": "1", "play": "H3 AMONEN"}, headers=JSON)
    post(arbiter, f"{base}/master", {"play": "H3 AMONEN"})
    refused = post(arbiter, f"{base}/annul", {"round": "1", "reason": ""}, follow_redirects=True)
    assert "motivo" in refused.text
    asked = post(arbiter, f"{base}/annul", {"round": "1", "reason": "palabra mal comprobada"})
    game = game_of(app, game_id)
    assert asked.status_code == 200 and game.round(1).annulled is None  # asked again first (D.III.29)
    post(arbiter, f"{base}/annul", {"round": "1", "reason": "palabra mal comprobada", "confirm": csrf_confirm(asked.text)})
    assert game.round(1).annulled == "palabra mal comprobada" and game.round(1).results["j1"].score == 0
    post(arbiter, f"{base}/end", {"reason": "fin de la sesión"})
    assert game.end_reason == "fin de la sesión"
    assert "fin de la sesión" in arbiter.get(base).text


def test_add_players_later_gets_the_next_tables(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    form = {"players": "Elena\nFélix"}
    preview = post(arbiter, f"/arbiter/g/{game_id}/players", form)
    post(arbiter, f"/arbiter/g/{game_id}/players", {**form, "confirm": csrf_confirm(preview.text)})
    names = {p.table: p.name for p in game_of(app, game_id).players.values()}
    assert names[4] == "Elena" and names[5] == "Félix"


def test_the_log_shows_every_change_with_who_and_when(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    post(arbiter, f"/arbiter/g/{game_id}/slip", {"table": "1", "play": "H3 AMONEN"}, headers=JSON)
    page = arbiter.get(f"/arbiter/g/{game_id}/log").text
    assert 'class="kind-papeletas"' in page and "H3 AMONEN" in page and ARBITER in page


def test_earlier_rounds_can_be_shown_and_corrected(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    base = f"/arbiter/g/{game_id}"
    post(arbiter, f"{base}/master", {})
    post(arbiter, f"{base}/rack", {"action": "draw"})
    page = arbiter.get(f"{base}?ronda=1").text
    assert 'name="round" value="1"' in page
    slip = {"round": "1", "table": "2", "play": "H3 AMONEN"}
    refused = post(arbiter, f"{base}/slip", slip, headers=JSON)  # the round is closed: a new slip needs a reason
    assert refused.status_code == 409 and "necesita un motivo" in refused.json["error"]
    reply = post(arbiter, f"{base}/slip", {**slip, "reason": "entregada a tiempo"}, headers=JSON).json
    assert reply["result"]["score"] == 22 and reply["state"]["round"] == 1


def test_parse_players_and_slip_forms() -> None:
    assert parse_players("3 Ana López\nBea\n10 Ciro") == [(3, "Ana López"), (4, "Bea"), (10, "Ciro")]
    slip = slip_from_form({"play": " 8C AMONEN ", "late": "1", "void": ""})
    assert slip.notation == "8C AMONEN" and slip.late and slip.void is None and not slip.blank_not_circled


def test_a_classic_table_from_the_console(app: Flask, arbiter: FlaskClient) -> None:
    answer = post(arbiter, "/arbiter/classic", {"title": "Mesa 1", "player1": "Ana", "player2": "Bea"})
    game_id = answer.location.rsplit("/", 1)[1]
    base = f"/arbiter/g/{game_id}"
    post(arbiter, f"{base}/turn", {"kind": "play", "player": "0", "play": "H4 MANEN", "score": "16"})
    post(arbiter, f"{base}/turn", {"kind": "play", "player": "1", "play": "5D MANE"})
    post(arbiter, f"{base}/turn", {"kind": "challenge", "player": "0"})
    post(arbiter, f"{base}/turn", {"kind": "pass", "player": "0"})
    post(arbiter, f"{base}/turn", {"kind": "exchange", "player": "1", "count": "3"})
    game = services(app).games.open(game_id)
    kinds = [e.kind for e in game.events]
    assert kinds[0] == "game_created" and "play" in kinds
    page = arbiter.get(base)
    assert page.status_code == 200 and "Planilla" in page.text and "MANEN" in page.text
    refused = post(arbiter, f"{base}/turn", {"kind": "dance", "player": "0"}, follow_redirects=True)
    assert "desconocida" in refused.text
    before = event_count(app, game_id)
    early = post(arbiter, f"{base}/end", {"rack1": "AEIOU", "rack2": "BCD", "ending": "45.4"}, follow_redirects=True)
    assert early.status_code == 200 and event_count(app, game_id) == before  # the rules refuse it, said on the page
    assert 'class="flash error"' in early.text
