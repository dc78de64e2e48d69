"""Every screen a hall or a stream has: the display laid out at six sizes, every text on screen.

One browser, one page per game kind; the game moves on (round open, master published, a
master with a blank, end) while the page follows it live, and at each step the page is
resized to 1024x768, 1280x720, 1920x1080, 1920x1200, 3840x2160 and 1080x1920 and checked
(``screen_checks.fits``): the board square and whole, every text wholly inside the screen and
any box that would cut it, no word broken across lines (with names like "María de los
Ángeles Fernández-Villaverde Castellanos"), a blank shown circled, never as a lowercase
letter. The standings are paged through at each size: every row once, whole, at least 12 a
page but the last. An overlay's background is transparent. Screenshots go to
``$VEEDOR_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import make_server

from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.movegen import generate_plays
from rules_core.slips import Slip
from webapp.services.demo.server import classic_demo_events
from webapp.services.shared import services

from .screen_checks import SIZES, all_standings, blanks_marked, fits, problems_here, standings_pages

pytest_plugins = ["tests.conftest_web"]

LONG = "María de los Ángeles Fernández-Villaverde Castellanos"
LONG2 = "José Antonio Rodríguez de la Fuente y Martínez-Bordiú"
NAMES = [LONG, "Carmen", LONG2, "Bea", "Ciro", "Dolores Ibárruri Gómez", "Eva", "Fermín", "Gloria", "Héctor",
         "Inés", "Julián", "Karim", "Lucía", "Aureliano Castaño"]  # fmt: skip
SETTLE_MS = 5000
MIN_ROWS = 12  # a page of standings holds at least this many (fit.js), 1024x768 included

# What the round clock shows: the time, its note, whether the note is a banner.
CLOCK_JS = """() => [document.getElementById('clock-time').textContent, document.getElementById('clock-note').textContent,
  document.getElementById('clock').classList.contains('banner')]"""

# The right and bottom edges of what an overlay shows (its parts, as laid out).
SHOWN_EXTENT_JS = """() => {
  let right = 0, bottom = 0;
  for (const n of document.querySelectorAll('.part.shown')) {
    for (const r of n.getClientRects()) { right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom); }
  }
  return [Math.ceil(right), Math.ceil(bottom)];
}"""


@pytest.fixture()
def served(app: Flask) -> Iterator[tuple[str, Flask]]:
    """The test app served in a thread (live streams included)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", app
    services(app).games.close()
    server.shutdown()


def pages_hold_every_row_once(page: Any, name: str) -> None:
    """At each size, page by page: every row of the standings once, in order, whole; at least
    ``MIN_ROWS`` a page but the last."""
    problems = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        pages = standings_pages(page)
        names = all_standings(page)
        if [n for rows in pages for n in rows] != names:
            problems.append(f"{name} {width}x{height}: pages {pages}, not every row once")
        if any(len(rows) < min(MIN_ROWS, len(names)) for rows in pages[:-1]):
            problems.append(f"{name} {width}x{height}: rows a page {[len(rows) for rows in pages]}")
    assert problems == []


