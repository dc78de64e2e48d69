"""The live demo plays a duplicate round and a classic table by itself, through the real path."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateGame
from rules_core.lexicon import Lexicon
from webapp.services.demo import server as demo_server
from webapp.services.demo.server import Demo, Timing, classic_demo_events, prepare_demo_data
from webapp.services.live import LiveGames
from webapp.services.store import EventStore

FAST = Timing(round_seconds=10, show_rack=0, after_close=0, after_master=0, classic_turn=0, restart=0, tick=0.01)


class Clock:
    """``datetime`` for the demo driver, with time that the test moves on."""

    offset = timedelta()

    @classmethod
    def now(cls, tz: timezone | None = None) -> datetime:
        return datetime.now(tz) + cls.offset


@pytest.fixture()
def demo(tmp_path: Path, file2017: Lexicon, monkeypatch: pytest.MonkeyPatch) -> Demo:
    monkeypatch.setattr(demo_server, "datetime", Clock)
    Clock.offset = timedelta()
    return Demo(LiveGames(EventStore(f"sqlite:///{tmp_path / 'v.db'}"), file2017), FAST, seed=5)


def test_a_demo_round_from_rack_to_master(demo: Demo) -> None:
    game = demo.games.duplicate(demo.duplicate_id)
    assert len(game.players) == 12
    for _ in range(3):  # rack, clock started
        demo._duplicate_step()
    assert game.current is not None and game.current.timer_running
    Clock.offset = timedelta(seconds=11)  # the round's 10 seconds are up
    for _ in range(20):
        demo._duplicate_step()
        if game.rounds[0].master is not None:
            break
    r = game.round(1)
    assert r.master is not None and r.master == game.top_plays(1)[0]
    assert len(r.slips) == 12  # every simulated player handed in before TIEMPO
    kinds = [e.kind for e in game.events]
    assert kinds.index("rack_set") < kinds.index("timer") < kinds.index("slip") < kinds.index("master_announced")
    assert {e.actor for e in game.events[13:]} == {"demo"}
    demo._duplicate_step()
    assert len(game.rounds) == 2  # the next rack comes by itself


def test_the_demo_leaves_a_paused_clock_alone(demo: Demo) -> None:
    from rules_core.events import Event

    game = demo.games.duplicate(demo.duplicate_id)
    demo._duplicate_step()
    demo._duplicate_step()
    demo.games.append(demo.duplicate_id, Event("timer", {"round": 1, "action": "pause"}, "arbitro"))
    Clock.offset = timedelta(seconds=60)
    before = len(game.events)
    demo._duplicate_step()
    assert len(game.events) == before


def test_the_classic_table_replays_turn_by_turn(demo: Demo) -> None:
    first = demo.games.open(demo.classic_id)
    assert isinstance(first, ClassicGame)
    demo._classic_step()
    demo._classic_step()
    assert len(first.events) == 3


def test_generated_classic_games_follow_the_rules(file2017: Lexicon) -> None:
    events = classic_demo_events(file2017, seed=11)
    game = ClassicGame.replay(events, file2017)
    assert game.finished and events[-1].kind == "end"
    assert sum(1 for e in events if e.kind == "play") >= 10


def test_each_demo_starts_on_a_fresh_database(tmp_path: Path) -> None:
    (tmp_path / "veedor.db").write_text("old")
    (tmp_path / "veedor.db-wal").write_text("old")
    (tmp_path / "secret_key").write_text("kept")
    prepare_demo_data(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret_key"]


def test_the_demo_game_is_a_duplicate_with_bonuses(demo: Demo) -> None:
    game = demo.games.open(demo.duplicate_id)
    assert isinstance(game, DuplicateGame) and game.settings.bonuses and game.settings.round_seconds == 10


def test_the_demo_tables_replace_their_games_instead_of_piling_them_up(demo: Demo) -> None:
    first = demo.classic_id
    seen = {first}
    for _ in range(3 * 130):  # a replayed game is at most ~120 turns: three restarts at least
        demo._classic_step()
        seen.add(demo.classic_id)
    assert len(seen) >= 3
    listed = [g for g in demo.games.store.games() if g.mode == "classic"]
    assert [g.id for g in listed][-1] == demo.classic_id  # the game in play, and the one just ended
    assert len(listed) == 2 and all(g.name.startswith("Mesa 2: Ana – Bruno") for g in listed)
    assert first not in {g.id for g in listed}
    demo.games.open(demo.classic_id)  # the game in play is whole
    duplicates = [g for g in demo.games.store.games() if g.mode == "duplicate"]
    assert [g.id for g in duplicates] == [demo.duplicate_id]
