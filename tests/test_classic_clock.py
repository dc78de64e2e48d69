"""The classic table's clock (C.30-C.35, C.45.5): time controls, presses, pauses, penalties, the end.

Every event carries its time (``at``, seconds after ``T0``); the clock is read at a
given moment, so nothing here waits. Plays as in ``test_classic`` (FILE2017): Ana opens
H8 CASA, Bea answers H8 CASADA.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from rules_core.classic import ClassicGame, ScoreRow
from rules_core.classic_clock import time_is_up
from rules_core.clock import TIMER_WARNINGS, overtime_penalty
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon

from .test_classic import BAG_EMPTY_ANA_S, BAG_EMPTY_ANA_X

ANA, BEA = 0, 1
G = ClassicGame
T0 = datetime(2024, 5, 4, 18, 0, tzinfo=timezone.utc)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def clock(action: str, player: int | None, seconds: float, delay_ms: int | None = None) -> Event:
    return G.clock_event(action, player, delay_ms=delay_ms, at=at(seconds))


def timed(lexicon: Lexicon, mode: str | None, *events: Event, minutes: int | None = None,
          duration: int | None = None, cgp: str | None = None) -> ClassicGame:  # fmt: skip
    played = ClassicGame(lexicon)
    played.apply(G.create_event(["Ana", "Bea"], clock=mode, minutes=minutes, duration=duration, cgp=cgp, at=T0))
    for event in events:
        played.apply(event)
    return played


def left(played: ClassicGame, player: int, seconds: float) -> float:
    timer = played.state.timer
    assert timer is not None
    return timer.remaining(player, at(seconds)).total_seconds()


def refused(played: ClassicGame, event: Event, words: str) -> None:
    before = played.state.copy()
    with pytest.raises(GameError, match=words):
        played.apply(event)
    assert played.state == before


def test_each_time_control_has_the_rules_time(file2017: Lexicon) -> None:
    assert left(timed(file2017, "corrido"), ANA, 0) == 30 * 60  # C.34: typically 30 and 25 minutes
    assert left(timed(file2017, "no_corrido"), ANA, 0) == 25 * 60
    assert left(timed(file2017, "corrido", minutes=20), BEA, 0) == 20 * 60
    assert left(timed(file2017, "temporizador"), ANA, 0) == 120  # C.31.1: two minutes a turn
    with pytest.raises(GameError, match="2 minutos por turno"):
        timed(file2017, "temporizador", minutes=3)
    with pytest.raises(GameError, match="necesita un modo de reloj"):
        timed(file2017, None, duration=60)
    refused(timed(file2017, None), clock("start", None, 0), "no tiene reloj")


def test_a_press_ends_the_turn_and_starts_the_opponents_time(file2017: Lexicon) -> None:
    played = timed(file2017, "corrido", clock("start", None, 0))
    assert left(played, ANA, 100) == 1700 and left(played, BEA, 100) == 1800
    refused(played, clock("press", BEA, 100), "el reloj de Bea no está en marcha")
    played.apply(clock("press", ANA, 100))
    assert left(played, ANA, 400) == 1700 and left(played, BEA, 400) == 1500
    played.apply(clock("press", BEA, 400))
    assert played.state.timer is not None and played.state.timer.turns == (1, 1)
    assert left(played, ANA, 460) == 1640


def test_a_press_retried_by_the_tablet_keeps_its_time_but_at_most_ten_seconds(file2017: Lexicon) -> None:
    played = timed(file2017, "corrido", clock("start", ANA, 0), clock("press", ANA, 60, delay_ms=2500))
    assert left(played, ANA, 100) == 1800 - 57.5
    played.apply(clock("press", BEA, 200, delay_ms=60_000))  # held back 10 s at most
    assert left(played, BEA, 300) == 1800 - (190 - 57.5)
    played.apply(clock("press", ANA, 195, delay_ms=9000))  # never before Ana's time started
    assert left(played, ANA, 195) == 1800 - 57.5


def test_no_corrido_stops_both_clocks_while_the_play_is_counted(file2017: Lexicon) -> None:
    played = timed(file2017, "no_corrido", clock("start", None, 0), clock("press", ANA, 90))
    assert played.state.timer is not None and played.state.timer.state() == "counting"  # C.34.1
    assert left(played, ANA, 150) == 1500 - 90 and left(played, BEA, 150) == 1500
    refused(played, clock("press", BEA, 150), "el reloj de Bea no está en marcha")
    played.apply(clock("press", ANA, 150))  # tiles drawn: Bea's clock starts
    assert left(played, BEA, 200) == 1450 and left(played, ANA, 200) == 1410
    assert played.state.timer.turns == (1, 0)  # the second press ends no turn


def test_the_turn_timer_warns_three_times_and_costs_no_points(file2017: Lexicon) -> None:
    played = timed(file2017, "temporizador", clock("start", None, 0))
    timer = played.state.timer
    assert timer is not None
    signals = [timer.warning(at(s)) for s in (0, 120 - TIMER_WARNINGS[0], 120 - TIMER_WARNINGS[1], 118, 120, 130)]
    assert signals == [0, 1, 2, 3, 4, 4]  # three signals, then the turn is over (C.33)
    played.apply(clock("press", ANA, 130))
    assert left(played, BEA, 140) == 110 and left(played, ANA, 140) == 120  # a new turn for each
    played.apply(G.play_event(ANA, "H8 CASA", at=at(131)))
    played.apply(G.play_event(BEA, "H8 CASADA", at=at(250)))
    played.apply(G.end_event(reason="45.5", at=at(400)))
    assert played.scores == (12, 11)  # no overtime on a temporizador (C.35 is the chess clock's)


def test_the_arbiters_pause_stops_both_clocks_but_not_the_games_time(file2017: Lexicon) -> None:
    played = timed(file2017, "corrido", clock("start", None, 0), clock("pause", None, 60), duration=50)
    refused(played, clock("press", ANA, 70), "en pausa")
    refused(played, clock("pause", None, 70), "ya está en pausa")
    assert left(played, ANA, 300) == 1740
    timer = played.state.timer
    assert timer is not None and timer.game_left(at(300)) == timedelta(minutes=50) - timedelta(seconds=300)  # C.42.6
    played.apply(clock("resume", None, 300))
    assert left(played, ANA, 360) == 1680
    refused(played, clock("resume", None, 370), "no está en pausa")


def test_overtime_is_taken_off_at_the_end_ten_points_a_minute_or_part(file2017: Lexicon) -> None:
    played = timed(file2017, "corrido", clock("start", None, 0), G.play_event(ANA, "H8 CASA", at=at(1800)),
                   clock("press", ANA, 1800), G.play_event(BEA, "H8 CASADA", at=at(1900)),
                   clock("press", BEA, 1800 + 1800 + 61))  # fmt: skip
    timer = played.state.timer
    assert timer is not None and timer.penalty(ANA, at(3661)) == 0  # exactly on the limit: not over
    assert timer.penalty(BEA, at(3661)) == 20  # 1:01 over: two minutes begun (C.35)
    played.apply(G.end_event(reason="45.5", at=at(3661)))
    assert played.scores == (12, 11 - 20)
    assert played.scoresheet()[-1] == ScoreRow(BEA, "time", "", -20, -9)
    refused(played, G.time_penalty_event(BEA, points=10), "ya se ha restado")  # the clock's already


def test_the_game_ends_at_the_last_press_not_later(file2017: Lexicon) -> None:
    """Ana goes out (C.45.4): Bea's time since Ana's press is not hers to lose."""
    played = timed(file2017, "corrido", clock("start", None, 0), clock("press", ANA, 10),
                   clock("press", BEA, 10 + 1790), clock("press", ANA, 1820), cgp=BAG_EMPTY_ANA_S)  # fmt: skip
    played.apply(G.play_event(ANA, "H5 CASAS", at=at(1900)))  # entered 80 s after the press
    assert played.ending == "45.4" and played.state.timer is not None
    assert played.state.timer.state() == "ended" and left(played, BEA, 3000) == 10
    played.apply(G.end_event(["", "[CH]EIOUZ?"], at=at(4000)))
    assert played.scores == (307 + 19, 280 - 19)  # no overtime for Bea


def test_a_withdrawn_going_out_play_starts_the_clock_again(file2017: Lexicon) -> None:
    played = timed(file2017, "corrido", clock("start", None, 0), clock("press", ANA, 20),
                   G.play_event(ANA, "H5 CASAX", at=at(25)), cgp=BAG_EMPTY_ANA_X)  # fmt: skip
    assert played.state.timer is not None and played.state.timer.state() == "ended"
    played.apply(G.challenge_event(BEA, at=at(85)))  # the challenge's minute is not Bea's (C.34.2)
    assert played.ending is None and played.state.timer.state() == "running"
    assert left(played, BEA, 100) == 1800 - 15


def test_the_game_ends_on_time_once_the_turns_are_even(file2017: Lexicon) -> None:
    """C.30, C.45.5: after the game's 10 minutes, Bea evens the turns, then the game ends."""
    played = timed(file2017, "corrido", clock("start", None, 0), G.play_event(ANA, "H8 CASA", at=at(500)),
                   clock("press", ANA, 500), duration=10)  # fmt: skip
    assert not time_is_up(played.state, at(590))
    assert not time_is_up(played.state, at(610))  # Bea still owes her turn
    played.apply(G.play_event(BEA, "H8 CASADA", at=at(640)))
    played.apply(clock("press", BEA, 641))
    assert time_is_up(played.state, at(642))
    played.apply(G.end_event(reason="45.5", at=at(650)))
    assert played.finished and played.ending == "45.5" and played.scores == (12, 11)
    assert left(played, ANA, 700) == 1800 - 500  # stopped at Bea's press: no time of Ana's after it
    assert not time_is_up(played.state, at(700))


