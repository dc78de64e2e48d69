"""The earlier EloDI list, checked whole before anything of it is kept: CSV ``player,rating,volatility,games``,
or the federation's form ``jugador,licencia,club,partidas,rating,volatilidad`` (what ``/results/elodi/lista``
writes, ``federation.elodi_table``).

A rating belongs to a licence when the player has one, else to a name (``elodi_key``): two namesakes
with different licences are two players. One player a line (a header line is optional). Commas separate
the cells, or semicolons with decimal commas, as a Spanish spreadsheet writes them. An import
(``save_previous``, ``read_ratings``) is refused with every problem at once, each as ``línea N: ...``,
and nothing of it is stored:

* the file is UTF-8 (a byte-order mark allowed), at most ``MAX_LIST_BYTES``;
* a line has four cells, or six in the federation's form; a name is not empty, at most ``MAX_NAME``
  characters, holds no control or invisible character (it would break the exports and hide on the
  screens), and is not repeated (names are one person as ``tournaments.person`` says: spaces and case
  aside), nor is a licence;
* the games are a whole number from 0 to ``MAX_GAMES``; the rating and the volatility are numbers
  that EloDI can give after that many games (``rules_core.elodi.reach_table``: after 0 games the start,
  1200 and 535; a volatility of 0.06 after 30 games is no EloDI volatility), within ``ROUNDING``
  (a list written in whole numbers, as the pages show them).

The list kept (``PREVIOUS_FILE`` in the data folder) is read back with the number checks alone
(``strict=False``), so that a list stored before these checks still shows, and public pages never fail
on it: a kept list that cannot be read at all is logged and left out.
"""

from __future__ import annotations

import csv
import io
import logging
import math
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from rules_core.elodi import Rating, reach_table
from rules_core.player_list import MAX_FIELD, MAX_NAME

log = logging.getLogger(__name__)

PREVIOUS_FILE: Final = "elodi-previas.csv"
MAX_LIST_BYTES: Final = 512 * 1024  # thousands of players
MAX_GAMES: Final = 10_000  # (ours) a lifetime of rated games is far fewer
ROUNDING: Final = 0.5
MAX_PROBLEMS: Final = 30  # listed at once; the rest are counted
COLUMNS: Final = "jugador, rating, volatilidad, partidas"
FEDERATION_COLUMNS: Final = "jugador, licencia, club, partidas, rating, volatilidad"
LICENCE_KEY: Final = "licencia:"
_HIDDEN: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})  # control, format, surrogate, private, unassigned


class RatingInputError(ValueError):
    """A history or ratings file that cannot be read; the message names the place and the problem."""


