"""Rankings of a duplicate tournament over several games (D.IV.31).

Input: for each game, the players' places and, round by round, each player's
points next to the master's. Three criteria, the director picks one:

1. ``average_place``: mean of the places, ascending; a player absent from a game
   takes that game's last place (its number of players);
2. ``average_percentage``: (p1/M1 + ... + pn/Mn) / n over every round of the
   tournament, descending (an absent player scores 0 in those rounds; a round with
   M = 0 is left out);
3. ``deviation``: sqrt((M1-p1)^2 + ... + (Mn-pn)^2) / n, ascending, n the number of
   rounds of the whole tournament.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class GameResult:
    """One game: each player's place, and per round the master's and each player's points."""

    places: Mapping[str, int]
    master_points: Sequence[int]
    points: Mapping[str, Sequence[int]]  # player -> points per round (absent: not in the game)


@dataclass(frozen=True)
class Ranking:
    player: str
    value: float
    rank: int


def _players(games: Sequence[GameResult]) -> list[str]:
    return sorted({p for g in games for p in g.places})


def _rank(values: dict[str, float], descending: bool) -> list[Ranking]:
    ordered = sorted(values.items(), key=lambda kv: (-kv[1] if descending else kv[1], kv[0]))
    rankings: list[Ranking] = []
    for i, (player, value) in enumerate(ordered):
        tied = rankings and math.isclose(rankings[-1].value, value)
        rankings.append(Ranking(player, value, rankings[-1].rank if tied else i + 1))
    return rankings


def average_place(games: Sequence[GameResult]) -> list[Ranking]:
    """Criterion one: mean place, absent players taking the last place of that game."""
    values = {
        p: sum(g.places.get(p, len(g.places)) for g in games) / len(games) for p in _players(games)
    }
    return _rank(values, descending=False)


def _rounds(games: Sequence[GameResult], player: str) -> list[tuple[int, int]]:
    """(master, player) points for every round of the tournament."""
    pairs: list[tuple[int, int]] = []
    for g in games:
        points = g.points.get(player, [0] * len(g.master_points))
        pairs.extend(zip(g.master_points, points))
    return pairs


def average_percentage(games: Sequence[GameResult]) -> list[Ranking]:
    """Criterion two: mean of p/M over the tournament's rounds, as a percentage."""
    values = {}
    for player in _players(games):
        ratios = [p / m for m, p in _rounds(games, player) if m > 0]
        values[player] = 100 * sum(ratios) / len(ratios) if ratios else 0.0
    return _rank(values, descending=True)


def deviation(games: Sequence[GameResult]) -> list[Ranking]:
    """Criterion three: sqrt(sum((M - p)^2)) / n, n the tournament's number of rounds."""
    values = {}
    for player in _players(games):
        rounds = _rounds(games, player)
        values[player] = math.sqrt(sum((m - p) ** 2 for m, p in rounds)) / len(rounds)
    return _rank(values, descending=False)
