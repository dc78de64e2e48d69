"""A duplicate game's players as the arbiters take them away: the list with the code each player's slips carry,
and the slips to print for them.

* ``players_of``: the players from the game's stored events (``player_added``, each checked by the rules when it
  was stored), by table; the same for the live game and for the command line reading the database.
* ``players_table``: the list as a table for CSV (``exports.to_csv``): ``mesa``, ``nombre``, ``club``,
  ``licencia`` and ``id_jugador``, the id the slips' QR codes carry (``vision.slips.layout.qr_payload``). Pasted
  back as a game's player list it reads as one (the id is not a column that list knows), and
  ``veedor print-slips --players`` and ``read-slip --players`` read it as it is.
* ``game_slips_pdf``: the printed slips of the players, a pad each (``vision.slips.printing``, D.II.8).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from rules_core.events import Event
from rules_core.results_csv import Table
from vision.slips.printing import pads, slips_pdf

PLAYERS_HEADER: Final = ["mesa", "nombre", "club", "licencia", "id_jugador"]


@dataclass(frozen=True)
class PlayerRow:
    """A player of a duplicate game as its list shows them: ``id`` is what the slips' QR codes carry."""

    id: str
    name: str
    table: int
    club: str = ""
    federation_id: str = ""


def players_of(events: Iterable[Event]) -> list[PlayerRow]:
    """The players added to a duplicate game by its stored ``events``, by table."""
    found = [PlayerRow(str(e.data["player"]), str(e.data["name"]).strip(), int(e.data["table"]),
                          str(e.data.get("club") or ""), str(e.data.get("federation_id") or ""))
             for e in events if e.kind == "player_added"]  # fmt: skip
    return sorted(found, key=lambda p: p.table)


def players_table(players: Sequence[PlayerRow]) -> Table:
    """The list with each player's id (see the module docstring)."""
    return PLAYERS_HEADER, [[p.table, p.name, p.club, p.federation_id, p.id] for p in players]


def game_slips_pdf(game_id: str, game_name: str, players: Sequence[PlayerRow], per_player: int,
                   absolute: bool = False) -> bytes:  # fmt: skip
    """The PDF of ``per_player`` slips for each player (``absolute``: with the board of D.III.20.1.c); ValueError
    naming the problem when there is nothing to print."""
    return slips_pdf(pads(game_id, game_name, [(p.id, p.name, p.table) for p in players], per_player), absolute)
