"""The clock's events in a classic game (C.30-C.35, C.45.5): ``ClassicGame`` calls these.

The clock itself (time controls, the time at any moment) is ``rules_core.clock``; here
its events change ``GameState.timer``, each at its ``at`` (the server's time):

``clock_start``   optional player (default: the player to move), whose time starts
``clock_press``   player: ends their turn (their clock runs) or, in no corrido, starts
                  the opponent's clock (they were counting, C.34.1); optional
                  ``delay_ms``, how long before the server heard it the press was made
                  (a tablet's retry), kept at most ``MAX_PRESS_DELAY`` back
``clock_pause``   the arbiter stops both clocks (C.34.2-C.34.5) ...
``clock_resume``  ... and starts the one that ran again
``clock_set``     player, remaining_ms, reason: the arbiter sets a player's time left
                  (C.36: a late player's clock is set to the game's time less the time
                  gone); a chess clock's may be under zero (already over, C.35)

The game's end stops the clock (``follow_ending``): the turn that reaches C.45.2-C.45.4
(the opponent's time since that turn's press is not counted: the game was over), or the
``end`` event (``close_clock``), which takes each player's overtime off the final score
(C.35). A challenge that withdraws the ending play (C.39) starts the clock again. With a
``duration`` (C.30) the game may end on time once both players have had as many turns
(``time_is_up``, C.45.5).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from .classic_events import Payload
from .classic_state import Adjustment, GameState
from .clock import ZERO, GameClock
from .events import GameError

MAX_PRESS_DELAY: Final = timedelta(seconds=10)  # a press heard later is kept this far back at most
TURN_KINDS: Final = frozenset({"play", "pass", "exchange"})

def _clock(state: GameState, started: bool = True) -> GameClock:
    timer = state.timer
    if timer is None:
        raise GameError("la partida no tiene reloj: su control de tiempo se elige al crearla (C.31-C.34)")
    if state.finished or timer.halted == "end":
        raise GameError("la partida ha terminado: el reloj está parado")
    if started and timer.started is None:
        raise GameError("el reloj no está en marcha")
    return timer


def _at(payload: Payload) -> datetime:
    if payload.at is None:
        raise GameError(f"el evento {payload.kind!r} necesita su hora")
    return payload.at


def start_clock(state: GameState, payload: Payload) -> None:
    """``clock_start``: the time of ``player`` (default: the player to move) starts."""
    timer = _clock(state, started=False)
    if timer.started is not None:
        raise GameError("el reloj ya está en marcha")
    player = state.to_move if payload.integer("player") is None else payload.player()
    state.timer = timer.start(player, _at(payload))


def press_clock(state: GameState, payload: Payload) -> None:
    """``clock_press``: see ``GameClock.press``; a press the tablet retried keeps its own time."""
    timer = _clock(state)
    if timer.halted == "pause":
        raise GameError("el reloj está en pausa: lo pone en marcha el árbitro (C.34)")
    player = payload.player()
    if player != (timer.counting if timer.counting is not None else timer.side):
        raise GameError(f"el reloj de {state.players[player]} no está en marcha")
    delay = payload.integer("delay_ms") or 0
    if delay < 0:
        raise GameError("'delay_ms' es un número de milisegundos, 0 o más")
    state.timer = timer.press(player, _at(payload) - min(timedelta(milliseconds=delay), MAX_PRESS_DELAY))


def pause_clock(state: GameState, payload: Payload) -> None:
    """``clock_pause``: both clocks stop (C.34.2-C.34.5)."""
    timer = _clock(state)
    if timer.halted == "pause":
        raise GameError("el reloj ya está en pausa")
    state.timer = timer.halt(_at(payload), "pause")


def resume_clock(state: GameState, payload: Payload) -> None:
    """``clock_resume``: the clock that ran before the pause runs again."""
    timer = _clock(state)
    if timer.halted != "pause":
        raise GameError("el reloj no está en pausa")
    state.timer = timer.go_on(_at(payload))


def set_clock(state: GameState, payload: Payload) -> None:
    """``clock_set``: the arbiter puts ``player``'s clock at ``remaining_ms`` (C.36), with a reason."""
    timer = _clock(state, started=False)
    player = payload.player()
    if not (payload.text("reason") or "").strip():
        raise GameError("una corrección del reloj necesita un motivo")
    remaining_ms = payload.integer("remaining_ms")
    if remaining_ms is None:
        raise GameError("el evento 'clock_set' necesita 'remaining_ms' (número entero)")
    remaining, limit = timedelta(milliseconds=remaining_ms), timer.settings.limit
    if remaining > limit:
        minutes = timer.settings.minutes
        raise GameError(f"el reloj se pone como mucho en el tiempo de la partida, {minutes} minutos (C.36)")
    if timer.settings.chess and remaining < -limit:
        raise GameError(f"un reloj no puede pasar de {timer.settings.minutes} minutos de exceso")
    if not timer.settings.chess:
        if remaining < ZERO:
            raise GameError("el temporizador no baja de cero (C.33)")
        if timer.side != player:
            raise GameError(f"el temporizador cuenta solo el turno en curso, no el de {state.players[player]} (C.31.1)")
    state.timer = timer.set_remaining(player, remaining, _at(payload))


def follow_ending(state: GameState, payload: Payload) -> None:
    """After any event: a turn that reached C.45.2-C.45.4 stops the clock; a challenge that
    withdrew that turn's play (C.39) starts it again."""
    timer = state.timer
    if timer is None or timer.started is None or state.finished or payload.at is None:
        return
    if state.ending and timer.halted != "end":
        last = state.turns[-1].player if payload.kind in TURN_KINDS else None
        pressed = last is not None and timer.running == 1 - last  # the game was over at the press
        state.timer = timer.halt(payload.at, "end", discard=pressed)
    elif not state.ending and timer.halted == "end":
        state.timer = timer.go_on(payload.at)


def close_clock(state: GameState, payload: Payload) -> None:
    """The ``end`` event: the clock stops and each player's overtime is taken off (C.35).

    Ended on time (C.45.5) with a ``duration``, the clock stops when the game's time ran
    out, or at the press of the turn that evened the turns after it (C.30)."""
    timer = state.timer
    if timer is None or timer.started is None:
        return
    if timer.halted != "end":
        at = _at(payload)
        deadline = timer.started + timedelta(minutes=timer.settings.duration or 0)
        if state.ending == "45.5" and timer.settings.duration:
            at = min(at, max(deadline, timer.since or deadline))
        timer = timer.halt(at, "end")
    state.timer = timer
    for player in (0, 1):
        points = timer.penalty(player, timer.halted_at or _at(payload))
        if points:
            state.adjustments.append(Adjustment(player, "time", -points))
            state.scores[player] -= points


def time_is_up(state: GameState, now: datetime) -> bool:
    """The game's total time (C.30) is over and it may end on time now: the clock runs, no
    other ending is reached and both players have had as many turns (C.45.5)."""
    timer = state.timer
    if timer is None or state.finished or state.ending or timer.halted == "end":
        return False
    left = timer.game_left(now)
    if left is None or left > ZERO:
        return False
    return sum(1 for t in state.turns if t.player == 0) == sum(1 for t in state.turns if t.player == 1)


def press_ended_turn(state: GameState) -> bool:
    """After a ``clock_press``: whether it ended a turn (a no corrido clock's second press,
    which starts the opponent's time, ends none: C.34.1)."""
    timer = state.timer
    return timer is not None and (timer.settings.mode != "no_corrido" or timer.counting is not None)
