"""GCG game records (Quackle, Woogles, Macondo) for classic games: import, export, check.

Reading is here; writing is ``gcg_export``, checking against the rules
``gcg_check``. Coordinates are converted in ``gcg_coordinates`` and nowhere else:
GCG ``8H`` is Veedor's ``H8 CASA`` (across), GCG ``C4`` its vertical ``3D CASA``.

Tiles are written as Woogles and wolges write Spanish: digraphs in brackets
(``[CH]``, ``[LL]``, ``[RR]``), a letter made with a blank in lowercase (``[ch]``),
``?`` a blank on a rack; a rack is one character per tile otherwise. Export writes
the whole word, tiles already on the board included; import also accepts ``.`` for
them, and plain ``CH``/``LL``/``RR`` in a word (the lexicon has no C+H, L+L, R+R).

Lines written and read (``RACK`` may be omitted when unknown)::

    #character-encoding UTF-8
    #player1 NICK Full Name          (and #player2; #title, #lexicon)
    >NICK: RACK 8H CASA +12 12        a play, its score and the player's total
    >NICK: RACK -TILES +0 12          an exchange (C.25); -N when only the count is known
    >NICK: RACK - +0 12               a pass (C.26)
    >NICK: RACK -- -12 0              the play above withdrawn after a challenge (C.39)
    >NICK: RACK (challenge) +0 12     the play above challenged and upheld (C.40; no bonus)
    >NICK: (RACK) +9 21               went out: the opponent's rack added (C.45.4)
    >NICK: RACK (RACK) -9 3           the value of the player's own rack subtracted (C.45)
    >NICK: RACK (time) -20 1          overtime (C.35)
    #note Final C.45.4                how the game ended (written by Veedor after the end lines)

Without that note the ending is the one the game reached; a ``(time)`` line before
any ending is read as the end of the total time (C.45.5). Other notes and pragmata
are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Final

from .alphabet import BLANK, Tile, split_letters, tile_from_label, word_bracketed
from .board import SIZE, Board, Square
from .classic import ClassicGame
from .classic_racks import parse_rack, rack_text
from .events import Event, GameError
from .gcg_check import GCGCheck, check_record, replay_gcg
from .gcg_coordinates import gcg_position, gcg_square, parse_gcg_position
from .gcg_export import to_gcg
from .gcg_record import LETTER_DISTRIBUTION, GCGEntry, GCGError, GCGLine, GCGRecord
from .lexicon import Lexicon
from .notation import Play

__all__ = [  # what callers import from here, some of it from the gcg_* modules
    "GCGCheck",
    "GCGEntry",
    "GCGError",
    "GCGLine",
    "GCGRecord",
    "check_gcg",
    "decode_gcg",
    "from_gcg",
    "gcg_position",
    "parse_gcg",
    "parse_gcg_position",
    "replay_gcg",
    "to_gcg",
]

_MOVE_RE: Final = re.compile(r"^>(\S+?):\s*(.*)$")
_POINTS_RE: Final = re.compile(r"^[+-]\d+$")
_TOTAL_RE: Final = re.compile(r"^-?\d+$")
_FINAL_NOTE_RE: Final = re.compile(r"^Final C\.(45\.[1-5])\b")
_ENCODING_RE: Final = re.compile(r"^#character-encoding\s+(\S+)")


def from_gcg(text: str, *, actor: str = "gcg", at: datetime | None = None) -> list[Event]:
    """The events of a classic game recorded in GCG; raises GCGError naming the line."""
    return parse_gcg(text, actor=actor, at=at).events()


def parse_gcg(text: str, *, actor: str = "gcg", at: datetime | None = None) -> GCGRecord:
    """Parse a GCG text into events with the lines they come from (see the module docstring)."""
    parser = _Parser(actor, at or datetime.now(timezone.utc))
    for number, line in enumerate(text.splitlines(), start=1):
        parser.line(number, line.strip())
    return parser.finish()


def decode_gcg(data: bytes) -> str:
    """The text of a GCG file: the encoding its first line names, else UTF-8, else ISO-8859-1."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    first = data.split(b"\n", 1)[0].decode("ascii", "replace")
    match = _ENCODING_RE.match(first.strip())
    try:
        if match:
            return data.decode(match[1])
        return data.decode("utf-8")
    except LookupError:
        raise GCGError(f"línea 1: codificación desconocida {match[1] if match else ''!r}") from None
    except UnicodeDecodeError:
        if match:
            raise GCGError(f"el archivo no está en {match[1]}, como dice su línea 1") from None
        return data.decode("iso-8859-1")


