"""Nothing stored changes without a decision: replacing a slip, from the console or the scanned-slips
panel, page or JSON, shows what is stored (play, score, who, when) and needs a reason; a struck play
is proposed void; annulling a master names whose score changes and asks again, and the room follows."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from rules_core.duplicate import DuplicateGame
from rules_core.slips import COORDINATE_ORDER, Slip
from vision.slips.review import ReviewItem, proposal_for
from webapp.records.history import history
from webapp.services.shared import scan_service, services
from webapp.views.display import screen_state

from .web_helpers import ARBITER, duplicate_game, post

pytest_plugins = ["tests.conftest_web"]
JSON = {"Accept": "application/json"}
PAGE = "a" * 64  # a scanned page's content address


def game_of(app: Flask, game_id: str) -> DuplicateGame:
    return services(app).games.duplicate(game_id)


def scanned(app: Flask, game_id: str, player: str, notation: str) -> None:
    """A slip the scanner read and stored, as its feed does."""
    services(app).games.enter_slip(game_id, 1, player, Slip(notation, source="escáner"), "escáner", scan=PAGE)


def flagged(app: Flask, game_id: str, item_id: str, flags: tuple[str, ...], reading: str = "",
            player: str | None = None, top: str | None = None,
            likely: tuple[dict[str, Any], ...] = ()) -> ReviewItem:  # fmt: skip
    """A slip waiting in the review queue, as the reader flags it (no reading needed here); its likely plays are
    ``likely``, else ``top`` alone."""
    proposal = proposal_for(flags, reading, top)
    candidates = likely or (({"play": top, "score": 22, "probability": 0.9, "kind": "play"},) if top else ())
    item = ReviewItem(item_id, PAGE, game_id, 1 if player else None, player, None, reading, flags, 0.9, candidates,
                      proposal.to_json() if proposal else None, "", "")  # fmt: skip
    return scan_service(app).queue.add(item)


def decide(client: FlaskClient, game_id: str, item_id: str, action: str, headers: dict[str, str] | None = None,
           **fields: str) -> Any:  # fmt: skip
    return post(client, f"/arbiter/g/{game_id}/papeletas/decidir", {"item": item_id, "action": action, **fields},
                headers=headers or {})  # fmt: skip


def slip_of(app: Flask, game_id: str, player: str) -> tuple[str | None, int]:
    r = game_of(app, game_id).round(1)
    return r.slips[player].notation, r.results[player].score


def history_text(app: Flask, game_id: str) -> str:
    return "\n".join(line.text for line in history(game_of(app, game_id)))


def test_the_console_shows_the_stored_slip_and_replaces_it_only_with_a_reason(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)  # round 1: H3 AMONEN 22, H4 MANEN 20
    base = f"/arbiter/g/{game_id}"
    scanned(app, game_id, "j1", "H3 AMONEN")
    preview = arbiter.get(f"{base}/check", query_string={"table": "1", "play": "H4 MANEN"}, headers=JSON).json
    existing = preview["existing"]
    assert (existing["play"], existing["score"], existing["by"], existing["source"]) == ("H3 AMONEN", 22, "escáner", "escaneada")
    assert re.fullmatch(r"\d\d:\d\d:\d\d", existing["when"])
    for typed in ({"play": "H4 MANEN"}, {"play": "-"}, {"play": "H3 AMONEN", "void": "caligrafía ininteligible"}):
        refused = post(arbiter, f"{base}/slip", {"table": "1", **typed}, headers=JSON)  # replaced, emptied, voided
        assert refused.status_code == 409 and refused.json["stored"] == existing
        assert "H3 AMONEN, 22 puntos, escaneada por escáner a las" in refused.json["error"]
        assert "motivo" in refused.json["error"] and slip_of(app, game_id, "j1") == ("H3 AMONEN", 22)
    reply = post(arbiter, f"{base}/slip", {"table": "1", "play": "H4 MANEN", "reason": "mal leída"}, headers=JSON).json
    assert reply["corrected"] and reply["result"]["score"] == 20 and slip_of(app, game_id, "j1") == ("H4 MANEN", 20)
    assert "H4 MANEN, introducida: sustituye a la papeleta anterior de H3 AMONEN; motivo: mal leída" in history_text(
        app, game_id)  # fmt: skip


def test_the_panel_replaces_a_stored_slip_only_with_a_reason(app: Flask, arbiter: FlaskClient) -> None:
    """The evening's case: a spare blank slip, C, a play typed for Ana, who already has one read."""
    game_id = duplicate_game(app)
    scanned(app, game_id, "j1", "H3 AMONEN")
    spare = flagged(app, game_id, "hoja-0", ("position_unknown",))
    asked = decide(arbiter, game_id, spare.id, "correct", play="H4 MANEN", player="j1", round="1", shown="1")
    page = asked.get_data(as_text=True)
    assert asked.status_code == 409 and slip_of(app, game_id, "j1") == ("H3 AMONEN", 22)
    assert "La mesa 1 (Ana) ya tiene papeleta en la ronda 1: H3 AMONEN, 22 puntos, escaneada por escáner a las" in page
    assert 'value="H4 MANEN"' in page and 'name="replacing"' in page  # the typed play kept, the reason asked
    assert re.search(r'<button name="action" value="correct" class="primary act-replace">', page)
    assert scan_service(app).item(spare.id).status == "pending"  # type: ignore[union-attr]
    as_json = decide(arbiter, game_id, spare.id, "correct", JSON, play="H4 MANEN", player="j1", round="1")
    assert as_json.status_code == 409 and as_json.get_json()["stored"]["play"] == "H3 AMONEN"
    done = decide(arbiter, game_id, spare.id, "correct", play="H4 MANEN", player="j1", round="1",
                  replacing="la de Ana era la segunda hoja")  # fmt: skip
    assert done.status_code == 302 and slip_of(app, game_id, "j1") == ("H4 MANEN", 20)
    text = history_text(app, game_id)
    assert ("H4 MANEN, escaneada y revisada (corregida): sustituye a la papeleta anterior de H3 AMONEN; "
            "motivo: la de Ana era la segunda hoja, por " + ARBITER) in text
    assert "(correct)" not in text and "revisión del árbitro" not in text


