"""A tournament's standings over its games, each player known by their tournament id
(``tournament_players.game_keys``), never by the spelling of a name.

* ``ranking``: the duplicate games by the criterion of D.IV.31 the director chose, with all three
  criteria's values (``rules_core.tournament``: from each game's published rounds, places from its
  standings; an absent player takes the last place of that game, criterion 1, and 0 points in its
  rounds, criteria 2 and 3), and the sums the federation reads: total (bonuses included), the masters'
  total of the games counted, the total as a percentage of it, and the D.III.28 tie-break figures
  (masters matched and solo tops summed over the games, the largest deficit of any round);
* ``classic_ranking``: the finished classic games by wins (a tie is half), then spread;
* ``player_history``: one player's games across the event, each with its rounds, the place in the
  game and the place in the tournament after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rules_core.classic import ClassicGame
from rules_core.duplicate import NO_SLIP, DuplicateGame, Standing
from rules_core.tournament import GameResult, Ranking, average_percentage, average_place, deviation

from .tournament_players import GUEST, game_keys
from .tournaments import Tournament


@dataclass(frozen=True)
class Line:
    """A player's line: the chosen criterion's rank, the three criteria's values and the sums."""

    key: str  # the tournament player's id, or a guest's ``?<name>``
    name: str
    rank: int
    place: float
    percentage: float
    deviation: float
    games: int
    club: str = ""
    licence: str = ""
    total: int = 0
    bonus: int = 0
    masters: int = 0  # the masters' total of the games counted
    matched: int = 0
    solos: int = 0
    deficit: int = 0

    @property
    def percent(self) -> float:
        """The total as a percentage of the masters' total."""
        return 100 * self.total / self.masters if self.masters else 0.0


@dataclass
class _Sums:
    total: int = 0
    bonus: int = 0
    matched: int = 0
    solos: int = 0
    deficit: int = 0

    def add(self, s: Standing) -> None:
        self.total += s.total
        self.bonus += s.bonus
        self.matched += s.masters_matched
        self.solos += s.solo_tops
        self.deficit = max(self.deficit, s.max_deficit)


def counted(games: Sequence[DuplicateGame]) -> list[DuplicateGame]:
    """The games that count: those with a published round."""
    return [g for g in games if any(r.master is not None for r in g.rounds)]


@dataclass(frozen=True)
class Counted:
    """A game that counts, read once: its players' keys, its standings and its ``GameResult``."""

    game: DuplicateGame
    keys: dict[str, str]
    standings: list[Standing]
    result: GameResult


def read_game(tournament: Tournament, game: DuplicateGame) -> Counted:
    """One game as the tournament counts it (published rounds only), its players by tournament key."""
    keys = game_keys(tournament, game.events)
    standings = game.standings()
    rounds = [r for r in game.rounds if r.master is not None]
    places = {keys[s.player]: s.rank for s in standings}
    points = {keys[p]: [r.results.get(p, NO_SLIP).score for r in rounds] for p in game.players}
    return Counted(game, keys, standings, GameResult(places, [r.master_score for r in rounds], points))


def ranking(tournament: Tournament, games: Sequence[DuplicateGame]) -> list[Line]:
    """Every player of the tournament's duplicate games ranked by its criterion (see the module docstring)."""
    return rank(tournament, [read_game(tournament, game) for game in counted(games)])


def rank(tournament: Tournament, played: Sequence[Counted]) -> list[Line]:
    """``ranking`` of games already read."""
    if not played:
        return []
    results = [c.result for c in played]
    sums: dict[str, _Sums] = {}
    names: dict[str, str] = {}
    for c in played:
        for s in c.standings:
            sums.setdefault(c.keys[s.player], _Sums()).add(s)
            names.setdefault(c.keys[s.player], s.name)
    masters = sum(c.game.master_total for c in played)
    by: dict[str, dict[str, Ranking]] = {
        "average_place": {r.player: r for r in average_place(results)},
        "average_percentage": {r.player: r for r in average_percentage(results)},
        "deviation": {r.player: r for r in deviation(results)},
    }
    lines = []
    for key, chosen in by[tournament.criterion].items():
        listed = tournament.player(key)
        total = sums[key]
        lines.append(Line(key, listed.name if listed else names[key], chosen.rank, by["average_place"][key].value,
                          by["average_percentage"][key].value, by["deviation"][key].value,
                          sum(1 for g in results if key in g.places), listed.club if listed else "",
                          listed.licence if listed else "", total.total, total.bonus, masters, total.matched,
                          total.solos, total.deficit))  # fmt: skip
    return sorted(lines, key=lambda line: (line.rank, line.name, line.licence))


