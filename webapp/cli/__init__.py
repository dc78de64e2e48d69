"""The ``veedor`` command line.

Subcommands: ``moves`` (every legal play of a position), ``score`` (check and score
one play), ``demo`` (a solitaire in the terminal), ``duplicate simulate``, ``classic
replay``, ``serve`` (the web app), ``arbiter`` and ``device`` (accounts and device
tokens), ``read-board``, ``watch-board``, ``print-markers`` (the board camera), ``print-slips``, ``read-slip``, ``read-move``,
``slips`` (the slip reader), ``check-venue`` (a venue file and its devices), ``rating``
(EloDI from a history of games), ``archive`` (a game's evidence file), ``tournament create`` (a
tournament and its player list). Exit status: 0 done, 1 an
illegal play, 2 bad input (a malformed position, notation or lexicon).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from rules_core.alphabet import label
from rules_core.board import square_name
from rules_core.cgp import CGPError, Position
from rules_core.events import GameError
from rules_core.gcg import GCGError
from rules_core.lexicon import Lexicon, LexiconError, load_lexicon
from rules_core.movegen import generate_plays
from rules_core.notation import NotationError, Play
from rules_core.validation import PlayCheck, check_play

from . import solitaire
from .spanish import LEXICON_HELP, Parser
from .accounts import add_account_commands
from .archive import add_archive_commands
from .board import add_board_commands
from .camera import add_camera_commands
from .classic import add_classic_commands
from .duplicate import add_duplicate_commands
from .rating import add_rating_commands
from .serve import add_serve_commands
from .slips import add_slip_commands
from .tournament import add_tournament_commands
from .venue import add_venue_commands


class InputError(Exception):
    """Bad input from the user: exit status 2 with the message."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except (InputError, CGPError, NotationError, LexiconError, GameError, GCGError) as error:
        print(f"veedor: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="veedor", description="Veedor: reglas, jugadas y partidas de Scrabble en español.")
    commands = parser.add_subparsers(required=True, metavar="ORDEN")

    moves = commands.add_parser("moves", help="todas las jugadas válidas de una posición, en JSON")
    moves.add_argument("cgp", metavar="CGP", help="una posición en CGP, o - para leer una por línea de la entrada")
    _add_lexicon_option(moves)
    moves.set_defaults(run=_run_moves)

    score = commands.add_parser("score", help="comprueba y puntúa una jugada")
    score.add_argument("cgp", metavar="CGP", help="una posición en CGP")
    score.add_argument("play", metavar="JUGADA", help='una jugada en notación canónica, p. ej. "H8 CASA"')
    score.add_argument("--json", action="store_true", help="escribe un objeto JSON")
    _add_lexicon_option(score)
    score.set_defaults(run=_run_score)

    add_duplicate_commands(commands)
    add_slip_commands(commands)
    add_classic_commands(commands)
    add_serve_commands(commands)
    add_account_commands(commands)
    add_rating_commands(commands)
    add_archive_commands(commands)
    add_venue_commands(commands)
    add_board_commands(commands)
    add_camera_commands(commands)
    add_tournament_commands(commands)

    game = commands.add_parser("demo", help="una partida jugada en el terminal")
    game.add_argument("--seed", type=int, default=2017, help="semilla de la bolsa (por defecto 2017)")
    game.add_argument("--delay", type=float, default=None, help="segundos entre rondas")
    _add_lexicon_option(game)
    game.set_defaults(run=_run_demo)
    return parser


def _add_lexicon_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lexicon",
        metavar="RUTA",
        help=LEXICON_HELP,
    )


def _lexicon(args: argparse.Namespace) -> Lexicon:
    return load_lexicon(args.lexicon)


def _position(text: str, lexicon: Lexicon) -> Position:
    position = Position.from_cgp(text)
    wanted = position.lexicon_name
    if wanted and wanted != lexicon.name:
        print(
            f"veedor: aviso: la posición pide el léxico {wanted} y se usa {lexicon.name}",
            file=sys.stderr,
        )
    return position


def _run_moves(args: argparse.Namespace) -> int:
    lexicon = _lexicon(args)
    lines = sys.stdin if args.cgp == "-" else [args.cgp]
    for line in lines:
        text = line.strip()
        if not text:
            continue
        position = _position(text, lexicon)
        plays = generate_plays(position.board, position.rack, lexicon)
        moves = [[p.notation, p.score] for p in plays]
        print(json.dumps({"cgp": text, "moves": moves}, ensure_ascii=False), flush=True)
    return 0


def _run_score(args: argparse.Namespace) -> int:
    lexicon = _lexicon(args)
    position = _position(args.cgp, lexicon)
    play = Play.from_notation(args.play)
    rack = position.rack or None
    verdict = check_play(position.board, play, lexicon, rack)
    if args.json:
        print(json.dumps(verdict_json(verdict), ensure_ascii=False))
    else:
        write_verdict(verdict, sys.stdout)
    return 0 if verdict.legal else 1


def verdict_json(verdict: PlayCheck) -> dict[str, object]:
    """A verdict as a JSON-ready dict: play, legal, score, words, tiles, problems."""
    score = verdict.score
    return {
        "play": verdict.play.notation(),
        "legal": verdict.legal,
        "score": verdict.points,
        "words": [
            {"word": Play(w.start[0], w.start[1], w.down, w.tiles).notation(), "points": w.points}
            for w in (score.words if score else ())
        ],
        "bonus": score.bonus if score else 0,
        "tiles": [
            {"square": square_name(*sq), "tile": label(t)}
            for sq, t in sorted(verdict.placed.items())
        ],
        "problems": [
            {"code": p.code, "message": p.message, "article": p.article} for p in verdict.problems
        ],
    }


def write_verdict(verdict: PlayCheck, out: TextIO) -> None:
    """The verdict as an arbiter reads it."""
    play = verdict.play.notation()
    if verdict.legal and verdict.score:
        out.write(f"{play}: {verdict.score.total} puntos\n")
        for word in verdict.score.words:
            formed = Play(word.start[0], word.start[1], word.down, word.tiles)
            out.write(f"  {formed.notation()}: {word.points}\n")
        if verdict.score.bonus:
            out.write(f"  premio por usar las 7 fichas: {verdict.score.bonus}\n")
        tiles = " ".join(
            f"{label(t)}@{square_name(*sq)}"
            for sq, t in sorted(verdict.placed.items())
        )
        out.write(f"  fichas colocadas: {tiles}\n")
        return
    out.write(f"{play}: jugada no válida\n")
    for problem in verdict.problems:
        out.write(f"  - {problem}\n")


def _run_demo(args: argparse.Namespace) -> int:
    lexicon = _lexicon(args)
    delay = args.delay if args.delay is not None else (0.4 if sys.stdout.isatty() else 0.0)
    solitaire.play_solitaire(lexicon, seed=args.seed, delay=delay, out=sys.stdout)
    return 0

