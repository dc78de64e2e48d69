"""What a tournament leaves behind (issue 23): tournaments, EloDI, classic results, exports
people open, the evidence file of a game, the history in words, pasted player lists."""

from __future__ import annotations

import csv
import hashlib
import io
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from python_calamine import CalamineWorkbook

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.gcg import parse_gcg
from rules_core.player_list import PlayerListError, parse_player_list
from webapp.services.shared import services
from webapp.services.simulation import make_players, simulate_duplicate

from .web_helpers import ARBITER, duplicate_game, post

pytest_plugins = ["tests.conftest_web"]


def simulated_game(app: Flask, name: str, rounds: int = 12, players: int = 5, seed: int = 1) -> str:
    """A whole duplicate game of ``rounds`` rounds played by simulated players, ended."""
    games = services(app).games
    settings = DuplicateSettings(rounds=rounds)
    game_id = games.create_duplicate(name, settings, actor=ARBITER)
    simulate_duplicate(games.duplicate(game_id), lambda e: games.append(game_id, e), make_players(players), settings, seed)
    return game_id


def classic_game(app: Flask) -> str:
    games = services(app).games
    game_id = games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana Núñez", "Bruno"]))
    for event in (ClassicGame.play_event(0, "H8 CASA"), ClassicGame.play_event(1, "8H CASAS")):
        games.append(game_id, event)
    return game_id


def sheet_rows(data: bytes, sheet: int = 0) -> list[list[Any]]:
    return CalamineWorkbook.from_filelike(io.BytesIO(data)).get_sheet_by_index(sheet).to_python()


# -- exports ---------------------------------------------------------------------------------


