"""Tournament rankings over several duplicate games (D.IV.31), computed by hand."""

import math

import pytest

from rules_core.tournament import GameResult, average_percentage, average_place, deviation

# Two games of two rounds. Game 1: masters 40 and 60; game 2: masters 50 and 50.
# Ana plays both games, Bea both, Ciro only game 1.
GAMES = [
    GameResult(
        places={"ana": 1, "bea": 2, "ciro": 3},
        master_points=[40, 60],
        points={"ana": [40, 30], "bea": [20, 30], "ciro": [10, 0]},
    ),
    GameResult(
        places={"ana": 2, "bea": 1},
        master_points=[50, 50],
        points={"ana": [25, 25], "bea": [50, 25]},
    ),
]


def test_average_place_with_an_absent_player_taking_the_last_place() -> None:
    # Ana (1 + 2) / 2 = 1.5; Bea (2 + 1) / 2 = 1.5; Ciro (3 + 2) / 2 = 2.5 (last of game 2)
    ranking = {r.player: (r.value, r.rank) for r in average_place(GAMES)}
    assert ranking == {"ana": (1.5, 1), "bea": (1.5, 1), "ciro": (2.5, 3)}


def test_average_percentage_of_the_master() -> None:
    # Ana (40/40 + 30/60 + 25/50 + 25/50) / 4 = 2.5 / 4 = 62.5 %
    # Bea (20/40 + 30/60 + 50/50 + 25/50) / 4 = 2.5 / 4 = 62.5 %
    # Ciro (10/40 + 0 + 0 + 0) / 4 = 6.25 %
    ranking = {r.player: (r.value, r.rank) for r in average_percentage(GAMES)}
    assert ranking["ana"] == pytest.approx((62.5, 1))
    assert ranking["bea"] == pytest.approx((62.5, 1))
    assert ranking["ciro"] == pytest.approx((6.25, 3))


def test_deviation_from_the_master() -> None:
    # Ana sqrt(0 + 30^2 + 25^2 + 25^2) / 4 = sqrt(2150) / 4
    # Bea sqrt(20^2 + 30^2 + 0 + 25^2) / 4 = sqrt(1925) / 4: Bea first (ascending)
    # Ciro sqrt(30^2 + 60^2 + 50^2 + 50^2) / 4 = sqrt(9500) / 4
    ranking = deviation(GAMES)
    assert [r.player for r in ranking] == ["bea", "ana", "ciro"]
    assert ranking[0].value == pytest.approx(math.sqrt(1925) / 4)
    assert ranking[1].value == pytest.approx(math.sqrt(2150) / 4)
    assert ranking[2].value == pytest.approx(math.sqrt(9500) / 4)
