"""What the room is told: the rack as the judge announces it, the round's summary, the
standings, a classic table's spread, unseen tiles and end in words; nothing private."""

from __future__ import annotations

import json

from flask import Flask
from flask.testing import FlaskClient

from rules_core.classic import ClassicGame
from rules_core.events import Event
from rules_core.slips import Slip
from webapp.services.shared import services

from .web_helpers import duplicate_game

pytest_plugins = ["tests.conftest_web"]

SECRET = "motivo-reservado-del-arbitro"


def state(client: FlaskClient, game_id: str) -> dict:  # type: ignore[type-arg]
    answer = client.get(f"/api/games/{game_id}")
    assert answer.status_code == 200
    return answer.json["state"]  # type: ignore[no-any-return,index]


def slip(game_id: str, app: Flask, number: int, player: str, notation: str) -> None:
    data = {"round": number, "player": player, "slip": Slip(notation).to_json()}
    services(app).games.append(game_id, Event("slip", data))


def played_round(app: Flask, *, tie_breaks: bool = False) -> str:
    """Round 1 (A E M N N O Q, master H3 AMONEN 22): Ana finds it, Bea plays H4 MANEN, Ciro nothing."""
    game_id = duplicate_game(app)
    slip(game_id, app, 1, "j1", "H3 AMONEN")
    slip(game_id, app, 1, "j2", "H4 MANEN")
    services(app).games.append(game_id, Event("master_announced", {"round": 1}))
    return game_id


def test_the_round_summary_after_a_master(app: Flask, client: FlaskClient) -> None:
    s = state(client, played_round(app))
    summary = s["summary"]
    assert summary["play"] == "H3 AMONEN" and summary["score"] == 22 and summary["round"] == 1
    assert summary["found"] == 1 and summary["finders"] == ["Ana"]
    assert summary["bonus"] == [{"name": "Ana", "points": 10}]  # the only one who matched the master
    assert summary["best"] is None  # the room's best was the master
    standings = s["standings"]
    assert [(p["rank"], p["name"], p["total"], p["round"]) for p in standings] == [
        (1, "Ana", 32, 22), (2, "Bea", s["standings"][1]["total"], s["standings"][1]["round"]), (3, "Ciro", 0, 0)]
    assert standings[0]["pct"] == round(100 * 32 / 22, 1) and standings[2]["pct"] == 0.0
    assert 0 < standings[1]["round"] < 22


