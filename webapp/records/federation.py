"""The tables the federation takes, with the headers it reads (Spanish words, one column per figure).

* ``game_standings_table``: a duplicate game's standings: place, player, club, licence, table, total,
  the total as a percentage of the masters' total, bonus, and each tie-break figure of D.III.28
  (masters matched, solo tops, largest deficit), the masters' total on the last line;
* ``tournament_table``: a tournament's ranking (``tournament_standings.Line``): the same figures summed
  over its games, the games played and the three criteria of D.IV.31;
* ``elodi_table``: the EloDI list as the federation receives ratings: player, licence, club, games,
  rating, volatility (imported back as the earlier list, ``elodi_list``).

Percentages and criteria are numbers rounded to two decimals (three for the deviation), never text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from rules_core.duplicate import DuplicateGame
from rules_core.elodi import Rating
from rules_core.results_csv import Table

from .players import PlayerRow
from .tournament_standings import Line

TIE_BREAKS: Final = ["Maestras igualadas", "Máximas en solitario", "Máximo diferencial"]  # D.III.28
GAME_HEADER: Final = ["Puesto", "Jugador", "Club", "Licencia", "Mesa", "Total", "% de la maestra", "Bonificación",
                      *TIE_BREAKS]  # fmt: skip
TOURNAMENT_HEADER: Final = ["Puesto", "Jugador", "Club", "Licencia", "Partidas", "Total", "Total de las maestras",
                            "% de las maestras", "Puesto medio", "Porcentaje medio", "Desviación", "Bonificación",
                            *TIE_BREAKS]  # fmt: skip
ELODI_HEADER: Final = ["Jugador", "Licencia", "Club", "Partidas", "Rating", "Volatilidad"]
MASTERS_LINE: Final = "Jugada maestra"


def _percent(points: int, masters: int) -> float:
    return round(100 * points / masters, 2) if masters else 0.0


def game_standings_table(game: DuplicateGame, players: Sequence[PlayerRow]) -> Table:
    """A duplicate game's standings for the federation (see the module docstring)."""
    listed = {p.id: p for p in players}
    masters = game.master_total
    rows: list[list[Any]] = []
    for s in game.standings():
        p = listed.get(s.player)
        rows.append([s.rank, s.name, p.club if p else "", p.federation_id if p else "", game.players[s.player].table,
                     s.total, _percent(s.total, masters), s.bonus, s.masters_matched, s.solo_tops, s.max_deficit])  # fmt: skip
    rows.append(["", MASTERS_LINE, "", "", "", masters, 100.0 if masters else 0.0, "", "", "", ""])
    return list(GAME_HEADER), rows


def tournament_table(lines: Sequence[Line]) -> Table:
    """A tournament's ranking for the federation (see the module docstring)."""
    rows: list[list[Any]] = [[line.rank, line.name, line.club, line.licence, line.games, line.total, line.masters,
                              round(line.percent, 2), round(line.place, 2), round(line.percentage, 2),
                              round(line.deviation, 3), line.bonus, line.matched, line.solos, line.deficit]
                             for line in lines]  # fmt: skip
    return list(TOURNAMENT_HEADER), rows


def elodi_table(players: Sequence[tuple[str, str, str, Rating]]) -> Table:
    """The EloDI list: (name, licence, club, rating) of each player, best first as given."""
    return list(ELODI_HEADER), [[name, licence, club, r.games, round(r.rating, 1), round(r.volatility, 1)]
                                for name, licence, club, r in players]  # fmt: skip

