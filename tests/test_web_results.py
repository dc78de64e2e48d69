"""Public results: standings, rounds, players with their chart, CSV, printable page."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from rules_core.events import Event
from rules_core.slips import Slip
from webapp.services.shared import services
from webapp.views.results import chart_bars

from .web_helpers import duplicate_game

pytest_plugins = ["tests.conftest_web"]


def played_round(app: Flask) -> str:
    """Round 1 played (Ana matches the master alone: +10), round 2 in play with a slip."""
    game_id = duplicate_game(app, bonuses=True)
    games = services(app).games

    def slip(number: int, player: str, notation: str) -> None:
        games.append(game_id, Event("slip", {"round": number, "player": player, "slip": Slip(notation).to_json()}))

    slip(1, "j1", "8C AMONEN")
    slip(1, "j2", "H4 MANEN")
    games.append(game_id, Event("master_announced", {"round": 1}))
    games.append(game_id, Event("rack_set", {"round": 2, "rack": list("AEILQRS"), "source": "manual"}))
    slip(2, "j3", "SECRETO-EN-JUEGO")
    return game_id


def test_standings_with_bonuses_marked(app: Flask, client: FlaskClient) -> None:
    game_id = played_round(app)
    page = client.get(f"/results/{game_id}")
    assert page.status_code == 200
    text = page.text
    assert text.index("Ana") < text.index("Bea") < text.index("Ciro")
    assert ">32<" in text and "+10" in text  # 22 + the bonus of D.III.24
    assert "ronda en juego" in text
    assert "SECRETO" not in text
    assert client.get("/results").status_code == 200


def test_the_round_in_play_stays_hidden(app: Flask, client: FlaskClient) -> None:
    game_id = played_round(app)
    assert client.get(f"/results/{game_id}/ronda/2").status_code == 404
    csv = client.get(f"/results/{game_id}/rondas.csv")
    assert csv.status_code == 200 and csv.mimetype == "text/csv"
    assert "SECRETO" not in csv.text
    lines = csv.data.decode("utf-8-sig").splitlines()
    assert lines[0].startswith("ronda;mesa;jugador") and len(lines) == 4
    assert "attachment" in csv.headers["Content-Disposition"]


def test_a_round_page(app: Flask, client: FlaskClient) -> None:
    game_id = played_round(app)
    page = client.get(f"/results/{game_id}/ronda/1").text
    assert "H3 AMONEN" in page and "8C AMONEN" in page and "sin papeleta" in page and "+10" in page


def test_a_player_page_with_the_chart(app: Flask, client: FlaskClient) -> None:
    game_id = played_round(app)
    page = client.get(f"/results/{game_id}/jugador/j2")
    assert page.status_code == 200
    assert "<svg" in page.text and "bar-part" in page.text and "H4 MANEN" in page.text
    assert client.get(f"/results/{game_id}/jugador/nadie").status_code == 404


def test_standings_csv_and_printable_page(app: Flask, client: FlaskClient) -> None:
    game_id = played_round(app)
    csv = client.get(f"/results/{game_id}/clasificacion.csv").text
    assert csv.lstrip("\ufeff").splitlines()[1].startswith("1;Ana;;;1;32;")  # place, name, club, licence, table, total
    printable = client.get(f"/results/{game_id}/imprimir")
    assert printable.status_code == 200 and "print.css" in printable.text and "<sup>+10</sup>" in printable.text


def test_results_are_read_only(app: Flask, client: FlaskClient) -> None:
    game_id = played_round(app)
    for url in (f"/results/{game_id}", f"/results/{game_id}/ronda/1", "/results"):
        assert client.post(url).status_code in (400, 405)


def test_classic_games_have_their_own_results_not_the_duplicates(app: Flask, client: FlaskClient) -> None:
    from rules_core.classic import ClassicGame

    game_id = services(app).games.create("classic", "Mesa", ClassicGame.create_event(["Ana", "Bea"]))
    assert "Hoja de anotación" in client.get(f"/results/{game_id}").text
    assert client.get(f"/results/{game_id}/ronda/1").status_code == 404
    assert client.get(f"/results/{game_id}/clasificacion.csv").status_code == 404


def test_chart_bars_scale_to_the_best_master() -> None:
    bars, ticks = chart_bars([(1, 22, 22), (2, 40, 0), (3, 30, 12)])
    assert [b.kind for b in bars] == ["top", "zero", "part"]
    assert ticks[0][1] == 0 and ticks[-1][1] == 40
    assert bars[1].master_y < bars[0].master_y  # taller bar for the bigger master