def test_the_rooms_best_play_when_nobody_found_the_master(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    slip(game_id, app, 1, "j2", "H4 MANEN")
    services(app).games.append(game_id, Event("master_announced", {"round": 1}))
    summary = state(client, game_id)["summary"]
    assert summary["found"] == 0 and summary["finders"] == []
    assert summary["best"]["play"] == "H4 MANEN" and summary["best"]["names"] == ["Bea"]
    assert summary["best"]["score"] < 22 and summary["bonus"] == [{"name": "Bea", "points": 5}]


def test_the_rack_as_the_judge_announces_it(app: Flask, client: FlaskClient) -> None:
    game_id = played_round(app)
    services(app).games.append(game_id, Event("rack_set", {"round": 2, "rack": list("QUERIDA"), "source": "manual"}))
    s = state(client, game_id)
    assert s["rack_kept"] == ["Q"]  # kept from round 1 (AEMNNOQ less AMONEN)
    assert s["rack_new"] == ["A", "D", "E", "I", "R", "U"]  # the new tiles, in order
    assert s["master"]["play"] == "H3 AMONEN" and s["master_total"] == 22
    first = state(client, duplicate_game(app))
    assert first["rack_kept"] == [] and first["rack_new"] == ["A", "E", "M", "N", "N", "O", "Q"]


def test_annulment_reasons_and_notes_stay_private(app: Flask, client: FlaskClient) -> None:
    game_id = played_round(app)
    games = services(app).games
    games.append(game_id, Event("rack_set", {"round": 2, "rack": list("QUERIDA"), "source": "manual"}))
    games.append(game_id, Event("slip_corrected", {"round": 1, "player": "j2", "slip": Slip("H3 AMONEN").to_json(),
                                                   "reason": SECRET + "-papeleta"}))  # fmt: skip
    games.append(game_id, Event("master_annulled", {"round": 1, "reason": SECRET}))
    games.append(game_id, Event("game_ended", {"reason": SECRET + "-final"}))
    s = state(client, game_id)
    assert s["master"]["annulled"] is True and s["summary"]["annulled"] is True  # the room sees that
    pages = [f"/api/games/{game_id}", f"/display/{game_id}", f"/overlay/{game_id}/summary",
             f"/overlay/{game_id}/standings", f"/emision/{game_id}?retraso=0", f"/emision/{game_id}/estado", "/", "/display"]
    for url in pages:
        page = client.get(url)
        assert page.status_code == 200, url
        assert SECRET not in page.text, url


def test_final_standings_with_tie_breaks(app: Flask, client: FlaskClient) -> None:
    from rules_core.duplicate import DuplicateSettings

    games = services(app).games
    game_id = games.create_duplicate("Con desempates", DuplicateSettings(rounds=1, tie_breaks=True))
    for table, name in [(1, "Ana"), (2, "Bea")]:
        games.append(game_id, Event("player_added", {"player": f"j{table}", "name": name, "table": table}))
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    slip(game_id, app, 1, "j1", "H3 AMONEN")
    games.append(game_id, Event("master_announced", {"round": 1}))
    s = state(client, game_id)
    assert s["phase"] == "fin" and s["ended"] is True and s["tie_breaks"] is True
    assert s["standings"][0] == {"rank": 1, "player": "j1", "name": "Ana", "total": 22, "pct": 100.0, "round": 22, "bonus": 0,
                                 "masters": 1, "solos": 1, "deficit": 0}  # fmt: skip
    assert s["standings"][1]["deficit"] == 22


def test_a_classic_table_told_to_the_room(app: Flask, client: FlaskClient) -> None:
    games = services(app).games
    game_id = games.create("classic", "Mesa 4", ClassicGame.create_event(["Ana", "Bea"], title="Mesa 4"))
    games.append(game_id, ClassicGame.play_event(0, "H4 MANEN"))
    s = state(client, game_id)
    unseen = dict(s["unseen"])
    assert s["unseen_count"] == 100 - 5  # every tile not on the board
    assert unseen["A"] == 12 - 1 and unseen["M"] == 2 - 1 and unseen["N"] == 5 - 2 and unseen["?"] == 2
    assert [label for label, _n in s["unseen"]][:3] == ["A", "B", "C"] and s["unseen"][-1][0] == "?"
    games.append(game_id, ClassicGame.pass_event(1))
    for _ in range(3):
        games.append(game_id, ClassicGame.pass_event(0 if len(games.open(game_id).events) % 2 else 1))
    game = games.open(game_id)
    assert isinstance(game, ClassicGame) and game.ending == "45.2"
    games.append(game_id, ClassicGame.end_event(["AEIOUBC", "AEIOUBD"]))
    s = state(client, game_id)
    assert s["ended"] is True and s["ending"] == "45.2" and s["winner"] == 0
    assert [(a["player"], a["kind"]) for a in s["adjustments"]] == [(0, "rack"), (1, "rack")]
    assert all(a["points"] < 0 for a in s["adjustments"])
    page = client.get(f"/display/{game_id}").text
    assert json.loads(page.split('id="initial">')[1].split("</script>")[0])["state"]["ending"] == "45.2"


def test_game_lists_show_date_state_and_table_newest_first(app: Flask, client: FlaskClient) -> None:
    games = services(app).games
    first = duplicate_game(app)
    table = games.create("classic", "Mesa 7, ronda 2", ClassicGame.create_event(["Ana", "Bea"], title="Mesa 7, ronda 2"))
    for url in ("/", "/display"):
        page = client.get(url).text
        assert page.index(table) < page.index(first)  # newest first
        assert "mesa 7" in page and "en juego" in page and "<time datetime=" in page
    assert client.get("/display/mesa/7").status_code == 200 and table in client.get("/display/mesa/7").text
    assert client.get("/display/mesa/7/objetivo").json == {"game": table, "follow_seconds": 5, "notices": []}
    assert client.get("/display/mesa/8/objetivo").json["game"] is None
    assert "todavía no tiene ninguna partida" in client.get("/display/mesa/8").text


def test_the_summary_alternates_with_the_board_every_few_seconds(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    assert 'data-alternate="8"' in client.get(f"/display/{game_id}").text  # the default
    assert 'data-alternate="15"' in client.get(f"/display/{game_id}?alternar=15").text
    assert 'data-alternate="8"' in client.get(f"/display/{game_id}?alternar=0").text  # out of range: ignored
    app.config["DISPLAY_ALTERNATE_SECONDS"] = 12
    assert 'data-alternate="12"' in client.get(f"/display/{game_id}").text