def test_standings_export_as_xlsx_with_typed_cells_and_no_formula(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    games = services(app).games
    games.append(game_id, Event("player_added", {"player": "j9", "name": "=HYPERLINK(\"x\") BARREÑA", "table": 9}))
    games.append(game_id, Event("master_announced", {"round": 1}))
    answer = client.get(f"/results/{game_id}/clasificacion.xlsx")
    assert answer.status_code == 200 and "open-de-prueba_" in answer.headers["Content-Disposition"]
    rows = sheet_rows(answer.data)
    assert rows[0][:6] == ["Puesto", "Jugador", "Club", "Licencia", "Mesa", "Total"]
    names = [row[1] for row in rows[1:]]
    assert '=HYPERLINK("x") BARREÑA' in names  # text, accented, never a formula
    assert all(isinstance(row[5], (int, float)) for row in rows[1:])  # numbers as numbers


def test_csv_exports_have_a_bom_one_header_and_say_which_game(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    services(app).games.append(game_id, Event("player_added", {"player": "j9", "name": "Íñigo Barreña", "table": 9}))
    services(app).games.append(game_id, Event("master_announced", {"round": 1}))
    answer = client.get(f"/results/{game_id}/rondas.csv")
    assert answer.data.startswith("\ufeff".encode())
    assert answer.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert answer.headers["Content-Disposition"].endswith('_rondas.csv"')
    rows = list(csv.reader(io.StringIO(answer.data.decode("utf-8-sig")), delimiter=";"))
    assert rows[0][0] == "ronda" and sum(1 for row in rows if row[0] == "ronda") == 1
    assert any(row[2] == "Íñigo Barreña" for row in rows[1:])


def test_the_printable_page_has_the_date_and_says_provisional_until_the_end(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    services(app).games.append(game_id, Event("master_announced", {"round": 1}))
    page = client.get(f"/results/{game_id}/imprimir").text
    assert "PROVISIONAL" in page and "impreso el" in page
    services(app).games.append(game_id, Event("game_ended", {}))
    assert "PROVISIONAL" not in client.get(f"/results/{game_id}/imprimir").text


# -- classic results ---------------------------------------------------------------------------


def test_a_classic_game_has_a_results_page_and_a_gcg(app: Flask, client: FlaskClient) -> None:
    game_id = classic_game(app)
    page = client.get(f"/results/{game_id}")
    assert page.status_code == 200 and "Ana Núñez" in page.text and "8H CASAS" in page.text
    gcg = client.get(f"/results/{game_id}/partida.gcg")
    record = parse_gcg(gcg.get_data(as_text=True))
    plays = [e.event.data["notation"] for e in record.entries if e.event.kind == "play"]
    assert plays == ["H8 CASA", "8H CASAS"]
    sheet = sheet_rows(client.get(f"/results/{game_id}/hoja.xlsx").data)
    assert sheet[1][1] == "Ana Núñez" and sheet[1][4] == 12 and sheet[2][5] == sheet[2][4]


# -- tournaments -------------------------------------------------------------------------------


def test_a_tournament_ranks_its_games_by_d_iv_31(app: Flask, arbiter: FlaskClient, client: FlaskClient) -> None:
    first, second = duplicate_game(app), duplicate_game(app)
    games = services(app).games
    games.append(second, Event("player_added", {"player": "j4", "name": "Dora", "table": 4}))
    for game_id, winner in ((first, "j1"), (second, "j4")):
        games.append(game_id, Event("slip", {"round": 1, "player": winner, "slip": {"notation": "H3 AMONEN"}}))
        games.append(game_id, Event("master_announced", {"round": 1}))
    post(arbiter, "/arbiter/torneos", {"action": "create", "name": "Open de Otoño", "criterion": "average_place"})
    page = arbiter.get("/arbiter/torneos").text
    tournament = page.split("/results/torneo/")[1].split('"')[0]
    for game_id in (first, second):
        post(arbiter, "/arbiter/torneos", {"action": "add", "tournament": tournament, "game": game_id})
    public = client.get(f"/results/torneo/{tournament}")
    assert public.status_code == 200 and "Open de Otoño" in public.text
    assert f"/results/{first}" in public.text and f"/results/{second}" in public.text
    table = sheet_rows(client.get(f"/results/torneo/{tournament}/clasificacion.xlsx").data)
    by_name = {row[1]: dict(zip(table[0], row)) for row in table[1:]}
    assert by_name["Ana"]["Puesto medio"] == pytest.approx((1 + 2) / 2)  # 1st in game 1, tied 2nd of 4 in game 2
    assert by_name["Dora"]["Partidas"] == 1
    assert by_name["Dora"]["Puesto medio"] == pytest.approx((3 + 1) / 2)  # absent: last of game 1


def test_a_tournament_ranks_its_finished_classic_games_by_wins_then_spread(app: Flask, arbiter: FlaskClient,
                                                                           client: FlaskClient) -> None:  # fmt: skip
    games = services(app).games
    ids = []
    for first, second in (("Ana", "Bruno"), ("Bruno", "Carla"), ("Carla", "Ana")):
        game_id = games.create("classic", "Mesa", ClassicGame.create_event([first, second]))
        games.append(game_id, ClassicGame.play_event(0, "H8 CASA"))  # the first player leads 12 to 0
        games.append(game_id, ClassicGame.pass_event(1))
        games.append(game_id, ClassicGame.end_event(None, "45.5"))  # time up with equal turns (C.45.5)
        ids.append(game_id)
    post(arbiter, "/arbiter/torneos", {"action": "create", "name": "Mesas altas", "criterion": "average_place"})
    tournament = arbiter.get("/arbiter/torneos").text.split("/results/torneo/")[1].split('"')[0]
    for game_id in ids:
        post(arbiter, "/arbiter/torneos", {"action": "add", "tournament": tournament, "game": game_id})
    page = client.get(f"/results/torneo/{tournament}").text
    section = page.split("Partidas clásicas")[1]
    rows = re.findall(r'<td class="num">(\d+)</td><td>(\w+)</td><td class="num">(\d)</td>\s*<td class="num">([\d.]+)</td>'
                      r'<td class="num">([+-]\d+)</td>', section)
    # each won one game by 12 and lost one by 12: all tied first
    assert sorted(rows) == [("1", "Ana", "2", "1.0", "+0"), ("1", "Bruno", "2", "1.0", "+0"), ("1", "Carla", "2", "1.0", "+0")]


def test_only_arbiters_make_tournaments(app: Flask, client: FlaskClient) -> None:
    assert client.get("/arbiter/torneos").status_code == 302


# -- EloDI -------------------------------------------------------------------------------------


def test_elodi_rates_the_ended_games_of_twelve_rounds(app: Flask, client: FlaskClient) -> None:
    simulated_game(app, "Duplicada larga", rounds=12)
    simulated_game(app, "Duplicada corta", rounds=3, seed=2)  # under 12 rounds: not rated
    page = client.get("/results/elodi")
    assert page.status_code == 200 and "Ana" in page.text
    history = client.get("/results/elodi/historial.jsonl").get_data(as_text=True).splitlines()
    assert len(history) == 2  # both ended games are in the history; only the long one changes ratings
    rows = sheet_rows(client.get("/results/elodi/lista.xlsx").data)
    assert rows[0] == ["Jugador", "Licencia", "Club", "Partidas", "Rating", "Volatilidad"]  # the federation's form
    assert len(rows) == 6 and all(row[3] == 1 for row in rows[1:])
    assert client.get("/results/elodi/jugador/Ana").status_code == 200


def test_an_earlier_list_is_imported_and_checked(app: Flask, arbiter: FlaskClient, client: FlaskClient) -> None:
    bad = post(arbiter, "/arbiter/elodi", {"file": (io.BytesIO(b"Ana,mil,2,3\n"), "antes.csv")},
               content_type="multipart/form-data", follow_redirects=True)  # fmt: skip
    assert "no se ha guardado" in bad.text
    good = post(arbiter, "/arbiter/elodi", {"file": (io.BytesIO(b"player,rating,volatility,games\nVeterana,1650,220,30\n"),
                                                     "antes.csv")}, content_type="multipart/form-data")  # fmt: skip
    assert good.status_code == 302
    assert "Veterana" in client.get("/results/elodi").text


# -- the evidence file ---------------------------------------------------------------------------


def test_the_evidence_file_holds_every_scan_and_its_manifest_matches(app: Flask, arbiter: FlaskClient,
                                                                     tmp_path: Path) -> None:  # fmt: skip
    from .test_web_slips import scan_amonen_through_the_watched_folder

    game_id = duplicate_game(app)
    scan_amonen_through_the_watched_folder(app, game_id, tmp_path / "escaner")
    post(arbiter, f"/arbiter/g/{game_id}/slip", {"table": "2", "play": "H4 MANEN"})
    answer = arbiter.get(f"/arbiter/g/{game_id}/expediente.zip")
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(answer.data))
    manifest = dict(reversed(line.split("  ", 1)) for line in archive.read("MANIFIESTO.txt").decode().splitlines())
    assert set(manifest) == set(archive.namelist()) - {"MANIFIESTO.txt"}
    for name, digest in manifest.items():
        assert hashlib.sha256(archive.read(name)).hexdigest() == digest, name
    plays = list(csv.reader(io.StringIO(archive.read("jugadas.csv").decode("utf-8-sig")), delimiter=";"))
    scanned = [row for row in plays[1:] if row[6].startswith("dispositivo") or row[6] == "escáner" or "escaneos/" in row[7]]
    assert len(scanned) == 1 and scanned[0][7].startswith("escaneos/") and scanned[0][7] in archive.namelist()
    typed = [row for row in plays[1:] if row[6] == ARBITER]
    assert typed and typed[0][4] == "H4 MANEN"
    assert "Papeleta" in archive.read("historial.txt").decode() or "papeleta" in archive.read("historial.txt").decode()
    assert {"eventos.jsonl", "resultados.xlsx", "clasificacion.csv", "rondas.csv"} <= set(archive.namelist())


def test_the_archive_command_writes_the_same_file(app: Flask, tmp_path: Path) -> None:
    from webapp.cli import main

    game_id = classic_game(app)
    out = tmp_path / "expediente.zip"
    url = app.config["DATABASE_URL"]
    assert main(["archive", game_id, "--out", str(out), "--db", url, "--data", app.instance_path]) == 0
    names = zipfile.ZipFile(out).namelist()
    assert {"eventos.jsonl", "partida.gcg", "hoja.csv", "MANIFIESTO.txt"} <= set(names)
    assert main(["archive", "no-existe", "--out", str(out), "--db", url]) == 2


# -- the history ----------------------------------------------------------------------------------


def test_the_history_is_in_words_local_time_and_filters(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    services(app).games.append(game_id, Event("player_added", {"player": "j9", "name": "Ñoño", "table": 9}))
    post(arbiter, f"/arbiter/g/{game_id}/slip", {"table": "1", "play": "H3 AMONEN"})
    page = arbiter.get(f"/arbiter/g/{game_id}/log").text
    assert "papeleta de la mesa 1 (Ana): H3 AMONEN" in page and f"por {ARBITER}" in page
    assert "Ñoño" in page and "\\u00d1" not in page and "player_added" not in page
    only = arbiter.get(f"/arbiter/g/{game_id}/log?mesa=1").text
    assert "H3 AMONEN" in only and "Ñoño" not in only
    assert "player_added" in arbiter.get(f"/arbiter/g/{game_id}/log?datos=1").text


# -- player lists ---------------------------------------------------------------------------------


def test_a_list_pasted_from_a_spreadsheet() -> None:
    pasted = "Mesa\tNombre\tClub\tLicencia\n5\tCarlos Pérez\tCEDE\t1234\n6\tLucía\t\t\n"
    players = parse_player_list(pasted)
    assert [(p.table, p.name, p.club, p.federation_id) for p in players] == [(5, "Carlos Pérez", "CEDE", "1234"),
                                                                             (6, "Lucía", "", "")]  # fmt: skip
    semicolons = parse_player_list("7;Ana\n;Bea\n")
    assert [(p.table, p.name) for p in semicolons] == [(7, "Ana"), (8, "Bea")]


def test_a_pasted_list_says_its_problems_in_the_arbiters_words() -> None:
    with pytest.raises(PlayerListError) as found:
        parse_player_list("4 Ana\n4 Bruno\n" + "5 " + "x" * 120 + "\n", taken={})
    assert "la mesa 4 está repetida: Ana y Bruno" in found.value.problems
    assert any("120 caracteres" in p for p in found.value.problems)
    with pytest.raises(PlayerListError, match="la mesa 1 está repetida: Ana y Zoe"):
        parse_player_list("1 Zoe", taken={1: "Ana"})


def test_adding_a_repeated_table_in_the_console_stores_nothing(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    answer = post(arbiter, f"/arbiter/g/{game_id}/players", {"players": "2 Bruno"})
    assert "la mesa 2 está repetida: Bea y Bruno" in answer.text and "j" not in answer.text.split("repetida")[0][-2:]
    assert len(services(app).games.duplicate(game_id).players) == 3


def test_the_evidence_file_holds_the_frame_of_every_camera_play(app: Flask, arbiter: FlaskClient) -> None:
    """The demo's camera table (a rendered game through the real pipeline, as ``make demo`` plays it)."""
    from webapp.services.demo.table import DEMO_CAMERA, create_demo_game, run_demo_table

    found = services(app)
    game_id = create_demo_game(found.games, found.games.lexicon)
    found.cameras.add(DEMO_CAMERA, kind="demo", source="vídeo generado", fps=10.0, game_id=game_id)
    run_demo_table(found.games, game_id, found.games.lexicon, plays=2, seed=5,
                   send=lambda message: found.cameras.receive(DEMO_CAMERA, message), data_dir=found.cameras.data_dir)  # fmt: skip
    with found.games.reading(game_id) as game:
        played = [e for e in game.events if e.kind == "play"]
    assert len(played) == 2 and all(e.actor.startswith("camera:") for e in played)
    archive = zipfile.ZipFile(io.BytesIO(arbiter.get(f"/arbiter/g/{game_id}/expediente.zip").data))
    plays = list(csv.reader(io.StringIO(archive.read("jugadas.csv").decode("utf-8-sig")), delimiter=";"))[1:]
    frames = [row[7] for row in plays if row[4] and row[6].startswith("camera:")]
    assert len(frames) == 2 and all(f.startswith("fotogramas/") and f in archive.namelist() for f in frames)
    assert len(set(frames)) == 2  # each play its own frame
    manifest = dict(reversed(line.split("  ", 1)) for line in archive.read("MANIFIESTO.txt").decode().splitlines())
    assert all(hashlib.sha256(archive.read(f)).hexdigest() == manifest[f] for f in frames)
