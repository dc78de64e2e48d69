"""A GCG record as read: the players, the pragmata, and the events with their lines.

Each ``GCGEntry`` is one event of a classic game with the GCG move lines it comes
from, so that an error or a disagreement with the rules can name its line.
``GCGError`` is raised for a record that cannot be read, written or replayed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .events import Event

LETTER_DISTRIBUTION: Final = "spanish"  # Macondo's name for the Spanish tile set


class GCGError(ValueError):
    """A GCG record that cannot be read or replayed; the message names the line."""


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
