"""A classic (two-player) game under the FILE rules (C.25-C.45), rebuilt from events.

``ClassicGame.apply(event)`` checks one ``Event`` against the state and either
raises ``GameError`` (a Spanish sentence, state unchanged) or updates the state;
``ClassicGame.replay(events, lexicon)`` rebuilds a game. Build events with the
``*_event`` helpers, never by hand.

Conventions: players are 0 and 1 in the order of ``game_created``; player
``first`` (default 0, C.4.1) moves first. Racks are written as in CGP: each
character a tile, digraphs in brackets (``[CH]``), ``?`` a blank, e.g.
``AEI[LL]RS?``. Plays are in canonical notation (``H8 CASA``). Only the number of
tiles on each rack and in the bag is tracked (100 tiles, C.3; 7 per rack, C.6,
refilled after each turn while the bag lasts, C.32), since draws are not recorded.

Event kinds and payload keys (JSON values only):

``game_created``  players [2 names]; optional nicknames [2], lexicon, title,
                  clock ("corrido" | "no_corrido" | "temporizador", C.31-C.34),
                  minutes (per player), first (0 | 1), cgp (a starting position;
                  its racks and scores are the first mover's first)
``play``          player, notation; optional rack, score (claimed), off_centre_accepted
``challenge``     optional player (the challenger, C.43); judges the last play (C.39)
``exchange``      player; count and/or tiles; optional rack (C.25)
``pass``          player (C.26)
``end``           optional reason ("45.1" .. "45.5"; default: the ending reached),
                  racks [2 racks, "" or null where none is needed] (C.45)
``time_penalty``  player; seconds_over or points (C.35), once the game has ended
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final

from .alphabet import (
    BLANK,
    BLANK_COUNT,
    LETTERS,
    Tile,
    bracketed_label,
    is_blank,
    label,
    tile_from_label,
    tile_value,
)
from .board import Board
from .cgp import CGPError, Position, rack_sort_key
from .events import Event, GameError
from .lexicon import Lexicon
from .movegen import generate_plays
from .notation import NotationError, Play
from .scoring import RACK_SIZE
from .validation import PlayCheck, check_play

TOTAL_TILES: Final = 100  # C.3
EXCHANGE_MIN_BAG: Final = RACK_SIZE  # FILE is silent; Spears's rule, which C.1 adopts
PASSES_TO_END: Final = 4  # C.45.2: both players pass twice in a row
SCORELESS_TURNS_TO_END: Final = 12  # C.45.3: six turns each
OVERTIME_POINTS_PER_MINUTE: Final = 10  # C.35
CLOCK_MODES: Final = ("corrido", "no_corrido", "temporizador")  # C.32.1, C.32.2, C.31.1
ENDINGS: Final = ("45.1", "45.2", "45.3", "45.4", "45.5")
VALID: Final = "jugada correcta"  # the only two verdicts (C.40)
INVALID: Final = "jugada no válida"

ACTION_LABELS: Final = {
    "play": "jugada",
    "withdrawn": "jugada retirada",
    "exchange": "cambio",
    "pass": "paso",
    "rack": "fichas restantes",
    "time": "tiempo excedido",
}

_RACK_TOKEN: Final = r"\[[^\]]*\]|."


def overtime_penalty(seconds_over: float) -> int:
    """Points lost for going over the clock: 10 per minute or fraction of a minute (C.35)."""
    if seconds_over <= 0:
        return 0
    return OVERTIME_POINTS_PER_MINUTE * math.ceil(seconds_over / 60)


def parse_rack(text: str) -> tuple[Tile, ...]:
    """Tiles of a rack written as in CGP (``AEI[LL]RS?``); raises GameError quoting it."""
    tiles = []
    for token in re.findall(_RACK_TOKEN, text.strip()):
        try:
            tile = tile_from_label(token)
        except ValueError as error:
            raise GameError(f"atril {text!r}: {error}") from None
        if tile != BLANK and is_blank(tile):
            raise GameError(f"atril {text!r}: las letras van en mayúsculas, '?' para el comodín")
        tiles.append(tile)
    return tuple(tiles)


def rack_text(tiles: Iterable[Tile]) -> str:
    """A rack as CGP writes it: tile order, digraphs in brackets, blanks (``?``) last."""
    return "".join(bracketed_label(t) for t in sorted(tiles, key=rack_sort_key))


def rack_value(tiles: Iterable[Tile]) -> int:
    """The points of the tiles on a rack (C.12; blanks 0, C.10.1)."""
    return sum(tile_value(t) for t in tiles)


@dataclass(frozen=True)
class Turn:
    """One turn: a play (its rules score kept even when withdrawn), an exchange or a pass.

    ``placed`` holds (row, col, tile) of the tiles put down; ``drawn`` how many were
    taken from the bag after it; ``verdict`` is set when the play was challenged (C.40);
    ``invalid_words`` are the words not in the lexicon, for the arbiter only.
    """

    number: int
    player: int
    action: str
    notation: str = ""
    points: int = 0
    claimed: int | None = None
    rack: str | None = None
    placed: tuple[tuple[int, int, Tile], ...] = ()
    drawn: int = 0
    invalid_words: tuple[str, ...] = ()
    verdict: str | None = None
    exchanged: int = 0
    exchanged_tiles: str | None = None
    play: Play | None = None  # the play's tiles: its notation can be ambiguous (L+LL is LLL)

    @property
    def withdrawn(self) -> bool:
        """True for a play taken back after a challenge (C.39)."""
        return self.verdict == INVALID

    @property
    def scored(self) -> int:
        """Points this turn adds to the player's score."""
        return self.points if self.action == "play" and not self.withdrawn else 0

    @property
    def counts_as_pass(self) -> bool:
        """A pass, or a play withdrawn as invalid (C.45.2); an exchange is not."""
        return self.action == "pass" or self.withdrawn

    @property
    def scoreless(self) -> bool:
        """A pass, a withdrawn play or an exchange (C.45.3)."""
        return self.counts_as_pass or self.action == "exchange"


