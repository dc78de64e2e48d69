"""The console as an arbiter works it (issue 67): a game's slips printed and its players' list with their ids from
the console, ``veedor print-slips --game`` reading the players from the database, and the console home leading to
tournaments, EloDI and each game's evidence file.

Before: ``print-slips`` needed an id,name,table file whose ids appeared nowhere, there was no print button, and the
console home linked none of tournaments, EloDI or the evidence file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.player_list import parse_player_list
from vision.slips.ingest import split_pages
from vision.slips.reader import locate_slips
from webapp.cli import main as cli
from webapp.cli.slips import load_players
from webapp.services.shared import services

from .web_helpers import ARBITER, duplicate_game

pytest_plugins = ["tests.conftest_web"]


def qr_codes(pdf: bytes) -> list[tuple[str, int, str]]:
    """What the QR codes of the slips on a PDF's first page say: (game, table, player), by table."""
    page = next(iter(split_pages(pdf, "papeletas.pdf")))
    return sorted((slip.qr for slip in locate_slips(page) if slip.qr), key=lambda qr: (qr[1], qr[0]))


def with_club(app: Flask, game_id: str) -> None:
    """A fourth player with a club and a federation id, at table 7."""
    data = {"player": "j7", "name": "Dora Núñez", "table": 7, "club": "Club Alfil", "federation_id": "F-123"}
    services(app).games.append(game_id, Event("player_added", data, ARBITER))


def test_the_players_list_with_their_ids_is_a_csv_the_tools_read_back(app: Flask, arbiter: FlaskClient,
                                                                      tmp_path: Path) -> None:  # fmt: skip
    game_id = duplicate_game(app)
    with_club(app, game_id)
    answer = arbiter.get(f"/arbiter/g/{game_id}/jugadores.csv")
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    assert "jugadores.csv" in answer.headers["Content-Disposition"]
    text = answer.data.decode("utf-8-sig")
    assert text.splitlines() == ["mesa;nombre;club;licencia;id_jugador", "1;Ana;;;j1", "2;Bea;;;j2", "3;Ciro;;;j3",
                                 "7;Dora Núñez;Club Alfil;F-123;j7"]  # fmt: skip
    saved = tmp_path / "jugadores.csv"
    saved.write_bytes(answer.data)
    assert load_players(saved) == [("j1", "Ana", 1), ("j2", "Bea", 2), ("j3", "Ciro", 3), ("j7", "Dora Núñez", 7)]
    pasted = parse_player_list(text)  # pasted as the next game's list, it is the same players
    assert [(p.table, p.name, p.club, p.federation_id) for p in pasted][-1] == (7, "Dora Núñez", "Club Alfil", "F-123")


def test_the_print_button_gives_the_games_players_slips(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    console = arbiter.get(f"/arbiter/g/{game_id}").get_data(as_text=True)
    assert f'action="/arbiter/g/{game_id}/papeletas.pdf"' in console and "Imprimir papeletas" in console
    assert f'href="/arbiter/g/{game_id}/jugadores.csv"' in console
    assert "con tablero" not in console  # the game does not allow absolute notation
    answer = arbiter.get(f"/arbiter/g/{game_id}/papeletas.pdf?por_jugador=2")
    assert answer.status_code == 200 and answer.mimetype == "application/pdf"
    assert "papeletas.pdf" in answer.headers["Content-Disposition"]
    assert qr_codes(answer.data) == [(game_id, t, f"j{t}") for t in (1, 1, 2, 2, 3, 3)]


def test_printing_says_what_is_wrong_and_prints_nothing(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    for wanted in ("0", "101", "treinta"):
        answer = arbiter.get(f"/arbiter/g/{game_id}/papeletas.pdf?por_jugador={wanted}", follow_redirects=True)
        assert answer.mimetype == "text/html" and "un número de 1 a 100" in answer.get_data(as_text=True)
    empty = services(app).games.create_duplicate("Sin jugadores", DuplicateSettings(), actor=ARBITER)
    answer = arbiter.get(f"/arbiter/g/{empty}/papeletas.pdf", follow_redirects=True)
    assert "La partida no tiene jugadores" in answer.get_data(as_text=True)
    classic = services(app).games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bea"]))
    assert arbiter.get(f"/arbiter/g/{classic}/papeletas.pdf").status_code == 404
    assert arbiter.get(f"/arbiter/g/{classic}/jugadores.csv").status_code == 404


def test_slips_with_a_board_only_where_the_game_allows_that_notation(app: Flask, arbiter: FlaskClient) -> None:
    settings = DuplicateSettings(notations=("canonica", "absoluta"))
    game_id = services(app).games.create_duplicate("Absoluta", settings, actor=ARBITER)
    services(app).games.append(game_id, Event("player_added", {"player": "j1", "name": "Ana", "table": 1}))
    assert "con tablero (D.III.20.1.c)" in arbiter.get(f"/arbiter/g/{game_id}").get_data(as_text=True)
    pdf = arbiter.get(f"/arbiter/g/{game_id}/papeletas.pdf?por_jugador=1&tablero=1").data
    assert all(slip.board is not None for slip in locate_slips(next(iter(split_pages(pdf, "a.pdf")))))
    plain = duplicate_game(app)  # canonical only: a board asked for is not printed
    pdf = arbiter.get(f"/arbiter/g/{plain}/papeletas.pdf?por_jugador=1&tablero=1").data
    assert all(slip.board is None for slip in locate_slips(next(iter(split_pages(pdf, "b.pdf")))))


def test_the_players_files_are_for_arbiters_only(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    for path in ("jugadores.csv", "papeletas.pdf"):
        answer = client.get(f"/arbiter/g/{game_id}/{path}")
        assert answer.status_code in (302, 401) and b"Ana" not in answer.data


def test_print_slips_reads_the_games_players_from_the_database(app: Flask, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    game_id = duplicate_game(app)
    out = tmp_path / "papeletas.pdf"
    url = app.config["DATABASE_URL"]
    assert cli(["print-slips", "--game", game_id, "--db", url, "--per-player", "2", "-o", str(out)]) == 0
    assert "3 jugadores, 2 papeletas cada uno, 1 página" in capsys.readouterr().out
    assert qr_codes(out.read_bytes()) == [(game_id, t, f"j{t}") for t in (1, 1, 2, 2, 3, 3)]
    assert cli(["print-slips", "--game", "no-existe", "--db", url, "-o", str(out)]) == 2
    assert "no hay ninguna partida 'no-existe'" in capsys.readouterr().err
    nowhere = tmp_path / "sin-datos"
    assert cli(["print-slips", "--game", game_id, "--data", str(nowhere), "-o", str(out)]) == 2
    assert "no hay base de datos en" in capsys.readouterr().err and not nowhere.exists()  # none made by asking


def test_the_console_home_leads_to_tournaments_elodi_and_each_games_files(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    classic = services(app).games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bea"]))
    home = arbiter.get("/arbiter/").get_data(as_text=True)
    for link in ("/arbiter/torneos", "/arbiter/elodi", "/results/elodi", f"/arbiter/g/{game_id}/expediente.zip",
                 f"/arbiter/g/{classic}/expediente.zip", f"/arbiter/g/{game_id}/papeletas.pdf"):
        assert f'href="{link}"' in home, link
        assert arbiter.get(link).status_code == 200, link
    assert f"/arbiter/g/{classic}/papeletas.pdf" not in home  # a classic table has no slips
    for console in (game_id, classic):
        assert f'href="/arbiter/g/{console}/expediente.zip"' in arbiter.get(f"/arbiter/g/{console}").get_data(as_text=True)
