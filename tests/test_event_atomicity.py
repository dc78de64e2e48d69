"""Events are all-or-nothing: a refused event leaves a game exactly as it was (issue 19).

Hypothesis plays random sequences of valid and invalid events into both game kinds:
every event the rules refuse (GameError) must leave the state unchanged, nothing but
GameError may escape ``apply``, and a replay of the accepted events rebuilds the same
state. The same holds through the game service and its store: after each refused
append the live game equals a game rebuilt from the store.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules_core.board import SIZE
from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateGame, DuplicateSettings, rack_labels
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon
from rules_core.movegen import generate_plays
from rules_core.racks import draw_rack
from webapp.services.games import GameService
from webapp.services.store import EventStore

# Odd values that devices and forms have sent: wrong types, huge numbers, NaN, lone surrogates.
ODD = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**20), st.floats(allow_nan=True),
                st.text(max_size=6), st.lists(st.integers(0, 3), max_size=2), st.just("x\ud800y"),
                st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))  # fmt: skip
HYPOTHESIS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _or(rng: random.Random, good: Any, odd: Any) -> Any:
    """``good``, or now and then the odd value in its place."""
    return odd if rng.random() < 0.15 else good


def _board(board: Any) -> list[list[int]]:
    return [[board[row, col] for col in range(SIZE)] for row in range(SIZE)]


def duplicate_state(game: DuplicateGame) -> Any:
    """Everything a duplicate game holds, as comparable values."""
    rounds = [(r.number, _board(r.board), r.rack, r.source, r.redraws, {p: s.to_json() for p, s in r.slips.items()},
               dict(r.results), [e.to_json() for e in r.history], list(r.timer),
               r.master.notation if r.master else None, r.annulled) for r in game.rounds]  # fmt: skip
    return (game.settings.to_json(), game.created, dict(game.players), rounds, _board(game.board),
            sorted(game.pool), game.leave, game.end_reason, [e.to_json() for e in game.events])  # fmt: skip


def classic_state(game: ClassicGame) -> Any:
    return (game.state, [e.to_json() for e in game.events])


def _next_kind(game: DuplicateGame, rng: random.Random, choice: int) -> int:
    """Mostly what the round needs next (a rack, slips, the master), else ``choice``."""
    if rng.random() < 0.3:
        return choice
    open_round = game.current is not None and game.current.master is None
    if not open_round:
        return 1
    return rng.choice([3, 3, 3, 4, 2, 5])


def _duplicate_event(game: DuplicateGame, rng: random.Random, odd: Any, choice: int, lexicon: Lexicon) -> Event:
    """One event: mostly what a round needs next, now and then with one value made wrong."""
    choice = _next_kind(game, rng, choice)
    number = game.current.number if game.current else len(game.rounds) + 1
    player = rng.choice(["j1", "j2", "j3", "j1", "j2", "j3", "zz"])
    if choice == 0 and rng.random() < 0.3:
        return Event("player_added", {"player": player, "name": rng.choice(["Ana", "", odd]), "table": rng.choice([1, 2, 3, odd])})
    if choice <= 1:
        draw = draw_rack(game.leave, game.bag, number, rng)
        rack = rack_labels(draw.rack) if draw else ["Q"]
        return Event("rack_set", {"round": _or(rng, rng.choice([number, number, number + 1]), odd), "rack": _or(rng, rack, odd),
                                  "redraws": _or(rng, 0, odd)})  # fmt: skip
    if choice == 2:
        return Event("timer", {"round": number, "action": rng.choice(["start", "pause", "close", odd])})
    if choice in (3, 4):
        notation: Any = odd
        if game.current is not None and rng.random() < 0.7:
            plays = generate_plays(game.current.board, game.current.rack, lexicon)
            notation = rng.choice(plays).notation if plays else "H8 CASA"
        slip = {"notation": notation, "late": _or(rng, False, odd), "source": rng.choice(["teclado", odd])}
        kind = "slip" if choice == 3 else "slip_corrected"
        return Event(kind, {"round": _or(rng, number, odd), "player": player, "slip": slip,
                            "reason": rng.choice(["", "error de teclado"])})  # fmt: skip
    if choice == 5:
        return Event("master_announced", {"round": _or(rng, number, odd), "play": _or(rng, None, odd)})
    if choice == 6:
        return Event("master_annulled", {"round": rng.choice([number - 1, odd]), "reason": rng.choice(["", "error", odd])})
    if rng.random() < 0.2:
        return Event("game_ended", {"reason": _or(rng, None, odd)})
    return Event("master_announced", {"round": number})


def _new_duplicate(lexicon: Lexicon) -> list[Event]:
    first = Event("game_created", {"settings": DuplicateSettings(rounds=6).to_json()})
    return [first] + [Event("player_added", {"player": f"j{i}", "name": f"P{i}", "table": i}) for i in (1, 2, 3)]


@HYPOTHESIS
@given(seed=st.integers(0, 10**6), choices=st.lists(st.integers(0, 7), min_size=5, max_size=30), odd=ODD)
def test_a_refused_duplicate_event_changes_nothing(file2017: Lexicon, seed: int, choices: list[int], odd: Any) -> None:
    rng = random.Random(seed)
    game = DuplicateGame.replay(_new_duplicate(file2017), file2017)
    for choice in choices:
        event = _duplicate_event(game, rng, odd, choice, file2017)
        before = duplicate_state(game)
        try:
            game.apply(event)
        except GameError:
            assert duplicate_state(game) == before, event
    assert duplicate_state(DuplicateGame.replay(game.events, file2017)) == duplicate_state(game)


def _classic_event(game: ClassicGame, rng: random.Random, odd: Any, choice: int, lexicon: Lexicon) -> Event:
    to_move = game.state.to_move
    player = rng.choice([to_move, to_move, 1 - to_move, odd])
    if choice <= 2:
        rack = [t for t in random.Random(rng.random()).sample(range(1, 28), 7)]
        plays = generate_plays(game.state.board, rack, lexicon)
        notation = rng.choice(plays).notation if plays and rng.random() < 0.8 else rng.choice(["H8 CASA", odd])
        return Event("play", {"player": player, "notation": notation, "score": rng.choice([None, odd])})
    if choice == 3:
        return Event("exchange", {"player": player, "count": rng.choice([1, 7, 9, odd])})
    if choice == 4:
        return Event("pass", {"player": player})
    if choice == 5:
        return Event("challenge", {"player": rng.choice([None, 1 - to_move, odd])})
    if choice == 6:
        return Event("time_penalty", {"player": player, "seconds_over": rng.choice([30, odd])})
    return Event("end", {"racks": rng.choice([None, ["", ""], odd]), "reason": rng.choice([None, odd])})


@HYPOTHESIS
@given(seed=st.integers(0, 10**6), choices=st.lists(st.integers(0, 7), min_size=5, max_size=30), odd=ODD)
def test_a_refused_classic_event_changes_nothing(file2017: Lexicon, seed: int, choices: list[int], odd: Any) -> None:
    rng = random.Random(seed)
    game = ClassicGame.replay([ClassicGame.create_event(["Ana", "Bruno"])], file2017)
    for choice in choices:
        event = _classic_event(game, rng, odd, choice, file2017)
        before = classic_state(game)
        try:
            game.apply(event)
        except GameError:
            assert classic_state(game) == before, event
    assert classic_state(ClassicGame.replay(game.events, file2017)) == classic_state(game)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), choices=st.lists(st.integers(0, 7), min_size=5, max_size=20), odd=ODD)
def test_the_live_game_always_equals_the_stored_one(file2017: Lexicon, seed: int, choices: list[int], odd: Any) -> None:
    rng = random.Random(seed)
    store = EventStore("sqlite://")
    service = GameService(store, file2017)
    first, *players = _new_duplicate(file2017)
    game_id = service.create("duplicate", "Prueba", first)
    for event in players:
        service.append(game_id, event)
    for choice in choices:
        game = service.duplicate(game_id)
        event = _duplicate_event(game, rng, odd, choice, file2017)
        before = duplicate_state(game)
        try:
            service.append(game_id, event)
        except GameError:
            assert duplicate_state(service.duplicate(game_id)) == before
        rebuilt = GameService(store, file2017).duplicate(game_id)
        assert duplicate_state(rebuilt) == duplicate_state(service.duplicate(game_id))


def test_a_slip_with_a_number_for_its_play_is_refused_and_leaves_no_trace(file2017: Lexicon) -> None:
    """The reported case: ``"notation": 123`` was answered 409 but left a phantom slip."""
    game = DuplicateGame.replay(_new_duplicate(file2017), file2017)
    game.apply(Event("rack_set", {"round": 1, "rack": list("AEMNNOQ")}))
    before = duplicate_state(game)
    try:
        game.apply(Event("slip", {"round": 1, "player": "j1", "slip": {"notation": 123}}))
    except GameError:
        pass
    else:
        raise AssertionError("a slip whose play is a number was accepted")
    assert duplicate_state(game) == before and "j1" not in game.round(1).slips
    game.apply(Event("slip", {"round": 1, "player": "j1", "slip": {"notation": "H4 MANEN"}}))
    assert game.round(1).results["j1"].play == "H4 MANEN"