class RatingListError(RatingInputError):
    """Every problem of a ratings list (``problems``, each ``línea N: ...``)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(self.listed()))

    def listed(self) -> list[str]:
        """The first ``MAX_PROBLEMS`` problems, and how many more there are."""
        more = len(self.problems) - MAX_PROBLEMS
        return self.problems[:MAX_PROBLEMS] + ([f"y {more} problemas más"] if more > 0 else [])


def elodi_key(name: str, licence: str = "") -> str:
    """Whom a rating belongs to: ``licencia:<licence>`` (spaces out) when the player has one, else the
    name with its spaces tidied."""
    compact = "".join(licence.split())
    return LICENCE_KEY + compact if compact else " ".join(name.split())


@dataclass(frozen=True)
class ListedRating:
    """A line of a ratings list."""

    line: int
    name: str
    licence: str
    club: str
    rating: Rating

    @property
    def key(self) -> str:
        return elodi_key(self.name, self.licence)


def parse_listed(data: bytes, strict: bool = True) -> list[ListedRating]:
    """The lines of a ratings list (see the module docstring); RatingListError with every problem."""
    text = _text(data)
    rows, problems = _rows(text)
    parsed: list[ListedRating] = []
    for number, cells in rows:
        if len(cells) not in (4, 6):
            problems.append(f"línea {number}: se esperaban 4 columnas ({COLUMNS}) o 6 ({FEDERATION_COLUMNS}), "
                            f"hay {len(cells)}")  # fmt: skip
            continue
        name, licence, club, values = (cells[0], "", "", cells[1:]) if len(cells) == 4 else \
            (cells[0], cells[1], cells[2], [cells[4], cells[5], cells[3]])  # fmt: skip
        if strict:
            found = [_name_problem(name), _cell_problem(licence, "la licencia"), _cell_problem(club, "el club")]
            problems += [f"línea {number}: {problem}" for problem in found if problem]
        try:
            rating, volatility, games = _values(values, strict)
            parsed.append(ListedRating(number, name, licence, club, Rating(rating, volatility, games)))
        except ValueError as error:
            problems.append(f"línea {number}: {error}")
    if strict:
        problems += _unreachable(parsed) + _repeated(parsed)
    if problems:
        raise RatingListError(sorted(problems, key=_line_of))
    return parsed


def parse_ratings(data: bytes, strict: bool = True) -> dict[str, Rating]:
    """The ratings of a list by ``elodi_key``; RatingListError with every problem."""
    return {listed.key: listed.rating for listed in parse_listed(data, strict)}


def read_ratings(path: Path, strict: bool = True) -> dict[str, Rating]:
    """A ratings file (``veedor rating --ratings``): its problems name the file."""
    return {listed.key: listed.rating for listed in read_listed(path, strict)}


def read_listed(path: Path, strict: bool = True) -> list[ListedRating]:
    """The lines of a ratings file; its problems name the file."""
    try:
        return parse_listed(path.read_bytes(), strict)
    except RatingListError as error:
        raise RatingListError([f"{path}, {problem}" for problem in error.problems]) from None


def save_previous(data_dir: Path, data: bytes) -> int:
    """Check the list whole, then keep it as the earlier list (replacing the last one, whole or not at
    all); the number of players. RatingListError, and nothing written, when it has a problem."""
    if len(data) > MAX_LIST_BYTES:
        raise RatingListError([f"el archivo ocupa {len(data) // 1024} KB; como mucho {MAX_LIST_BYTES // 1024} KB"])
    count = len(parse_listed(data))
    target = data_dir / PREVIOUS_FILE
    temporary = target.with_name(f".{PREVIOUS_FILE}.nueva")
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return count


def previous_ratings(data_dir: Path) -> list[ListedRating]:
    """The earlier list kept in ``data_dir`` (number checks alone), [] when there is none or it is unreadable."""
    path = data_dir / PREVIOUS_FILE
    if not path.exists():
        return []
    try:
        return read_listed(path, strict=False)
    except (OSError, RatingInputError) as error:
        log.error("lista anterior de EloDI ilegible, se deja fuera: %s", error)
        return []


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise RatingListError([f"línea {line}: el archivo no está en UTF-8 (guárdelo como «CSV UTF-8»)"]) from None


def _rows(text: str) -> tuple[list[tuple[int, list[str]]], list[str]]:
    """(line number, cells) of each line with something in it, the header left out; and the lines CSV
    cannot split. Semicolons separate the cells when the first line has one."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=";" if ";" in first else ",")
    rows: list[tuple[int, list[str]]] = []
    problems: list[str] = []
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            problems.append(f"línea {reader.line_num}: no se puede leer como CSV ({error})")
            continue
        cells = [cell.strip() for cell in row]
        if not any(cells):
            continue
        if not rows and not problems and cells[0].lower() in ("player", "jugador"):
            continue  # the header
        rows.append((reader.line_num, cells))
    return rows, problems


