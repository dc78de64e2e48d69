"""The stream of the whole event (issue 70): club, photo and EloDI beside the names, the standings across
the tournament's games, the lower third after each master, the rack of the player to move where the
arbiter recorded it, several tables at once, the ready scene; all behind the overlays' delay."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.player_list import parse_player_list
from rules_core.slips import Slip
from webapp.records.tournament_games import new_classic, new_duplicate
from webapp.records.tournament_players import listed
from webapp.records.tournaments import tournaments_of
from webapp.services.shared import services
from webapp.views.overlay import delayed_message

from .test_tournament_players import simulated
from .web_helpers import ARBITER, duplicate_game

pytest_plugins = ["tests.conftest_web"]

PLAYERS = ("mesa;nombre;club;licencia;foto\n1;Ana García;CEDE;1001;ana.jpg\n2;Bruno Díaz;Scrabble Madrid;;\n"
           "3;Ana García;Alcalá;2002;https://fotos.example.es/ana2.png\n4;Carmen Ruiz;;3003;\n")  # fmt: skip
RATINGS = "jugador,licencia,club,partidas,rating,volatilidad\nAna García,1001,CEDE,30,1650,220\n"
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 60 + b"\xff\xd9"


def data_dir(app: Flask) -> Path:
    folder = Path(app.config.get("DATA_DIR") or app.instance_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def tournament(app: Flask) -> str:
    """A tournament of ``PLAYERS`` (two namesakes told apart by licence), with an earlier EloDI list."""
    (data_dir(app) / "elodi-previas.csv").write_text(RATINGS, encoding="utf-8")
    return tournaments_of(app).create("Open de Otoño", "average_place", listed(parse_player_list(PLAYERS)))


def stream_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="stream-data">(.*?)</script>', page, re.S)
    assert found, "no stream data in the overlay"
    return dict(json.loads(found.group(1)))


def slip(app: Flask, game_id: str, player: str, play: str, number: int = 1) -> None:
    services(app).games.append(game_id, Event("slip", {"round": number, "player": player, "slip": Slip(play).to_json()}))


# -- beside the names -------------------------------------------------------------------------------


def test_an_overlay_shows_club_photo_and_elodi_beside_each_name(app: Flask, client: FlaskClient) -> None:
    tournament_id = tournament(app)
    games = services(app).games
    with app.app_context():
        game_id = new_duplicate(games, tournaments_of(app), tournament_id, "Partida 1", DuplicateSettings(rounds=2), "mesas", ARBITER)
        classic_ids = new_classic(games, tournaments_of(app), tournament_id, 2, "mesas", "Ronda 1", ARBITER)
    people = stream_data(client.get(f"/overlay/{game_id}/standings").text)["people"]
    assert people["j1"] == {"club": "CEDE", "photo": "/overlay/foto/ana.jpg", "rating": 1650}
    assert people["j3"] == {"club": "Alcalá", "photo": "https://fotos.example.es/ana2.png", "rating": None}  # her namesake
    assert people["j2"] == {"club": "Scrabble Madrid", "photo": "", "rating": None}
    table_two = stream_data(client.get(f"/overlay/{classic_ids[1]}/scores").text)["people"]  # Ana García (2002) and Carmen
    assert table_two == {"0": {"club": "Alcalá", "photo": "https://fotos.example.es/ana2.png", "rating": None},
                         "1": {"club": "", "photo": "", "rating": None}}  # fmt: skip
    live = client.get(f"/api/games/{game_id}").json
    assert {line["player"] for line in live["state"]["standings"]} == {"j1", "j2", "j3", "j4"}  # rows know their player
    assert "stream-data" not in client.get(f"/display/{game_id}").text  # the room's screen stays as it was


def test_a_photo_is_served_from_the_data_folders_photos_and_nothing_else(app: Flask, client: FlaskClient) -> None:
    photos = data_dir(app) / "fotos"
    photos.mkdir(parents=True)
    (photos / "ana.jpg").write_bytes(JPEG)
    (data_dir(app) / "otro.jpg").write_bytes(JPEG)
    answer = client.get("/overlay/foto/ana.jpg")
    assert answer.status_code == 200 and answer.data == JPEG and answer.mimetype == "image/jpeg"
    (photos / "base.jpg").symlink_to(data_dir(app).parent / "veedor.db")  # the server's own file, never read as a photo
    for wrong in ("falta.jpg", "..%2Fotro.jpg", "secret_key", "ana.jpg.txt", "ana", "base.jpg"):
        assert client.get(f"/overlay/foto/{wrong}").status_code == 404, wrong


def test_an_overlay_may_show_photos_from_the_addresses_of_the_list_and_be_framed_by_its_scene(app: Flask,
                                                                                           client: FlaskClient) -> None:  # fmt: skip
    game_id = duplicate_game(app)
    policy = client.get(f"/overlay/{game_id}/scores").headers["Content-Security-Policy"]
    assert "img-src 'self' data: https: http:;" in policy and "frame-ancestors 'self';" in policy
    scene = client.get(f"/overlay/escena/{game_id}")
    assert "frame-ancestors 'self';" in scene.headers["Content-Security-Policy"]
    assert scene.headers["X-Frame-Options"] == "SAMEORIGIN"
    room = client.get(f"/display/{game_id}").headers
    assert "frame-ancestors 'none'" in room["Content-Security-Policy"] and "https:" not in room["Content-Security-Policy"]


# -- the standings across the tournament's games ------------------------------------------------------


def test_the_standings_across_the_tournaments_games_keep_namesakes_apart(app: Flask, client: FlaskClient) -> None:
    tournament_id = tournament(app)
    with app.app_context():
        for seed in (5, 6):
            simulated(app, tournament_id, rounds=2, seed=seed)
    body = client.get(f"/overlay/torneo/{tournament_id}/estado").json
    assert body["kind"] == "duplicate" and body["games"] == 2 and body["criterion"] == "average_place"
    lines = body["lines"]
    assert len(lines) == 4 and [line["rank"] for line in lines] == sorted(line["rank"] for line in lines)
    anas = sorted((line["club"], line["rating"], line["photo"]) for line in lines if line["name"] == "Ana García")
    assert anas == [("Alcalá", None, "https://fotos.example.es/ana2.png"), ("CEDE", 1650, "/overlay/foto/ana.jpg")]
    assert all(line["played"] == 2 and 0 < line["pct"] <= 100 for line in lines)
    behind = client.get(f"/overlay/torneo/{tournament_id}/estado?retraso=5").json  # both games began less than 5 min ago
    assert behind["kind"] is None and behind["lines"] == [] and behind["games"] == 2
    app.config["OVERLAY_DELAY_MINUTES"] = 5
    assert client.get(f"/overlay/torneo/{tournament_id}/estado").json["lines"] == []  # the organiser's least
    assert client.get("/overlay/torneo/nohay/estado").status_code == 404
    with app.app_context():
        third = simulated(app, tournament_id, rounds=1, seed=7)
    page = client.get(f"/overlay/{third}/tournament").text
    assert 'data-part="tournament"' in page and f"/overlay/torneo/{tournament_id}/estado?retraso=5" in page


def test_classic_games_alone_rank_by_wins(app: Flask, client: FlaskClient) -> None:
    tournament_id = tournament(app)
    games = services(app).games
    with app.app_context():
        first, _second = new_classic(games, tournaments_of(app), tournament_id, 2, "mesas", "Ronda 1", ARBITER)
    games.append(first, ClassicGame.play_event(0, "H4 MANEN"))
    for player in (1, 0, 1, 0):  # four passes in a row (C.45.2)
        games.append(first, ClassicGame.pass_event(player))
    games.append(first, ClassicGame.end_event(["AEIOUBC", "AEIOUBD"]))
    body = client.get(f"/overlay/torneo/{tournament_id}/estado").json
    assert body["kind"] == "classic"
    lines = [(line["name"], line["club"], line["rank"], line["played"], line["wins"]) for line in body["lines"]]
    assert lines == [("Ana García", "CEDE", 1, 1, 1.0), ("Bruno Díaz", "Scrabble Madrid", 2, 1, 0.0)]
    assert body["lines"][0]["spread"] == -body["lines"][1]["spread"] > 0


# -- the lower third ------------------------------------------------------------------------------------


def test_the_lower_third_tells_the_master_the_top_plays_and_who_found_each(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)  # Ana, Bea, Ciro; A E M N N O Q on the empty board
    games = services(app).games
    assert client.get(f"/overlay/{game_id}/tercio").json is None  # no master yet
    assert client.get(f"/overlay/{game_id}/tercio?ronda=1").status_code == 404
    slip(app, game_id, "j1", "H3 AMONEN")
    slip(app, game_id, "j2", "H4 MANEN")
    slip(app, game_id, "j3", "8C AMONEN")
    games.append(game_id, Event("master_announced", {"round": 1}))
    told = client.get(f"/overlay/{game_id}/tercio?ronda=1").json
    assert (told["round"], told["master"], told["score"], told["annulled"], told["players"]) == (1, "H3 AMONEN", 22, False, 3)
    plays = told["plays"]
    assert len(plays) == 5 and plays[0] == {"play": "H3 AMONEN", "score": 22, "master": True, "found": 1, "names": ["Ana"]}
    assert [p["score"] for p in plays] == sorted((p["score"] for p in plays), reverse=True)
    assert len({p["play"].upper() for p in plays}) == 5  # a word at one place once
    assert next(p for p in plays if p["play"] == "8C AMONEN")["names"] == ["Ciro"]
    assert all(p["play"] != "H4 MANEN" for p in plays)  # Bea's 20 points are no top play
    assert client.get(f"/overlay/{game_id}/tercio").json == told  # the last master by default
    assert client.get(f"/overlay/{game_id}/tercio?retraso=5").json is None  # the master is not 5 minutes old
    assert client.get(f"/overlay/{game_id}/tercio?ronda=uno").status_code == 400
    classic = games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bea"]))
    assert client.get(f"/overlay/{classic}/tercio").status_code == 404
    page = client.get(f"/overlay/{game_id}/lowerthird?segundos=45").text
    assert 'data-part="lowerthird"' in page and stream_data(page)["seconds"] == 45
    assert stream_data(client.get(f"/overlay/{game_id}/lowerthird?segundos=1").text)["seconds"] == 30


# -- the rack of the player to move -----------------------------------------------------------------------


def test_the_rack_of_the_player_to_move_shows_only_as_far_behind_as_the_broadcast(app: Flask, client: FlaskClient) -> None:
    """Ana played 20 minutes ago and Bea 2 minutes ago from a rack the arbiter recorded in part: 5
    minutes behind, Bea is to move and her rack is known; closer to the room, or live, it is not told."""
    games = services(app).games
    now = datetime.now(timezone.utc)
    created = ClassicGame.create_event(["Ana", "Bea"])
    game_id = games.create("classic", "Mesa 1", Event(created.kind, created.data, created.actor, now - timedelta(minutes=30)))
    games.append(game_id, ClassicGame.play_event(0, "H4 MANEN", rack="AEMNNOQ", at=now - timedelta(minutes=20)))
    games.append(game_id, ClassicGame.play_event(1, "I8 NO", rack="NO", at=now - timedelta(minutes=2)))
    with app.test_request_context():
        behind = delayed_message(game_id, 5, now)
        closer = delayed_message(game_id, 3, now)
        before_anas = delayed_message(game_id, 25, now)
    assert behind["state"]["to_move"] == 1
    assert behind["rack"] == {"player": 1, "name": "Bea", "tiles": ["N", "O"], "unknown": 5}
    assert "rack" not in closer  # less than the broadcast's 5 minutes
    assert before_anas["rack"] == {"player": 0, "name": "Ana", "tiles": ["A", "E", "M", "N", "N", "O", "Q"], "unknown": 0}
    assert "rack" not in client.get(f"/api/games/{game_id}").json  # the live screens never
    page = client.get(f"/overlay/{game_id}/rack?retraso=5").text
    assert 'id="to-move-rack"' in page and '"tiles": ["N", "O"]' in page


def test_no_rack_is_told_when_the_turn_recorded_none(app: Flask) -> None:
    games = services(app).games
    now = datetime.now(timezone.utc)
    created = ClassicGame.create_event(["Ana", "Bea"])
    game_id = games.create("classic", "Mesa 1", Event(created.kind, created.data, created.actor, now - timedelta(minutes=30)))
    games.append(game_id, ClassicGame.play_event(0, "H4 MANEN", at=now - timedelta(minutes=2)))  # a camera's play: no rack
    with app.test_request_context():
        assert delayed_message(game_id, 5, now)["rack"] is None


def test_a_starting_position_tells_the_first_movers_rack(app: Flask) -> None:
    games = services(app).games
    now = datetime.now(timezone.utc)
    created = ClassicGame.create_event(["Ana", "Bea"], cgp="15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEMNNOQ 0/0 0")
    game_id = games.create("classic", "Mesa 1", Event(created.kind, created.data, created.actor, now - timedelta(minutes=30)))
    with app.test_request_context():
        told = delayed_message(game_id, 5, now)["rack"]
    assert told == {"player": 0, "name": "Ana", "tiles": ["A", "E", "M", "N", "N", "O", "Q"], "unknown": 0}


# -- several tables, the scene ------------------------------------------------------------------------------


def test_several_tables_at_once_each_followed_and_delayed(app: Flask, client: FlaskClient) -> None:
    page = client.get("/overlay/mesas/1,2,3/board?retraso=3")
    assert page.status_code == 200
    for number in (1, 2, 3):
        assert f'src="/overlay/mesa/{number}/board?retraso=3"' in page.text and f"Mesa {number}" in page.text
    assert 'data-aspect="1.0"' in page.text
    for wrong, status in (("1,1", 400), ("1,x", 400), (",".join(str(n) for n in range(1, 14)), 400), ("0", 400)):
        assert client.get(f"/overlay/mesas/{wrong}/board").status_code == status, wrong
    assert "como mucho 12" in client.get("/overlay/mesas/1,2,3,4,5,6,7,8,9,10,11,12,13/board").text
    assert client.get("/overlay/mesas/1,2/reloj").status_code == 404
    assert client.get("/overlay/mesas/1,2/board?retraso=-1").status_code == 400


def frames(page: str) -> dict[str, str]:
    """The scene's slots and the address each frame shows."""
    return dict(re.findall(r'class="scene-frame slot-(\w+)" src="([^"]+)"', page))


