"""GCG game records (Quackle, Woogles, Macondo) for classic games: import, export, check.

Coordinates are converted here and nowhere else. GCG uses the English convention:
row number then column letter for a horizontal play, column letter then row number
for a vertical one. Veedor's ``H8 CASA`` (row H, column 8, across) is GCG ``8H``;
``D3 CASA`` is ``4C``; the vertical ``3D CASA`` (column 3 from row D) is ``C4``.

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
from .board import ROW_LABELS, SIZE, Board, Square
from .classic import ClassicGame, GameState, Turn, parse_rack, rack_text
from .events import Event, GameError
from .lexicon import Lexicon
from .notation import Play

COLUMN_LETTERS: Final = ROW_LABELS  # GCG names columns A..O
LETTER_DISTRIBUTION: Final = "spanish"  # Macondo's name for the Spanish tile set

_MOVE_RE: Final = re.compile(r"^>(\S+?):\s*(.*)$")
_POSITION_RE: Final = re.compile(r"^(?:(\d{1,2})([A-Oa-o])|([A-Oa-o])(\d{1,2}))$")
_POINTS_RE: Final = re.compile(r"^[+-]\d+$")
_TOTAL_RE: Final = re.compile(r"^-?\d+$")
_FINAL_NOTE_RE: Final = re.compile(r"^Final C\.(45\.[1-5])\b")
_ENCODING_RE: Final = re.compile(r"^#character-encoding\s+(\S+)")


class GCGError(ValueError):
    """A GCG record that cannot be read or replayed; the message names the line."""


# -- coordinates -----------------------------------------------------------------


def gcg_position(play: Play) -> str:
    """The GCG coordinate of a play: ``8H`` for Veedor's ``H8`` across, ``H8`` for ``8H`` down."""
    column, row = COLUMN_LETTERS[play.col], play.row + 1
    return f"{column}{row}" if play.down else f"{row}{column}"


def parse_gcg_position(text: str) -> tuple[int, int, bool]:
    """``"8H"`` -> ``(7, 7, False)``, across; ``"H8"`` -> ``(7, 7, True)``, down (0-based)."""
    match = _POSITION_RE.match(text)
    if not match:
        raise ValueError(f"{text!r} no es una coordenada GCG (p. ej. 8H horizontal, H8 vertical)")
    across = match[1] is not None
    number = int(match[1] if across else match[4])
    letter = (match[2] if across else match[3]).upper()
    if not 1 <= number <= SIZE:
        raise ValueError(f"{text!r}: la fila {number} no existe (1-15)")
    return number - 1, COLUMN_LETTERS.index(letter), not across


# -- the record ------------------------------------------------------------------


@dataclass(frozen=True)
class GCGLine:
    """A move line as recorded: ``kind`` is play, exchange, pass, withdrawn, challenge,
    out, rack or time; ``points`` signed; ``total`` the player's recorded total."""

    line: int
    player: int
    kind: str
    points: int
    total: int
    rack: str | None = None
    notation: str = ""


@dataclass(frozen=True)
class GCGEntry:
    """One event and the GCG lines it comes from (none for ``game_created``)."""

    event: Event
    lines: tuple[GCGLine, ...] = ()

    @property
    def line(self) -> int:
        return self.lines[0].line if self.lines else 0


@dataclass(frozen=True)
class GCGRecord:
    """A parsed GCG file: the players (nicknames and names), pragmata, and its entries."""

    nicknames: tuple[str, str]
    names: tuple[str, str]
    lexicon: str | None
    title: str | None
    entries: tuple[GCGEntry, ...]

    def events(self) -> list[Event]:
        return [entry.event for entry in self.entries]


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


def gcg_square(square: Square) -> str:
    """A square named the GCG way: row number, column letter (``8H`` is Veedor's H8)."""
    return f"{square[0] + 1}{COLUMN_LETTERS[square[1]]}"


# -- export ------------------------------------------------------------------------


