"""Storage: events appended with the state in one transaction; a restart loses nothing."""

from pathlib import Path

import pytest

from rules_core.duplicate import DuplicateGame, DuplicateSettings
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon
from rules_core.slips import Slip
from webapp.services.games import GameService
from webapp.services.store import EventStore, StoreError

pytest_plugins = ["tests.postgres"]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each storage test runs on a SQLite file and on a PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'veedor.db'}"
    return str(request.getfixturevalue("postgres_url"))


def start(service: GameService) -> str:
    game_id = service.create_duplicate("Open de prueba", DuplicateSettings(bonuses=True), actor="arbitro")
    for player, name, table in [("ana", "Ana", 1), ("bea", "Bea", 2)]:
        service.append(game_id, Event("player_added", {"player": player, "name": name, "table": table}))
    service.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    service.append(game_id, Event("timer", {"round": 1, "action": "start"}))
    return game_id


def slip(service: GameService, game_id: str, player: str, notation: str) -> None:
    data = {"round": 1, "player": player, "slip": Slip(notation).to_json()}
    service.append(game_id, Event("slip", data, actor="escáner"))


def test_a_restart_mid_round_resumes_exactly(db_url: str, file2017: Lexicon) -> None:
    url = db_url
    service = GameService(EventStore(url), file2017)
    game_id = start(service)
    slip(service, game_id, "ana", "8C AMONEN")
    before = service.duplicate(game_id)

    restarted = GameService(EventStore(url), file2017)  # a new process on the same file
    game = restarted.duplicate(game_id)
    assert game is not before
    assert game.summary() == before.summary()
    assert game.round(1).results == before.round(1).results
    assert [e.to_json() for e in game.events] == [e.to_json() for e in before.events]
    slip(restarted, game_id, "bea", "H4 MANEN")  # the round goes on
    restarted.append(game_id, Event("master_announced", {"round": 1}))
    assert [s.total for s in game.standings()] == [32, 20]  # Ana matched the master: +10
    assert restarted.store.game(game_id).snapshot["master_total"] == 22


def test_a_refused_event_is_not_stored(db_url: str, file2017: Lexicon) -> None:
    service = GameService(EventStore(db_url), file2017)
    game_id = start(service)
    count = service.store.game(game_id).event_count
    with pytest.raises(GameError):
        service.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEIOUAB")}))
    assert service.store.game(game_id).event_count == count


def test_a_failed_write_leaves_the_stored_and_live_state_as_before(
    db_url: str, file2017: Lexicon, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = GameService(EventStore(db_url), file2017)
    game_id = start(service)

    def disk_full(*args: object, **kwargs: object) -> None:
        raise StoreError("disco lleno")

    monkeypatch.setattr(service.store, "append", disk_full)
    with pytest.raises(StoreError):
        slip(service, game_id, "ana", "8C AMONEN")
    monkeypatch.undo()
    game = service.duplicate(game_id)  # rebuilt from what was stored
    assert game.round(1).slips == {}


def test_two_writers_cannot_store_the_same_event_number(db_url: str, file2017: Lexicon) -> None:
    url = db_url
    first = GameService(EventStore(url), file2017)
    game_id = start(first)
    second = GameService(EventStore(url), file2017)
    second.duplicate(game_id)
    slip(first, game_id, "ana", "8C AMONEN")
    with pytest.raises(StoreError, match="cambió"):
        slip(second, game_id, "bea", "H4 MANEN")  # its state is stale
    assert len(second.duplicate(game_id).round(1).slips) == 1  # rebuilt: Ana's slip is there


def test_events_keep_who_and_when(db_url: str, file2017: Lexicon) -> None:
    service = GameService(EventStore(db_url), file2017)
    game_id = start(service)
    slip(service, game_id, "ana", "8C AMONEN")
    stored = service.store.events(game_id)
    assert stored[0].actor == "arbitro" and stored[-1].actor == "escáner"
    assert stored[-1].at.tzinfo is not None and stored[0].at <= stored[-1].at
    assert isinstance(DuplicateGame.replay(stored, file2017), DuplicateGame)


def test_classic_games_are_stored_and_replayed_too(db_url: str, file2017: Lexicon) -> None:
    from rules_core.classic import ClassicGame

    service = GameService(EventStore(db_url), file2017)
    game_id = service.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bea"]))
    service.append(game_id, ClassicGame.play_event(0, "H5 CASA"))
    service.append(game_id, ClassicGame.pass_event(1))
    again = GameService(EventStore(db_url), file2017).open(game_id)
    assert isinstance(again, ClassicGame)
    assert again.state == service.open(game_id).state  # type: ignore[attr-defined]
    assert again.scores == (12, 0)  # CASA from H5 to the star: (3+1+1+1) x 2