@dataclass(frozen=True)
class ClassicLine:
    """A player of the tournament's classic games: games, wins (a tie is half), spread."""

    key: str
    name: str
    rank: int
    games: int
    wins: float
    spread: int


def classic_ranking(tournament: Tournament, games: Sequence[ClassicGame]) -> list[ClassicLine]:
    """Players of the finished classic games by wins, then spread (points for minus against)."""
    played: dict[str, list[tuple[float, int]]] = {}
    names: dict[str, str] = {}
    for game in games:
        if not game.finished:
            continue
        keys = game_keys(tournament, game.events)
        scores = game.scores
        for me, name in enumerate(game.players):
            key = keys[str(me)]
            listed = tournament.player(key)
            names.setdefault(key, listed.name if listed else name)
            spread = scores[me] - scores[1 - me]
            played.setdefault(key, []).append((1.0 if spread > 0 else 0.5 if spread == 0 else 0.0, spread))
    totals = sorted(((sum(w for w, _ in r), sum(s for _, s in r), key) for key, r in played.items()),
                    key=lambda t: (-t[0], -t[1], names[t[2]]))  # fmt: skip
    lines: list[ClassicLine] = []
    for index, (wins, spread, key) in enumerate(totals):
        tied = lines and (lines[-1].wins, lines[-1].spread) == (wins, spread)
        lines.append(ClassicLine(key, names[key], lines[-1].rank if tied else index + 1, len(played[key]), wins, spread))
    return lines


def standing_order(tournament: Tournament, duplicate: Sequence[DuplicateGame], classic: Sequence[ClassicGame]) -> list[str]:
    """The list's ids by the tournament's standing, the leader first: the duplicate ranking, else the classic one."""
    lines = ranking(tournament, duplicate)
    keys = [line.key for line in lines] or [line.key for line in classic_ranking(tournament, classic)]
    return [key for key in keys if not key.startswith(GUEST)]


@dataclass(frozen=True)
class PlayedRound:
    number: int
    play: str
    score: int
    reason: str
    bonus: int
    master: str
    master_score: int


@dataclass(frozen=True)
class PlayedGame:
    """One game of a player: where they sat, what they scored, their place in it and in the tournament after it."""

    game: str  # the game's id
    index: int  # 1 for the tournament's first game
    player: str  # the player's id in the game
    table: int
    rank: int
    players: int
    total: int
    master_total: int
    rounds: list[PlayedRound] = field(default_factory=list)
    tournament_rank: int | None = None  # after this game, by the tournament's criterion

    @property
    def percent(self) -> float:
        return 100 * self.total / self.master_total if self.master_total else 0.0


def player_history(tournament: Tournament, games: Sequence[tuple[str, DuplicateGame]], key: str) -> list[PlayedGame]:
    """The duplicate games ``key`` played in the tournament (``games``: id and game, in the tournament's order)."""
    found = []
    so_far: list[Counted] = []
    for index, (game_id, game) in enumerate(games, start=1):
        if not counted([game]):
            continue
        read = read_game(tournament, game)
        so_far.append(read)
        mine = next((p for p, k in read.keys.items() if k == key), None)
        if mine is None:
            continue
        standing = next(s for s in read.standings if s.player == mine)
        played = []
        for r in (r for r in game.rounds if r.master is not None):
            result = r.results.get(mine, NO_SLIP)
            played.append(PlayedRound(r.number, result.play or "", result.score, result.public_reason,
                                      game.bonuses(r).get(mine, 0), r.master.notation if r.master else "", r.master_score))  # fmt: skip
        after = next((line.rank for line in rank(tournament, so_far) if line.key == key), None)
        found.append(PlayedGame(game_id, index, mine, game.players[mine].table, standing.rank, len(game.players),
                                standing.total, game.master_total, played, after))  # fmt: skip
    return found