@dataclass(frozen=True)
class Adjustment:
    """Points added at the end: rack values (``kind="rack"``, C.45), overtime (``"time"``, C.35)."""

    player: int
    kind: str
    points: int
    rack: str = ""


@dataclass(frozen=True)
class ScoreRow:
    """A line of the score sheet: ``total`` is the player's score after it."""

    player: int
    action: str
    notation: str
    points: int
    total: int
    note: str = ""


@dataclass
class GameState:
    """Everything a classic game knows; equal states mean equal games."""

    created: bool = False
    players: tuple[str, str] = ("", "")
    nicknames: tuple[str, str] | None = None
    lexicon_name: str | None = None
    title: str | None = None
    clock: str | None = None
    minutes: int | None = None
    first: int = 0
    start_cgp: str | None = None
    start_scores: tuple[int, int] = (0, 0)
    start_scoreless: int = 0
    board: Board = field(default_factory=Board)
    scores: list[int] = field(default_factory=lambda: [0, 0])
    rack_counts: list[int] = field(default_factory=lambda: [RACK_SIZE, RACK_SIZE])
    bag: int = TOTAL_TILES - 2 * RACK_SIZE
    to_move: int = 0
    turns: list[Turn] = field(default_factory=list)
    ending: str | None = None
    finished: bool = False
    end_racks: tuple[str, str] | None = None
    adjustments: list[Adjustment] = field(default_factory=list)

    def copy(self) -> GameState:
        return replace(
            self,
            board=self.board.copy(),
            scores=list(self.scores),
            rack_counts=list(self.rack_counts),
            turns=list(self.turns),
            adjustments=list(self.adjustments),
        )


