"""EloDI (FILE duplicate rules, part V) as shared/rules/ELODI.md specifies it.

The figures come from the spec's worked check, from hand reasoning, and from a second,
independent implementation written here from the spec's text (matrix-free, by pairs),
which ``rules_core.elodi`` must agree with to 0.05 points over a dozen games.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from rules_core.elodi import MIN_ROUNDS, RatedGame, Rating, actual_ranks, rate_game, rate_games
from webapp.cli import main


def game(name: str, ranks: list[tuple[str, int]], rounds: int = 15, date: str = "2026-01-01") -> RatedGame:
    return RatedGame(name, date, rounds, tuple(ranks))


def test_the_worked_check_of_the_spec() -> None:
    ratings, _ = rate_games([game("g1", [("a", 1), ("b", 2), ("c", 3), ("d", 4)])])
    assert ratings["a"].rating == pytest.approx(1569.3, abs=0.05)
    assert ratings["a"].volatility == pytest.approx(453.2, abs=0.05)
    assert ratings["a"].games == 1
    assert ratings["b"].rating + ratings["c"].rating == pytest.approx(2400, abs=1e-6)  # symmetric field


def test_tied_players_share_the_mean_of_their_places() -> None:
    assert actual_ranks([("a", 1), ("b", 2), ("c", 2), ("d", 4)]) == {"a": 1, "b": 2.5, "c": 2.5, "d": 4}
    ratings, _ = rate_games([game("g1", [("a", 1), ("b", 2), ("c", 2), ("d", 4)])])
    assert ratings["b"] == ratings["c"] and ratings["b"].rating == pytest.approx(1200, abs=1e-9)


def test_games_under_twelve_rounds_change_nothing() -> None:
    assert rate_game(game("corta", [("a", 1), ("b", 2)], rounds=MIN_ROUNDS - 1), {}) == {}
    ratings, changes = rate_games([game("corta", [("a", 1), ("b", 2)], rounds=11)])
    assert ratings == {} and changes == []


def test_a_single_rated_player_keeps_his_rating_and_new_players_are_rated_against_everyone() -> None:
    veteran = Rating(1500.0, 300.0, 10)
    changed = rate_game(game("g", [("nuevo1", 1), ("veterano", 2), ("nuevo2", 3)]), {"veterano": veteran})
    assert "veterano" not in changed  # alone among the rated: nothing to compare with
    assert changed["nuevo1"].games == 1 and changed["nuevo1"].rating > 1200 > changed["nuevo2"].rating
    # the new winner beat a 1500 player: more than a win over new players alone gives
    alone = rate_game(game("h", [("x", 1), ("y", 2), ("z", 3)]), {})
    assert changed["nuevo1"].rating > alone["x"].rating


def test_rated_players_are_rated_among_themselves() -> None:
    before = {"a": Rating(1400.0, 250.0, 5), "b": Rating(1300.0, 250.0, 5)}
    changed = rate_game(game("g", [("b", 1), ("nuevo", 2), ("a", 3)]), before)
    # among the rated, b (lower) beat a: b goes up, a goes down, whatever the new player did
    assert changed["b"].rating > 1300 and changed["a"].rating < 1400
    alone = rate_game(game("g", [("b", 1), ("a", 2)]), before)
    assert changed["b"] == alone["b"] and changed["a"] == alone["a"]


def test_the_change_is_capped() -> None:
    before = {"a": Rating(1200.0, 2000.0, 50), "b": Rating(3000.0, 10.0, 50)}
    changed = rate_game(game("g", [("a", 1), ("b", 2)]), before)
    assert changed["a"].rating == pytest.approx(1200 + 150 + 1500 / 52)


def test_games_are_applied_by_date_then_in_the_order_given() -> None:
    first = game("1", [("a", 1), ("b", 2)], date="2026-02-01")
    second = game("2", [("b", 1), ("a", 2)], date="2026-01-01")
    third = game("3", [("a", 1), ("b", 2)], date="2026-01-01")
    _, changes = rate_games([first, second, third])
    assert [c.game for c in changes[::2]] == ["2", "3", "1"]


# -- an independent implementation, from the spec's words ---------------------------------


def _phi_inv(p: float) -> float:
    """The inverse normal CDF by bisection on erf (independent of statistics.NormalDist)."""
    low, high = -10.0, 10.0
    for _ in range(200):
        mid = (low + high) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _reference_group(group: list[tuple[str, float]], table: dict[str, list[float]]) -> dict[str, list[float]]:
    """ELODI.md's update for ``group`` = [(player, actual rank)], table: player -> [R, V, n]."""
    n = len(group)
    rs = [table[p][0] for p, _ in group]
    vs = [table[p][1] for p, _ in group]
    ave = sum(rs) / n
    cf = math.sqrt(sum(v * v for v in vs) / n + sum((r - ave) ** 2 for r in rs) / (n - 1))
    out = {}
    for i, (player, arank) in enumerate(group):
        erank = 0.5
        for j in range(n):
            erank += 0.5 * (1 + math.erf((rs[j] - rs[i]) / math.sqrt(2 * (vs[i] ** 2 + vs[j] ** 2))))
        perf_as = rs[i] + cf * (-_phi_inv((arank - 0.5) / n) + _phi_inv((erank - 0.5) / n))
        games = table[player][2]
        weight = 1 / (1 - (0.42 / (games + 1) + 0.18)) - 1
        weight *= 0.9 if 2000 <= rs[i] <= 2500 else 0.8 if rs[i] > 2500 else 1.0
        cap = 150 + 1500 / (games + 2)
        new = max(rs[i] - cap, min(rs[i] + cap, (rs[i] + weight * perf_as) / (1 + weight)))
        out[player] = [new, math.sqrt((new - rs[i]) ** 2 / weight + vs[i] ** 2 / (weight + 1)), games + 1]
    return out