def test_time_up_with_even_turns_stops_the_clock_at_the_games_end(file2017: Lexicon) -> None:
    played = timed(file2017, "corrido", clock("start", None, 0), duration=10)
    assert time_is_up(played.state, at(600))  # no turn yet: even
    played.apply(G.end_event(reason="45.5", at=at(700)))  # noted 100 s late
    assert left(played, ANA, 800) == 1800 - 600


def test_the_clock_is_rebuilt_from_its_events(file2017: Lexicon) -> None:
    played = timed(file2017, "no_corrido", clock("start", None, 0), clock("press", ANA, 30), clock("pause", None, 40),
                   clock("resume", None, 50), clock("press", ANA, 60), G.play_event(ANA, "H8 CASA", at=at(61)))  # fmt: skip
    again = ClassicGame.replay([Event.from_json(e.to_json()) for e in played.events], file2017)
    assert again.state == played.state
    timer = again.state.timer
    assert timer is not None and timer.to_json(at(90))["players"][BEA]["remaining"] == 1500 - 30


@pytest.mark.parametrize(("seconds", "points"), [(0.001, 10), (60, 10), (60.5, 20), (600, 100)])
def test_overtime_penalty_counts_a_part_of_a_minute_as_a_minute(seconds: float, points: int) -> None:
    assert overtime_penalty(seconds) == points  # C.35


