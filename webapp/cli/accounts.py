"""``veedor arbiter`` and ``veedor device``: the web app's arbiter accounts and device tokens.

Both work on the database that ``veedor serve`` uses (``--data``/``--db``, as there).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from ..services.accounts import ROLES, AccountError, Accounts
from ..services.store import EventStore
from .serve import add_storage_options, database_url


def add_account_commands(commands: Any) -> None:
    """Add ``arbiter`` and ``device`` to the CLI's subcommands."""
    arbiter = commands.add_parser("arbiter", help="cuentas de árbitro de la aplicación web")
    arbiter_actions = arbiter.add_subparsers(required=True, metavar="ACCIÓN")
    add = arbiter_actions.add_parser("add", help="crea una cuenta de árbitro (pide la contraseña)")
    add.add_argument("login", metavar="USUARIO")
    add.add_argument("--password-stdin", action="store_true", help="lee la contraseña de la entrada estándar")
    add_storage_options(add)
    add.set_defaults(run=run_arbiter_add)
    remove = arbiter_actions.add_parser("remove", help="borra una cuenta de árbitro")
    remove.add_argument("login", metavar="USUARIO")
    add_storage_options(remove)
    remove.set_defaults(run=run_arbiter_remove)

    device = commands.add_parser("device", help="claves de los dispositivos para la API (escáner de papeletas, cámaras)")
    device_actions = device.add_subparsers(required=True, metavar="ACCIÓN")
    add_device = device_actions.add_parser("add", help="registra un dispositivo y escribe su clave (una sola vez)")
    add_device.add_argument("name", metavar="NOMBRE")
    add_device.add_argument("--role", required=True, choices=sorted(ROLES),
                            help="lo que puede enviar: " + "; ".join(f"{r}: {what}" for r, what in ROLES.items()))
    add_device.add_argument("--game", dest="games", action="append", default=[], metavar="ID",
                            help="una partida en la que puede escribir (repetible; por defecto: cualquiera)")  # fmt: skip
    add_device.add_argument("--camera", dest="cameras", action="append", default=[], metavar="NOMBRE",
                            help="una cámara para la que envía un nodo (repetible; obligatoria con --role node)")  # fmt: skip
    add_storage_options(add_device)
    add_device.set_defaults(run=run_device_add)
    remove_device = device_actions.add_parser("remove", help="revoca la clave de un dispositivo")
    remove_device.add_argument("name", metavar="NOMBRE")
    add_storage_options(remove_device)
    remove_device.set_defaults(run=run_device_remove)


def _accounts(args: argparse.Namespace) -> Accounts:
    return Accounts(EventStore(database_url(args)).engine)


def run_arbiter_add(args: argparse.Namespace) -> int:
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass("contraseña: ")
        if getpass.getpass("repítala: ") != password:
            print("veedor: las contraseñas no coinciden", file=sys.stderr)
            return 2
    try:
        _accounts(args).add_arbiter(args.login, password)
    except AccountError as error:
        print(f"veedor: {error}", file=sys.stderr)
        return 2
    print(f"árbitro {args.login} creado")
    return 0


def run_arbiter_remove(args: argparse.Namespace) -> int:
    _accounts(args).remove_arbiter(args.login)
    return 0


def run_device_remove(args: argparse.Namespace) -> int:
    _accounts(args).remove_device(args.name)
    return 0


def run_device_add(args: argparse.Namespace) -> int:
    try:
        token = _accounts(args).add_device(args.name, args.role, args.games, args.cameras)
    except AccountError as error:
        print(f"veedor: {error}", file=sys.stderr)
        return 2
    print(token)
    return 0