def _places(ranked: list[tuple[str, int]]) -> list[tuple[str, float]]:
    """Places with ties averaged, counted by hand."""
    out = []
    for player, rank in ranked:
        ahead = sum(1 for _, r in ranked if r < rank)
        tied = sum(1 for _, r in ranked if r == rank)
        out.append((player, ahead + (tied + 1) / 2))
    return out


def _reference(games: list[RatedGame]) -> dict[str, list[float]]:
    table: dict[str, list[float]] = {}
    for g in sorted(games, key=lambda x: x.date):
        if g.rounds < 12:
            continue
        for player, _ in g.standings:
            table.setdefault(player, [1200.0, 535.0, 0])
        snapshot = {p: list(v) for p, v in table.items()}
        rated = [(p, r) for p, r in g.standings if snapshot[p][2] >= 1]
        if len(rated) >= 2:
            table.update(_reference_group(_places(rated), snapshot))
        if any(snapshot[p][2] == 0 for p, _ in g.standings):
            everyone = _reference_group(_places(list(g.standings)), snapshot)
            table.update({p: v for p, v in everyone.items() if snapshot[p][2] == 0})
    return table


def _history(seed: int) -> list[RatedGame]:
    """A dozen games of a club: players come and go, ties, two short games."""
    rng = random.Random(seed)
    pool = [f"J{i}" for i in range(14)]
    games = []
    for number in range(12):
        players = rng.sample(pool, rng.randint(3, 9))
        ranks, rank = [], 1
        for i, player in enumerate(players):
            if i and rng.random() < 0.25:
                ranks.append((player, ranks[-1][1]))  # tied with the one before
            else:
                ranks.append((player, i + 1))
        games.append(RatedGame(f"g{number}", f"2026-{number % 6 + 1:02d}-10", rng.choice([8, 12, 15, 20]), tuple(ranks)))
    return games


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agrees_with_an_independent_implementation(seed: int) -> None:
    games = _history(seed)
    ours, _ = rate_games(games)
    theirs = _reference(games)
    assert set(ours) == set(theirs)
    for player, (rating, volatility, played) in theirs.items():
        assert ours[player].rating == pytest.approx(rating, abs=0.05), player
        assert ours[player].volatility == pytest.approx(volatility, abs=0.05), player
        assert ours[player].games == played


# -- the command ------------------------------------------------------------------------------


def _write_history(path: Path, games: list[RatedGame]) -> None:
    lines = [json.dumps({"game": g.game, "date": g.date, "rounds": g.rounds,
                         "standings": [{"player": p, "rank": r} for p, r in g.standings]}) for g in games]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_the_rating_command_prints_json_and_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history = tmp_path / "historial.jsonl"
    _write_history(history, [game("g1", [("Ana", 1), ("Bea", 2), ("Ciro", 3), ("Dani", 4)])])
    assert main(["rating", "--history", str(history), "--json"]) == 0
    players = json.loads(capsys.readouterr().out)["players"]
    assert players[0]["player"] == "Ana" and players[0]["rating"] == pytest.approx(1569.3, abs=0.05)
    assert main(["rating", "--history", str(history)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert "Ana" in table[1] and "1569" in table[1] and "Dani" in table[-1]


def test_previous_ratings_are_taken_from_a_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history, previous = tmp_path / "h.jsonl", tmp_path / "antes.csv"
    _write_history(history, [game("g1", [("Bea", 1), ("Ana", 2)])])
    previous.write_text("player,rating,volatility,games\nAna,1600,200,20\nBea,1500,200,20\n", encoding="utf-8")
    assert main(["rating", "--history", str(history), "--ratings", str(previous), "--json"]) == 0
    players = {p["player"]: p for p in json.loads(capsys.readouterr().out)["players"]}
    assert players["Bea"]["rating"] > 1500 and players["Ana"]["rating"] < 1600 and players["Ana"]["games"] == 21


@pytest.mark.parametrize("line", ['{"game": "g", "date": "ayer", "rounds": 12, "standings": [{"player": "A", "rank": 1}]}',
                                  '{"game": "g", "date": "2026-01-01", "rounds": "doce", "standings": []}',
                                  '{"game": "g", "date": "2026-01-01", "rounds": 12, "standings": [{"player": "A", "rank": 0}]}',
                                  "no es json"])  # fmt: skip
def test_a_bad_history_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str) -> None:
    history = tmp_path / "h.jsonl"
    history.write_text('{"game": "ok", "date": "2026-01-01", "rounds": 12, "standings": [{"player": "A", "rank": 1}]}\n'
                       + line + "\n", encoding="utf-8")  # fmt: skip
    assert main(["rating", "--history", str(history)]) == 2
    assert "línea 2" in capsys.readouterr().err
