"""Events of a classic game: the ``*_event`` builders and typed reads of their payloads.

``ClassicEvents`` holds the builders that ``ClassicGame`` inherits; a key whose
value is None is left out of the payload. ``Payload`` reads an event's data for
the game's handlers: a missing or mistyped value is a GameError. The event kinds
and their keys are listed in ``rules_core.classic``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .alphabet import Tile
from .classic_racks import parse_rack, rack_text
from .events import Event, GameError


class Payload:
    """Typed reads of an event's data; a wrong or missing value is a GameError. ``at`` is the event's time."""

    def __init__(self, kind: str, data: Mapping[str, Any], at: datetime | None = None) -> None:
        self.kind = kind
        self.data = data
        self.at = at

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


class ClassicEvents:
    """The builders of a classic game's events, one per kind (``ClassicGame`` inherits them)."""

    @staticmethod
    def create_event(
        players: Sequence[str],
        *,
        nicknames: Sequence[str] | None = None,
        lexicon: str | None = None,
        title: str | None = None,
        clock: str | None = None,
        minutes: int | None = None,
        duration: int | None = None,
        first: int = 0,
        cgp: str | None = None,
        actor: str = "system",
        at: datetime | None = None,
    ) -> Event:
        """``game_created``: the players (``first`` moves first), clock, lexicon, start position;
        ``duration``: the game's total minutes (C.30)."""
        data = {
            "players": list(players),
            "nicknames": list(nicknames) if nicknames is not None else None,
            "lexicon": lexicon,
            "title": title,
            "clock": clock,
            "minutes": minutes,
            "duration": duration,
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

    @staticmethod
    def clock_event(
        action: str,
        player: int | None = None,
        *,
        delay_ms: int | None = None,
        actor: str = "system",
        at: datetime | None = None,
    ) -> Event:
        """``clock_<action>`` (start, press, pause, resume): see ``rules_core.classic_clock``."""
        return _event(f"clock_{action}", {"player": player, "delay_ms": delay_ms or None}, actor, at)

    @staticmethod
    def clock_set_event(
        player: int, remaining_ms: int, reason: str, *, actor: str = "system", at: datetime | None = None
    ) -> Event:
        """``clock_set``: the arbiter sets ``player``'s time left, with the reason (C.36)."""
        return _event("clock_set", {"player": player, "remaining_ms": remaining_ms, "reason": reason}, actor, at)
