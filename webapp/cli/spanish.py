"""``argparse`` in Spanish, the interface's language: its headings, its help option and its errors.

``Parser`` is the ``veedor`` command's parser class; argparse makes every subcommand's
parser of the same class. The commands' own help texts are written in Spanish where they
are declared; what argparse writes itself ("usage:", "options:", "the following arguments
are required", ...) is said here. The errors are matched on argparse's English messages
(Python 3.10 to 3.13); one it has not been taught is shown as argparse wrote it.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NoReturn

USAGE = "uso: "
POSITIONALS = "argumentos"
OPTIONALS = "opciones"
HELP = "muestra esta ayuda y termina"
LEXICON_HELP = "lista de palabras (por defecto: $VEEDOR_LEXICON, si no, la lista libre que trae Veedor)"  # --lexicon
TYPES = {"int": "un número entero", "float": "un número"}  # argparse's name of a type -> what it wants
METAVARS = {  # an option's value in the help, by the option's name (argparse would write it in capitals)
    "actor": "QUIÉN", "camera": "CÁMARA", "cgp": "CGP", "data": "CARPETA", "db": "URL", "frames_dir": "CARPETA",
    "game": "PARTIDA", "host": "DIRECCIÓN", "inbox": "CARPETA", "name": "NOMBRE", "out": "CARPETA", "play": "JUGADA",
    "player": "JUGADOR", "reason": "MOTIVO", "server": "URL", "source": "FUENTE", "state": "CARPETA",
    "template": "CARPETA", "token": "CLAVE",
}  # fmt: skip


def _invalid_value(kind: str, value: str) -> str:
    wanted = TYPES.get(kind)
    return f"{value} no es {wanted}" if wanted else f"valor no válido ({kind}): {value}"


ERRORS: list[tuple[re.Pattern[str], Callable[..., str]]] = [
    (re.compile(p, re.DOTALL), say)
    for p, say in (
        (r"the following arguments are required: (.*)", lambda names: f"faltan argumentos: {names}"),
        (r"unrecognized arguments: (.*)", lambda names: f"argumentos desconocidos: {names}"),
        (r"invalid choice: (.*) \(choose from (.*)\)",
         lambda value, choices: f"{value} no se admite (elija entre {choices})"),
        (r"invalid (\S+) value: (.*)", _invalid_value),
        (r"expected one argument", lambda: "le falta su valor"),
        (r"expected at most one argument", lambda: "admite un valor como mucho"),
        (r"expected at least one argument", lambda: "necesita al menos un valor"),
        (r"expected (\d+) arguments?", lambda count: f"necesita {count} valores"),
        (r"not allowed with argument (.*)", lambda other: f"no se admite junto con {other}"),
        (r"one of the arguments (.*) is required", lambda names: f"hace falta uno de estos argumentos: {names}"),
        (r"ambiguous option: (.*) could match (.*)",
         lambda option, matches: f"opción ambigua: {option} puede ser {matches}"),
        (r"ignored explicit argument (.*)", lambda value: f"valor no admitido: {value}"),
        (r"can't open '(.*)': (.*)", lambda name, error: f"no se puede abrir «{name}»: {error}"),
        (r"unexpected option string: (.*)", lambda option: f"opción inesperada: {option}"),
    )
]
ARGUMENT = re.compile(r"argument (.+?): (.*)", re.DOTALL)


def spanish(message: str) -> str:
    """argparse's error ``message`` in Spanish ("argument --port: invalid int value: 'x'" ->
    "argumento --port: 'x' no es un número entero")."""
    about = ARGUMENT.fullmatch(message)
    if about:
        return f"argumento {about.group(1)}: {spanish(about.group(2))}"
    for pattern, say in ERRORS:
        found = pattern.fullmatch(message)
        if found:
            return say(*found.groups())
    return message


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, headed "uso:", an option's value named in Spanish (``METAVARS``; a number
    ``N``, a path ``RUTA``) unless the option names it."""

    def _get_default_metavar_for_optional(self, action: argparse.Action) -> str:
        if action.dest in METAVARS:
            return METAVARS[action.dest]
        if action.type in (int, float):
            return "N"
        if action.type is Path:
            return "RUTA"
        return super()._get_default_metavar_for_optional(action)

    def add_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                  groups: Iterable[Any], prefix: str | None = None) -> None:  # fmt: skip
        super().add_usage(usage, actions, groups, USAGE if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that writes its help and its errors in Spanish."""

    def __init__(self, **kwargs: Any) -> None:
        add_help = kwargs.pop("add_help", True)
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(add_help=False, **kwargs)
        self._positionals.title = POSITIONALS  # argparse's own groups: no public way to name them
        self._optionals.title = OPTIONALS
        if add_help:
            self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help=HELP)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {spanish(message)}\n")