def check_gcg(text: str, lexicon: Lexicon) -> GCGCheck:
    """Import, replay and rescore a GCG record, listing where it disagrees with the rules."""
    return check_record(parse_gcg(text), lexicon)


@dataclass
class _PendingEnd:
    line: int
    racks: list[str | None] = field(default_factory=lambda: [None, None])
    reason: str | None = None
    lines: list[GCGLine] = field(default_factory=list)


class _Parser:
    """Reads a GCG text line by line, tracking the board only to read ``.`` in words."""

    def __init__(self, actor: str, at: datetime) -> None:
        self.actor, self.at = actor, at
        self.nicknames: list[str] = []
        self.names: list[str] = []
        self.lexicon: str | None = None
        self.title: str | None = None
        self.entries: list[GCGEntry] = []
        self.board = Board()
        self.last_play: tuple[GCGLine, list[Square]] | None = None
        self.pending: _PendingEnd | None = None
        self.ended = False
        self.number = 0

    def error(self, message: str) -> GCGError:
        return GCGError(f"línea {self.number}: {message}")

    def line(self, number: int, text: str) -> None:
        self.number = number
        if not text:
            return
        if text.startswith("#"):
            self.pragma(text)
        elif text.startswith(">"):
            self.move(text)
        else:
            raise self.error(f"{text!r} no es una línea GCG ('#pragma' o '>jugador: ...')")

    def pragma(self, text: str) -> None:
        name, _, value = text.partition(" ")
        value = value.strip()
        if name in ("#player1", "#player2"):
            self.player(int(name[-1]), value)
        elif name == "#lexicon":
            self.lexicon = value or None
        elif name == "#title":
            self.title = value or None
        elif name == "#note":
            self.note(value)

    def player(self, number: int, value: str) -> None:
        if self.entries or len(self.nicknames) != number - 1:
            raise self.error(f"#player{number} va tras #player{number - 1} y antes de las jugadas")
        nick, _, name = value.partition(" ")
        if not nick or nick in self.nicknames:
            raise self.error("cada jugador tiene un apodo distinto: '#player1 APODO Nombre'")
        self.nicknames.append(nick)
        self.names.append(name.strip() or nick)

    def note(self, value: str) -> None:
        final = _FINAL_NOTE_RE.match(value)
        if final and self.ended:
            return
        if final:
            self.pending = self.pending or _PendingEnd(self.number)
            self.pending.reason = final[1]
            return
        key, _, distribution = value.partition(":")
        distribution = distribution.strip()
        if key.strip() == "LetterDistribution" and distribution.lower() != LETTER_DISTRIBUTION:
            raise self.error(f"la partida usa la distribución {distribution!r}, no la española")

    def move(self, text: str) -> None:
        match = _MOVE_RE.match(text)
        if not match:
            raise self.error(f"{text!r}: se esperaba '>APODO: ...'")
        player = self.player_index(match[1])
        tokens = match[2].split()
        if len(tokens) < 3 or not _POINTS_RE.match(tokens[-2]) or not _TOTAL_RE.match(tokens[-1]):
            raise self.error(f"{text!r}: la línea acaba en '+puntos total' (p. ej. '+12 12')")
        points, total, body = int(tokens[-2]), int(tokens[-1]), tokens[:-2]
        if body[-1].startswith("("):
            self.special(player, body, points, total)
        elif body[-1].startswith("-"):
            self.turn_without_play(player, body, points, total)
        else:
            self.play(player, body, points, total)

    def player_index(self, nick: str) -> int:
        if len(self.nicknames) != 2:
            raise self.error("faltan las líneas #player1 y #player2 antes de las jugadas")
        if nick not in self.nicknames:
            raise self.error(f"{nick!r} no es {self.nicknames[0]!r} ni {self.nicknames[1]!r}")
        if not self.entries:
            self.add(
                ClassicGame.create_event(
                    self.names, nicknames=self.nicknames, lexicon=self.lexicon, title=self.title,
                    first=self.nicknames.index(nick), actor=self.actor, at=self.at,
                )
            )
        return self.nicknames.index(nick)

    def add(self, event: Event, *lines: GCGLine) -> None:
        self.entries.append(GCGEntry(event, lines))

    def rack(self, text: str) -> str:
        try:
            return rack_text(parse_rack(text))
        except GameError as error:
            raise self.error(str(error)) from None

    def sign(self, points: int, wanted: str, what: str) -> None:
        ok = {"0": points == 0, "+": points >= 0, "-": points <= 0}[wanted]
        if not ok:
            shown = "+0" if wanted == "0" else wanted + "n"
            raise self.error(f"{what}: los puntos deben ser {shown}")

    def start_turn(self) -> None:
        """A turn closes a pending end (the game refuses the turn then) and the challenge window."""
        self.flush()
        if self.ended:
            raise self.error("hay jugadas después del final de la partida")
        self.last_play = None

    def play(self, player: int, body: list[str], points: int, total: int) -> None:
        if len(body) not in (2, 3):
            raise self.error("una jugada es 'ATRIL COORDENADA PALABRA +puntos total'")
        self.start_turn()
        rack = self.rack(body[0]) if len(body) == 3 else None
        self.sign(points, "+", "jugada")
        play, placed = self.read_play(body[-2], body[-1])
        line = GCGLine(self.number, player, "play", points, total, rack, play.notation())
        event = ClassicGame.play_event(
            player, _event_notation(play), rack=rack, score=points, actor=self.actor, at=self.at
        )
        self.add(event, line)
        self.last_play = (line, placed)

    def read_play(self, position: str, word: str) -> tuple[Play, list[Square]]:
        """The play in Veedor's terms; ``.`` is read from the board kept for that."""
        try:
            row, col, down = parse_gcg_position(position)
            letters = _word_tiles(word)
        except ValueError as error:
            raise self.error(str(error)) from None
        if (row if down else col) + len(letters) > SIZE:
            raise self.error(f"{word} no cabe en el tablero desde {position}")
        tiles, placed = self.fill(row, col, down, letters)
        return Play(row, col, down, tuple(tiles)), placed

    def fill(
        self, row: int, col: int, down: bool, letters: Sequence[Tile | None]
    ) -> tuple[list[Tile], list[Square]]:
        tiles: list[Tile] = []
        placed: list[Square] = []
        for i, tile in enumerate(letters):
            square = (row + i, col) if down else (row, col + i)
            on_board = self.board[square]
            if tile is None and not on_board:
                raise self.error(f"el '.' de la casilla {gcg_square(square)} no tiene ficha debajo")
            if not on_board and tile is not None:
                self.board[square] = tile
                placed.append(square)
            tiles.append(tile if tile is not None else on_board)
        return tiles, placed

    def turn_without_play(self, player: int, body: list[str], points: int, total: int) -> None:
        if len(body) not in (1, 2):
            raise self.error("se esperaba 'ATRIL -FICHAS', 'ATRIL -' o 'ATRIL --'")
        rack = self.rack(body[0]) if len(body) == 2 else None
        move = body[-1]
        if move == "--":
            self.withdrawn(player, rack, points, total)
            return
        self.start_turn()
        self.sign(points, "0", "pase o cambio")
        if move == "-":
            line = GCGLine(self.number, player, "pass", points, total, rack)
            self.add(ClassicGame.pass_event(player, actor=self.actor, at=self.at), line)
            return
        count, tiles = (int(move[1:]), None) if move[1:].isdigit() else (None, self.rack(move[1:]))
        line = GCGLine(self.number, player, "exchange", points, total, rack)
        event = ClassicGame.exchange_event(
            player, count, tiles=tiles, rack=rack, actor=self.actor, at=self.at
        )
        self.add(event, line)

    def challenged_play(self, player: int, what: str) -> list[Square]:
        """The squares of the play just read, which ``what`` judges; it must be ``player``'s."""
        if self.last_play is None or self.last_play[0].player != player:
            raise self.error(f"'{what}' va justo después de una jugada del mismo jugador")
        return self.last_play[1]

    def withdrawn(self, player: int, rack: str | None, points: int, total: int) -> None:
        squares = self.challenged_play(player, "--")
        self.sign(points, "-", "jugada retirada")
        for square in squares:
            self.board[square] = 0
        self.last_play = None
        line = GCGLine(self.number, player, "withdrawn", points, total, rack)
        self.add(ClassicGame.challenge_event(1 - player, actor=self.actor, at=self.at), line)

    def special(self, player: int, body: list[str], points: int, total: int) -> None:
        tag = body[-1]
        rack = self.rack(body[0]) if len(body) == 2 else None
        if len(body) > 2:
            raise self.error(f"sobran palabras antes de {tag}")
        if tag == "(challenge)":
            self.challenged_play(player, tag)
            self.sign(points, "+", tag)
            self.last_play = None
            line = GCGLine(self.number, player, "challenge", points, total, rack)
            self.add(ClassicGame.challenge_event(1 - player, actor=self.actor, at=self.at), line)
        elif tag == "(time)":
            self.time(player, rack, points, total)
        elif tag.endswith(")") and len(tag) > 2:
            self.end_rack(player, rack, self.rack(tag[1:-1]), points, total)
        else:
            raise self.error(f"{tag!r} no es '(challenge)', '(time)' ni '(ATRIL)'")

    def end_rack(
        self, player: int, rack: str | None, counted: str, points: int, total: int
    ) -> None:
        """``(RACK) +n``: went out with the opponent's RACK; ``RACK (RACK) -n``: own rack lost."""
        if self.ended:
            raise self.error("la partida ya ha terminado")
        self.pending = self.pending or _PendingEnd(self.number)
        out = rack is None
        if not out and rack != counted:
            raise self.error(f"el atril {rack} no coincide con ({counted})")
        self.sign(points, "+" if out else "-", f"({counted})")
        owner = 1 - player if out else player
        for who, tiles in ((owner, counted), (player, "")) if out else ((owner, counted),):
            if self.pending.racks[who] not in (None, tiles):
                raise self.error(f"el atril final de {self.nicknames[who]} ya se anotó distinto")
            self.pending.racks[who] = tiles
        if out:
            self.pending.reason = self.pending.reason or "45.4"
        kind = "out" if out else "rack"
        self.pending.lines.append(GCGLine(self.number, player, kind, points, total, rack))

    def time(self, player: int, rack: str | None, points: int, total: int) -> None:
        self.sign(points, "-", "(time)")
        if not self.ended and self.pending is None:
            self.pending = _PendingEnd(self.number, reason="45.5")
        self.flush()
        line = GCGLine(self.number, player, "time", points, total, rack)
        event = ClassicGame.time_penalty_event(player, points=-points, actor=self.actor, at=self.at)
        self.add(event, line)

    def flush(self) -> None:
        """Turn the end lines read so far into one ``end`` event."""
        if self.pending is None:
            return
        pending, self.pending = self.pending, None
        racks = pending.racks if any(r is not None for r in pending.racks) else None
        event = ClassicGame.end_event(racks, pending.reason, actor=self.actor, at=self.at)
        self.entries.append(GCGEntry(event, tuple(pending.lines) or _note_line(pending.line)))
        self.ended = True

    def finish(self) -> GCGRecord:
        self.flush()
        if len(self.nicknames) != 2:
            raise GCGError("faltan las líneas #player1 y #player2")
        if not self.entries:
            self.add(
                ClassicGame.create_event(
                    self.names, nicknames=self.nicknames, lexicon=self.lexicon, title=self.title,
                    actor=self.actor, at=self.at,
                )
            )
        nicknames = (self.nicknames[0], self.nicknames[1])
        return GCGRecord(nicknames, (self.names[0], self.names[1]), self.lexicon, self.title,
                         tuple(self.entries))


def _event_notation(play: Play) -> str:
    """Canonical notation, or with bracketed digraphs where plain letters would read otherwise."""
    text = play.notation()
    if Play.from_notation(text).word == play.word:
        return text
    return f"{play.coordinate()} {word_bracketed(play.word)}"


def _word_tiles(word: str) -> list[Tile | None]:
    """A GCG word's tiles, None for each ``.`` (a tile already on the board)."""
    tiles: list[Tile | None] = []
    for piece in re.split(r"(\.)", word):
        if piece == ".":
            tiles.append(None)
        elif piece:
            tiles.extend(tile_from_label(part) for part in split_letters(piece))
    if BLANK in tiles:
        raise ValueError(f"{word!r}: un comodín se escribe con su letra en minúscula, no '?'")
    return tiles


def _note_line(number: int) -> tuple[GCGLine, ...]:
    """An ``end`` with no rack lines (C.45.5) keeps the number of the note that made it."""
    return (GCGLine(number, 0, "note", 0, 0),)
