"""``veedor archive GAME --out FILE.zip``: a game's evidence file (``records.evidence``), from
the same data folder and database as ``veedor serve`` (``--data``/``--db``; the game is
replayed with its own word list, kept in the data folder, as the server does)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rules_core.events import GameError

from ..records.evidence import evidence_zip
from ..services.shared import scan_service, services
from .serve import add_storage_options, database_url


def add_archive_commands(commands: Any) -> None:
    archive = commands.add_parser("archive",
                                  help="el expediente de una partida (escaneos, fotogramas, eventos, resultados), en un zip")
    archive.add_argument("game", metavar="PARTIDA", help="el identificador de la partida (el de sus direcciones)")
    archive.add_argument("--out", required=True, metavar="ARCHIVO.zip", help="dónde escribir el zip")
    add_storage_options(archive)
    archive.add_argument("--lexicon", metavar="RUTA",
                         help="la lista de palabras del servidor, para las partidas guardadas antes de que cada una registrara la suya")  # fmt: skip
    archive.set_defaults(run=run_archive)


def run_archive(args: argparse.Namespace) -> int:
    from ..app import create_app

    app = create_app({"INSTANCE_PATH": str(Path(args.data).resolve()), "DATABASE_URL": database_url(args),
                      "LEXICON_PATH": args.lexicon})  # fmt: skip
    try:
        services(app).games.store.game(args.game)
    except GameError:
        print(f"veedor: no hay ninguna partida {args.game!r} en esa base de datos", file=sys.stderr)
        return 2
    scan_service(app)
    data = evidence_zip(services(app), args.game)
    Path(args.out).write_bytes(data)
    print(f"expediente de {args.game}: {args.out} ({len(data) // 1024} KB)")
    return 0
