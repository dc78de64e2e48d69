"""A duplicate game from its events: racks, slips, master, bonuses, standings (D.I-D.III)."""

from typing import Any

import pytest

from rules_core.duplicate import DuplicateGame, DuplicateSettings
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon
from rules_core.movegen import generate_plays
from rules_core.slips import Slip

PLAYERS = [("ana", "Ana", 1), ("bea", "Bea", 2), ("ciro", "Ciro", 3)]


def new_game(lexicon: Lexicon, **settings: Any) -> DuplicateGame:
    game = DuplicateGame(lexicon)
    game.apply(Event("game_created", {"settings": DuplicateSettings(**settings).to_json()}))
    for player, name, table in PLAYERS:
        game.apply(Event("player_added", {"player": player, "name": name, "table": table}))
    return game


def rack(game: DuplicateGame, number: int, labels: str) -> None:
    game.apply(Event("rack_set", {"round": number, "rack": list(labels), "source": "manual"}))


def slip(game: DuplicateGame, number: int, player: str, notation: str | None, **facts: Any) -> None:
    game.apply(Event("slip", {"round": number, "player": player, "slip": Slip(notation, **facts).to_json()}))


def result(game: DuplicateGame, number: int, player: str) -> tuple[int, str]:
    r = game.round(number).results[player]
    return r.score, r.reason


def first_round(game: DuplicateGame, plays: dict[str, str]) -> None:
    """Round 1, rack A E M N N O Q on the empty board: the top score is 22 (AMONEN, MONEAN)."""
    rack(game, 1, "AEMNNOQ")
    for player, notation in plays.items():
        slip(game, 1, player, notation)


def test_the_rules_choose_the_master_and_the_board_follows(file2017: Lexicon) -> None:
    game = new_game(file2017)
    first_round(game, {"ana": "8C AMONEN"})
    game.apply(Event("master_announced", {"round": 1}))
    r = game.round(1)
    # four plays score 22; AMONEN before MONEAN (criterion 4), across before down (5)
    assert r.master is not None and (r.master.notation, r.master.score) == ("H3 AMONEN", 22)
    assert game.leave == (game.round(1).rack[-1],)  # the Q stays on the rack
    assert game.master_total == 22
    assert game.board[7, 2] != 0 and game.board[7, 7] != 0  # H3 to H8


def test_the_arbiter_may_pick_another_play_of_the_top_score(file2017: Lexicon) -> None:
    game = new_game(file2017)
    first_round(game, {})
    with pytest.raises(GameError, match="no es una jugada de máxima puntuación"):
        game.apply(Event("master_announced", {"round": 1, "play": "H4 MANEN"}))
    game.apply(Event("master_announced", {"round": 1, "play": "8C AMONEN"}))
    assert game.round(1).master.notation == "8C AMONEN"  # type: ignore[union-attr]


def test_an_announced_master_is_never_replaced(file2017: Lexicon) -> None:
    game = new_game(file2017)
    first_round(game, {})
    game.apply(Event("master_announced", {"round": 1, "play": "8D MONEAN"}))
    with pytest.raises(GameError, match="no está en juego"):
        game.apply(Event("master_announced", {"round": 1, "play": "H3 AMONEN"}))
    assert game.round(1).master.notation == "8D MONEAN"  # type: ignore[union-attr]


def test_slips_score_their_play_or_zero_with_the_reason(file2017: Lexicon) -> None:
    game = new_game(file2017)
    rack(game, 1, "AEMNNOQ")
    slip(game, 1, "ana", "8C AMONEN")
    slip(game, 1, "bea", "H8 MONEAN", late=True)
    slip(game, 1, "ciro", "H8 AMONEQ")
    assert result(game, 1, "ana") == (22, "")
    assert result(game, 1, "bea")[0] == 0 and "fuera de tiempo" in result(game, 1, "bea")[1]
    assert result(game, 1, "ciro")[0] == 0 and "AMONEQ no está en el léxico" in result(game, 1, "ciro")[1]


def test_an_unmarked_blank_scores_zero(file2017: Lexicon) -> None:
    game = new_game(file2017)
    rack(game, 1, "AENNOQ?")  # no M: AMONEN needs the blank as m
    slip(game, 1, "ana", "8C AmONEN")  # circled
    slip(game, 1, "bea", "8C AMONEN")  # not circled
    slip(game, 1, "ciro", "8C AmONEN", blank_not_circled=True)  # noted by the arbiter
    assert result(game, 1, "ana") == (10, "")  # (1 + 0 + 1+1+1+1) x 2
    assert result(game, 1, "bea") == (0, "comodín no marcado (D.III.20.3, D.III.25.a)")
    assert result(game, 1, "ciro")[1] == "comodín no marcado (D.III.20.3, D.III.25.a)"