def test_a_flagged_slip_of_a_player_who_has_one_shows_it_before_any_key(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    scanned(app, game_id, "j2", "H4 MANEN")
    item = flagged(app, game_id, "bea-0", ("illegible",), "H3 AMONEN", player="j2", top="H3 AMONEN")
    page = arbiter.get(f"/arbiter/g/{game_id}/papeletas").get_data(as_text=True)
    assert "La mesa 2 (Bea) ya tiene papeleta en la ronda 1: H4 MANEN, 20 puntos" in page and 'name="replacing"' in page
    assert decide(arbiter, game_id, item.id, "accept", JSON).status_code == 409  # one key replaces nothing
    assert slip_of(app, game_id, "j2") == ("H4 MANEN", 20)


def test_a_struck_play_is_proposed_void_and_scored_only_when_the_arbiter_types_it(app: Flask,
                                                                                 arbiter: FlaskClient) -> None:  # fmt: skip
    game_id = duplicate_game(app)
    struck = flagged(app, game_id, "ana-0", ("spoilt", "illegible"), "H3 AMONEN", player="j1", top="H3 AMONEN")
    page = arbiter.get(f"/arbiter/g/{game_id}/papeletas").get_data(as_text=True)
    assert "jugada tachada o emborronada (D.III.20.4): se propone anularla" in page
    assert "H3 AMONEN · nula: jugada tachada o emborronada" in page  # what A applies
    assert '<option value="jugada tachada o emborronada" selected>' in page  # and V
    decide(arbiter, game_id, struck.id, "accept")
    r = game_of(app, game_id).round(1)
    assert r.results["j1"].score == 0 and r.slips["j1"].void == "jugada tachada o emborronada"
    chosen = flagged(app, game_id, "bea-0", ("spoilt", "illegible"), "H3 AMONEN", player="j2", top="H3 AMONEN")
    decide(arbiter, game_id, chosen.id, "correct", play="H3AMONEN")  # the arbiter chooses the play: typed
    assert slip_of(app, game_id, "j2") == ("H3 AMONEN", 22)


def test_typed_slips_are_read_as_the_rules_read_them(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    base = f"/arbiter/g/{game_id}"
    reply = post(arbiter, f"{base}/slip", {"table": "1", "play": "H3AMONEN"}, headers=JSON).json
    assert "confirm" not in reply and reply["result"]["play"] == "H3 AMONEN" and reply["result"]["score"] == 22
    asked = post(arbiter, f"{base}/slip", {"table": "2", "play": "3H AMONEN"}, headers=JSON).json
    assert "coordenadas en orden incorrecto (se leería H3 AMONEN)" in asked["confirm"] and "D.III.20.4" in asked["confirm"]
    stored = post(arbiter, f"{base}/slip", {"table": "2", "play": "3H AMONEN", "confirm": "1"}, headers=JSON).json
    assert stored["result"]["score"] == 0 and COORDINATE_ORDER in stored["result"]["reason"]


def test_annulling_a_master_names_whose_score_changes_and_asks_again(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)  # with bonuses (D.III.24)
    base = f"/arbiter/g/{game_id}"
    for table, play in ((1, "H3 AMONEN"), (2, "H3 AMONEN"), (3, "H4 MANEN")):
        post(arbiter, f"{base}/slip", {"table": str(table), "play": play}, headers=JSON)
    post(arbiter, f"{base}/master", {"play": "H3 AMONEN"})
    game = game_of(app, game_id)
    assert screen_state(game)["summary"]["found"] == 2
    form = {"round": "1", "reason": "palabra mal comprobada"}
    asked = post(arbiter, f"{base}/annul", form)
    page = asked.get_data(as_text=True)
    assert asked.status_code == 200 and game.round(1).annulled is None
    assert "Cambia la puntuación de 3 jugadores" in page
    rows = re.findall(r"<tr><td class=\"num\">(\d)</td><td>(\w+)</td><td class=\"num\">(\d+)</td>\s*"
                      r"<td class=\"num\">(\d+)</td><td class=\"num\">([+-]\d+)</td>", page)  # fmt: skip
    assert rows == [("1", "Ana", "22", "0", "-22"), ("2", "Bea", "22", "0", "-22"), ("3", "Ciro", "20", "25", "+5")]
    token = re.search(r'name="confirm" value="([0-9a-f]+)"', page)
    assert token
    post(arbiter, f"{base}/rack", {"action": "draw"})  # the game changes before the confirmation
    again = post(arbiter, f"{base}/annul", {**form, "confirm": token.group(1)})
    assert "La partida ha cambiado" in again.get_data(as_text=True) and game.round(1).annulled is None
    fresh = re.search(r'name="confirm" value="([0-9a-f]+)"', again.get_data(as_text=True))
    assert fresh
    post(arbiter, f"{base}/annul", {**form, "confirm": fresh.group(1)})
    assert game.round(1).annulled == "palabra mal comprobada"
    # the room follows: who found it, the bonus, the best play, from the scores as they now stand
    summary = screen_state(game)["summary"]
    assert summary["annulled"] and summary["found"] == 0 and summary["finders"] == []
    assert summary["annulled_players"] == 2 and summary["bonus"] == [{"name": "Ciro", "points": 5}]
    assert summary["best"]["play"] == "H4 MANEN" and "palabra mal comprobada" not in json.dumps(summary)
