"""A duplicate game's player list as an arbiter pastes it: typed, or copied from a spreadsheet.

One player a line. A line is either cells separated by tabs or semicolons (a
spreadsheet's copy or a CSV export): table, name, club, federation id and an optional photo, in
that order unless a header line names them (``mesa``/``table``, ``nombre``/``jugador``/``name``,
``club``, ``federacion``/``licencia``/``id``, ``foto``/``photo``); or free text ``[table] name``.
A photo is an ``http(s)://`` address or a file name (``ana.jpg``) the stream finds beside the data. A line
without a table takes the next free number. Problems are said in the arbiter's terms
("la mesa 4 está repetida: Ana y Bruno"), all at once, and nothing is cut silently. A name,
club or federation id holding a control or invisible character (a bidirectional override, a
zero-width space) is refused, naming it; a byte-order mark opening the text is no character of it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

MAX_PLAYERS: Final = 500  # a very large open; the console pages its lists
MAX_NAME: Final = 100  # characters of a name (the screens wrap, the slips print it)
MAX_FIELD: Final = 60  # club, federation id
MAX_PHOTO: Final = 300  # a photo's address or file name
MAX_TABLE: Final = 9999  # a slip's table box holds four digits
MAX_LINE: Final = len(str(MAX_TABLE)) + MAX_NAME + 2 * MAX_FIELD + MAX_PHOTO + 4 + 2  # every cell at its longest, CR LF
MAX_TEXT: Final = (MAX_PLAYERS + 1) * MAX_LINE  # the longest list: a header and MAX_PLAYERS players
_HIDDEN: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})  # control, format, surrogate, private, unassigned
_SEPARATOR: Final = re.compile(r"\t|;")
_PHOTO: Final = re.compile(r"(https?://[^\s\"'<>]+|[\w.-]+\.(jpe?g|png|webp))", re.IGNORECASE)
_HEADERS: Final = {
    "table": ("mesa", "table", "n", "no", "num", "numero"),
    "name": ("nombre", "jugador", "jugadora", "name", "player", "apellidos y nombre", "nombre y apellidos"),
    "club": ("club",),
    "federation_id": ("federacion", "licencia", "id", "ficha", "federation id", "id federativo"),
    "photo": ("foto", "photo", "fotografia", "imagen"),
}


@dataclass(frozen=True)
class ListedPlayer:
    line: int  # the line of the pasted text (1-based)
    table: int
    name: str
    club: str = ""
    federation_id: str = ""
    photo: str = ""


class PlayerListError(ValueError):
    """The problems of a pasted list, one a line (``problems``), in the arbiter's terms."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def parse_player_list(text: str, first_table: int = 1, taken: dict[int, str] | None = None) -> list[ListedPlayer]:
    """The players of ``text`` (see the module docstring); ``taken`` maps the tables
    already used in the game to their players. PlayerListError lists every problem."""
    text = text.removeprefix("\ufeff")
    lines = [(number, line) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    columns = _columns(lines[0][1]) if lines else None
    if columns is not None:
        lines = lines[1:]
    players: list[ListedPlayer] = []
    problems: list[str] = []
    table = first_table
    for number, line in lines:
        try:
            player = _player(number, line, columns, table)
        except ValueError as error:
            problems.append(f"línea {number}: {error}")
            continue
        players.append(player)
        table = player.table + 1
    problems += _repeated_tables(players, taken or {})
    if len(players) > MAX_PLAYERS:
        problems.append(f"{len(players)} jugadores: como mucho {MAX_PLAYERS} por partida")
    if problems:
        raise PlayerListError(problems)
    return players


def _columns(line: str) -> dict[str, int] | None:
    """The columns a header line names, or None when the first line is a player."""
    cells = [_plain(cell) for cell in _SEPARATOR.split(line)] if _SEPARATOR.search(line) else [_plain(line)]
    found = {key: cells.index(name) for key, names in _HEADERS.items() for name in names if name in cells}
    return found if "name" in found else None


def _player(number: int, line: str, columns: dict[str, int] | None, next_table: int) -> ListedPlayer:
    if _SEPARATOR.search(line):
        cells = [cell.strip() for cell in _SEPARATOR.split(line)]
        order = columns or {"table": 0, "name": 1, "club": 2, "federation_id": 3, "photo": 4}
        if columns is None and cells and cells[0] and not cells[0].isdigit():
            order = {"name": 0, "club": 1, "federation_id": 2, "photo": 3}  # no table column: name first
        cell = {key: cells[i] if i < len(cells) else "" for key, i in order.items()}
    else:
        head, _sep, rest = line.strip().partition(" ")
        cell = {"table": head, "name": rest} if head.isdigit() and rest.strip() else {"name": line}
    return ListedPlayer(number, _table(cell.get("table", ""), next_table), _name(cell.get("name", "")),
                        _field(cell.get("club", ""), "el club"), _field(cell.get("federation_id", ""), "la licencia"),
                        _photo(cell.get("photo", "")))


def _table(text: str, next_table: int) -> int:
    text = text.strip()
    if not text:
        return next_table
    if not text.isdigit() or not 1 <= int(text) <= MAX_TABLE:
        raise ValueError(f"la mesa {text!r} no es un número de 1 a {MAX_TABLE}")
    return int(text)


def _name(text: str) -> str:
    _visible(text.strip(), "el nombre")
    name = " ".join(text.split())
    if not name:
        raise ValueError("falta el nombre")
    if len(name) > MAX_NAME:
        raise ValueError(f"el nombre tiene {len(name)} caracteres; como mucho {MAX_NAME}")
    return name


def _field(text: str, what: str) -> str:
    _visible(text.strip(), what)
    value = " ".join(text.split())
    if len(value) > MAX_FIELD:
        raise ValueError(f"{what} tiene {len(value)} caracteres; como mucho {MAX_FIELD}")
    return value


def _photo(text: str) -> str:
    """A photo's address or file name, "" when none; ValueError when it is neither."""
    value = text.strip()
    if not value:
        return ""
    _visible(value, "la foto")
    if len(value) > MAX_PHOTO or not _PHOTO.fullmatch(value):
        raise ValueError(f"la foto {value[:40]!r} no es una dirección http(s):// ni un archivo .jpg, .png o .webp")
    return value


def _visible(value: str, what: str) -> None:
    """ValueError when ``value`` holds a control or invisible character (a line break inside a cell too)."""
    hidden = next((ch for ch in value if unicodedata.category(ch) in _HIDDEN), None)
    if hidden is not None:
        raise ValueError(f"{what} lleva un carácter de control o invisible (U+{ord(hidden):04X})")


def _repeated_tables(players: list[ListedPlayer], taken: dict[int, str]) -> list[str]:
    problems, seen = [], dict(taken)
    for player in players:
        if player.table in seen:
            problems.append(f"la mesa {player.table} está repetida: {seen[player.table]} y {player.name}")
        else:
            seen[player.table] = player.name
    return problems


def _plain(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.strip().lower()).encode("ascii", "ignore").decode()
    return " ".join(folded.replace(".", " ").replace("º", "").split())
