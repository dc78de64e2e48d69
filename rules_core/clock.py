"""A classic table's clock (C.31-C.35): the time controls and the time at any moment.

The time controls (``ClockSettings``):

* ``temporizador`` (C.31.1, C.33): 2 minutes a turn, with three progressive warnings
  before the end (``TIMER_WARNINGS`` seconds left: C.33 gives no times, these are ours).
  After the last one the player may not begin a play (C.33); no points are lost.
* ``corrido`` (C.32.1, C.34): a chess clock, 30 minutes a player unless ``minutes`` says
  otherwise; the player's time runs until they press, once their tiles are drawn.
* ``no_corrido`` (C.32.2, C.34.1): a chess clock, 25 minutes a player unless set; the
  press after placing the tiles stops both clocks while the play is counted and the tiles
  drawn (``counting``); the same player's next press starts the opponent's clock.

On a chess clock a player over their time plays on and loses 10 points per minute or
part of a minute over (C.35, ``overtime_penalty``). ``duration`` (optional, minutes) is
the game's total time (C.30): it runs from the clock's start and no pause stops it
(C.42.6). ``GameClock`` is immutable: each change returns a new clock, so a game's state
is rebuilt from its events (``classic_clock`` applies them). Times are ``timedelta``s,
exact to the microsecond, so a player on exactly their limit is never over it.
"""


from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Final

from .events import GameError

TIMER: Final = "temporizador"
CHESS_MINUTES: Final = {"corrido": 30, "no_corrido": 25}  # C.34: "típicamente"
TIMER_MINUTES: Final = 2  # C.31.1: two minutes a turn
TIMER_WARNINGS: Final = (30, 15, 5)  # seconds left at each of the three signals (C.33)
OVERTIME_POINTS_PER_MINUTE: Final = 10  # C.35
ZERO: Final = timedelta(0)


def overtime_penalty(seconds_over: float) -> int:
    """Points lost for going over the clock: 10 per minute or fraction of a minute (C.35)."""
    if seconds_over <= 0:
        return 0
    return OVERTIME_POINTS_PER_MINUTE * math.ceil(seconds_over / 60)


@dataclass(frozen=True)
class ClockSettings:
    """The time control: ``mode`` (``temporizador``, ``corrido``, ``no_corrido``), ``minutes``
    a player (chess clock) or a turn (temporizador), ``duration`` of the game (C.30, minutes)."""

    mode: str
    minutes: int
    duration: int | None = None

    @property
    def chess(self) -> bool:
        """A chess clock (C.31.2, C.34): each player's time for the whole game, overtime penalised."""
        return self.mode != TIMER

    @property
    def limit(self) -> timedelta:
        return timedelta(minutes=self.minutes)


