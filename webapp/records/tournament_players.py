"""A tournament's players: their ids from the pasted list, their seats in each game made from the
tournament, and which of them each player of a game is.

* ``listed``: the players of a pasted list (``rules_core.player_list``: table, name, club, licence,
  photo) with their ids: the licence when it is given (spaces taken out; a licence with other
  characters than letters, digits, ``.``, ``_`` and ``-`` gets a made-up id), else ``p`` and eight
  hexadecimal digits. A licence listed twice, and namesakes of whom one has no licence, are refused:
  two players of the same name are told apart by their licences, on every sheet.
* ``seating``: where each plays a game: at the list's tables (``mesas``), or by the standing the
  director chose (``clasificacion``: the leader at table 1; players not ranked yet after, in list order).
* ``player_events``: a duplicate game's ``player_added`` events, each with the player's ``club``,
  ``federation_id`` (the licence), ``photo`` and ``tournament_player`` (the id);
  ``classic_pairs``: the classic top tables, 1 against 2, 3 against 4...
* ``game_keys``: each player of a game as the tournament knows them: its ``tournament_player``, else the
  player of the list with that licence, else the only one with that name (spaces and case aside), else a
  guest known by name (``?<name>``), never two players of one game as one.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from rules_core.events import Event
from rules_core.player_list import ListedPlayer, PlayerListError

from .tournaments import Tournament, TournamentPlayer, person

SEATINGS: Final = {"mesas": "en las mesas de la lista", "clasificacion": "por la clasificación del torneo"}
GUEST: Final = "?"  # a game's player the list does not hold: ``?`` and the name (``person``)
_LICENCE_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,59}")


def listed(players: Sequence[ListedPlayer], already: Sequence[TournamentPlayer] = ()) -> list[TournamentPlayer]:
    """The tournament's players of a parsed list (see the module docstring), added to ``already``;
    PlayerListError with every problem."""
    taken = {p.id for p in already}
    found: list[TournamentPlayer] = []
    for p in players:
        player_id = _licence_id(p.federation_id)
        if player_id is None or player_id in taken:
            player_id = _made_up(taken)
        taken.add(player_id)
        found.append(TournamentPlayer(player_id, p.name, p.table, p.club, p.federation_id, p.photo))
    problems = _repeated_licences([*already, *found]) + _namesakes([*already, *found])
    tables: dict[int, str] = {}
    for seated in [*already, *found]:
        if seated.table in tables:
            problems.append(f"la mesa {seated.table} está repetida: {tables[seated.table]} y {seated.name}")
        tables.setdefault(seated.table, seated.name)
    if problems:
        raise PlayerListError(problems)
    return found


def _licence_id(licence: str) -> str | None:
    compact = "".join(licence.split())
    return compact if _LICENCE_ID.fullmatch(compact) else None


def _made_up(taken: set[str]) -> str:
    while True:
        made = "p" + secrets.token_hex(4)
        if made not in taken:
            return made


def _repeated_licences(players: Sequence[TournamentPlayer]) -> list[str]:
    seen: dict[str, str] = {}
    problems = []
    for p in players:
        if not p.licence:
            continue
        key = "".join(p.licence.split()).casefold()
        if key in seen:
            problems.append(f"la licencia {p.licence} está repetida: {seen[key]} y {p.name}")
        seen.setdefault(key, p.name)
    return problems


def _namesakes(players: Sequence[TournamentPlayer]) -> list[str]:
    by_name: dict[str, list[TournamentPlayer]] = {}
    for p in players:
        by_name.setdefault(person(p.name), []).append(p)
    return [f"hay {len(same)} jugadores llamados {same[0].name}: escriba la licencia de cada uno para distinguirlos"
            for same in by_name.values() if len(same) > 1 and not all(p.licence for p in same)]  # fmt: skip


@dataclass(frozen=True)
class Seat:
    table: int
    player: TournamentPlayer


def seating(tournament: Tournament, how: str, standing: Sequence[str] = ()) -> list[Seat]:
    """Every player of the list at a table (see the module docstring); ``standing``: ids, the leader first."""
    if how == "mesas":
        return sorted((Seat(p.table, p) for p in tournament.players), key=lambda s: s.table)
    if how != "clasificacion":
        raise ValueError(f"reparto de mesas desconocido: {how!r}")
    return [Seat(number, p) for number, p in enumerate(by_standing(tournament, standing), start=1)]


def by_standing(tournament: Tournament, standing: Sequence[str]) -> list[TournamentPlayer]:
    """The list's players in the order of ``standing`` (ids), those not in it after, in list order."""
    order = {player_id: index for index, player_id in enumerate(standing)}
    listed_at = {p.id: index for index, p in enumerate(tournament.players)}
    return sorted(tournament.players, key=lambda p: (order.get(p.id, len(order)), listed_at[p.id]))


