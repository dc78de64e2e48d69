"""With the table's clock in play, the camera commits a play at the player's press, never half laid.

Rendered boards (``camera_frames.board_image``, no hands): Ana lays CASA, stops, adds an
S; only her press makes the play, H8 CASAS. Through the server: a press stored in the
game reaches the camera's tracker (``CameraRegistry`` sends ``{"type": "press"}``).
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from hardware.camera import Frame
from rules_core.alphabet import tile_from_label
from rules_core.classic import ClassicGame
from rules_core.lexicon import Lexicon
from vision.board.desk import CameraDesk, apply_command
from vision.board.tracker import BoardTracker, Report, TrackerSettings
from webapp.services.cameras import CameraRegistry
from webapp.services.live import LiveGames
from webapp.services.store import EventStore

from .camera_frames import board_image


def _word(word: str) -> dict[tuple[int, int], int]:
    return {(7, 7 + i): tile_from_label(letter) for i, letter in enumerate(word)}


def _feed(tracker: BoardTracker, image: np.ndarray, count: int, start: int) -> list[Report]:
    return [r for k in range(start, start + count) for r in tracker.feed(Frame(image, k * 0.2, k))]


def test_a_held_play_is_committed_at_the_press_as_the_board_stands(file2017: Lexicon) -> None:
    tracker = BoardTracker("mesa-1", file2017, TrackerSettings(turn=1))
    apply_command(tracker, {"type": "sync", "cgp": "/".join(["15"] * 15), "last": [], "hold": True})
    reports = _feed(tracker, board_image({}), 4, 0)
    reports += _feed(tracker, board_image(_word("CASA")), 5, 4)  # a word already, but not finished
    assert tracker.status.status == "esperando el reloj"
    reports += _feed(tracker, board_image(_word("CASAS")), 5, 9)
    assert [r for r in reports if r.kind in ("play", "doubt")] == []
    apply_command(tracker, {"type": "press"})
    played = [r.notation for r in _feed(tracker, board_image(_word("CASAS")), 1, 14) if r.kind == "play"]
    assert played == ["H8 CASAS"]


def test_a_press_with_nothing_new_on_the_board_commits_nothing_later(file2017: Lexicon) -> None:
    """Bea passes (her press, no tile laid): Ana's next word waits for Ana's own press."""
    tracker = BoardTracker("mesa-1", file2017, TrackerSettings(turn=1))
    tracker.hold = True
    empty = board_image({})
    _feed(tracker, empty, 4, 0)
    tracker.press()
    assert _feed(tracker, empty, 2, 4) == []
    assert [r for r in _feed(tracker, board_image(_word("CASA")), 5, 6) if r.kind == "play"] == []


def test_the_servers_press_reaches_the_camera_of_the_game(file2017: Lexicon) -> None:
    games = LiveGames(EventStore("sqlite://"), file2017)
    game_id = games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bea"], clock="no_corrido"))
    registry = CameraRegistry(games)
    sent: list[dict[str, object]] = []
    registry.add("mesa-1", kind="local", deliver=sent.append, game_id=game_id)
    now = datetime.now(timezone.utc)
    games.append(game_id, ClassicGame.clock_event("start", at=now))
    assert sent[-1]["type"] == "sync" and sent[-1]["hold"] is True  # the clock is in play
    games.append(game_id, ClassicGame.clock_event("press", 0, at=now))
    assert sent[-1] == {"type": "press"}
    games.append(game_id, ClassicGame.clock_event("press", 0, at=now))  # no corrido: Bea's time starts
    assert sent[-1]["type"] == "sync"  # no turn ended: nothing to commit