class _Payload:
    """Typed reads of an event's data; a wrong or missing value is a GameError."""

    def __init__(self, kind: str, data: Mapping[str, Any]) -> None:
        self.kind = kind
        self.data = data

    def _fail(self, key: str, what: str) -> GameError:
        return GameError(f"el evento {self.kind!r} necesita {key!r} ({what})")

    def text(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, str):
            raise self._fail(key, "texto")
        return value

    def required_text(self, key: str) -> str:
        value = self.text(key)
        if value is None:
            raise self._fail(key, "texto")
        return value

    def integer(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise self._fail(key, "número entero")
        return value

    def flag(self, key: str) -> bool:
        value = self.data.get(key, False)
        if not isinstance(value, bool):
            raise self._fail(key, "true o false")
        return value

    def pair(self, key: str) -> tuple[str | None, str | None] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise self._fail(key, "una lista de dos")
        if any(v is not None and not isinstance(v, str) for v in value):
            raise self._fail(key, "una lista de dos textos")
        return value[0], value[1]

    def player(self) -> int:
        value = self.integer("player")
        if value not in (0, 1):
            raise self._fail("player", "0 o 1")
        return value


def _event(kind: str, data: dict[str, Any], actor: str, at: datetime | None) -> Event:
    clean = {key: value for key, value in data.items() if value is not None}
    return Event(kind, clean, actor) if at is None else Event(kind, clean, actor, at)


def _rack_arg(rack: str | Sequence[Tile] | None) -> str | None:
    if rack is None or isinstance(rack, str):
        return rack
    return rack_text(rack)


def _check_supply(tiles: Iterable[Tile]) -> None:
    """No more tiles of a kind than the set has (C.3): placed blanks count as blanks."""
    counts = Counter(BLANK if is_blank(t) else t for t in tiles)
    for tile, count in sorted(counts.items()):
        available = BLANK_COUNT if tile == BLANK else LETTERS[tile - 1].count
        if count > available:
            name = "comodín" if tile == BLANK else label(tile)
            raise GameError(f"habría {count} fichas {name} y el juego tiene {available} (C.3)")


def _trailing(turns: Sequence[Turn], test: Callable[[Turn], bool]) -> int:
    count = 0
    for turn in reversed(turns):
        if not test(turn):
            break
        count += 1
    return count


class ClassicGame:
    """A classic game between two players, rebuilt from its events (see the module docstring)."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self._state = GameState()
        self._events: list[Event] = []

    @classmethod
    def replay(cls, events: Iterable[Event], lexicon: Lexicon) -> ClassicGame:
        """The game these events make; raises GameError at the first one the rules forbid."""
        game = cls(lexicon)
        for event in events:
            game.apply(event)
        return game

    def apply(self, event: Event) -> None:
        """Apply ``event`` if the rules allow it; else raise GameError, the state unchanged."""
        handler = self._HANDLERS.get(event.kind)
        if handler is None:
            raise GameError(f"evento desconocido en una partida clásica: {event.kind!r}")
        state = self._state.copy()
        payload = _Payload(event.kind, event.data)
        if event.kind != "game_created" and not state.created:
            raise GameError("la partida no está creada: el primer evento es 'game_created'")
        handler(self, state, payload)
        self._state = state
        self._events.append(event)

    # -- reading the state -------------------------------------------------------

    @property
    def state(self) -> GameState:
        """The current state (do not modify it; apply events instead)."""
        return self._state

    @property
    def events(self) -> list[Event]:
        return list(self._events)

    @property
    def players(self) -> tuple[str, str]:
        return self._state.players

    @property
    def board(self) -> Board:
        return self._state.board.copy()

    @property
    def scores(self) -> tuple[int, int]:
        """Current scores, end adjustments and penalties included once applied."""
        return self._state.scores[0], self._state.scores[1]

    @property
    def bag(self) -> int:
        """Tiles left in the bag."""
        return self._state.bag

    @property
    def rack_counts(self) -> tuple[int, int]:
        return self._state.rack_counts[0], self._state.rack_counts[1]

    @property
    def to_move(self) -> int:
        return self._state.to_move

    @property
    def turns(self) -> list[Turn]:
        return list(self._state.turns)

    @property
    def ending(self) -> str | None:
        """The C.45 case reached (``"45.2"``...), set before its rack adjustment is applied."""
        return self._state.ending

    @property
    def finished(self) -> bool:
        """True once the ``end`` event has applied the final adjustments."""
        return self._state.finished

    def winner(self) -> int | None:
        """The player ahead on the score (the winner once finished), None on a tie."""
        a, b = self.scores
        return None if a == b else (0 if a > b else 1)

    def summary(self) -> dict[str, Any]:
        """A JSON snapshot of where the game stands (stored beside its events)."""
        return {
            "players": list(self.players),
            "scores": list(self.scores),
            "to_move": self.to_move,
            "turns": len(self.turns),
            "bag": self.bag,
            "ending": self.ending,
            "finished": self.finished,
        }

    def scoresheet(self) -> list[ScoreRow]:
        """The running score sheet: one row per turn, then end adjustments and time penalties."""
        totals = list(self._state.start_scores)
        rows = []
        for turn in self._state.turns:
            totals[turn.player] += turn.scored
            rows.append(_turn_row(turn, totals[turn.player]))
        for adjustment in self._state.adjustments:
            totals[adjustment.player] += adjustment.points
            rows.append(
                ScoreRow(
                    adjustment.player, adjustment.kind, adjustment.rack, adjustment.points,
                    totals[adjustment.player],
                )
            )
        return rows

    # -- building events ---------------------------------------------------------

    @staticmethod
    def create_event(
        players: Sequence[str],
        *,
        nicknames: Sequence[str] | None = None,
        lexicon: str | None = None,
        title: str | None = None,
        clock: str | None = None,
        minutes: int | None = None,
        first: int = 0,
        cgp: str | None = None,
        actor: str = "system",
        at: datetime | None = None,
    ) -> Event:
        """``game_created``: the players (``first`` moves first), clock, lexicon, start position."""
        data = {
            "players": list(players),
            "nicknames": list(nicknames) if nicknames is not None else None,
            "lexicon": lexicon,
            "title": title,
            "clock": clock,
            "minutes": minutes,
            "first": first,
            "cgp": cgp,
        }
        return _event("game_created", data, actor, at)

    @staticmethod
    def play_event(
        player: int,
        notation: str,
        *,
        rack: str | Sequence[Tile] | None = None,
        score: int | None = None,
        off_centre_accepted: bool = False,
        actor: str = "system",
        at: datetime | None = None,
    ) -> Event:
        """``play``: a placement in canonical notation, the rack if known, the score claimed."""
        data = {
            "player": player,
            "notation": notation,
            "rack": _rack_arg(rack),
            "score": score,
            "off_centre_accepted": off_centre_accepted or None,
        }
        return _event("play", data, actor, at)

    @staticmethod
    def challenge_event(
        player: int | None = None, *, actor: str = "system", at: datetime | None = None
    ) -> Event:
        """``challenge``: ``player`` (the opponent, C.43) challenges the last play (C.39)."""
        return _event("challenge", {"player": player}, actor, at)

    @staticmethod
    def exchange_event(
        player: int,
        count: int | None = None,
        *,
        tiles: str | Sequence[Tile] | None = None,
        rack: str | Sequence[Tile] | None = None,
        actor: str = "system",
        at: datetime | None = None,
    ) -> Event:
        """``exchange``: ``count`` tiles, or the ``tiles`` themselves when known (C.25)."""
        tiles_text = _rack_arg(tiles)
        if count is None and tiles_text is not None:
            count = len(parse_rack(tiles_text))
        data = {"player": player, "count": count, "tiles": tiles_text, "rack": _rack_arg(rack)}
        return _event("exchange", data, actor, at)

    @staticmethod
    def pass_event(player: int, *, actor: str = "system", at: datetime | None = None) -> Event:
        """``pass`` (C.26)."""
        return _event("pass", {"player": player}, actor, at)

    @staticmethod
    def end_event(
        racks: Sequence[str | Sequence[Tile] | None] | None = None,
        reason: str | None = None,
        *,
        actor: str = "system",
        at: datetime | None = None,
    ) -> Event:
        """``end``: the tiles left on each rack and the C.45 case (default: the one reached)."""
        rack_list = [_rack_arg(r) for r in racks] if racks is not None else None
        return _event("end", {"racks": rack_list, "reason": reason}, actor, at)

    @staticmethod
    def time_penalty_event(
        player: int,
        *,
        seconds_over: int | None = None,
        points: int | None = None,
        actor: str = "system",
        at: datetime | None = None,
    ) -> Event:
        """``time_penalty``: the clock's overtime in seconds, or the points it costs (C.35)."""
        data = {"player": player, "seconds_over": seconds_over, "points": points}
        return _event("time_penalty", data, actor, at)

    # -- handlers ----------------------------------------------------------------

    def _created(self, state: GameState, payload: _Payload) -> None:
        if state.created:
            raise GameError("la partida ya está creada")
        players = payload.pair("players")
        if players is None or not all(players) or players[0] == players[1]:
            raise GameError("una partida clásica es entre dos jugadores de nombres distintos")
        state.players = (str(players[0]), str(players[1]))
        state.nicknames = _nicknames(payload)
        state.lexicon_name = payload.text("lexicon")
        state.title = payload.text("title")
        state.clock = payload.text("clock")
        if state.clock is not None and state.clock not in CLOCK_MODES:
            modes = ", ".join(CLOCK_MODES)
            raise GameError(f"modo de reloj {state.clock!r}: uno de {modes} (C.31-C.34)")
        state.minutes = payload.integer("minutes")
        if state.minutes is not None and state.minutes <= 0:
            raise GameError("el tiempo por jugador es un número positivo de minutos (C.34)")
        first = payload.integer("first") or 0
        if first not in (0, 1):
            raise GameError("'first' es 0 o 1: el jugador que sale (C.4)")
        state.first = state.to_move = first
        cgp = payload.text("cgp")
        if cgp is not None:
            _start_from(state, cgp)
        state.created = True

    def _play(self, state: GameState, payload: _Payload) -> None:
        player = _require_turn(state, payload)
        verdict, rack = self._checked_play(state, player, payload)
        placed = sorted(verdict.placed.items())
        points = verdict.score.total if verdict.score else 0  # stands with bad words (C.38)
        for square, tile in placed:
            state.board[square] = tile
        state.scores[player] += points
        drawn = _refill(state, player, len(placed))
        state.turns.append(
            Turn(
                len(state.turns) + 1, player, "play", verdict.play.notation(), points,
                payload.integer("score"), rack_text(rack) if rack is not None else None,
                tuple((r, c, t) for (r, c), t in placed), drawn, verdict.invalid_words,
                play=verdict.play,
            )
        )
        _next_turn(state, player)

    def _checked_play(
        self, state: GameState, player: int, payload: _Payload
    ) -> tuple[PlayCheck, tuple[Tile, ...] | None]:
        """The play's verdict and the recorded rack; GameError unless only words are wrong."""
        try:
            play = Play.from_notation(payload.required_text("notation"))
        except NotationError as error:
            raise GameError(str(error)) from None
        rack = _known_rack(state, player, payload.text("rack"))
        accepted = payload.flag("off_centre_accepted")  # C.20.2
        verdict = check_play(state.board, play, self.lexicon, rack, off_centre_accepted=accepted)
        refused = [str(p) for p in verdict.problems if p.code != "unknown_word"]
        if refused or verdict.score is None:
            raise GameError(f"{play.notation()}: " + "; ".join(refused))
        if len(verdict.placed) > state.rack_counts[player]:
            raise GameError(
                f"{state.players[player]} tiene {state.rack_counts[player]} fichas "
                f"y la jugada coloca {len(verdict.placed)}"
            )
        in_hand = rack if rack else tuple(verdict.placed.values())
        _check_supply([t for _, t in state.board.occupied()] + list(in_hand))
        return verdict, rack

    def _challenge(self, state: GameState, payload: _Payload) -> None:
        if state.finished or not state.turns:
            raise GameError("no hay ninguna jugada que impugnar (C.39)")
        last = state.turns[-1]
        if last.action != "play" or last.verdict is not None:
            raise GameError("solo se impugna la última jugada, antes de anotarla (C.39)")
        challenger = payload.integer("player")
        if challenger is not None and challenger != 1 - last.player:
            author = state.players[last.player]
            raise GameError(f"solo el oponente de {author} puede impugnar (C.43)")
        if not last.invalid_words:
            state.turns[-1] = replace(last, verdict=VALID)  # no penalty in C.38-C.43
            return
        for row, col, _ in last.placed:  # C.39: tiles back to the rack, turn lost
            state.board[row, col] = 0
        state.scores[last.player] -= last.points
        state.rack_counts[last.player] += len(last.placed) - last.drawn
        state.bag += last.drawn
        state.turns[-1] = replace(last, verdict=INVALID)
        state.ending = None
        _detect_ending(state)

    def _exchange(self, state: GameState, payload: _Payload) -> None:
        player = _require_turn(state, payload)
        tiles_str = payload.text("tiles")
        tiles = parse_rack(tiles_str) if tiles_str is not None else None
        count = payload.integer("count")
        count = len(tiles) if count is None and tiles is not None else count
        if count is None or (tiles is not None and len(tiles) != count):
            raise GameError("un cambio indica cuántas fichas se cambian, o cuáles (C.25)")
        if not 1 <= count <= state.rack_counts[player]:
            most = state.rack_counts[player]
            raise GameError(f"se cambian de 1 a {most} fichas, no {count} (C.25)")
        if state.bag < EXCHANGE_MIN_BAG:
            raise GameError(
                f"quedan {state.bag} fichas en la bolsa: para cambiar debe haber al menos "
                f"{EXCHANGE_MIN_BAG} (reglas de Spears, C.1)"
            )
        rack_str = payload.text("rack")
        rack = _known_rack(state, player, rack_str)
        if rack is not None and tiles is not None and Counter(tiles) - Counter(rack):
            raise GameError(f"no se pueden cambiar {tiles_str} con el atril {rack_str}")
        state.turns.append(
            Turn(
                len(state.turns) + 1, player, "exchange",
                rack=rack_text(rack) if rack is not None else None,
                exchanged=count, exchanged_tiles=rack_text(tiles) if tiles is not None else None,
            )
        )
        _next_turn(state, player)

    def _pass(self, state: GameState, payload: _Payload) -> None:
        player = _require_turn(state, payload)
        state.turns.append(Turn(len(state.turns) + 1, player, "pass"))
        _next_turn(state, player)

    def _end(self, state: GameState, payload: _Payload) -> None:
        if state.finished:
            raise GameError("la partida ya ha terminado")
        reason = _end_reason(state, payload.text("reason"))
        racks = payload.pair("racks") or (None, None)
        if reason == "45.5":
            _check_equal_turns(state)  # C.30; the racks are not counted (C.45.5)
        elif reason == "45.4":
            _adjust_out(state, racks)
        else:
            tiles = (_final_rack(state, 0, racks[0]), _final_rack(state, 1, racks[1]))
            _check_supply([t for _, t in state.board.occupied()] + list(tiles[0] + tiles[1]))
            if reason == "45.1":
                self._check_nobody_can_play(state, tiles)
            for player in (0, 1):
                value, text = rack_value(tiles[player]), rack_text(tiles[player])
                state.adjustments.append(Adjustment(player, "rack", -value, text))
                state.scores[player] -= value
            state.end_racks = (rack_text(tiles[0]), rack_text(tiles[1]))
        state.ending = reason
        state.finished = True

    def _time_penalty(self, state: GameState, payload: _Payload) -> None:
        if not state.finished:
            raise GameError("el tiempo excedido se resta de la puntuación final (C.35)")
        player = payload.player()
        if any(a.kind == "time" and a.player == player for a in state.adjustments):
            name = state.players[player]
            raise GameError(f"ya se ha restado el tiempo excedido de {name} (C.35)")
        seconds, points = payload.integer("seconds_over"), payload.integer("points")
        if seconds is not None and points is None:
            points = overtime_penalty(seconds)
        elif points is None or seconds is not None:
            raise GameError("indique los segundos de más o los puntos, una sola cosa (C.35)")
        if points <= 0 or points % OVERTIME_POINTS_PER_MINUTE:
            raise GameError(f"{points} puntos: son 10 por minuto o fracción excedidos (C.35)")
        state.adjustments.append(Adjustment(player, "time", -points))
        state.scores[player] -= points

    def _check_nobody_can_play(self, state: GameState, racks: tuple[tuple[Tile, ...], ...]) -> None:
        """C.45.1 holds only when neither rack has a legal placement on the board."""
        for player, rack in enumerate(racks):
            plays = generate_plays(state.board, rack, self.lexicon) if rack else []
            if plays:
                raise GameError(
                    f"{state.players[player]} todavía puede jugar {plays[0].notation} "
                    f"({plays[0].score} puntos): no se da C.45.1"
                )

    _HANDLERS: Final[dict[str, Callable[[ClassicGame, GameState, _Payload], None]]] = {
        "game_created": _created,
        "play": _play,
        "challenge": _challenge,
        "exchange": _exchange,
        "pass": _pass,
        "end": _end,
        "time_penalty": _time_penalty,
    }


def _turn_row(turn: Turn, total: int) -> ScoreRow:
    if turn.action == "exchange":
        what = turn.exchanged_tiles or str(turn.exchanged)
        return ScoreRow(turn.player, "exchange", f"-{what}", 0, total)
    if turn.action == "pass":
        return ScoreRow(turn.player, "pass", "-", 0, total)
    action = "withdrawn" if turn.withdrawn else "play"
    notes = [turn.verdict] if turn.verdict else []
    if turn.claimed is not None and turn.claimed != turn.points:
        notes.append(f"anotados {turn.claimed}")
    return ScoreRow(turn.player, action, turn.notation, turn.scored, total, "; ".join(notes))


def _nicknames(payload: _Payload) -> tuple[str, str] | None:
    nicknames = payload.pair("nicknames")
    if nicknames is None:
        return None
    a, b = nicknames
    if not a or not b or a == b or any(ch.isspace() for ch in a + b):
        raise GameError("los apodos son dos palabras distintas, sin espacios")
    return a, b


def _start_from(state: GameState, cgp: str) -> None:
    """Start from a CGP position: its racks and scores list the first mover first.

    A rack left out holds 7 tiles, or what is left; the bag holds the rest of the 100.
    The CGP's scoreless-turn count carries into C.45.3; earlier passes (C.45.2) are unknown.
    """
    try:
        position = Position.from_cgp(cgp)
    except CGPError as error:
        raise GameError(str(error)) from None
    if len(position.scores) != 2:
        raise GameError(f"{cgp!r}: una posición de partida clásica tiene dos puntuaciones")
    tiles = [t for _, t in position.board.occupied()]
    _check_supply(tiles + list(position.racks[0]) + list(position.racks[1]))
    unseen = TOTAL_TILES - len(tiles)
    sizes = []
    for rack in position.racks:  # an omitted rack holds what a rack would hold
        sizes.append(len(rack) if rack else min(RACK_SIZE, unseen))
        unseen -= sizes[-1]
    if unseen < 0 or (unseen and min(sizes) < RACK_SIZE):
        raise GameError(f"{cgp!r}: con fichas en la bolsa cada atril tiene {RACK_SIZE} (C.32)")
    mover, other = state.first, 1 - state.first
    state.board = position.board
    state.rack_counts[mover], state.rack_counts[other] = sizes
    state.bag = unseen
    state.scores[mover], state.scores[other] = position.scores
    state.start_scores = (state.scores[0], state.scores[1])
    state.start_scoreless = position.zero_turns
    state.start_cgp = cgp
    state.lexicon_name = state.lexicon_name or position.lexicon_name


def _require_turn(state: GameState, payload: _Payload) -> int:
    if state.finished:
        raise GameError("la partida ha terminado")
    if state.ending:
        ending = state.ending
        raise GameError(f"la partida ha terminado (C.{ending}): anote las fichas de los atriles")
    player = payload.player()
    if player != state.to_move:
        names = state.players
        raise GameError(f"es el turno de {names[state.to_move]}, no de {names[player]}")
    return player


def _known_rack(state: GameState, player: int, text: str | None) -> tuple[Tile, ...] | None:
    """The rack as recorded (all its tiles or those known), checked against the tile count."""
    if text is None:
        return None
    rack = parse_rack(text)
    if len(rack) > state.rack_counts[player]:
        raise GameError(
            f"el atril {text!r} tiene {len(rack)} fichas y {state.players[player]} "
            f"tiene {state.rack_counts[player]}"
        )
    return rack


def _refill(state: GameState, player: int, used: int) -> int:
    """Take ``used`` tiles off the rack and draw as many as the bag allows (C.32); the draw."""
    drawn = min(used, state.bag)
    state.rack_counts[player] += drawn - used
    state.bag -= drawn
    return drawn


def _next_turn(state: GameState, player: int) -> None:
    state.to_move = 1 - player
    _detect_ending(state)


def _detect_ending(state: GameState) -> None:
    """Set ``ending`` when C.45.4, C.45.2 or C.45.3 is reached by the last turn."""
    turns = state.turns
    last = turns[-1]
    if last.action == "play" and not last.withdrawn:
        if state.rack_counts[last.player] == 0 and state.bag == 0:
            state.ending = "45.4"
        return
    if _trailing(turns, lambda t: t.counts_as_pass) >= PASSES_TO_END:
        state.ending = "45.2"
        return
    scoreless = _trailing(turns, lambda t: t.scoreless)
    if scoreless == len(turns):
        scoreless += state.start_scoreless
    if scoreless >= SCORELESS_TURNS_TO_END and state.scores != [0, 0]:  # not at 0-0 (C.45.3)
        state.ending = "45.3"


def _end_reason(state: GameState, reason: str | None) -> str:
    if reason is not None and reason not in ENDINGS:
        raise GameError(f"motivo de final {reason!r}: uno de {', '.join(ENDINGS)} (C.45)")
    if state.ending and reason not in (None, state.ending):
        raise GameError(f"la partida ha terminado por C.{state.ending}, no por C.{reason}")
    if reason is None and state.ending is None:
        raise GameError(
            "la partida no ha llegado a C.45.2-C.45.4: indique el motivo (C.45.1 o C.45.5)"
        )
    if reason in ("45.2", "45.3", "45.4") and state.ending is None:
        raise GameError(f"no se da C.{reason} en esta partida")
    return reason or str(state.ending)


def _check_equal_turns(state: GameState) -> None:
    """C.30: when the total time runs out, both players have had the same number of turns."""
    counts = [sum(1 for t in state.turns if t.player == p) for p in (0, 1)]
    if counts[0] != counts[1]:
        behind = 0 if counts[0] < counts[1] else 1
        raise GameError(
            f"{state.players[behind]} debe jugar su turno para igualar los turnos "
            "antes de cerrar la partida por tiempo (C.30)"
        )


def _final_rack(state: GameState, player: int, text: str | None) -> tuple[Tile, ...]:
    if text is None:
        raise GameError(f"falta el atril final de {state.players[player]} (C.45)")
    rack = parse_rack(text)
    if len(rack) != state.rack_counts[player]:
        raise GameError(
            f"{state.players[player]} tiene {state.rack_counts[player]} fichas y se anotan "
            f"{len(rack)}: {text!r}"
        )
    return rack


def _adjust_out(state: GameState, racks: tuple[str | None, str | None]) -> None:
    """C.45.4: the opponent's rack value is subtracted from them and added to the player out."""
    out = state.turns[-1].player
    other = 1 - out
    if racks[out]:
        raise GameError(f"{state.players[out]} se ha quedado sin fichas (C.45.4)")
    rack = _final_rack(state, other, racks[other])
    _check_supply([t for _, t in state.board.occupied()] + list(rack))
    value, text = rack_value(rack), rack_text(rack)
    state.adjustments.append(Adjustment(out, "rack", value, text))
    state.adjustments.append(Adjustment(other, "rack", -value, text))
    state.scores[out] += value
    state.scores[other] -= value
    state.end_racks = ("", text) if out == 0 else (text, "")
