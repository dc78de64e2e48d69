"""A real browser (Debian's Chromium, headless, driven by Playwright) runs a round from the console.

The arbiter logs in, sets the rack, starts the clock, enters a slip by keyboard and
publishes the master; the projection screen, open in another page, follows each step
through the live stream. When the server process dies the screen shows that it
is reconnecting, and recovers by itself when the server is back. Screenshots go to ``$VEEDOR_SCREENSHOTS``
(default: the test's temporary folder). Needs ``apt-get install chromium`` and
``pip install playwright`` (never ``playwright install``: the browser is Debian's).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.lexicon import Lexicon
from webapp.services.accounts import Accounts, arbiters
from webapp.services.live import LiveGames
from webapp.services.store import EventStore

from ..conftest import FILE2017, REPO
from ..web_helpers import ARBITER, PASSWORD, PLAYERS

pytest_plugins = ["tests.conftest_web"]

SETTLE_MS = 5000  # the longest the screen may take to follow a change here




class Server:
    """``veedor serve`` in its own process on a SQLite file: it can be killed and started again."""

    def __init__(self, data: Path) -> None:
        self.data = data
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-m", "webapp.cli", "serve", "--port", str(self.port), "--data", str(self.data),
                   "--lexicon", str(FILE2017), "--threads", "24"]  # fmt: skip
        self.process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/results", timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("veedor serve did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None


@pytest.fixture()
def server(tmp_path: Path, file2017: Lexicon, password_hash: str) -> Iterator[tuple[Server, str]]:
    """A served database holding the test arbiter and a duplicate game of three players."""
    store = EventStore(f"sqlite:///{tmp_path / 'veedor.db'}")
    with Accounts(store.engine).engine.begin() as connection:
        connection.execute(insert(arbiters).values(login=ARBITER, password_hash=password_hash,
                                                   created_at=datetime.now(timezone.utc)))  # fmt: skip
    games = LiveGames(store, file2017)
    game_id = games.create_duplicate("Open de prueba", DuplicateSettings(bonuses=True))
    for table, name in PLAYERS:
        games.append(game_id, Event("player_added", {"player": f"j{table}", "name": name, "table": table}))
    running = Server(tmp_path)
    running.start()
    yield running, game_id
    running.stop()


def test_a_round_from_the_console_reaches_the_screen(server: tuple[Server, str], browser: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    server, game_id = server
    errors: list[str] = []
    screen = browser.new_page(viewport={"width": 1920, "height": 1080})
    screen.on("pageerror", lambda error: errors.append(str(error)))
    screen.goto(f"{server.url}/display/{game_id}")
    expect(screen.locator("#round")).to_have_text("Esperando el primer atril")

    console = browser.new_page(viewport={"width": 1440, "height": 1000})
    console.on("pageerror", lambda error: errors.append(str(error)))
    console.on("dialog", lambda dialog: dialog.accept())
    console.goto(f"{server.url}/arbiter/g/{game_id}")
    console.fill("input[name=login]", ARBITER)
    console.fill("input[name=password]", PASSWORD)
    console.click("button[type=submit]")

    console.fill("#manual-rack", "AEMNNOQ")
    console.press("#manual-rack", "Enter")
    expect(screen.locator("#rack .tile")).to_have_count(7, timeout=SETTLE_MS)
    expect(screen.locator("#round")).to_have_text("Ronda 1")

    console.click("#timer-start")
    expect(screen.locator("#clock")).not_to_have_class("clock idle", timeout=SETTLE_MS)
    expect(console.locator("#slip-table")).to_be_focused()
    console.keyboard.type("1")
    console.keyboard.press("Enter")
    console.keyboard.type("8C AMONEN")
    expect(console.locator("#preview")).to_contain_text("Ana", timeout=SETTLE_MS)
    expect(console.locator("#preview")).to_contain_text("22 puntos")
    console.keyboard.press("Enter")
    expect(console.locator("#preview")).to_contain_text("Mesa 1 anotada", timeout=SETTLE_MS)
    expect(console.locator("#missing .chip")).to_have_count(2)
    expect(console.locator("#slip-table")).to_be_focused()
    expect(screen.locator("#foot")).to_contain_text("Papeletas: 1 de 3", timeout=SETTLE_MS)

    console.keyboard.type("2")
    console.keyboard.press("Enter")
    console.keyboard.type("H4 MANEN")
    console.keyboard.press("F3")  # late: one key
    expect(console.locator("#flag-late")).to_be_checked()
    expect(console.locator("#preview")).to_contain_text("fuera de tiempo", timeout=SETTLE_MS)
    console.screenshot(path=str(shots / "browser-console.png"), full_page=True)
    console.keyboard.press("Enter")
    expect(console.locator("#slips tbody tr")).to_have_count(2, timeout=SETTLE_MS)
    screen.screenshot(path=str(shots / "browser-screen-round.png"))

    console.click("#timer-close")
    expect(console.locator("#top-plays input:checked")).to_have_value("H3 AMONEN")
    console.click("#publish-master")
    expect(screen.locator("#master-play")).to_have_text("H3 AMONEN", timeout=SETTLE_MS)
    expect(screen.locator("#master-score")).to_have_text("22 puntos")
    expect(screen.locator(".board .tile.last")).to_have_count(6)
    screen.screenshot(path=str(shots / "browser-screen-master.png"))

    server.stop()  # the server dies
    expect(screen.locator("#reconnecting")).to_be_visible(timeout=10_000)
    screen.screenshot(path=str(shots / "browser-screen-reconnecting.png"))
    server.start()  # and comes back: the screen reconnects by itself, nothing was lost
    expect(screen.locator("#reconnecting")).to_be_hidden(timeout=10_000)
    expect(screen.locator("#master-play")).to_have_text("H3 AMONEN")
    assert errors == []


def test_typing_slips_fast_never_runs_one_into_the_next(server: tuple[Server, str], browser: Any) -> None:
    """A "¿seguro?" selects the play: what the arbiter types next (the next table, Intro, its play, Intro,
    typed before the question shows) replaces it and goes to the next slip; the doubtful slip stays unstored
    and said so. A play typed without its separator is read; F4 shows the void reasons, chosen by number."""
    from playwright.sync_api import expect

    server, game_id = server
    errors: list[str] = []
    console = browser.new_page(viewport={"width": 1440, "height": 1000})
    console.on("pageerror", lambda error: errors.append(str(error)))
    console.goto(f"{server.url}/arbiter/g/{game_id}")
    console.fill("input[name=login]", ARBITER)
    console.fill("input[name=password]", PASSWORD)
    console.click("button[type=submit]")
    console.fill("#manual-rack", "AEMNNOQ")
    console.press("#manual-rack", "Enter")
    expect(console.locator("#slip-table")).to_be_focused(timeout=SETTLE_MS)

    keys = console.keyboard
    for text in ("1", "\n", "3H AMONEN", "\n", "2", "\n", "H3AMONEN", "\n"):  # no pause: as a fast typist does
        keys.press("Enter") if text == "\n" else keys.type(text)
    expect(console.locator("#preview")).to_contain_text("Mesa 2 anotada: H3 AMONEN, 22 puntos", timeout=SETTLE_MS)
    expect(console.locator("#preview")).to_contain_text("Mesa 1 sin anotar: «3H AMONEN» esperaba confirmación")
    expect(console.locator("#missing .chip")).to_have_count(2)  # tables 1 and 3: nothing stored for 1
    expect(console.locator("#slips tbody tr")).to_have_count(1)

    keys.type("1")
    keys.press("Enter")
    keys.type("3H AMONEN")
    keys.press("Enter")
    expect(console.locator("#preview")).to_contain_text("coordenadas en orden incorrecto", timeout=SETTLE_MS)
    selected = console.evaluate("() => { const p = document.getElementById('slip-play');"
                                " return p.value.slice(p.selectionStart, p.selectionEnd); }")  # fmt: skip
    assert selected == "3H AMONEN"  # typing replaces it
    keys.press("Enter")  # stored as it is: void (D.III.20.4)
    expect(console.locator("#slips tbody tr")).to_have_count(2, timeout=SETTLE_MS)

    keys.type("3")
    keys.press("Enter")
    keys.type("H4 MANEN")
    keys.press("F4")
    expect(console.locator("#void-menu")).to_be_visible()
    keys.press("Enter")  # no reason chosen: nothing is stored
    expect(console.locator("#void-menu")).to_be_visible()
    keys.press("2")
    expect(console.locator("#void-menu")).to_be_hidden()
    expect(console.locator("#void-reason")).to_have_value("jugador no identificable")
    expect(console.locator("#slip-play")).to_have_value("H4 MANEN")
    keys.press("Enter")
    expect(console.locator("#preview")).to_contain_text("Mesa 3 anotada", timeout=SETTLE_MS)
    expect(console.locator("#slips tbody tr")).to_have_count(3)
    expect(console.locator("#slips tbody tr").nth(2)).to_contain_text("jugador no identificable")
    assert errors == []