def test_every_screen_size_shows_everything(served: tuple[str, Flask], browser: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    url, app = served
    games = services(app).games
    settings = DuplicateSettings(bonuses=True, tie_breaks=True)
    game_id = games.create_duplicate("Open Internacional de la Ciudad de Madrid, partida final", settings)
    for table, name in enumerate(NAMES, start=1):
        games.append(game_id, Event("player_added", {"player": f"j{table}", "name": name, "table": table}))
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    for table, notation in [(1, "H3 AMONEN"), (2, "H4 MANEN"), (3, "H3 AMONEN")]:
        games.append(game_id, Event("slip", {"round": 1, "player": f"j{table}", "slip": Slip(notation).to_json()}))
    games.append(game_id, Event("master_announced", {"round": 1}))
    games.append(game_id, Event("rack_set", {"round": 2, "rack": list("QUERIDA"), "source": "manual"}))
    games.append(game_id, Event("timer", {"round": 2, "action": "start"}))

    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/display/{game_id}?alternar=60")
    expect(page.locator("#rack .tile.kept")).to_have_count(1)  # Q kept, apart from the new tiles
    expect(page.locator("#rack .tile:not(.kept)")).to_have_count(6)
    fits(page, shots, "duplicada-ronda")

    second = games.duplicate(game_id).round(2)
    plays = generate_plays(second.board, second.rack, games.lexicon)
    good = max((p for p in plays if p.score < max(q.score for q in plays)), key=lambda p: p.score)
    games.append(game_id, Event("slip", {"round": 2, "player": "j5", "slip": Slip(good.notation).to_json()}))
    games.append(game_id, Event("master_announced", {"round": 2}))
    expect(page.locator("#summary-view")).to_be_visible(timeout=SETTLE_MS)  # the summary at once
    expect(page.locator("#summary-title")).to_have_text("Ronda 2: resumen")
    best = f"Mejor jugada de la sala: {good.notation}, {good.score} puntos (Ciro)"
    expect(page.locator("#round-summary")).to_contain_text(best)
    expect(page.locator("#round-summary")).to_contain_text("Bonificación: Ciro, 5 puntos")
    expect(page.locator("#standings tbody tr")).to_have_count(len(NAMES))
    fits(page, shots, "duplicada-resumen")
    pages_hold_every_row_once(page, "duplicada-resumen")
    fits(page, shots, "duplicada-maestra")  # the board again, after the last page

    games.append(game_id, Event("rack_set", {"round": 3, "rack": list("DOIESE?"), "source": "manual"}))
    games.append(game_id, Event("master_announced", {"round": 3}))  # A8 REcODEIS: a blank as C
    expect(page.locator("#summary-title")).to_have_text("Ronda 3: resumen", timeout=SETTLE_MS)
    expect(page.locator("#round-summary .big .blank-letter")).to_have_text("c")
    assert blanks_marked(page) == 1
    fits(page, shots, "duplicada-comodin")
    standings_pages(page)  # back to the board: the master beside it, its blank circled too
    expect(page.locator("#master-play .blank-letter")).to_have_text("c")
    expect(page.locator("#board .tile.blank")).to_have_count(1)
    fits(page, shots, "duplicada-comodin-tablero")
    for part in ("plays", "summary", "standings"):
        overlay = browser.new_page(viewport={"width": 800, "height": 450})
        overlay.on("pageerror", lambda error: errors.append(str(error)))
        overlay.goto(f"{url}/overlay/{game_id}/{part}")
        expect(overlay.locator(".part.shown").first).to_be_visible()
        assert part == "standings" or blanks_marked(overlay) >= 1, part
        assert problems_here(overlay) == [], part
        overlay.close()
    app.config["BROADCAST_DELAY_MINUTES"] = 0.001  # the broadcast with its analysis, almost live
    broadcast = browser.new_page(viewport={"width": 1920, "height": 1080})
    broadcast.on("pageerror", lambda error: errors.append(str(error)))
    broadcast.goto(f"{url}/emision/{game_id}?alternar=120")
    standings_pages(broadcast)
    expect(broadcast.locator("#analysis li").first).to_be_visible(timeout=SETTLE_MS)
    assert blanks_marked(broadcast) >= 2  # the master and the analysis's best plays
    fits(broadcast, shots, "emision")
    broadcast.close()

    games.append(game_id, Event("game_ended", {"reason": "fin"}))
    expect(page.locator("#summary-title")).to_have_text("Clasificación final", timeout=SETTLE_MS)
    fits(page, shots, "duplicada-final")
    pages_hold_every_row_once(page, "duplicada-final")

    events = classic_demo_events(games.lexicon, seed=3, names=(LONG, LONG2))  # a whole game, C.45 at its end
    classic = games.create("classic", "Mesa 1", events[0])
    for event in events[1:12]:
        games.append(classic, event)
    screen = browser.new_page(viewport={"width": 1920, "height": 1080})
    screen.on("pageerror", lambda error: errors.append(str(error)))
    screen.goto(f"{url}/display/mesa/1")
    expect(screen.locator("#unseen span").first).to_be_visible()
    expect(screen.locator("#last-plays li")).to_have_count(6)
    expect(screen.locator("#spread")).to_have_text(re.compile(r"^(María|José) gana por \d+$|^Empate a \d+$"))
    fits(screen, shots, "clasica-juego")
    for event in events[12:]:
        games.append(classic, event)
    expect(screen.locator("#ending .winner-line")).to_be_visible(timeout=SETTLE_MS)
    expect(screen.locator("#ending")).to_contain_text("que le quedaba")
    expect(screen.locator("#ending .winner-line")).to_have_text(re.compile(r"^Gana .+ por \d+$"))  # a margin: positive
    expect(screen.locator("#spread")).to_be_hidden()
    fits(screen, shots, "clasica-final")
    assert errors == []


def test_an_overlay_is_transparent_around_its_part(served: tuple[str, Flask], browser: Any, shots: Path) -> None:
    from PIL import Image
    from playwright.sync_api import expect

    url, app = served
    games = services(app).games
    events = classic_demo_events(games.lexicon, seed=4, names=(LONG, "Carmen"))
    game_id = games.create("classic", "Mesa 2", events[0])
    for event in events[1:9]:
        games.append(game_id, event)
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 800, "height": 450})
    page.on("pageerror", lambda error: errors.append(str(error)))
    for part, probe in [("board", "#board"), ("scores", "#players"), ("plays", "#last-plays")]:
        page.goto(f"{url}/overlay/mesa/2/{part}")
        expect(page.locator(probe)).to_be_visible()
        path = shots / f"overlay-{part}.png"
        page.screenshot(path=str(path), omit_background=True)
        image = Image.open(path).convert("RGBA")
        box = page.locator(probe).bounding_box()
        right, bottom = page.evaluate(SHOWN_EXTENT_JS)
        outside = [(x, y) for x in range(0, 800, 20) for y in range(0, 450, 20)
                   if x > right + 2 or y > bottom + 2]  # fmt: skip
        assert outside or part != "board", part  # a square board leaves the sides of a 16:9 source empty
        assert all(image.getpixel(xy)[3] == 0 for xy in outside), part  # nothing drawn around the part
        inside = image.getpixel((int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] / 2)))
        assert inside[3] > 0, part  # the part itself is drawn
        assert problems_here(page) == [], part
    assert errors == []


