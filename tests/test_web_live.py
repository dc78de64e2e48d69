"""Live updates: the game service wakes waiting streams; waitress delivers them at once."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.lexicon import Lexicon
from webapp.cli.serve import make_server
from webapp.services.live import LiveGames, StreamSlots
from webapp.services.shared import services
from webapp.services.store import EventStore

from .web_helpers import duplicate_game

pytest_plugins = ["tests.conftest_web"]


@pytest.fixture()
def games(tmp_path: Path, file2017: Lexicon) -> LiveGames:
    return LiveGames(EventStore(f"sqlite:///{tmp_path / 'v.db'}"), file2017)


def test_wait_returns_at_once_when_the_version_moved(games: LiveGames) -> None:
    game_id = games.create_duplicate("x", DuplicateSettings())
    assert games.version(game_id) == 1
    started = time.monotonic()
    assert games.wait(game_id, 0, timeout=5) == 1
    assert time.monotonic() - started < 0.1


def test_wait_wakes_on_append_and_times_out_otherwise(games: LiveGames) -> None:
    game_id = games.create_duplicate("x", DuplicateSettings())
    assert games.wait(game_id, 1, timeout=0.05) == 1
    woke: list[float] = []

    def waiter() -> None:
        started = time.monotonic()
        games.wait(game_id, 1, timeout=5)
        woke.append(time.monotonic() - started)

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.05)
    games.append(game_id, Event("player_added", {"player": "a", "name": "Ana", "table": 1}))
    thread.join(2)
    assert woke and woke[0] < 0.5


def test_listeners_hear_every_stored_event(games: LiveGames) -> None:
    heard: list[tuple[str, str]] = []
    games.subscribe(lambda game_id, event: heard.append((game_id, event.kind)))
    game_id = games.create_duplicate("x", DuplicateSettings())
    games.append(game_id, Event("player_added", {"player": "a", "name": "Ana", "table": 1}))
    assert heard == [(game_id, "game_created"), (game_id, "player_added")]


def test_close_wakes_every_stream(games: LiveGames) -> None:
    game_id = games.create_duplicate("x", DuplicateSettings())
    threading.Timer(0.05, games.close).start()
    started = time.monotonic()
    games.wait(game_id, 1, timeout=5)
    assert time.monotonic() - started < 1 and games.closing


def test_stream_slots() -> None:
    slots = StreamSlots(2)
    assert slots.acquire() and slots.acquire() and not slots.acquire()
    slots.release()
    assert slots.open == 1 and slots.acquire()


def test_stream_slots_per_address() -> None:
    slots = StreamSlots(3, per_address=2)
    assert slots.acquire("127.0.0.9") and slots.acquire("127.0.0.9") and not slots.acquire("127.0.0.9")
    assert slots.acquire("127.0.0.2") and not slots.acquire("127.0.0.3")  # 3 in all
    slots.release("127.0.0.9")
    assert slots.open_from("127.0.0.9") == 1 and slots.acquire("127.0.0.3")


@pytest.fixture()
def served(app: Flask) -> Iterator[tuple[Flask, int]]:
    server = make_server(app, "127.0.0.1", 0, 24)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield app, server.effective_port
    services(app).games.close()
    server.close()
    thread.join(5)


def read_event(response: http.client.HTTPResponse) -> str:
    """The next SSE message that carries data (comments and retry lines skipped)."""
    lines: list[str] = []
    while True:
        line = response.readline().decode()
        if line in ("\n", "\r\n", ""):
            if any(part.startswith("data:") for part in lines):
                return "".join(lines)
            lines = []
            if line == "":
                raise EOFError
            continue
        lines.append(line)


def test_waitress_delivers_a_change_to_a_screen_within_a_second(served: tuple[Flask, int]) -> None:
    app, port = served
    game_id = duplicate_game(app)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", f"/api/games/{game_id}/stream")
    response = connection.getresponse()
    assert response.status == 200 and response.getheader("Content-Type", "").startswith("text/event-stream")
    assert '"phase":"ronda"' in read_event(response)
    sent = time.monotonic()
    services(app).games.append(game_id, Event("timer", {"round": 1, "action": "start"}))
    message = read_event(response)
    assert time.monotonic() - sent < 1.0
    assert '"state": "running"' in message
    connection.close()


def test_the_served_pages_answer(served: tuple[Flask, int]) -> None:
    app, port = served
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", "/results")
    response = connection.getresponse()
    assert response.status == 200 and response.getheader("Server") == "Veedor"
    response.read()
    connection.close()


def test_a_burst_of_changes_reaches_a_stream_as_one_state(app: Flask) -> None:
    """Slips entered quickly cost each screen a state every STATE_GAP seconds, not one per slip."""
    game_id = duplicate_game(app)
    answer = app.test_client().get(f"/api/games/{game_id}/stream", buffered=False)
    chunks = answer.response  # type: ignore[attr-defined]
    next(chunks)  # retry
    first = next(chunks).decode()
    version = services(app).games.version(game_id)
    assert first.startswith(f"id: {version}\n")
    games = services(app).games

    def burst() -> None:  # three changes 20 ms apart, while the stream waits
        for table in (11, 12, 13):
            time.sleep(0.02)
            games.append(game_id, Event("player_added", {"player": f"j{table}", "name": "X", "table": table}))

    thread = threading.Thread(target=burst)
    thread.start()
    assert next(chunks).decode().startswith(f"id: {version + 3}\n")  # not version + 1
    thread.join(5)
    answer.close()
