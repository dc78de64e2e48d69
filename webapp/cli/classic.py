"""``veedor classic ...``: classic-game commands for the command line.

``classic replay FILE.gcg [--lexicon PATH]`` imports a GCG record, replays it under
the FILE rules, rescores every play and prints the score sheet, the discrepancies
with the record, the words not in the lexicon and the result. Exit status: 0 the
record agrees with the rules, 1 it does not; a malformed file raises
``rules_core.gcg.GCGError`` (a ValueError), which the main command maps to 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from rules_core.classic import ACTION_LABELS, ClassicGame
from rules_core.gcg import GCGCheck, GCGError, check_gcg, decode_gcg
from rules_core.lexicon import load_lexicon

from .spanish import LEXICON_HELP


def add_classic_commands(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``classic replay`` to the ``veedor`` command's subparsers."""
    classic = subparsers.add_parser("classic", help="partidas clásicas (de dos jugadores)")
    commands = classic.add_subparsers(required=True, metavar="ORDEN")
    replay = commands.add_parser("replay", help="repite un registro GCG con las reglas de la FILE y dice en qué discrepa")
    replay.add_argument("gcg", metavar="ARCHIVO.gcg", help="el registro de la partida")
    replay.add_argument(
        "--lexicon",
        metavar="RUTA",
        help=LEXICON_HELP,
    )
    replay.set_defaults(run=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    """Check the record and print the report; 0 when it agrees with the rules, else 1."""
    path = Path(args.gcg)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise GCGError(f"no se puede leer {str(path)!r}: {error.strerror}") from None
    lexicon = load_lexicon(args.lexicon)
    report = check_gcg(decode_gcg(data), lexicon)
    write_report(report, sys.stdout)
    return 0 if report.agrees else 1


def write_report(report: GCGCheck, out: TextIO) -> None:
    """The score sheet, the words not in the lexicon, the discrepancies and the result."""
    game = report.game
    names = game.players
    lexicon = game.state.lexicon_name or game.lexicon.name
    out.write(f"{names[0]} - {names[1]} (léxico {lexicon})\n")
    width = max(len(n) for n in names)
    for number, row in enumerate(game.scoresheet(), start=1):
        action = ACTION_LABELS[row.action]
        note = f"  ({row.note})" if row.note else ""
        out.write(
            f"{number:3}  {names[row.player]:<{width}}  {action:<16} {row.notation:<18}"
            f"{row.points:+5}  {row.total:5}{note}\n"
        )
    _write_invalid_words(game, out)
    if report.discrepancies:
        out.write("Discrepancias con el registro:\n")
        for discrepancy in report.discrepancies:
            out.write(f"  {discrepancy}\n")
    else:
        out.write("El registro coincide con las reglas.\n")
    out.write(_result(game) + "\n")


def _write_invalid_words(game: ClassicGame, out: TextIO) -> None:
    for turn in game.turns:
        if turn.invalid_words:
            words = ", ".join(turn.invalid_words)
            how = "retirada tras impugnarla (C.39)"
            if not turn.withdrawn:
                how = "aceptada sin impugnar (C.38)"
            out.write(
                f"Palabra no válida en el turno {turn.number}, {game.players[turn.player]} "
                f"{turn.notation}: {words}; jugada {how}\n"
            )


def _result(game: ClassicGame) -> str:
    (a, b), names = game.scores, game.players
    state = f"final (C.{game.ending})" if game.finished else "partida sin terminar"
    winner = game.winner()
    ahead = "gana" if game.finished else "por delante"
    verdict = "empate" if winner is None else f"{ahead} {names[winner]}"
    return f"Resultado ({state}): {names[0]} {a} - {names[1]} {b}, {verdict}"