def _values(cells: list[str], strict: bool) -> tuple[float, float, int]:
    """A line's rating, volatility and games; ValueError saying what is wrong."""
    rating, volatility, games = cells
    found = (_number(rating, "el rating"), _number(volatility, "la volatilidad"), _games(games, strict))
    if found[1] <= 0:
        raise ValueError(f"la volatilidad {volatility!r} debe ser mayor que 0")
    return found


def _name_problem(name: str) -> str | None:
    if not name:
        return "falta el nombre del jugador"
    hidden = next((ch for ch in name if unicodedata.category(ch) in _HIDDEN), None)
    if hidden is not None:
        return f"el nombre lleva un carácter de control o invisible (U+{ord(hidden):04X})"
    if len(name) > MAX_NAME:
        return f"el nombre tiene {len(name)} caracteres; como mucho {MAX_NAME}"
    return None


def _cell_problem(value: str, what: str) -> str | None:
    hidden = next((ch for ch in value if unicodedata.category(ch) in _HIDDEN), None)
    if hidden is not None:
        return f"{what} lleva un carácter de control o invisible (U+{ord(hidden):04X})"
    return f"{what} tiene {len(value)} caracteres; como mucho {MAX_FIELD}" if len(value) > MAX_FIELD else None


def _number(text: str, what: str) -> float:
    try:
        value = float(text.replace(",", ".")) if text.count(",") <= 1 else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ValueError(f"{what} {text!r} no es un número")
    return value


def _games(text: str, strict: bool) -> int:
    if not (text.isascii() and text.isdigit()) or (strict and int(text) > MAX_GAMES):
        raise ValueError(f"las partidas {text!r} deben ser un número entero de 0 a {MAX_GAMES}")
    return int(text)


def _unreachable(parsed: list[ListedRating]) -> list[str]:
    """The lines whose rating or volatility EloDI cannot give after their games (see the module docstring)."""
    table = reach_table(max((listed.rating.games for listed in parsed), default=0))
    problems = []
    for listed in parsed:
        number, (rating, volatility, games) = listed.line, (listed.rating.rating, listed.rating.volatility, listed.rating.games)
        reach = table[games]
        if games == 0 and not (_within(rating, reach.rating) and _within(volatility, reach.volatility)):
            problems.append(f"línea {number}: un jugador sin partidas tiene el rating y la volatilidad del comienzo, "
                            f"1200 y 535 (EloDI), no {_shown(rating)} y {_shown(volatility)}")  # fmt: skip
        elif not _within(rating, reach.rating):
            problems.append(f"línea {number}: un rating de {_shown(rating)} no es posible tras {games} partidas "
                            f"(EloDI: de {reach.rating[0]:.0f} a {reach.rating[1]:.0f})")  # fmt: skip
        elif not _within(volatility, reach.volatility):
            problems.append(f"línea {number}: una volatilidad de {_shown(volatility)} no es posible tras {games} "
                            f"partidas (EloDI: empieza en 535 y tras {games} va de {_shown(reach.volatility[0], 1)} "
                            f"a {reach.volatility[1]:.0f})")  # fmt: skip
    return problems


def _shown(value: float, decimals: int | None = None) -> str:
    """A number as Spanish writes it (decimal comma)."""
    return (f"{value:g}" if decimals is None else f"{value:.{decimals}f}").replace(".", ",")


def _within(value: float, bounds: tuple[float, float]) -> bool:
    return bounds[0] - ROUNDING <= value <= bounds[1] + ROUNDING


def _repeated(parsed: list[ListedRating]) -> list[str]:
    first: dict[str, int] = {}
    problems = []
    for listed in parsed:
        key = listed.key.casefold()  # a name: tournaments.person
        if key in first:
            what = f"la licencia {listed.licence}" if listed.licence else listed.name
            problems.append(f"línea {listed.line}: {what} ya está en la línea {first[key]}")
        else:
            first[key] = listed.line
    return problems


def _line_of(problem: str) -> int:
    head = problem.split(":", 1)[0].removeprefix("línea ")
    return int(head) if head.isdigit() else 0
