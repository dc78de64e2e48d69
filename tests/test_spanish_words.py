"""The interface speaks Spanish, in agreement: the command line's help and errors, the history's
words for the slips panel's actions, how many players found a play (1 is singular)."""

from __future__ import annotations

import argparse
import re

import pytest
from flask import Flask

from rules_core.events import Event
from rules_core.slips import Slip
from webapp.cli import _parser, main
from webapp.records.history import describe
from webapp.services.shared import services

from .web_helpers import arbiter_client, duplicate_game

pytest_plugins = ["tests.conftest_web"]

ENGLISH = re.compile(r"\b(the|of|and|with|from|default|usage|options|arguments|show|print|write|read|this)\b")


def parsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """``parser`` and every subcommand's parser under it, by its command line."""
    found = [(parser.prog, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found += parsers(sub)
    return found


def test_every_help_of_the_command_is_in_spanish() -> None:
    english = {}
    for prog, parser in parsers(_parser()):
        text = parser.format_help()
        assert text.startswith(f"uso: {prog}"), prog
        assert "opciones:" in text and "muestra esta ayuda y termina" in text, prog
        helps = [str(a.help) for a in parser._actions if a.help and a.help != argparse.SUPPRESS]
        helps += [str(a.metavar) for a in parser._actions if isinstance(a.metavar, str)]
        wrong = [h for h in helps if ENGLISH.search(h)]
        if wrong:
            english[prog] = wrong
    assert english == {}
    assert len(parsers(_parser())) > 25  # every command and action was walked


@pytest.mark.parametrize("argv, said", [
    (["serve", "--port", "x"], "veedor serve: error: argumento --port: 'x' no es un número entero"),
    (["device", "add"], "veedor device add: error: faltan argumentos: NOMBRE, --role"),
    (["nada"], "veedor: error: argumento ORDEN: 'nada' no se admite (elija entre 'moves', "),
    (["score", "x", "H8 CASA", "--sobra"], "veedor: error: argumentos desconocidos: --sobra"),
])  # fmt: skip
def test_the_commands_errors_are_in_spanish(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_status:
        main(argv)
    assert exit_status.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("uso: veedor") and said in error


def test_the_history_names_the_panels_action_in_spanish() -> None:
    stored = Event("slip_corrected", {"round": 1, "player": "j1", "slip": Slip("H6 YERBA").to_json(),
                                      "reason": "revisión del árbitro (correct)"}, "arbitro")  # fmt: skip
    said = describe(stored, {"j1": "la mesa 1 (Ana)"})
    assert said.endswith("sustituye a la papeleta anterior; motivo: revisión del árbitro (corregida), por arbitro")


def test_the_console_says_how_many_found_a_play_in_agreement(app: Flask) -> None:
    game_id = duplicate_game(app)
    games = services(app).games
    games.append(game_id, Event("slip", {"round": 1, "player": "j1", "slip": Slip("H3 AMONEN").to_json()}))
    page = arbiter_client(app).get(f"/arbiter/g/{game_id}").get_data(as_text=True)
    assert "La encontró 1 jugador" in page and "1 la encontraron" not in page
    assert "Nadie la encontró" in page  # the other top plays
    games.append(game_id, Event("slip", {"round": 1, "player": "j2", "slip": Slip("H3 AMONEN").to_json()}))
    page = arbiter_client(app).get(f"/arbiter/g/{game_id}").get_data(as_text=True)
    assert "La encontraron 2 jugadores" in page