def to_gcg(game: ClassicGame) -> str:
    """The game as GCG text (UTF-8, whole words, bracketed digraphs); see the module docstring."""
    state = game.state
    if state.start_cgp is not None:
        raise GCGError("una partida que empieza en una posición CGP no se puede escribir en GCG")
    nicks = _export_nicknames(state)
    lines = ["#character-encoding UTF-8"]
    lines += [f"#player{i + 1} {nicks[i]} {state.players[i]}" for i in (0, 1)]
    lines += [f"#title {state.title}"] if state.title else []
    lines += [f"#lexicon {state.lexicon_name}"] if state.lexicon_name else []
    lines.append(f"#note LetterDistribution: {LETTER_DISTRIBUTION}")
    totals = [0, 0]
    for turn in state.turns:
        lines += _turn_lines(turn, nicks[turn.player], totals)
    for adjustment in state.adjustments:
        if adjustment.kind == "rack":
            totals[adjustment.player] += adjustment.points
            lines.append(_rack_line(state, adjustment.player, adjustment.points, nicks, totals))
    if state.finished:
        lines.append(f"#note Final C.{state.ending}")
    for adjustment in state.adjustments:
        if adjustment.kind == "time":
            totals[adjustment.player] += adjustment.points
            rack = (state.end_racks or ("", ""))[adjustment.player]
            lines.append(_line(nicks[adjustment.player], rack, "(time)", adjustment.points,
                               totals[adjustment.player]))
    return "\n".join(lines) + "\n"


def _export_nicknames(state: GameState) -> tuple[str, str]:
    nicks = state.nicknames or tuple("".join(name.split()) for name in state.players)
    if len(nicks) != 2 or nicks[0] == nicks[1]:
        raise GCGError("los dos jugadores necesitan apodos GCG distintos (sin espacios)")
    return nicks[0], nicks[1]


def _line(nick: str, rack: str | None, move: str, points: int, total: int, sign: str = "+") -> str:
    """``>NICK: RACK MOVE +points total``; ``sign`` is written before a zero (``+0``, ``-0``)."""
    amount = f"{points:+d}" if points else f"{sign}0"
    parts = [f">{nick}:"] + ([rack] if rack else []) + [move, amount, str(total)]
    return " ".join(parts)


def _turn_lines(turn: Turn, nick: str, totals: list[int]) -> list[str]:
    player = turn.player
    if turn.action != "play" or turn.play is None:
        move = "-" if turn.action == "pass" else f"-{turn.exchanged_tiles or turn.exchanged}"
        return [_line(nick, turn.rack, move, 0, totals[player])]
    play = turn.play
    totals[player] += turn.points
    lines = [_line(nick, turn.rack, f"{gcg_position(play)} {word_bracketed(play.word)}",
                   turn.points, totals[player])]
    if turn.withdrawn:
        totals[player] -= turn.points
        lines.append(_line(nick, turn.rack, "--", -turn.points, totals[player], "-"))
    elif turn.verdict is not None:
        lines.append(_line(nick, turn.rack, "(challenge)", 0, totals[player]))
    return lines


def _rack_line(
    state: GameState, player: int, points: int, nicks: tuple[str, str], totals: list[int]
) -> str:
    racks = state.end_racks or ("", "")
    if state.ending == "45.4" and not racks[player]:  # went out: the opponent's rack (C.45.4)
        return _line(nicks[player], None, f"({racks[1 - player]})", points, totals[player])
    rack = racks[player]
    return _line(nicks[player], rack, f"({rack})", points, totals[player], "-")


# -- checking a record against the rules --------------------------------------------


