"""No list stops the room (issue 67.5): an imported list is checked whole and refused line by line, nothing of it
kept; the sizes the pages state are the sizes taken; public pages and exports never fail on stored data.

An EloDI list with a control character in a name was accepted, and from then on ``/results/elodi/lista.xlsx``
answered 500 to everyone; a 200 KB list got 413 while the page said up to 512 KB; a volatility of 0.06 (EloDI
starts at 535) was accepted and shown as 0.
"""

from __future__ import annotations

import io
import math
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, url_for
from flask.testing import FlaskClient
from python_calamine import CalamineWorkbook

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateSettings
from rules_core.elodi import START_RATING, START_VOLATILITY, RatedGame, reach_table, rate_games
from rules_core.player_list import MAX_FIELD, MAX_NAME, MAX_PLAYERS, PlayerListError, parse_player_list
from webapp.cli import main
from webapp.records.elodi_list import PREVIOUS_FILE, RatingListError, parse_ratings
from webapp.records.tournaments import tournaments_of
from webapp.services.shared import services
from webapp.services.simulation import make_players, simulate_duplicate

from .web_helpers import ARBITER, post

pytest_plugins = ["tests.conftest_web"]

HEADER = "player,rating,volatility,games\n"


def import_list(arbiter: FlaskClient, data: bytes, **kwargs: Any) -> Any:
    return post(arbiter, "/arbiter/elodi", {"file": (io.BytesIO(data), "antes.csv")},
                content_type="multipart/form-data", **kwargs)  # fmt: skip


def kept(app: Flask) -> Path:
    return Path(app.instance_path) / PREVIOUS_FILE


# -- the EloDI list ------------------------------------------------------------------------------------------


def test_an_elodi_list_with_problems_is_refused_whole_line_by_line_and_nothing_of_it_kept(
        app: Flask, arbiter: FlaskClient) -> None:  # fmt: skip
    good = (HEADER + "Veterana,1650,220,30\n").encode()
    assert import_list(arbiter, good).status_code == 302
    bad = (HEADER + "Ana\x07Bel,1650,0.06,30\n"  # line 2
           "Nueva,1300,535,0\n"  # 3: no games, not the start
           "Bea,1500,200,3\n"  # 4: after 3 games the volatility is 217.9 at least
           "  bea ,1400,300,5\n"  # 5: the same person as line 4
           "Ciro,1400,300\n"  # 6
           "Dora,mil,300,5\n"  # 7
           "Eva\u202e,1400,300,-5\n"  # 8: a bidirectional override; games below 0
           "Fede,3000,300,1\n"  # 9: one game moves the rating 900 at most
           "Gema,1400,300,5\n").encode()  # 10: right
    answer = import_list(arbiter, bad)
    assert answer.status_code == 400
    problems = [item.split("</li>")[0] for item in answer.text.split("<li>")[1:]]
    assert problems == [
        "línea 2: el nombre lleva un carácter de control o invisible (U+0007)",
        "línea 2: una volatilidad de 0,06 no es posible tras 30 partidas (EloDI: empieza en 535 y tras 30 va de 8,4 a 1170)",
        "línea 3: un jugador sin partidas tiene el rating y la volatilidad del comienzo, 1200 y 535 (EloDI), no 1300 y 535",
        "línea 4: una volatilidad de 200 no es posible tras 3 partidas (EloDI: empieza en 535 y tras 3 va de 217,9 a 1311)",
        "línea 5: bea ya está en la línea 4",
        "línea 6: se esperaban 4 columnas (jugador, rating, volatilidad, partidas) o 6 (jugador, licencia, club, "
        "partidas, rating, volatilidad), hay 3",
        "línea 7: el rating &#39;mil&#39; no es un número",
        "línea 8: el nombre lleva un carácter de control o invisible (U+202E)",
        "línea 8: las partidas &#39;-5&#39; deben ser un número entero de 0 a 10000",
        "línea 9: un rating de 3000 no es posible tras 1 partidas (EloDI: de 300 a 2100)",
    ]  # fmt: skip
    assert "no se ha guardado nada de ella" in answer.text
    assert kept(app).read_bytes() == good  # the list kept before is untouched
    assert sorted(p.name for p in kept(app).parent.iterdir() if "elodi" in p.name) == [PREVIOUS_FILE]


