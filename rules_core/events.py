"""Events: what happened in a game, by whom, when. Game state is rebuilt from them.

Every arbiter action, slip and camera play becomes one ``Event``; a game class
(``duplicate.DuplicateGame``, ``classic.ClassicGame``) checks an event against its
state with ``apply`` (raising ``GameError``, state unchanged, when the rules forbid
it) and replays a stored list to rebuild the state exactly. Payloads hold only JSON
values (str, int, bool, None, lists, dicts) so any store can keep them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Final


class GameError(ValueError):
    """An action the rules or the game's state forbid; the message says why, in Spanish."""


# What a handler raises on a payload of the wrong shape (a missing key, a list for a
# number...): ``apply`` turns it into a GameError, the state unchanged.
MALFORMED: Final = (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError)


@dataclass(frozen=True)
class Event:
    """One thing that happened: ``kind`` (e.g. ``"player_added"``), its ``data``, ``actor``, ``at``.

    ``actor`` is who did it (an arbiter's login, ``"scanner"``, ``"camera:mesa-1"``,
    ``"system"``); ``at`` is when, in UTC.
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    actor: str = "system"
    at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "data": dict(self.data), "actor": self.actor, "at": self.at.isoformat()}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Event:
        return cls(value["kind"], dict(value.get("data", {})), value.get("actor", "system"),
                   datetime.fromisoformat(value["at"]))
