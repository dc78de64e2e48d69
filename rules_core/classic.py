"""A classic (two-player) game under the FILE rules (C.25-C.45), rebuilt from events.

``ClassicGame.apply(event)`` checks one ``Event`` against the state and either
raises ``GameError`` (a Spanish sentence, state unchanged) or updates the state;
``ClassicGame.replay(events, lexicon, find)`` rebuilds a game (``find`` gives the lexicon a
recorded ``word_list`` names, as in ``rules_core.duplicate``). Build events with the
``*_event`` helpers, never by hand.

This module creates the game and plays its turns (C.4, C.25-C.34); the rest is
in helpers: ``classic_state`` (turns, score sheet rows), ``classic_racks`` (rack
text, tile supply), ``classic_events`` (the builders), ``classic_challenge``
(C.38-C.43), ``classic_ending`` (C.45, C.35) and ``classic_clock`` (the table's
clock, C.30-C.35).

Conventions: players are 0 and 1 in the order of ``game_created``; player
``first`` (default 0, C.4.1) moves first. Racks are written as in CGP: each
character a tile, digraphs in brackets (``[CH]``), ``?`` a blank, e.g.
``AEI[LL]RS?``. Plays are in canonical notation (``H8 CASA``). Only the number of
tiles on each rack and in the bag is tracked (100 tiles, C.3; 7 per rack, C.6,
refilled after each turn while the bag lasts, C.32), since draws are not recorded.

Event kinds and payload keys (JSON values only):

``game_created``  players [2 names]; optional nicknames [2], lexicon, title,
                  clock ("corrido" | "no_corrido" | "temporizador", C.31-C.34),
                  minutes (per player), duration (the game's, C.30), first (0 | 1),
                  cgp (a starting position; its racks and scores are the first mover's first),
                  word_list (the lexicon played with, ``LexiconRef.to_json``; absent in older games)
``play``          player, notation; optional rack, score (claimed), off_centre_accepted
``challenge``     optional player (the challenger, C.43); judges the last play (C.39)
``exchange``      player; count and/or tiles; optional rack (C.25)
``pass``          player (C.26)
``end``           optional reason ("45.1" .. "45.5"; default: the ending reached),
                  racks [2 racks, "" or null where none is needed] (C.45)
``time_penalty``  player; seconds_over or points (C.35), once the game has ended
``lexicon_changed`` word_list, reason: another lexicon for the plays from now on (an
                  arbiter's decision; plays already judged keep their verdict)
``clock_start``, ``clock_press``, ``clock_pause``, ``clock_resume``, ``clock_set`` (player,
                  remaining_ms, reason: the arbiter's correction, C.36): the table's clock
                  (``classic_clock``); the ``end`` event takes its overtime off (C.35)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, Final

from .alphabet import Tile
from .board import Board
from .cgp import CGPError, Position
from .classic_challenge import judge_challenge
from .classic_clock import close_clock, follow_ending, pause_clock, press_clock, resume_clock, set_clock, start_clock
from .classic_ending import detect_ending, end_game, time_penalty
from .classic_events import ClassicEvents, Payload
from .classic_racks import TOTAL_TILES, check_supply, parse_rack, rack_text, rack_value
from .classic_state import (
    ACTION_LABELS,
    INVALID,
    VALID,
    Adjustment,
    GameState,
    ScoreRow,
    Turn,
    turn_row,
)
from .clock import new_clock, overtime_penalty
from .events import MALFORMED, Event, GameError
from .lexicon import FindLexicon, Lexicon, LexiconRef, lexicon_for
from .notation import NotationError, Play
from .scoring import RACK_SIZE
from .validation import PlayCheck, check_play

__all__ = [  # what callers import from here, most of it from the classic_* modules
    "ACTION_LABELS",
    "INVALID",
    "VALID",
    "Adjustment",
    "ClassicGame",
    "GameState",
    "ScoreRow",
    "Turn",
    "overtime_penalty",
    "parse_rack",
    "rack_text",
    "rack_value",
]

EXCHANGE_MIN_BAG: Final = RACK_SIZE  # FILE is silent; Spears's rule, which C.1 adopts
CLOCK_MODES: Final = ("corrido", "no_corrido", "temporizador")  # C.32.1, C.32.2, C.31.1


class ClassicGame(ClassicEvents):
    """A classic game between two players, rebuilt from its events (see the module docstring)."""

    def __init__(self, lexicon: Lexicon, find: FindLexicon | None = None) -> None:
        self.lexicon = lexicon  # the lexicon in force
        self._find = find
        self._state = GameState()
        self._events: list[Event] = []

    @classmethod
    def replay(cls, events: Iterable[Event], lexicon: Lexicon, find: FindLexicon | None = None) -> ClassicGame:
        """The game these events make; raises GameError at the first one the rules forbid."""
        game = cls(lexicon, find)
        for event in events:
            game.apply(event)
        return game

    def apply(self, event: Event) -> None:
        """Apply ``event`` if the rules allow it; else raise GameError, the state unchanged."""
        handler = self._HANDLERS.get(event.kind)
        if handler is None:
            raise GameError(f"evento desconocido en una partida clásica: {event.kind!r}")
        state = self._state.copy()
        payload = Payload(event.kind, event.data, event.at)
        if event.kind != "game_created" and not state.created:
            raise GameError("la partida no está creada: el primer evento es 'game_created'")
        try:
            handler(self, state, payload)
            follow_ending(state, payload)
        except MALFORMED as error:
            if isinstance(error, GameError):
                raise
            raise GameError(f"evento {event.kind} mal formado: {error!r}") from None
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
            rows.append(turn_row(turn, totals[turn.player]))
        for adjustment in self._state.adjustments:
            totals[adjustment.player] += adjustment.points
            rows.append(
                ScoreRow(
                    adjustment.player, adjustment.kind, adjustment.rack, adjustment.points,
                    totals[adjustment.player],
                )
            )
        return rows

    # -- handlers ----------------------------------------------------------------

    def _created(self, state: GameState, payload: Payload) -> None:
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
        state.timer = new_clock(state.clock, state.minutes, payload.integer("duration"))
        first = payload.integer("first") or 0
        if first not in (0, 1):
            raise GameError("'first' es 0 o 1: el jugador que sale (C.4)")
        state.first = state.to_move = first
        cgp = payload.text("cgp")
        if cgp is not None:
            _start_from(state, cgp)
        if payload.data.get("word_list") is not None:
            self.lexicon = lexicon_for(LexiconRef.from_json(payload.data["word_list"]), self.lexicon, self._find)
        state.created = True

    def _play(self, state: GameState, payload: Payload) -> None:
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
        self, state: GameState, player: int, payload: Payload
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
        check_supply([t for _, t in state.board.occupied()] + list(in_hand))
        return verdict, rack

    def _exchange(self, state: GameState, payload: Payload) -> None:
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

    def _pass(self, state: GameState, payload: Payload) -> None:
        player = _require_turn(state, payload)
        state.turns.append(Turn(len(state.turns) + 1, player, "pass"))
        _next_turn(state, player)

    def _challenge(self, state: GameState, payload: Payload) -> None:
        judge_challenge(state, payload)

    def _end(self, state: GameState, payload: Payload) -> None:
        end_game(state, payload, self.lexicon)
        close_clock(state, payload)

    def _time_penalty(self, state: GameState, payload: Payload) -> None:
        time_penalty(state, payload)

    def _lexicon_changed(self, state: GameState, payload: Payload) -> None:
        if state.finished:
            raise GameError("la partida ha terminado")
        if not (payload.text("reason") or "").strip():
            raise GameError("un cambio de léxico necesita un motivo")
        ref = LexiconRef.from_json(payload.data.get("word_list"))
        if ref.sha256 == self.lexicon.sha256:
            raise GameError(f"la partida ya se juega con el léxico {ref.name} ({ref.short})")
        self.lexicon = lexicon_for(ref, self.lexicon, self._find)

    _HANDLERS: Final[dict[str, Callable[[ClassicGame, GameState, Payload], None]]] = {
        "game_created": _created,
        "play": _play,
        "challenge": _challenge,
        "exchange": _exchange,
        "pass": _pass,
        "end": _end,
        "time_penalty": _time_penalty,
        "lexicon_changed": _lexicon_changed,
        "clock_start": lambda _game, state, payload: start_clock(state, payload),
        "clock_press": lambda _game, state, payload: press_clock(state, payload),
        "clock_pause": lambda _game, state, payload: pause_clock(state, payload),
        "clock_resume": lambda _game, state, payload: resume_clock(state, payload),
        "clock_set": lambda _game, state, payload: set_clock(state, payload),
    }


def _nicknames(payload: Payload) -> tuple[str, str] | None:
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
    check_supply(tiles + list(position.racks[0]) + list(position.racks[1]))
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


def _require_turn(state: GameState, payload: Payload) -> int:
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
    detect_ending(state)
