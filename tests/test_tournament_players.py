"""A tournament owns its players (issue 70): one list, each game made from it, the players known by
their ids across the games, the standings, the files the federation takes and each player's page."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openpyxl import load_workbook
from python_calamine import CalamineWorkbook

from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.player_list import PlayerListError, parse_player_list
from webapp.app import create_app
from webapp.cli import main
from webapp.cli.duplicate import tournament_players
from webapp.records.tournament_games import new_duplicate, standing
from webapp.records.tournament_players import game_keys, listed
from webapp.records.tournaments import tournaments_of
from webapp.services.shared import services
from webapp.services.simulation import simulate_duplicate

from .conftest import FILE2017
from .web_helpers import ARBITER, post

pytest_plugins = ["tests.conftest_web"]

NAMESAKES = "mesa;nombre;club;licencia\n1;Ana García;CEDE;1001\n2;Bruno Díaz;Scrabble Madrid;\n3;Ana García;Alcalá;2002\n4;Carmen Ruiz;;3003\n"


def sheet(data: bytes) -> list[list[Any]]:
    return CalamineWorkbook.from_filelike(io.BytesIO(data)).get_sheet_by_index(0).to_python()


def csv_rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig")), delimiter=";"))


def tournament_with_list(app: Flask, text: str = NAMESAKES) -> str:
    return tournaments_of(app).create("Open de Otoño", "average_place", listed(parse_player_list(text)), ["Eva Juez", "Luis Árbitro"])


def simulated(app: Flask, tournament_id: str, rounds: int = 3, seed: int = 5, how: str = "mesas") -> str:
    """A duplicate game of the list, seated ``how``, where each player hands in slips (strengths in turn),
    played as ``veedor duplicate simulate --tournament`` plays it."""
    games = services(app).games
    settings = DuplicateSettings(rounds=rounds)
    players, _name = tournament_players(games, tournaments_of(app), tournament_id, how)
    game_id = games.create_duplicate(f"Partida {seed}", settings, actor=ARBITER)
    simulate_duplicate(games.duplicate(game_id), lambda e: games.append(game_id, e), players, settings, seed)
    tournaments_of(app).add_game(tournament_id, game_id)
    return game_id


# -- the list ------------------------------------------------------------------------------------


def test_a_listed_player_is_known_by_the_licence_else_by_an_id_made_up_once() -> None:
    players = listed(parse_player_list(NAMESAKES))
    assert [p.id for p in players if p.licence] == ["1001", "2002", "3003"]
    bruno = next(p for p in players if p.name == "Bruno Díaz")
    assert bruno.id.startswith("p") and len(bruno.id) == 9 and bruno.club == "Scrabble Madrid"


def test_namesakes_need_their_licences_and_a_licence_is_listed_once() -> None:
    with pytest.raises(PlayerListError) as refused:
        listed(parse_player_list("1;Ana García;;1001\n2;Ana  garcía;;\n3;Bea;;1001\n"))
    assert refused.value.problems == [
        "la licencia 1001 está repetida: Ana García y Bea",
        "hay 2 jugadores llamados Ana García: escriba la licencia de cada uno para distinguirlos",
    ]


def test_players_added_later_keep_the_tables_and_ids_of_the_list(app: Flask) -> None:
    tournament_id = tournament_with_list(app)
    before = tournaments_of(app).get(tournament_id).players
    with pytest.raises(PlayerListError, match="la mesa 2 está repetida: Bruno Díaz y Dora"):
        listed(parse_player_list("2;Dora"), before)
    tournaments_of(app).add_players(tournament_id, listed(parse_player_list("Dora", first_table=5), before))
    after = tournaments_of(app).get(tournament_id).players
    assert after[:4] == before and (after[4].name, after[4].table) == ("Dora", 5)


# -- the console ---------------------------------------------------------------------------------


def test_the_console_makes_a_tournament_from_its_list_and_a_game_from_the_tournament(app: Flask,
                                                                                    arbiter: FlaskClient) -> None:  # fmt: skip
    form = {"action": "create", "name": "Open de Otoño", "criterion": "average_percentage", "players": NAMESAKES,
            "arbiters": "Eva Juez\nLuis Árbitro"}  # fmt: skip
    preview = post(arbiter, "/arbiter/torneos", form)
    assert "Así se guardarán los jugadores" in preview.text and tournaments_of(app).all() == []
    token = preview.text.split('name="confirm" value="')[1].split('"')[0]
    assert post(arbiter, "/arbiter/torneos", {**form, "confirm": token}).status_code == 302
    (tournament,) = tournaments_of(app).all()
    assert len(tournament.players) == 4 and tournament.arbiters == ("Eva Juez", "Luis Árbitro")
    made = post(arbiter, f"/arbiter/torneos/{tournament.id}/duplicada", {"seating": "mesas", "rounds": "2"})
    game_id = made.headers["Location"].rstrip("/").split("/")[-1]
    added = [e.data for e in services(app).games.store.events(game_id) if e.kind == "player_added"]
    assert [(d["table"], d["name"], d.get("federation_id"), d["tournament_player"]) for d in added][::2] == [
        (1, "Ana García", "1001", "1001"), (3, "Ana García", "2002", "2002")]  # fmt: skip
    assert tournaments_of(app).get(tournament.id).games == (game_id,)
    page = arbiter.get("/arbiter/torneos").text
    assert "Nueva partida duplicada del torneo" in page and "Eva Juez, Luis Árbitro" in page


def test_a_list_with_namesakes_without_licences_is_shown_its_problems_and_nothing_is_made(app: Flask,
                                                                                         arbiter: FlaskClient) -> None:  # fmt: skip
    answer = post(arbiter, "/arbiter/torneos", {"action": "create", "name": "Open", "players": "1 Ana\n2 Ana\n"})
    assert "escriba la licencia de cada uno" in answer.text and tournaments_of(app).all() == []


def test_classic_top_tables_pair_the_standing(app: Flask, arbiter: FlaskClient) -> None:
    tournament_id = tournament_with_list(app)
    simulated(app, tournament_id)
    post(arbiter, f"/arbiter/torneos/{tournament_id}/clasicas", {"seating": "clasificacion", "tables": "2", "title": "Final"})
    tournament = tournaments_of(app).get(tournament_id)
    classic = [g for g in services(app).games.store.games() if g.mode == "classic"]
    assert [g.name for g in classic] == ["Mesa 1 · Final", "Mesa 2 · Final"]
    with services(app).games.reading(classic[0].id) as game:
        keys = game_keys(tournament, game.events)
    assert [keys["0"], keys["1"]] == standing_ids(app, tournament_id)[:2]  # the leader against the second


def standing_ids(app: Flask, tournament_id: str) -> list[str]:
    return standing(services(app).games, tournaments_of(app).get(tournament_id))


# -- across the games ------------------------------------------------------------------------------


def test_namesakes_stay_two_players_across_games_in_the_standings_and_the_files(app: Flask, client: FlaskClient) -> None:
    tournament_id = tournament_with_list(app)
    simulated(app, tournament_id, seed=5)
    simulated(app, tournament_id, seed=6, how="clasificacion")
    page = client.get(f"/results/torneo/{tournament_id}").text
    assert page.count(">Ana García</a>") == 4  # two lines of the standings, two of the list
    rows = sheet(client.get(f"/results/torneo/{tournament_id}/clasificacion.xlsx").data)
    header = rows[0]
    for wanted in ("Club", "Licencia", "% de las maestras", "Maestras igualadas", "Máximas en solitario", "Máximo diferencial"):
        assert wanted in header
    lines = [dict(zip(header, row)) for row in rows[1:]]
    anas = sorted((line["Licencia"], line["Club"], line["Partidas"]) for line in lines if line["Jugador"] == "Ana García")
    assert anas == [("1001", "CEDE", 2), ("2002", "Alcalá", 2)]
    for line in lines:  # the percentage is the total over the masters' total of both games
        assert line["% de las maestras"] == pytest.approx(100 * line["Total"] / line["Total de las maestras"], abs=0.01)
    text = csv_rows(client.get(f"/results/torneo/{tournament_id}/clasificacion.csv").data)
    assert text[0] == header and sum(1 for row in text[1:] if row[1] == "Ana García") == 2


def test_the_xlsx_columns_are_as_wide_as_their_cells(app: Flask, client: FlaskClient) -> None:
    tournament_id = tournament_with_list(app)
    simulated(app, tournament_id)
    book = load_workbook(io.BytesIO(client.get(f"/results/torneo/{tournament_id}/clasificacion.xlsx").data))
    columns = book.active.column_dimensions
    assert columns["B"].width >= len("Ana García") and columns["H"].width >= len("% de las maestras")


def test_a_game_seated_by_standing_puts_the_leader_at_table_one(app: Flask) -> None:
    tournament_id = tournament_with_list(app)
    simulated(app, tournament_id, seed=5)
    leader = standing_ids(app, tournament_id)[0]
    second = new_duplicate(services(app).games, tournaments_of(app), tournament_id, "Segunda", DuplicateSettings(rounds=1),
                           "clasificacion", ARBITER)  # fmt: skip
    first = next(e.data for e in services(app).games.store.events(second) if e.kind == "player_added")
    assert (first["table"], first["tournament_player"]) == (1, leader)


def test_each_player_has_a_page_across_the_event(app: Flask, client: FlaskClient) -> None:
    tournament_id = tournament_with_list(app)
    first = simulated(app, tournament_id, rounds=12, seed=5)  # 12 rounds: rated by EloDI
    simulated(app, tournament_id, rounds=2, seed=6)
    page = client.get(f"/results/torneo/{tournament_id}/jugador/2002")
    assert page.status_code == 200 and "Alcalá" in page.text and "licencia 2002" in page.text
    assert "Partida 5" in page.text and "Partida 6" in page.text and "Puesto en el torneo" in page.text
    assert page.text.count('class="player-rounds"') == 2  # each game's rounds, plays and scores
    with services(app).games.reading(first) as game:
        mine = next(p for p in game.players.values() if p.table == 3)
        master = game.rounds[0].master
    assert master is not None and master.notation in page.text
    assert f"/results/{first}/jugador/{mine.id}" in page.text
    changed = page.text.split("Partida 5</a>")[1].split("</tr>")[0]
    assert "(" in changed.split("<td")[-1]  # the EloDI change and the rating after the game
    assert client.get(f"/results/torneo/{tournament_id}/jugador/nadie").status_code == 404


def test_elodi_keeps_namesakes_apart_and_lists_them_as_the_federation_receives_them(app: Flask, client: FlaskClient,
                                                                                   arbiter: FlaskClient) -> None:  # fmt: skip
    tournament_id = tournament_with_list(app)
    simulated(app, tournament_id, rounds=12)
    rows = sheet(client.get("/results/elodi/lista.xlsx").data)
    assert rows[0] == ["Jugador", "Licencia", "Club", "Partidas", "Rating", "Volatilidad"]
    assert sorted(row[1] for row in rows[1:] if row[0] == "Ana García") == ["1001", "2002"]
    assert client.get("/results/elodi/jugador/licencia:2002").status_code == 200
    exported = client.get("/results/elodi/lista.csv").data  # the list read back as the earlier list
    answer = post(arbiter, "/arbiter/elodi", {"file": (io.BytesIO(exported), "lista.csv")}, content_type="multipart/form-data")
    assert answer.status_code == 302


def test_the_printable_sheets_carry_the_tie_breaks_the_arbiters_and_a_place_to_sign(app: Flask, client: FlaskClient) -> None:
    tournament_id = tournament_with_list(app)
    game_id = simulated(app, tournament_id)
    sheet_page = client.get(f"/results/torneo/{tournament_id}/imprimir").text
    for text in ("Máximas en solitario", "Máximo diferencial", "Eva Juez", "Luis Árbitro", "Juez Árbitro", "Firma"):
        assert text in sheet_page
    game_page = client.get(f"/results/{game_id}/imprimir").text
    assert "Eva Juez" in game_page and "Firma" in game_page and "M.S." in game_page


def test_games_from_before_are_matched_by_licence_then_by_name(app: Flask) -> None:
    tournament_id = tournament_with_list(app)
    tournament = tournaments_of(app).get(tournament_id)
    events = [Event("player_added", {"player": "j1", "name": "ana garcía", "table": 1, "federation_id": "2002"}),
              Event("player_added", {"player": "j2", "name": "Carmen  Ruiz", "table": 2}),
              Event("player_added", {"player": "j3", "name": "Ana García", "table": 3}),  # which Ana? a guest
              Event("player_added", {"player": "j4", "name": "Zoe", "table": 4})]  # fmt: skip
    assert game_keys(tournament, events) == {"j1": "2002", "j2": "3003", "j3": "?ana garcía", "j4": "?zoe"}


# -- the command line ------------------------------------------------------------------------------


def test_the_command_line_makes_a_tournament_and_plays_its_games(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 file2017: Any) -> None:  # fmt: skip
    listing = tmp_path / "jugadores.csv"
    listing.write_text("\ufeff" + NAMESAKES, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'veedor.db'}"
    data = ["--data", str(tmp_path)]  # as the README: both commands on the data folder serve reads (its veedor.db)
    assert main(["tournament", "create", "--name", "Open de Otoño", "--players", str(listing), *data]) == 0
    tournament_id = capsys.readouterr().out.strip()
    for seed in ("5", "6"):
        assert main(["duplicate", "simulate", "--tournament", tournament_id, "--rounds", "2", "--seed", seed,
                     "--lexicon", str(FILE2017), *data]) == 0  # fmt: skip
        printed = capsys.readouterr().out
        assert f"añadida al torneo {tournament_id}" in printed
        assert printed.count("Ana García (mesa") == 2  # the namesakes told apart in the printed standings
    app = create_app({"TESTING": True, "DATABASE_URL": url, "INSTANCE_PATH": str(tmp_path), "LEXICON": file2017})
    rows = sheet(app.test_client().get(f"/results/torneo/{tournament_id}/clasificacion.xlsx").data)
    assert sorted(row[3] for row in rows[1:] if row[1] == "Ana García") == ["1001", "2002"]
    assert all(row[4] == 2 for row in rows[1:])  # everyone played both games
    services(app).games.close()
    bad = tmp_path / "mala.csv"
    bad.write_text("1 Ana\n2 Ana\n", encoding="utf-8")
    assert main(["tournament", "create", "--name", "Otro", "--players", str(bad), "--db", url]) == 2
    assert "escriba la licencia de cada uno" in capsys.readouterr().err