def test_the_scene_lays_out_every_part_of_the_game(app: Flask, client: FlaskClient) -> None:
    tournament_id = tournament(app)
    games = services(app).games
    with app.app_context():
        in_tournament = new_duplicate(games, tournaments_of(app), tournament_id, "Partida 1", DuplicateSettings(rounds=2), "mesas", ARBITER)
    shown = frames(client.get(f"/overlay/escena/{in_tournament}?retraso=2&segundos=20").text)
    assert set(shown) == {"notices", "side", "board", "scores", "clock", "rack", "lowerthird"}
    assert shown["side"] == f"/overlay/{in_tournament}/tournament?retraso=2&amp;segundos=20"
    alone = duplicate_game(app)
    assert frames(client.get(f"/overlay/escena/{alone}").text)["side"] == f"/overlay/{alone}/standings"
    classic = games.create("classic", "Mesa 3", ClassicGame.create_event(["Ana", "Bea"], title="Mesa 3"))
    table = client.get("/overlay/escena/mesa/3").text
    assert set(frames(table)) == {"notices", "board", "scores", "clock", "plays", "rack"}  # no tournament: no column
    assert frames(table)["board"] == "/overlay/mesa/3/board" and f'data-game="{classic}"' in table  # follows the table
    assert "todavía no tiene ninguna partida" in client.get("/overlay/escena/mesa/9").text
    assert client.get(f"/overlay/escena/{alone}?retraso=x").status_code == 400
    assert client.get("/overlay/escena/00000000-0000-0000-0000-000000000000").status_code == 404
