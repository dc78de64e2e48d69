"""A real browser presses a classic table's clock through the last turns of a game.

A tablet opens the table's clock with its device key; the room's screen follows the game.
The players start the clock, and each press ends a turn: the table's camera (here a stand-in
that, like ``CameraLoop``, reports the board it sees once told of the press) commits the play,
and the screen shows the board and both clocks. The tablet is reloaded mid-turn (it must show
the server's time, not restart it), loses the network for a press (kept at the time it was
made), the arbiter pauses from an arbiter's session and corrects Bea's time (C.36), the last
play goes out (C.45.4) and the arbiter counts the racks. Position: every tile on rows A-D and
L-O but CASA (H5-H8) and two S on each rack; Ana plays H5 CASAS, Bea 6H AS, Ana 8H AS and is
out. Screenshots go to
``$VEEDOR_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import make_server

from rules_core.classic import ClassicGame
from webapp.services.shared import services

from ..web_helpers import ARBITER, PASSWORD
from .screen_checks import fits

pytest_plugins = ["tests.conftest_web"]

SETTLE_MS = 5000
ENDGAME = ("aaAAAAAAAAAABBC/CC[CH]DDDDDEEEEEEE/EEEEEFGGHHIIIII/IJLLLL[LL]MMNNNNNÑ/15/15/15/4CASA7/15/15/15/"
           "OOOOOOOOOPPQRRR/RR[RR]STTTTUUUUUVX/YZ13/15 SS/SS 300/280 0")  # fmt: skip
PLAYS = ["H5 CASAS", "6H AS", "8H AS"]
# Each text of the clock's face that spills out of its half or out of the screen.
INSIDE_JS = """() => [...document.querySelectorAll('.half > *, .bar > *')].filter(n => n.offsetParent).filter(n => {
  const r = n.getBoundingClientRect(), box = n.parentElement.getBoundingClientRect();
  return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1
    || r.right > innerWidth + 1 || r.bottom > innerHeight + 1 || n.scrollWidth > n.clientWidth + 1;
}).map(n => n.className + ': ' + n.textContent)"""


class Camera(threading.Thread):
    """The table's camera as the server sees it: a status every half second and, after each
    press, the play now on the board (a report, as ``hardware.camera_worker`` sends one)."""

    def __init__(self, app: Flask, name: str, game_id: str) -> None:
        super().__init__(daemon=True)
        self.registry = services(app).cameras
        self.name, self.inbox, self.plays = name, queue.Queue[dict[str, Any]](), list(PLAYS)
        self.stop = threading.Event()
        self.registry.add(name, kind="local", deliver=self.inbox.put, game_id=game_id, table=3)

    def run(self) -> None:
        reported = 0
        while not self.stop.is_set():
            self.registry.receive(self.name, {"type": "status", "signal": True, "state": "estable"})
            try:
                command = self.inbox.get(timeout=0.5)
            except queue.Empty:
                continue
            if command.get("type") == "press" and self.plays:
                reported += 1
                report = {"kind": "play", "camera": self.name, "t": 0.0, "frame": reported, "id": reported,
                          "notation": self.plays.pop(0), "message": "jugada leída"}  # fmt: skip
                self.registry.receive(self.name, {"type": "report", "id": f"informe-{reported}", "report": report})


@pytest.fixture()
def table(app: Flask) -> Iterator[tuple[str, str, str]]:
    """The app served in a thread, a classic game at table 3 with its clock (tiempo corrido) and
    camera, and the key of the table's clock: (url, game id, key)."""
    games = services(app).games
    game_id = games.create("classic", "Mesa 3", ClassicGame.create_event(["Ana", "Bea"], clock="corrido", cgp=ENDGAME))
    key = services(app).accounts.add_device("reloj-mesa-3", "clock")
    camera = Camera(app, "mesa-3", game_id)
    camera.start()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", game_id, key
    camera.stop.set()
    games.close()
    server.shutdown()


def server_clock(app: Flask, game_id: str) -> Any:
    with services(app).games.reading(game_id) as game:
        return game.state.timer


def drift_after_reload(app: Flask, game_id: str, tablet: Any, player: int) -> float:
    """The tablet's time for ``player`` minus the server's, at the same moment (seconds)."""
    before = datetime.now(timezone.utc)
    shown = tablet.evaluate(f"() => window.VeedorTableClock.live().players[{player}].remaining")
    after = datetime.now(timezone.utc)
    truth = server_clock(app, game_id).remaining(player, before + (after - before) / 2).total_seconds()
    return float(shown) - truth