@dataclass(frozen=True)
class Discrepancy:
    """Where the record and the rules disagree: the GCG line and a sentence."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"línea {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class GCGCheck:
    """A record replayed under the rules: the game, and every disagreement with the record."""

    record: GCGRecord
    game: ClassicGame
    discrepancies: tuple[Discrepancy, ...]
    recorded_totals: tuple[int, int]

    @property
    def agrees(self) -> bool:
        return not self.discrepancies


def replay_gcg(record: GCGRecord, lexicon: Lexicon) -> ClassicGame:
    """Replay a record's events; a GameError becomes a GCGError naming the line."""
    game = ClassicGame(lexicon)
    for entry in record.entries:
        _apply(game, entry)
    return game


def _apply(game: ClassicGame, entry: GCGEntry) -> None:
    try:
        game.apply(entry.event)
    except GameError as error:
        raise GCGError(f"línea {entry.line}: {error}") from None


def check_gcg(text: str, lexicon: Lexicon) -> GCGCheck:
    """Import, replay and rescore a GCG record, listing where it disagrees with the rules."""
    record = parse_gcg(text)
    game = ClassicGame(lexicon)
    found: list[Discrepancy] = []
    recorded = [0, 0]
    for entry in record.entries:
        _apply(game, entry)
        for line in entry.lines:
            if line.kind != "note":
                found += _compare(game, line, recorded)
    found += _missing_end_lines(game, record)
    if tuple(recorded) != game.scores:
        (a, b), (c, d) = recorded, game.scores
        found.append(Discrepancy(0, f"resultado anotado {a}-{b}; según las reglas {c}-{d}"))
    return GCGCheck(record, game, tuple(found), (recorded[0], recorded[1]))


def _compare(game: ClassicGame, line: GCGLine, recorded: list[int]) -> list[Discrepancy]:
    found = _compare_points(game, line)
    expected = recorded[line.player] + line.points
    if line.total != expected:
        message = f"el total anotado es {line.total} y la suma da {expected} (C.41)"
        found.append(Discrepancy(line.line, message))
    recorded[line.player] = line.total
    return found


def _compare_points(game: ClassicGame, line: GCGLine) -> list[Discrepancy]:
    turn = game.turns[-1] if game.turns else None
    message = ""
    if line.kind == "play" and turn is not None and line.points != turn.points:
        message = (
            f"{turn.notation} vale {turn.points} puntos según las reglas, "
            f"no {line.points} (C.12-C.19)"
        )
    elif line.kind == "withdrawn" and turn is not None and not turn.withdrawn:
        message = f"{turn.notation} es una jugada correcta y no se retira (C.39)"
    elif line.kind == "withdrawn" and turn is not None and -line.points != (turn.claimed or 0):
        message = f"se retiran {-line.points} puntos y {turn.notation} se anotó con {turn.claimed}"
    elif line.kind == "challenge" and turn is not None and turn.withdrawn:
        message = f"{turn.notation} no es válida y debió retirarse (C.39)"
    elif line.kind == "challenge" and line.points:
        message = (
            "FILE no da puntos a la jugada impugnada que resulta correcta "
            f"(C.39, C.40): +{line.points}"
        )
    elif line.kind in ("out", "rack"):
        message = _compare_end(game, line)
    return [Discrepancy(line.line, message)] if message else []


def _compare_end(game: ClassicGame, line: GCGLine) -> str:
    adjustments = game.state.adjustments
    rules = [a.points for a in adjustments if a.kind == "rack" and a.player == line.player]
    if rules and rules[0] != line.points:
        return (f"según C.{game.ending} a {game.players[line.player]} le corresponden "
                f"{rules[0]:+d} puntos por los atriles, no {line.points:+d}")
    return ""


def _missing_end_lines(game: ClassicGame, record: GCGRecord) -> list[Discrepancy]:
    written = {line.player for entry in record.entries for line in entry.lines
               if line.kind in ("out", "rack")}
    return [
        Discrepancy(0, f"falta la línea de fichas restantes de {game.players[a.player]} "
                       f"({a.points:+d}, C.{game.ending})")
        for a in game.state.adjustments
        if a.kind == "rack" and a.points and a.player not in written
    ]