def call_at(shown: str) -> tuple[str, bool]:
    """D.III.13: what the clock says when it reads ``shown`` (m:ss), and whether as a banner."""
    minutes, seconds = shown.split(":")
    left = 60 * int(minutes) + int(seconds)
    if left == 0:
        return "TIEMPO", True  # the time is up: the slips are raised
    if left <= 5:
        return "ALCEN", True
    if 26 <= left <= 30:
        return "Quedan 30 segundos", False
    if 56 <= left <= 60:
        return "Queda 1 minuto", False
    if left >= 176:
        return "TIEMPO", False  # the round's 3 minutes start
    return "", False


def test_the_clock_calls_each_warning_at_its_time(served: tuple[str, Flask], browser: Any, shots: Path) -> None:
    """The screen's clock on the browser's fake time, a round of 3 minutes swept half a second
    at a time: each call of D.III.13 while the clock reads its time, and only then; the ALCEN
    and TIEMPO banners checked at every size (they cover no other text)."""
    from playwright.sync_api import expect

    url, app = served
    app.config["LIVE_STREAM_SECONDS"] = 600  # one stream: a new one would set the clock to the server's (real) time
    games = services(app).games
    game_id = games.create_duplicate("Open de la Ciudad de Madrid", DuplicateSettings())
    for table, name in enumerate(NAMES[:4], start=1):
        games.append(game_id, Event("player_added", {"player": f"j{table}", "name": name, "table": table}))
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.clock.install()
    page.goto(f"{url}/display/{game_id}")
    expect(page.locator("#clock-note")).to_have_text("Preparados")
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    games.append(game_id, Event("timer", {"round": 1, "action": "start"}))
    expect(page.locator("#clock")).not_to_have_class(re.compile(r"\bidle\b"), timeout=SETTLE_MS)

    seen: dict[str, set[tuple[str, bool]]] = {}
    # Room for jumps back: 40 s of fake time without the server's ping (sent every 15 s of real time)
    # make the page reopen its stream, whose state sets the clock by the server's real time again.
    for _ in range(2 * 400):
        shown, note, banner = page.evaluate(CLOCK_JS)
        if shown not in seen and shown in ("0:03", "0:00"):
            fits(page, shots, f"reloj-{shown.replace(':', '')}")
        seen.setdefault(shown, set()).add((note, banner))
        if shown == "0:00":
            break
        page.clock.run_for(500)
    seconds = {60 * int(shown.split(":")[0]) + int(shown.split(":")[1]) for shown in seen}
    assert max(seconds) >= 178 and seconds == set(range(max(seconds) + 1))  # from the start to 0:00, every second
    assert {shown: notes for shown, notes in seen.items() if notes != {call_at(shown)}} == {}
    assert errors == []
