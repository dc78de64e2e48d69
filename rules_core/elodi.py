"""EloDI, the duplicate rating of the FILE regulations (part V), as ``shared/rules/ELODI.md`` states it.

Every player starts at ``START_RATING`` with ``START_VOLATILITY`` and no games. Each
duplicate game of at least ``MIN_ROUNDS`` rounds is applied in the order played, in
two passes: the rated players (games >= 1) among themselves, then the new players
against everyone (rated players at their ratings before the game). Both use the
TopCoder algorithm update (``_update``). Ratings are floats; round them only to show.

Ranks: tied players share a rank number in the input (1, 2, 2, 4); in the update a
player's actual rank is the mean of the places the tied players occupy (2.5, 2.5).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Final

START_RATING: Final = 1200.0
START_VOLATILITY: Final = 535.0
MIN_ROUNDS: Final = 12  # shorter games are not rated
_NORMAL: Final = NormalDist()


@dataclass(frozen=True)
class Rating:
    """A player's rating R, volatility V and rated games n."""

    rating: float = START_RATING
    volatility: float = START_VOLATILITY
    games: int = 0


@dataclass(frozen=True)
class RatedGame:
    """One game's final standings: (player, rank) in order, tied players sharing a rank number."""

    game: str
    date: str  # YYYY-MM-DD
    rounds: int
    standings: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Change:
    """What one game did to one player's rating."""

    game: str
    date: str
    player: str
    before: Rating
    after: Rating


def rate_games(games: Iterable[RatedGame], previous: Mapping[str, Rating] | None = None) -> tuple[dict[str, Rating], list[Change]]:
    """Every player's rating after ``games`` (applied by date, then in the order given), and each change."""
    ratings = dict(previous or {})
    changes: list[Change] = []
    for game in sorted(games, key=lambda g: g.date):  # sorted() is stable: the given order within a date
        updated = rate_game(game, ratings)
        changes += [Change(game.game, game.date, p, ratings.get(p, Rating()), r) for p, r in updated.items()]
        ratings.update(updated)
    return ratings, changes


def rate_game(game: RatedGame, ratings: Mapping[str, Rating]) -> dict[str, Rating]:
    """The new ratings of the players of ``game`` whose rating it changes (none under ``MIN_ROUNDS``)."""
    if game.rounds < MIN_ROUNDS:
        return {}
    before = {player: ratings.get(player, Rating()) for player, _rank in game.standings}
    rated = [(p, rank) for p, rank in game.standings if before[p].games >= 1]
    new = {p for p, _rank in game.standings if before[p].games == 0}
    changed = _update(rated, before) if len(rated) > 1 else {}
    everyone = _update(list(game.standings), before) if new else {}
    changed.update({p: r for p, r in everyone.items() if p in new})
    return changed


def actual_ranks(standings: Sequence[tuple[str, int]]) -> dict[str, float]:
    """Each player's place among ``standings``; tied players (same rank number) share the mean of theirs."""
    ordered = sorted(standings, key=lambda item: item[1])
    places: dict[str, float] = {}
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1][1] == ordered[start][1]:
            end += 1
        for player, _rank in ordered[start : end + 1]:
            places[player] = (start + end) / 2 + 1
        start = end + 1
    return places


def _update(standings: Sequence[tuple[str, int]], before: Mapping[str, Rating]) -> dict[str, Rating]:
    """One TopCoder update of a group of N >= 2 players (ELODI.md, "The update")."""
    players = [player for player, _rank in standings]
    count = len(players)
    if count < 2:
        return {}
    group = [before[p] for p in players]
    average = sum(r.rating for r in group) / count
    factor = math.sqrt(sum(r.volatility**2 for r in group) / count
                       + sum((r.rating - average) ** 2 for r in group) / (count - 1))  # fmt: skip
    ranks = actual_ranks(standings)
    return {p: _updated(before[p], group, ranks[p], count, factor) for p in players}


def _updated(me: Rating, group: Sequence[Rating], actual: float, count: int, factor: float) -> Rating:
    expected = 0.5 + sum(_beats(other, me) for other in group)
    expected_perf = -_NORMAL.inv_cdf((expected - 0.5) / count)
    actual_perf = -_NORMAL.inv_cdf((actual - 0.5) / count)
    performed_as = me.rating + factor * (actual_perf - expected_perf)
    weight = _weight(me)
    cap = _cap(me.games)
    rating = (me.rating + weight * performed_as) / (1 + weight)
    rating = min(max(rating, me.rating - cap), me.rating + cap)
    volatility = math.sqrt((rating - me.rating) ** 2 / weight + me.volatility**2 / (weight + 1))
    return replace(me, rating=rating, volatility=volatility, games=me.games + 1)


def _beats(other: Rating, me: Rating) -> float:
    """The probability that ``other`` finishes above ``me`` (0.5 for oneself)."""
    spread = math.sqrt(2 * (me.volatility**2 + other.volatility**2))
    return 0.5 * (1 + math.erf((other.rating - me.rating) / spread))


def _weight(me: Rating) -> float:
    weight = _base_weight(me.games)
    if 2000 <= me.rating <= 2500:
        return weight * 0.9
    if me.rating > 2500:
        return weight * 0.8
    return weight


def _base_weight(games: int) -> float:
    return 1 / (1 - (0.42 / (games + 1) + 0.18)) - 1


def _cap(games: int) -> float:
    return 150 + 1500 / (games + 2)


@dataclass(frozen=True)
class Reach:
    """The ratings and volatilities a player can have after some number of games: (lowest, highest) each."""

    rating: tuple[float, float]
    volatility: tuple[float, float]


def reach_table(games: int) -> list[Reach]:
    """What the update can give after 0, 1, ... ``games`` games from the start (ELODI.md): a game moves the
    rating by at most its cap; the volatility shrinks at most to V / sqrt(Weight + 1) (the rating unchanged,
    the full weight) and grows at most to sqrt(Cap^2 / Weight + V^2 / (Weight + 1)) (the rating moved by
    its cap, the weight x 0.8 of a rating over 2500). After 0 games: the start, 1200 and 535 exactly."""
    table = [Reach((START_RATING, START_RATING), (START_VOLATILITY, START_VOLATILITY))]
    for played in range(games):
        last, cap = table[-1], _cap(played)
        full, damped = _base_weight(played), _base_weight(played) * 0.8
        table.append(Reach((last.rating[0] - cap, last.rating[1] + cap),
                           (last.volatility[0] / math.sqrt(full + 1),
                            math.sqrt(cap**2 / damped + last.volatility[1] ** 2 / (damped + 1)))))  # fmt: skip
    return table