def player_data(seat: Seat) -> dict[str, Any]:
    """The data of the ``player_added`` event that seats a player of the list in a duplicate game."""
    p = seat.player
    data: dict[str, Any] = {"player": f"j{seat.table}", "name": p.name, "table": seat.table, "tournament_player": p.id}
    data.update({k: v for k, v in (("club", p.club), ("federation_id", p.licence), ("photo", p.photo)) if v})
    return data


def player_events(seats: Iterable[Seat], actor: str) -> list[Event]:
    """The ``player_added`` events of a duplicate game made from the tournament."""
    return [Event("player_added", player_data(seat), actor) for seat in seats]


def classic_pairs(players: Sequence[TournamentPlayer], tables: int) -> list[tuple[TournamentPlayer, TournamentPlayer]]:
    """The first ``tables`` classic tables of ``players`` in order: 1 against 2, 3 against 4..."""
    return [(players[2 * i], players[2 * i + 1]) for i in range(min(tables, len(players) // 2))]


def classic_names(pair: tuple[TournamentPlayer, TournamentPlayer]) -> list[str]:
    """The names a classic game of ``pair`` is created with: namesakes with their licence beside (C.4 needs two)."""
    first, second = pair
    if person(first.name) != person(second.name):
        return [first.name, second.name]
    return [f"{first.name} ({first.licence})", f"{second.name} ({second.licence})"]


def game_keys(tournament: Tournament, events: Sequence[Event]) -> dict[str, str]:
    """Each player of a game (a duplicate game's player id, a classic game's "0" and "1") -> its key in the
    tournament (a list player's id, or a guest's ``?<name>``); see the module docstring."""
    wanted = _game_players(events)
    ids = {p.id for p in tournament.players}
    by_licence = {"".join(p.licence.split()).casefold(): p.id for p in tournament.players if p.licence}
    by_name: dict[str, list[str]] = {}
    for p in tournament.players:
        by_name.setdefault(person(p.name), []).append(p.id)
    keys: dict[str, str] = {}
    for player, (name, licence, listed_id) in wanted.items():
        named = by_name.get(person(name), [])
        key = (listed_id if listed_id in ids else None) or by_licence.get("".join(licence.split()).casefold()) or \
            (named[0] if len(named) == 1 and not licence else None) or GUEST + person(name)  # fmt: skip
        keys[player] = key if key not in keys.values() else f"{GUEST}{person(name)}#{player}"
    return keys


def _game_players(events: Sequence[Event]) -> dict[str, tuple[str, str, str]]:
    """A game's players: id -> (name, licence, tournament id), from its events."""
    found: dict[str, tuple[str, str, str]] = {}
    for event in events:
        if event.kind == "player_added":
            data = event.data
            found[str(data["player"])] = (str(data["name"]), str(data.get("federation_id") or ""),
                                          str(data.get("tournament_player") or ""))  # fmt: skip
        elif event.kind == "game_created" and "players" in event.data:  # a classic game
            listed_ids = list(event.data.get("tournament_players") or ["", ""])
            for index, name in enumerate(event.data["players"][:2]):
                found[str(index)] = (str(name), "", str(listed_ids[index]) if index < len(listed_ids) else "")
    return found
