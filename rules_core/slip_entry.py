"""Entering a duplicate slip: a new one, or the replacement of the one stored (D.III.25).

Every path that stores a slip (the arbiter's console, the scanned-slips panel, the
command line) builds its event here, so one judgement decides: a player's first slip
of a round is a ``slip`` event; any other replaces what is stored (a correction, a
void, a scanned slip read for a player who already has one) and is a
``slip_corrected`` event that needs the arbiter's reason. Without the reason,
``ReplacementNeedsReason`` carries what is stored (``StoredSlip``: the play, its
score, who entered it and when) for the arbiter to see before deciding. A decision
names the stored slip it replaces (``replaces``: its time of entry), so that a slip
stored meanwhile by another console or the scanner is never replaced unseen
(``StoredSlipChanged``, carrying the new one).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .duplicate import NO_SLIP, DuplicateGame
from .events import Event, GameError
from .slips import Slip


@dataclass(frozen=True)
class StoredSlip:
    """A player's slip of a round as the game holds it now, and who entered it when."""

    round: int
    player: str
    table: int
    name: str
    slip: Slip
    play: str | None  # the play read (canonical), None without one
    score: int
    reason: str  # why it scores 0 ("" when valid)
    actor: str  # who entered it (an arbiter's login, "escáner", a device)
    at: datetime  # when (UTC)
    corrected: bool  # it replaced an earlier slip

    def describe(self) -> str:
        """In Spanish, for a message: ``H4 YERBA, 28 puntos, de escáner``."""
        return f"{self.play or self.slip.notation or 'sin jugada'}, {self.score} puntos, de {self.actor}"


class ReplacementNeedsReason(GameError):
    """A slip would replace the stored one without a reason; ``stored`` is what is stored."""

    def __init__(self, stored: StoredSlip) -> None:
        super().__init__(f"{stored.name} (mesa {stored.table}) ya tiene papeleta en la ronda {stored.round}: "
                         f"{stored.describe()}; sustituirla necesita un motivo")  # fmt: skip
        self.stored = stored


class StoredSlipChanged(ReplacementNeedsReason):
    """The arbiter decided to replace a stored slip, and another has been stored since; ``stored`` is it."""


def stored_slip(game: DuplicateGame, number: int, player: str) -> StoredSlip | None:
    """What ``player`` has stored for round ``number`` of ``game``, or None (no slip yet)."""
    r = game.round(number)
    if player not in r.slips:
        return None
    entries = [e for e in r.history if e.data.get("player") == player]
    last = entries[-1]
    who = game.players[player]
    result = r.results.get(player, NO_SLIP)
    return StoredSlip(r.number, player, who.table, who.name, r.slips[player], result.play, result.score,
                      result.reason, last.actor, last.at, len(entries) > 1)  # fmt: skip


def slip_event(game: DuplicateGame, number: int, player: str, slip: Slip, actor: str, reason: str | None = None,
               replaces: datetime | None = None, **data: Any) -> Event:  # fmt: skip
    """The event that stores ``slip`` for ``player`` in round ``number``: ``slip`` when none is stored,
    ``slip_corrected`` with ``reason`` when one is (ReplacementNeedsReason without it). ``replaces``, when
    given, is the time of entry of the stored slip the arbiter decided to replace: another stored since
    raises StoredSlipChanged. ``data`` goes into the event as it is (``scan``: the page's address;
    ``review``: the panel's decision). The rules check the rest when the event is applied (a new slip
    for a closed round needs a reason too)."""
    if player not in game.players:
        raise GameError(f"jugador desconocido: {player!r}")
    stored = stored_slip(game, number, player)
    reason = (reason or "").strip()
    if stored is not None and not reason:
        raise ReplacementNeedsReason(stored)
    if stored is not None and replaces is not None and stored.at != replaces:
        raise StoredSlipChanged(stored)
    payload: dict[str, Any] = {"round": number, "player": player, "slip": slip.to_json(), **data}
    if reason:
        payload["reason"] = reason
    return Event("slip_corrected" if stored is not None else "slip", payload, actor)