def test_void_slips_score_zero(file2017: Lexicon) -> None:
    game = new_game(file2017)
    rack(game, 1, "AEMNNOQ")
    slip(game, 1, "ana", "8C AMONEN", void="caligrafía ininteligible")
    slip(game, 1, "bea", "8C AMONEN", other_notations=("H3 AMONEN",))
    slip(game, 1, "ciro", "8Z AMONEN")
    assert result(game, 1, "ana")[1].startswith("papeleta nula: caligrafía ininteligible")
    assert "varias jugadas" in result(game, 1, "bea")[1]
    assert "notación incorrecta" in result(game, 1, "ciro")[1]


def test_one_slip_per_player_then_corrections_with_a_reason(file2017: Lexicon) -> None:
    game = new_game(file2017)
    first_round(game, {"ana": "H8 AMONEQ"})
    with pytest.raises(GameError, match="ya entregó papeleta"):
        slip(game, 1, "ana", "8C AMONEN")
    fix = {"round": 1, "player": "ana", "slip": Slip("8C AMONEN").to_json()}
    with pytest.raises(GameError, match="motivo"):
        game.apply(Event("slip_corrected", fix))
    game.apply(Event("slip_corrected", {**fix, "reason": "error de tecleo"}, actor="arbitro1"))
    assert result(game, 1, "ana") == (22, "")
    assert [e.kind for e in game.round(1).history] == ["slip", "slip_corrected"]
    assert game.round(1).history[-1].actor == "arbitro1"


def close_round(game: DuplicateGame, scores: dict[str, str], **settings: Any) -> dict[str, int]:
    first_round(game, scores)
    game.apply(Event("master_announced", {"round": 1}))
    return game.bonuses(game.round(1))


def test_bonus_to_the_only_player_matching_the_master(file2017: Lexicon) -> None:
    game = new_game(file2017, bonuses=True)
    bonuses = close_round(game, {"ana": "8C AMONEN", "bea": "H4 MANEN", "ciro": "8D MANEN"})
    assert bonuses == {"ana": 10}
    assert game.standings()[0].total == 22 + 10 and game.standings()[0].bonus == 10


def test_bonus_to_the_only_best_when_nobody_matched(file2017: Lexicon) -> None:
    game = new_game(file2017, bonuses=True)
    # MANEN from H4 scores 20 (best), MANEN down from H8 16
    assert close_round(game, {"ana": "H4 MANEN", "bea": "8H MANEN"}) == {"ana": 5}


def test_no_bonus_when_two_players_tie(file2017: Lexicon) -> None:
    game = new_game(file2017, bonuses=True)
    assert close_round(game, {"ana": "8C AMONEN", "bea": "H3 AMONEN"}) == {}
    game = new_game(file2017, bonuses=True)
    assert close_round(game, {"ana": "H4 MANEN", "bea": "H4 MANEO"}) == {}


def test_no_bonus_unless_announced(file2017: Lexicon) -> None:
    game = new_game(file2017)
    assert close_round(game, {"ana": "8C AMONEN"}) == {}


def test_a_wrong_master_found_next_round_is_annulled_for_its_players(file2017: Lexicon) -> None:
    game = new_game(file2017)
    close_round(game, {"ana": "H3 AMONEN", "bea": "H4 MANEN"})
    rack(game, 2, "QAEIRST")
    with pytest.raises(GameError, match="motivo"):
        game.apply(Event("master_annulled", {"round": 1}))
    game.apply(Event("master_annulled", {"round": 1, "reason": "palabra mal colocada"}))
    assert result(game, 1, "ana") == (0, "jugada maestra anulada: palabra mal colocada (D.III.29)")
    assert result(game, 1, "bea") == (20, "")
    assert game.board[7, 2] != 0  # the master stays on the board


def test_racks_follow_d_iii_12_and_the_leave(file2017: Lexicon) -> None:
    game = new_game(file2017)
    with pytest.raises(GameError, match="6 vocales"):
        rack(game, 1, "AEIOUAB")
    first_round(game, {})
    game.apply(Event("master_announced", {"round": 1}))
    with pytest.raises(GameError, match="la siguiente ronda es la 2"):
        rack(game, 3, "QAEIRST")
    with pytest.raises(GameError, match="no están en la bolsa: Q"):
        rack(game, 2, "QQAEIRS")  # one Q in the set, and it is on the rack
    rack(game, 2, "QAEIRST")
    assert len(game.bag) == 100 - 6 - 7