def test_the_size_the_import_page_states_is_the_size_taken(app: Flask, arbiter: FlaskClient) -> None:
    """A 200 KB list got 413 while the page said up to 512 KB."""
    page = arbiter.get("/arbiter/elodi").text
    assert "como mucho 512 KB" in page
    rows = [f"Jugadora número {i:05d} de la lista de la federación,{1300 + i % 500},{250 + i % 100},{10 + i % 40}\n"
            for i in range(9000)]  # fmt: skip
    data = (HEADER + "".join(rows)).encode()
    while len(data) > 512 * 1024:
        rows.pop()
        data = (HEADER + "".join(rows)).encode()
    assert len(data) > 500 * 1024
    answer = import_list(arbiter, data, follow_redirects=True)
    assert answer.status_code == 200 and f"Lista anterior guardada: {len(rows)} jugadores." in answer.text
    over = import_list(arbiter, data + b"Una mas,1300,300,10\n" * 1000, follow_redirects=True)
    assert over.status_code == 200 and "Elija un archivo CSV de como mucho 512 KB." in over.text
    assert kept(app).read_bytes() == data


def test_a_spanish_spreadsheet_list_with_semicolons_and_decimal_commas_is_read() -> None:
    found = parse_ratings("jugador;rating;volatilidad;partidas\r\nAna Núñez;1650,5;220,25;30\r\n".encode("utf-8-sig"))
    assert found["Ana Núñez"].rating == 1650.5 and found["Ana Núñez"].volatility == 220.25


def test_a_list_not_in_utf8_is_refused_naming_its_line() -> None:
    with pytest.raises(RatingListError) as refused:
        parse_ratings((HEADER + "Ana,1650,220,30\nMaría,1500,250,20\n").encode("cp1252"))
    assert refused.value.problems == ["línea 3: el archivo no está en UTF-8 (guárdelo como «CSV UTF-8»)"]


def test_the_rating_command_names_the_file_and_each_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history, previous = tmp_path / "h.jsonl", tmp_path / "antes.csv"
    history.write_text("", encoding="utf-8")
    previous.write_text(HEADER + "Ana,1600,0.06,20\n", encoding="utf-8")
    assert main(["rating", "--history", str(history), "--ratings", str(previous)]) == 2
    assert f"{previous}, línea 2: una volatilidad de 0,06 no es posible tras 20 partidas" in capsys.readouterr().err


def test_every_rating_the_update_gives_is_within_reach() -> None:
    """The bounds the import checks hold every rating that 300 random games give (ELODI.md's update)."""
    rng = random.Random(67)
    people = [f"p{i}" for i in range(30)]
    games = []
    for number in range(300):
        field = rng.sample(people, rng.randrange(2, 12))
        games.append(RatedGame(f"g{number}", f"2026-{1 + number // 28:02d}-{1 + number % 28:02d}", 12,
                               tuple((p, rank) for rank, p in enumerate(field, start=1))))  # fmt: skip
    _ratings, changes = rate_games(games)
    table = reach_table(max(c.after.games for c in changes))
    assert table[0].rating == (START_RATING, START_RATING) and table[0].volatility == (START_VOLATILITY,) * 2
    assert table[1].volatility[0] == pytest.approx(START_VOLATILITY / math.sqrt(2.5))  # the weight of a first game
    for change in changes:
        reach = table[change.after.games]
        assert reach.rating[0] <= change.after.rating <= reach.rating[1], change
        assert reach.volatility[0] <= change.after.volatility <= reach.volatility[1], change


# -- the players' list pasted in the console -------------------------------------------------------------------


def test_a_control_character_in_a_pasted_list_is_refused_naming_its_line(app: Flask, arbiter: FlaskClient) -> None:
    answer = post(arbiter, "/arbiter/duplicate", {"name": "Open", "players": "1 Ana\r\n2 Be\x07a\r\n3 Ciro\r\n"})
    assert answer.status_code == 400
    assert "El campo &#39;players&#39; contiene un carácter de control (código 7) en la línea 2." in answer.text
    assert services(app).games.store.games() == []


def test_an_invisible_character_in_a_pasted_list_is_refused_with_the_others() -> None:
    with pytest.raises(PlayerListError) as refused:
        parse_player_list("\ufeff1 Ana\n2 Be\u200ba\n3\tCiro\tClub\u202e\n4 Dora")
    assert refused.value.problems == ["línea 2: el nombre lleva un carácter de control o invisible (U+200B)",
                                      "línea 3: el club lleva un carácter de control o invisible (U+202E)"]