def test_a_flag_fallen_past_the_games_time_is_ended_there_however_late_it_is_noted(file2017: Lexicon) -> None:
    """C.45.5 applied by the server on its next read, perhaps after a restart: the clock stops when the
    game's 40 minutes ran out, so Bea's overtime (C.35) is counted to then, not to the noting."""
    played = timed(file2017, "corrido", clock("start", None, 0), G.play_event(ANA, "H8 CASA", at=at(600)),
                   clock("press", ANA, 600), G.play_event(BEA, "H8 CASADA", at=at(2461)),
                   clock("press", BEA, 2461), duration=40)  # fmt: skip
    assert not time_is_up(played.state, at(2399)) and time_is_up(played.state, at(2400 + 3600))
    played.apply(G.end_event(reason="45.5", at=at(2400 + 3600)))  # an hour after the game's end
    assert played.ending == "45.5" and left(played, ANA, 9000) == 1800 - 600  # Ana's clock never ran
    assert left(played, BEA, 9000) == -61 and played.scores == (12, 11 - 20)  # 1:01 over: 20 points


def correction(player: int, remaining: float, seconds: float, reason: str = "llegó tarde (C.36)") -> Event:
    return G.clock_set_event(player, round(remaining * 1000), reason, at=at(seconds))


def test_the_arbiter_sets_a_late_players_clock(file2017: Lexicon) -> None:
    """C.36: both were absent, the clock ran for both; Ana arrives after 4 minutes and her clock
    is put at the game's 30 minutes less those 4; Bea's keeps running until she comes."""
    played = timed(file2017, "corrido", clock("start", ANA, 0), correction(ANA, 1800 - 240, 240))
    assert left(played, ANA, 300) == 1800 - 240 - 60  # her clock runs on from the correction
    played.apply(correction(BEA, 1200, 300, "reloj de la mesa averiado"))
    assert left(played, BEA, 400) == 1200 and left(played, ANA, 400) == 1800 - 240 - 160
    again = ClassicGame.replay([Event.from_json(e.to_json()) for e in played.events], file2017)
    assert again.state == played.state


def test_a_correction_may_put_a_chess_clock_over_and_the_overtime_is_penalised(file2017: Lexicon) -> None:
    played = timed(file2017, "corrido", clock("start", ANA, 0), clock("press", ANA, 10), clock("pause", None, 20),
                   correction(BEA, -61, 30, "el reloj de reserva marcaba 1:01 de exceso"))  # fmt: skip
    timer = played.state.timer
    assert timer is not None and timer.state() == "paused" and timer.penalty(BEA, at(40)) == 20  # C.35


def test_a_correction_needs_a_reason_and_a_time_the_clock_can_show(file2017: Lexicon) -> None:
    played = timed(file2017, "corrido", clock("start", ANA, 0))
    refused(played, correction(ANA, 600, 10, reason=" "), "motivo")
    refused(played, correction(ANA, 1801, 10), "como mucho en el tiempo de la partida, 30 minutos")
    refused(played, correction(ANA, -1801, 10), "exceso")
    refused(played, Event("clock_set", {"player": ANA, "reason": "llegó tarde"}, "arbitro", at(10)), "remaining_ms")
    timer_game = timed(file2017, "temporizador", clock("start", ANA, 0))
    refused(timer_game, correction(BEA, 60, 10), "solo el turno en curso")
    refused(timer_game, correction(ANA, -1, 10), "no baja de cero")
    timer_game.apply(correction(ANA, 30, 100))  # the turn had 20 s left; the arbiter gives it 30
    assert left(timer_game, ANA, 105) == 25
    ended = timed(file2017, "corrido", clock("start", None, 0), duration=10)
    ended.apply(G.end_event(reason="45.5", at=at(700)))
    refused(ended, correction(ANA, 600, 800), "ha terminado")
    refused(timed(file2017, None), correction(ANA, 600, 10), "no tiene reloj")