def test_the_game_ends_after_the_agreed_rounds(file2017: Lexicon) -> None:
    game = new_game(file2017, rounds=1)
    first_round(game, {})
    game.apply(Event("master_announced", {"round": 1}))
    assert game.ended and str(game.end_reason) == "se ha jugado la única ronda pactada (D.III.22)"  # not "las 1 rondas"
    with pytest.raises(GameError, match="ha terminado"):
        rack(game, 2, "QAEIRST")
    with pytest.raises(GameError, match="necesita un motivo"):  # a closed round: the arbiter says why
        slip(game, 1, "ana", "8C AMONEN")
    game.apply(Event("slip", {"round": 1, "player": "ana", "slip": Slip("8C AMONEN").to_json(),
                              "reason": "entregada a tiempo, no anotada"}))  # fmt: skip
    assert result(game, 1, "ana") == (22, "")


@pytest.mark.parametrize("tie_breaks", [True, False])
def test_tie_breaks_of_d_iii_28(file2017: Lexicon, tie_breaks: bool) -> None:
    game = new_game(file2017, tie_breaks=tie_breaks, rounds=2)
    first_round(game, {"ana": "8C AMONEN", "bea": "H4 MANEN"})  # 22 (the master) and 20
    game.apply(Event("master_announced", {"round": 1}))
    rack(game, 2, "QAEIRST")
    r = game.round(2)
    plays = generate_plays(r.board, r.rack, file2017)
    # round 2: Bea scores two more than Ana, both below the master: equal totals
    low, high = next(
        (a, b) for a in plays for b in plays if b.score == a.score + 2 and b.score < plays[0].score
    )
    slip(game, 2, "ana", low.notation)
    slip(game, 2, "bea", high.notation)
    game.apply(Event("master_announced", {"round": 2}))
    standings = {s.player: s for s in game.standings()}
    assert standings["ana"].total == standings["bea"].total
    assert (standings["ana"].masters_matched, standings["bea"].masters_matched) == (1, 0)
    assert (standings["ana"].rank, standings["bea"].rank) == ((1, 2) if tie_breaks else (1, 1))


def test_standings_without_tie_breaks_share_the_rank(file2017: Lexicon) -> None:
    game = new_game(file2017)
    close_round(game, {"ana": "8C AMONEN", "bea": "H3 AMONEN"})
    ranks = {s.player: s.rank for s in game.standings()}
    assert ranks == {"ana": 1, "bea": 1, "ciro": 3}


def test_bad_events_change_nothing(file2017: Lexicon) -> None:
    game = new_game(file2017)
    with pytest.raises(GameError):
        game.apply(Event("player_added", {"player": "dani", "name": "Dani", "table": 1}))
    with pytest.raises(GameError, match="mal formado"):
        game.apply(Event("rack_set", {"round": 1}))
    with pytest.raises(GameError, match="desconocido"):
        game.apply(Event("teleport", {}))
    assert len(game.players) == 3 and game.rounds == [] and len(game.events) == 4


def test_replaying_the_events_rebuilds_the_same_game(file2017: Lexicon) -> None:
    game = new_game(file2017, bonuses=True)
    close_round(game, {"ana": "8C AMONEN", "bea": "H4 MANEN"})
    rack(game, 2, "QAEIRST")
    slip(game, 2, "ana", game.top_plays(2)[0].notation)
    again = DuplicateGame.replay(game.events, file2017)
    assert again.summary() == game.summary()
    assert again.board == game.board and again.bag == game.bag
    assert again.round(2).results == game.round(2).results


def test_the_round_clock_counts_down_without_pauses(file2017: Lexicon) -> None:
    from datetime import datetime, timedelta, timezone

    game = new_game(file2017)
    rack(game, 1, "AEMNNOQ")
    t0 = datetime(2026, 5, 1, 10, 0, tzinfo=timezone.utc)
    for action, seconds in [("start", 0), ("pause", 50), ("resume", 80)]:
        game.apply(Event("timer", {"round": 1, "action": action}, at=t0 + timedelta(seconds=seconds)))
    r = game.round(1)
    assert r.timer_running
    # 180 s (D.III.13): 50 s ran before the pause, 20 more since the resume at 80 s
    assert r.remaining_seconds(180, t0 + timedelta(seconds=100)) == 110
    game.apply(Event("timer", {"round": 1, "action": "close"}, at=t0 + timedelta(seconds=120)))
    assert r.remaining_seconds(180, t0 + timedelta(seconds=121)) == 0 and not r.timer_running
