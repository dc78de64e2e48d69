"""Every screen a hall or a stream has: the display laid out at six sizes, every text on screen.

One browser, one page per game kind; the game moves on (round open, master published, end)
while the page follows it live, and at each step the page is resized to 1024x768,
1280x720, 1920x1080, 1920x1200, 3840x2160 and 1080x1920: the board must be square and
whole and every text wholly inside the screen and inside any box that would cut it
(with names like "María de los Ángeles Fernández-Villaverde Castellanos"). An overlay's
background is transparent. Screenshots go to ``$VEEDOR_SCREENSHOTS`` (default: the
test's temporary folder).
"""

from __future__ import annotations

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
from webapp.services.demo_server import classic_demo_events
from webapp.services.shared import services

pytest_plugins = ["tests.conftest_web"]

SIZES = [(1024, 768), (1280, 720), (1920, 1080), (1920, 1200), (3840, 2160), (1080, 1920)]
LONG = "María de los Ángeles Fernández-Villaverde Castellanos"
LONG2 = "José Antonio Rodríguez de la Fuente y Martínez-Bordiú"
NAMES = [LONG, "Carmen", LONG2, "Bea", "Ciro", "Dolores Ibárruri Gómez", "Eva", "Fermín", "Gloria", "Héctor",
         "Inés", "Julián", "Karim", "Lucía"]  # fmt: skip
SETTLE_MS = 5000

# Every text node shown: its boxes inside the viewport and inside each ancestor that clips.
OFF_SCREEN_JS = """() => {
  const W = innerWidth, H = innerHeight, bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || el.closest('script') || el.getClientRects().length === 0) continue;
    if (getComputedStyle(el).visibility === 'hidden') continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) {
      if (r.width === 0 || r.height === 0) continue;
      let ok = r.left >= -0.5 && r.top >= -0.5 && r.right <= W + 0.5 && r.bottom <= H + 0.5;
      for (let a = el; ok && a && a !== document.documentElement; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const b = a.getBoundingClientRect();
        ok = r.left >= b.left - 0.5 && r.right <= b.right + 0.5 && r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5;
      }
      if (!ok) { bad.push(text.slice(0, 50) + ' @' + [r.left, r.top, r.right, r.bottom].map(Math.round)); break; }
    }
  }
  return bad;
}"""


# The right and bottom edges of what an overlay shows (its parts, as laid out).
SHOWN_EXTENT_JS = """() => {
  let right = 0, bottom = 0;
  for (const n of document.querySelectorAll('.part.shown')) {
    for (const r of n.getClientRects()) { right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom); }
  }
  return [Math.ceil(right), Math.ceil(bottom)];
}"""


SHOWN_NAMES_JS = "() => [...document.querySelectorAll('#standings tbody tr:not(.off) td.name')].map(n => n.textContent)"


@pytest.fixture()
def served(app: Flask) -> Iterator[tuple[str, Flask]]:
    """The test app served in a thread (live streams included)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", app
    services(app).games.close()
    server.shutdown()


def fits(page: Any, shots: Path, name: str) -> None:
    """At each size: the board square and whole, every text on screen; a screenshot each."""
    problems = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)  # the page lays itself out again on resize
        page.screenshot(path=str(shots / f"{name}-{width}x{height}.png"))
        board = page.locator("#board")
        if board.is_visible():
            box = board.bounding_box()
            assert abs(box["width"] - box["height"]) < 2, (name, width, height, box)
            assert box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height
        bad = page.evaluate(OFF_SCREEN_JS)
        if bad:
            problems.append(f"{name} {width}x{height}: {bad}")
    assert problems == []


def test_every_screen_size_shows_everything(served: tuple[str, Flask], browser: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    url, app = served
    games = services(app).games
    game_id = games.create_duplicate("Open Internacional de la Ciudad de Madrid, partida final", DuplicateSettings(bonuses=True))
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
    expect(page.locator("#round-summary")).to_contain_text(f"Mejor jugada de la sala: {good.notation}, {good.score} puntos (Ciro)")
    expect(page.locator("#round-summary")).to_contain_text("Bonificación: Ciro, 5 puntos")
    expect(page.locator("#standings tbody tr")).to_have_count(len(NAMES))
    fits(page, shots, "duplicada-resumen")
    page.set_viewport_size({"width": 1024, "height": 768})
    seen: set[str] = set()
    for _ in range(len(NAMES)):  # page by page (space or arrow, as the operator may), then the board
        if page.locator("#summary-view").is_hidden():
            break
        seen.update(page.evaluate(SHOWN_NAMES_JS))
        page.keyboard.press("ArrowRight")
    expect(page.locator("#summary-view")).to_be_hidden()
    assert seen == set(NAMES)  # every player, on one page or another
    fits(page, shots, "duplicada-maestra")

    games.append(game_id, Event("game_ended", {"reason": "fin"}))
    expect(page.locator("#summary-title")).to_have_text("Clasificación final", timeout=SETTLE_MS)
    fits(page, shots, "duplicada-final")
    assert page.locator("#page-note").text_content().startswith("Página 1 de ")  # 14 players do not fit at 1080x1920

    events = classic_demo_events(games.lexicon, seed=3, names=(LONG, LONG2))  # a whole game, C.45 at its end
    classic = games.create("classic", "Mesa 1", events[0])
    for event in events[1:12]:
        games.append(classic, event)
    screen = browser.new_page(viewport={"width": 1920, "height": 1080})
    screen.on("pageerror", lambda error: errors.append(str(error)))
    screen.goto(f"{url}/display/mesa/1")
    expect(screen.locator("#unseen span").first).to_be_visible()
    expect(screen.locator("#last-plays li")).to_have_count(6)
    fits(screen, shots, "clasica-juego")
    for event in events[12:]:
        games.append(classic, event)
    expect(screen.locator("#ending .winner-line")).to_be_visible(timeout=SETTLE_MS)
    expect(screen.locator("#ending")).to_contain_text("que le quedaba")
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
        assert page.evaluate(OFF_SCREEN_JS) == [], part
    assert errors == []