def test_the_longest_list_the_page_allows_is_taken(app: Flask, arbiter: FlaskClient) -> None:
    """500 players, each name of 100 characters, club and licence of 60, written with accents: the page says so."""
    lines = [f"{table}\t{'Ñ' * (MAX_NAME - 4)}{table:04d}\t{'clúb' * (MAX_FIELD // 4)}\t{'L' * MAX_FIELD}"
             for table in range(1, MAX_PLAYERS + 1)]  # fmt: skip
    text = "mesa\tnombre\tclub\tlicencia\r\n" + "\r\n".join(lines)
    preview = post(arbiter, "/arbiter/duplicate", {"name": "Open", "players": text})
    assert preview.status_code == 200 and "Así se guardarán los jugadores" in preview.text
    assert f"Como mucho {MAX_PLAYERS} jugadores y {MAX_NAME} caracteres por nombre" in preview.text


# -- stored data on public pages -------------------------------------------------------------------------------

ODD_NAMES = ("Ana\x07Bel", "Bruno\x1b[31m", "Carla\u202eal", "Dora\x00", "Eva\x0bVal", "Fede\ufffe")


def plant_odd_names(app: Flask) -> dict[str, list[str]]:
    """Names stored before the boundary checked them: an ended duplicate game of 12 rounds, a classic game, a
    tournament and the earlier EloDI list, each with control and invisible characters in names."""
    games = services(app).games
    settings = DuplicateSettings(rounds=12)
    duplicate = games.create_duplicate("Partida\x07 rara", settings, actor=ARBITER)
    players = [replace(p, name=name) for p, name in zip(make_players(len(ODD_NAMES)), ODD_NAMES)]
    simulate_duplicate(games.duplicate(duplicate), lambda e: games.append(duplicate, e), players, settings, 7)
    classic = games.create("classic", "Mesa\x1b rara", ClassicGame.create_event(["Ana\x07Bel", "Bruno\x00"]))
    games.append(classic, ClassicGame.play_event(0, "H8 CASA"))
    tournament = tournaments_of(app).create("Torneo raro", "average_place")
    tournaments_of(app).add_game(tournament, duplicate)
    kept(app).parent.mkdir(parents=True, exist_ok=True)
    kept(app).write_bytes(b"Vieja\x07Lista,1650,0.06,30\nOtra\x1b,1500,250,20\n")  # kept before the checks
    return {"game_id": [duplicate, classic], "number": ["1"], "player": ["j1", "j2", "0", "1"],
            "name": [*ODD_NAMES, "Vieja\x07Lista", "pantalla"], "tournament_id": [tournament], "part": ["tablero"],
            "kind": ["csv", "xlsx"]}  # fmt: skip


def urls(app: Flask, values: dict[str, list[str]]) -> list[str]:
    """Every public GET route of the URL map (no arbiter's page, no camera's API, no live stream), with each
    combination of the planted values for its arguments."""
    found = []
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            private = rule.endpoint in ("static", "api.stream") or rule.rule.startswith(("/arbiter", "/api/cameras"))
            if "GET" not in (rule.methods or ()) or private:
                continue
            combos: list[dict[str, Any]] = [{}]
            for argument in sorted(rule.arguments):
                combos = [{**c, argument: v} for c in combos for v in values.get(argument, ["1"])]
            found += [url_for(rule.endpoint, **combo) for combo in combos]
    return sorted(set(found))


def test_public_pages_and_exports_never_fail_on_odd_names_already_stored(app: Flask, client: FlaskClient) -> None:
    values = plant_odd_names(app)
    answers = {url: client.get(url).status_code for url in urls(app, values)}
    assert len(answers) > 40
    assert {url: code for url, code in answers.items() if code >= 500} == {}
    sheet = CalamineWorkbook.from_filelike(io.BytesIO(client.get("/results/elodi/lista.xlsx").data))
    names = [row[0] for row in sheet.get_sheet_by_index(0).to_python()[1:]]  # the federation's form: the player first
    assert "Vieja\ufffdLista" in names and "Ana\ufffdBel" in names  # each control character shown as U+FFFD
