"""Scanned slips into a duplicate game: read ones become slip events, doubtful ones wait for the arbiter."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import cv2
import numpy as np
import pytest

from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon
from vision.slips import layout
from vision.slips.feed import GameFeed, round_status
from vision.slips.ingest import Ingestor
from vision.slips.reader import SlipReader
from vision.slips.review import ReviewQueue
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw
from webapp.services.games import GameService
from webapp.services.store import EventStore


@pytest.fixture()
def game(small_lexicon: Lexicon) -> tuple[GameService, str]:
    service = GameService(EventStore("sqlite://"), small_lexicon)
    game_id = service.create_duplicate("Prueba", DuplicateSettings(rounds=3))
    for number, name in ((1, "Ana"), (2, "Bruno"), (3, "Carmen")):
        service.append(game_id, Event("player_added", {"player": f"j{number}", "name": name, "table": number}))
    service.append(game_id, Event("rack_set", {"round": 1, "rack": list("AACSEIO"), "source": "manual"}))
    return service, game_id


def scan_of(game_id: str, player: str, table: int, fields: dict[str, str], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    printed = layout.render_slip(layout.SlipInfo(game_id, "Prueba", table, player, player))
    writer = hw.HersheyWriter(hw.TRAIN_HERSHEY[1])
    return drawn.scan(drawn.fill_slip(printed, fields, writer, rng), rng)


def feed_of(service: GameService, game_id: str, tmp_path: Path) -> GameFeed:
    """The game's slip feed, its review queue under ``tmp_path/lector``."""
    return GameFeed(game_id, lambda: service.duplicate(game_id), partial(service.enter_slip, game_id),
                    SlipReader(service.lexicon), ReviewQueue(tmp_path / "lector"))  # fmt: skip


def test_a_read_slip_is_submitted_and_a_doubtful_one_waits(game: tuple[GameService, str], tmp_path: Path) -> None:
    service, game_id = game
    feed = feed_of(service, game_id, tmp_path)
    queue = feed.queue
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    cv2.imwrite(str(inbox / "ana.png"), scan_of(game_id, "j1", 1, {"ronda": "1", "coordenada": "H8", "palabra": "CASA"}, 1))
    cv2.imwrite(str(inbox / "bruno.png"), scan_of(game_id, "j2", 2, {"ronda": "1", "coordenada": "", "palabra": "CASA"}, 2))
    cv2.imwrite(str(inbox / "otra.png"), scan_of("otra-partida", "j3", 3, {"ronda": "1", "coordenada": "H8", "palabra": "CASA"}, 3))
    ingestor = Ingestor(inbox, tmp_path / "lector", feed.read_page)
    ingestor.poll()
    duplicate = service.duplicate(game_id)
    r = duplicate.round(1)
    assert r.slips["j1"].notation == "H8 CASA" and r.slips["j1"].source == "escáner"
    assert r.results["j1"].score > 0
    assert "j2" not in r.slips and "j3" not in r.slips
    waiting = {item.player: item for item in queue.pending()}
    assert set(waiting) == {"j2", None}  # another game's slip: its player is another game's, not this one's
    assert Path(waiting["j2"].crop).exists() and Path(waiting["j2"].slip_image).exists()
    other = waiting[None]
    assert "otra partida (código otra-par)" in other.note and other.flags == ("other_game",)
    assert other.proposal is None and other.reading == "" and Path(other.crop).exists()  # held unread
    assert round_status(duplicate, queue, 1) == {"j1": "read", "j2": "flagged", "j3": "missing"}
    # the arbiter corrects one and voids the other; the queue survives a restart
    feed.resolve(waiting["j2"].id, "correct", "árbitro", notation="H8 CASO")
    feed.resolve(other.id, "void", "árbitro", reason="papeleta de otra partida", player="j3", round_number=1)
    r = service.duplicate(game_id).round(1)
    assert r.slips["j2"].notation == "H8 CASO" and r.results["j2"].valid
    assert r.slips["j3"].void == "papeleta de otra partida" and r.results["j3"].score == 0
    again = ReviewQueue(tmp_path / "lector")
    assert again.pending() == [] and again.items[waiting["j2"].id].status == "corrected"
    assert round_status(service.duplicate(game_id), again, 1) == {"j1": "read", "j2": "read", "j3": "read"}


def test_accepting_needs_a_player_and_a_round(game: tuple[GameService, str], tmp_path: Path) -> None:
    service, game_id = game
    feed = feed_of(service, game_id, tmp_path)
    queue = feed.queue
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    cv2.imwrite(str(inbox / "nada.png"), np.full((600, 800), 240, np.uint8))
    Ingestor(inbox, tmp_path / "lector", feed.read_page).poll()
    (item,) = queue.pending()
    assert item.flags == ("position_unknown",) and "ninguna papeleta" in item.note
    with pytest.raises(ValueError, match="jugador y la ronda"):
        feed.resolve(item.id, "correct", "árbitro", notation="H8 CASO")
    feed.resolve(item.id, "correct", "árbitro", notation="H8 CASO", player="j1", round_number=1)
    assert service.duplicate(game_id).round(1).slips["j1"].notation == "H8 CASO"


def test_relative_notation_allowed_sends_every_slip_to_the_arbiter(small_lexicon: Lexicon, tmp_path: Path) -> None:
    """D.III.20.1.d: where the director allows relative-board notation, which the reader does not read,
    a slip it would have scored goes to the arbiter instead, flagged so."""
    service = GameService(EventStore("sqlite://"), small_lexicon)
    settings = DuplicateSettings(rounds=3, notations=("canonica", "relativa"))
    game_id = service.create_duplicate("Relativa", settings)
    service.append(game_id, Event("player_added", {"player": "j1", "name": "Ana", "table": 1}))
    service.append(game_id, Event("rack_set", {"round": 1, "rack": list("AACSEIO"), "source": "manual"}))
    assert service.duplicate(game_id).settings.notations == ("canonica", "relativa")  # rebuilt from the stored event
    feed = feed_of(service, game_id, tmp_path)
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    cv2.imwrite(str(inbox / "ana.png"), scan_of(game_id, "j1", 1, {"ronda": "1", "coordenada": "H8", "palabra": "CASA"}, 1))
    Ingestor(inbox, tmp_path / "lector", feed.read_page).poll()
    assert "j1" not in service.duplicate(game_id).round(1).slips
    (waiting,) = feed.queue.pending()
    assert waiting.player == "j1" and "relative_notation" in waiting.flags


def test_the_canonical_notation_is_always_allowed() -> None:
    """D.III.20.1: canonical notation is always accepted; unknown notations are refused by name."""
    with pytest.raises(GameError, match="canónica"):
        DuplicateSettings(notations=("absoluta",))
    with pytest.raises(GameError, match="taquigrafía"):
        DuplicateSettings(notations=("canonica", "taquigrafía"))
    settings = DuplicateSettings(notations=("canonica", "absoluta"))
    assert DuplicateSettings.from_json(settings.to_json()) == settings
