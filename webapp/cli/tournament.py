"""``veedor tournament create``: a tournament with its player list, as the console makes one.

``tournament create --name NAME --players FILE [--criterion C] [--arbiter NAME]... [--db URL] [--data DIR]``
reads FILE as the console's paste (``rules_core.player_list``: table, name, club, licence, photo; tabs
or semicolons; a header line optional), gives each player their id (``records.tournament_players``)
and prints the new tournament's id. Its games are then made from the list by the console or by
``veedor duplicate simulate --tournament ID``. A list with problems prints every one and stores nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rules_core.events import GameError
from rules_core.player_list import PlayerListError, parse_player_list

from ..records.tournament_players import listed
from ..records.tournaments import CRITERIA, TournamentError, Tournaments
from ..services.store import EventStore
from .serve import add_storage_options, database_url


def add_tournament_commands(commands: Any) -> None:
    """Add ``tournament create`` to the CLI's subcommands."""
    tournament = commands.add_parser("tournament", help="torneos: una lista de jugadores y sus partidas")
    actions = tournament.add_subparsers(required=True, metavar="ACCIÓN")
    create = actions.add_parser("create", help="crea un torneo con su lista de jugadores y escribe su identificador")
    create.add_argument("--name", required=True, help="nombre del torneo")
    create.add_argument("--players", required=True, metavar="ARCHIVO",
                        help="la lista como se pega en la consola: mesa, nombre, club, licencia (y foto)")  # fmt: skip
    create.add_argument("--criterion", choices=sorted(CRITERIA), default="average_place",
                        help="criterio de clasificación de D.IV.31 (por defecto average_place, el puesto medio)")  # fmt: skip
    create.add_argument("--arbiter", action="append", default=[], metavar="NOMBRE",
                        help="un árbitro (repetible; el Juez Árbitro primero)")  # fmt: skip
    add_storage_options(create)
    create.set_defaults(run=run_create)


def run_create(args: argparse.Namespace) -> int:
    try:
        text = Path(args.players).read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise GameError(f"no se puede leer la lista {args.players}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise GameError(f"la lista {args.players} no está en UTF-8 (guárdela como «CSV UTF-8»)") from None
    try:
        players = listed(parse_player_list(text))
    except PlayerListError as error:
        raise GameError("la lista de jugadores tiene problemas; no se ha guardado nada:\n  "
                        + "\n  ".join(error.problems)) from None  # fmt: skip
    store = Tournaments(EventStore(database_url(args)).engine)
    try:
        tournament_id = store.create(args.name, args.criterion, players, args.arbiter)
    except TournamentError as error:
        raise GameError(str(error)) from None
    print(tournament_id)
    return 0