def test_a_short_game_pressed_on_a_tablet(app: Flask, table: tuple[str, str, str], browser: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    url, game_id, key = table
    errors: list[str] = []
    screen = browser.new_page(viewport={"width": 1280, "height": 720})
    screen.on("pageerror", lambda error: errors.append(str(error)))
    screen.goto(f"{url}/display/{game_id}")
    expect(screen.locator("#clocks .clock-row")).to_have_count(2)
    expect(screen.locator("#clocks .clock-foot")).to_have_text("El reloj no está en marcha")

    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True)
    tablet = context.new_page()
    tablet.on("pageerror", lambda error: errors.append(str(error)))
    tablet.goto(f"{url}/display/mesa/3/reloj#clave={key}")
    expect(tablet.locator("#half-0 .name")).to_have_text("Ana")
    assert "clave" not in tablet.url  # the key is kept by the tablet, not left in the address
    tablet.locator("#start").tap()
    expect(tablet.locator("#half-0")).to_have_class("half running pressable", timeout=SETTLE_MS)
    expect(screen.locator("#clocks .clock-row").first).to_have_class("clock-row running", timeout=SETTLE_MS)
    tablet.locator("#half-1").tap()  # not Bea's turn: nothing happens
    tablet.locator("#half-0").tap()  # Ana has laid H5 CASAS: her press ends the turn
    expect(tablet.locator("#half-1")).to_have_class("half running pressable")  # at once, before the server answers
    expect(screen.locator("#clocks .clock-row").nth(1)).to_have_class("clock-row running", timeout=SETTLE_MS)
    expect(screen.locator(".player").first.locator(".score")).to_have_text("307", timeout=SETTLE_MS)  # the camera's play
    fits(screen, shots, "reloj-sala")  # both clocks on the room's screen, at every size
    screen.set_viewport_size({"width": 1280, "height": 720})

    tablet.wait_for_timeout(2000)  # Bea thinks; the tablet is reloaded meanwhile
    tablet.reload()
    expect(tablet.locator("#half-1")).to_have_class("half running pressable")
    drift = drift_after_reload(app, game_id, tablet, 1)
    print(f"clock drift after a tablet reload: {1000 * drift:+.0f} ms")
    assert abs(drift) < 1.0  # the server's time, not the page's load

    context.set_offline(True)  # Bea presses while the network is down
    tapped = datetime.now(timezone.utc)
    tablet.keyboard.press(" ")
    expect(tablet.locator("#half-0")).to_have_class("half running pressable")
    expect(tablet.locator("#message")).to_have_text("Sin conexión: la pulsación se enviará al volver", timeout=SETTLE_MS)
    tablet.wait_for_timeout(1500)
    context.set_offline(False)
    expect(screen.locator("#clocks .clock-row").first).to_have_class("clock-row running", timeout=SETTLE_MS)
    timer = server_clock(app, game_id)
    late = (timer.since - tapped).total_seconds()  # when the server has it pressed, after the tap
    print(f"press kept {1000 * late:+.0f} ms from the tap after {1.5:.1f} s offline")
    assert timer.turns == (1, 1) and -0.5 < late < 1.0
    expect(screen.locator(".player").nth(1).locator(".score")).to_have_text("282", timeout=SETTLE_MS)

    arbiter = browser.new_page(viewport={"width": 800, "height": 600})
    arbiter.goto(f"{url}/login?next=/display/{game_id}/reloj")
    arbiter.fill("input[name=login]", ARBITER)
    arbiter.fill("input[name=password]", PASSWORD)
    arbiter.click("button[type=submit]")
    expect(tablet.locator("#pause")).to_be_hidden()  # the tablet's key does not pause
    arbiter.click("#pause")
    expect(tablet.locator("#half-0 .note")).to_have_text("En pausa", timeout=SETTLE_MS)
    tablet.locator("#half-0").tap()  # paused: no press
    arbiter.click("#resume")
    expect(tablet.locator("#half-0")).to_have_class("half running pressable", timeout=SETTLE_MS)
    arbiter.click(".correct summary")  # the arbiter sets Bea's time as the reserve clock shows it (C.36)
    arbiter.select_option("#correct-player", "1")
    arbiter.fill("#correct-time", "20:00")
    arbiter.fill("#correct-reason", "el reloj de reserva marca 20:00")
    arbiter.click("#correct-form button[type=submit]")
    expect(tablet.locator("#half-1 .time")).to_have_text("20:00", timeout=SETTLE_MS)
    expect(arbiter.locator("#message")).to_have_text("Reloj corregido.")
    arbiter.screenshot(path=str(shots / "reloj-arbitro-correccion.png"))
    for width, height in ((1024, 768), (390, 844)):  # a tablet on its side, a phone upright between the players
        tablet.set_viewport_size({"width": width, "height": height})
        tablet.wait_for_timeout(150)
        tablet.screenshot(path=str(shots / f"reloj-tableta-{width}x{height}.png"))
        assert tablet.evaluate(INSIDE_JS) == [], (width, height)

    tablet.locator("#half-0").tap()  # Ana goes out with 8H AS (C.45.4): the clock stops
    expect(tablet.locator("#half-0 .note")).to_have_text("Partida terminada", timeout=SETTLE_MS)
    arbiter.goto(f"{url}/arbiter/g/{game_id}")
    arbiter.click("text=Terminar la partida (C.45)")
    arbiter.fill("input[name=rack2]", "S")
    arbiter.click("button.danger")
    expect(screen.locator("#ending")).to_contain_text("Ana se ha quedado sin fichas", timeout=SETTLE_MS)
    expect(screen.locator(".player").first.locator(".score")).to_have_text("310")  # 309 + Bea's S
    expect(screen.locator("#clocks .clock-foot")).to_have_text("")
    fits(screen, shots, "reloj-sala-fin")
    arbiter.goto(f"{url}/arbiter/g/{game_id}/log")
    expect(arbiter.locator("body")).to_contain_text("Ana pulsa el reloj: turno de")
    expect(arbiter.locator("body")).to_contain_text("Partida terminada (C.45.4)")
    expect(arbiter.locator("body")).to_contain_text("Reloj de Bea corregido por el árbitro: le quedan 20:00")
    with services(app).games.reading(game_id) as game:
        assert [(t.notation, t.points) for t in game.turns] == [("H5 CASAS", 7), ("6H AS", 2), ("8H AS", 2)]
        assert {e.actor for e in game.events if e.kind == "play"} == {"camera:mesa-3"}  # each at its press
    assert errors == []