@dataclass(frozen=True)
class GameClock:
    """The clock as the events left it; ask it the time at any ``now`` (see the module docstring).

    ``side`` is the player whose clock is engaged (it runs unless ``halted``), ``counting``
    the player counting a play in no corrido (nothing runs), ``since`` when the current
    stretch began; ``used`` each player's time before it, ``turn_used`` the current turn's
    (temporizador); ``halted`` is ``"pause"`` (the arbiter) or ``"end"`` (the game is over).
    ``turns`` counts the turns each player ended with a press.
    """

    settings: ClockSettings
    started: datetime | None = None
    side: int | None = None
    counting: int | None = None
    since: datetime | None = None
    used: tuple[timedelta, timedelta] = (ZERO, ZERO)
    turn_used: timedelta = ZERO
    halted: str | None = None
    halted_at: datetime | None = None
    paused_at_end: bool = False  # the game ended while the arbiter had it paused
    turns: tuple[int, int] = (0, 0)

    # -- the time at ``now`` -------------------------------------------------------------

    @property
    def in_play(self) -> bool:
        """Started and the game not over: each turn ends with a press."""
        return self.started is not None and self.halted != "end"

    @property
    def running(self) -> int | None:
        """The player whose time runs now, if any."""
        return self.side if self.halted is None and self.since is not None else None

    def _stretch(self, now: datetime) -> timedelta:
        if self.running is None or self.since is None:
            return ZERO
        return max(ZERO, now - self.since)

    def used_at(self, player: int, now: datetime) -> timedelta:
        """The time ``player`` has used in the game."""
        return self.used[player] + (self._stretch(now) if self.running == player else ZERO)

    def turn_used_at(self, now: datetime) -> timedelta:
        """The time used in the current turn (the temporizador's)."""
        return self.turn_used + self._stretch(now)

    def remaining(self, player: int, now: datetime) -> timedelta:
        """Time left: of the game (chess clock; negative once over) or of the turn (temporizador:
        the player on turn's, never under zero; the other's is the whole turn)."""
        if self.settings.chess:
            return self.settings.limit - self.used_at(player, now)
        if player != self.side:
            return self.settings.limit
        return max(ZERO, self.settings.limit - self.turn_used_at(now))

    def overtime(self, player: int, now: datetime) -> timedelta:
        """Time over the player's total on a chess clock (C.35); zero on a temporizador."""
        if not self.settings.chess:
            return ZERO
        return max(ZERO, self.used_at(player, now) - self.settings.limit)

    def penalty(self, player: int, now: datetime) -> int:
        """The points the overtime costs so far: 10 per minute or part of a minute (C.35)."""
        return overtime_penalty(self.overtime(player, now).total_seconds())

    def warning(self, now: datetime) -> int:
        """The temporizador's signals given in this turn: 0 to 3 (C.33); 4 when the turn is over."""
        if self.settings.chess or self.side is None:
            return 0
        left = self.remaining(self.side, now).total_seconds()
        if left <= 0:
            return 4
        return sum(1 for signal in TIMER_WARNINGS if left <= signal)

    def game_left(self, now: datetime) -> timedelta | None:
        """The game's total time left (C.30, C.42.6: never paused; frozen at the game's end)."""
        if self.settings.duration is None or self.started is None:
            return None
        until = self.halted_at if self.halted == "end" and self.halted_at is not None else now
        return timedelta(minutes=self.settings.duration) - max(ZERO, until - self.started)

    def state(self) -> str:
        """``ready`` (not started), ``running``, ``counting`` (C.34.1), ``paused`` or ``ended``."""
        if self.halted == "end":
            return "ended"
        if self.started is None:
            return "ready"
        if self.halted == "pause":
            return "paused"
        return "counting" if self.counting is not None else "running"

    def to_json(self, now: datetime) -> dict[str, Any]:
        """The clock at ``now`` for the screens and the table's page (seconds, to the millisecond)."""
        left = self.game_left(now)
        return {
            "kind": "classic",
            "state": self.state(),
            "mode": self.settings.mode,
            "limit": self.settings.minutes * 60,
            "running": self.running,
            "side": self.side,
            "counting": self.counting,
            "players": [self._player_json(p, now) for p in (0, 1)],
            "turn_used": _seconds(self.turn_used_at(now)) if not self.settings.chess else None,
            "warning": self.warning(now),
            "warnings": list(TIMER_WARNINGS) if not self.settings.chess else [],
            "duration": self.settings.duration * 60 if self.settings.duration else None,
            "game_left": _seconds(left) if left is not None else None,
            "turns": list(self.turns),
        }

    def _player_json(self, player: int, now: datetime) -> dict[str, Any]:
        return {"used": _seconds(self.used_at(player, now)), "remaining": _seconds(self.remaining(player, now)),
                "over": _seconds(self.overtime(player, now)), "penalty": self.penalty(player, now)}  # fmt: skip

    # -- changes ---------------------------------------------------------------------------

    def start(self, player: int, at: datetime) -> GameClock:
        return replace(self, started=at, side=player, since=at)

    def press(self, player: int, at: datetime) -> GameClock:
        """``player`` presses: their turn ends, or (counting) the opponent's clock starts."""
        at = max(at, self.since or at)
        if self.counting == player:
            return replace(self, counting=None, side=1 - player, since=at, turn_used=ZERO)
        used = list(self.used)
        used[player] += self._stretch(at)
        turns = list(self.turns)
        turns[player] += 1
        after = replace(self, used=(used[0], used[1]), turns=(turns[0], turns[1]), turn_used=ZERO, since=at)
        if self.settings.mode == "no_corrido":  # C.34.1: both stopped while the play is counted
            return replace(after, side=None, counting=player)
        return replace(after, side=1 - player)

    def set_remaining(self, player: int, remaining: timedelta, at: datetime) -> GameClock:
        """The arbiter sets ``player``'s time left at ``at`` (C.36): of the game on a chess clock,
        of the turn on a temporizador; what ran until ``at`` is kept, and runs on from there."""
        clock = self
        if self.running is not None and self.since is not None:
            at = max(at, self.since)
            stretch = self._stretch(at)
            used = list(self.used)
            used[self.running] += stretch
            clock = replace(self, used=(used[0], used[1]), turn_used=self.turn_used + stretch, since=at)
        if not self.settings.chess:
            return replace(clock, turn_used=self.settings.limit - remaining)
        used = list(clock.used)
        used[player] = self.settings.limit - remaining
        return replace(clock, used=(used[0], used[1]))

    def halt(self, at: datetime, why: str, discard: bool = False) -> GameClock:
        """Stop both clocks at ``at`` (``why``: pause or end); ``discard`` drops the running stretch."""
        stretch = ZERO if discard else self._stretch(at)
        used = list(self.used)
        if self.running is not None:
            used[self.running] += stretch
        paused = why == "end" and self.halted == "pause"
        return replace(self, used=(used[0], used[1]), turn_used=self.turn_used + stretch, since=None,
                       halted=why, halted_at=at, paused_at_end=paused)  # fmt: skip

    def go_on(self, at: datetime) -> GameClock:
        """Start again what was running (or counting) before the halt; a game that ended while
        paused goes back to the pause."""
        if self.paused_at_end:
            return replace(self, halted="pause", halted_at=at, paused_at_end=False)
        return replace(self, halted=None, halted_at=None, since=at)


def _seconds(span: timedelta) -> float:
    return round(span.total_seconds(), 3)


def new_clock(mode: str | None, minutes: int | None, duration: int | None) -> GameClock | None:
    """The clock of a game created with these settings (None: no clock); GameError if wrong."""
    if duration is not None and duration <= 0:
        raise GameError("la duración de la partida es un número positivo de minutos (C.30)")
    if mode is None:
        if duration is not None:
            raise GameError("una duración de partida (C.30) necesita un modo de reloj (C.31-C.34)")
        return None
    if mode == TIMER:
        if minutes not in (None, TIMER_MINUTES):
            raise GameError(f"el temporizador da {TIMER_MINUTES} minutos por turno (C.31.1), no {minutes}")
        return GameClock(ClockSettings(mode, TIMER_MINUTES, duration))
    return GameClock(ClockSettings(mode, minutes or CHESS_MINUTES[mode], duration))
