"""The stream of the whole event in a browser (issue 70): the ready scene at 1920x1080 and each new
part at two sizes, every one transparent around what it shows and holding to the screens' checks
(``screen_checks.problems_here``, in every frame of a scene: every text on screen, no word broken, a
blank circled, nothing covered). A duplicate game of a tournament whose list has photos, clubs and an
earlier EloDI, after its first master; a classic top table of the same tournament, live and 5 minutes
behind with the rack of the player to move; several tables at once. Screenshots go to
``$VEEDOR_SCREENSHOTS`` (default: the test's temporary folder)."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from flask import Flask

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from rules_core.player_list import parse_player_list
from rules_core.slips import Slip
from webapp.records.notices import notices_of
from webapp.records.tournament_games import new_duplicate
from webapp.records.tournament_players import listed
from webapp.records.tournaments import tournaments_of
from webapp.services.demo.server import classic_demo_events
from webapp.services.shared import services

from .screen_checks import problems_here
from .test_screens_fit import LONG, LONG2, SETTLE_MS, served  # noqa: F401  (the served app fixture)

pytest_plugins = ["tests.conftest_web"]

NAMES = [LONG, "Carmen Ruiz", LONG2, "Bea Soto", "Ciro Pérez", "Dolores Ibárruri Gómez", "Eva Martín", "Fermín Gil",
         "Gloria Fuertes", "Héctor Lavoe", "Inés Arrimadas", "Julián Muñoz", "Karim Benzema", "Lucía Etxebarria"]  # fmt: skip
CLUBS = ["Club Scrabble Madrid", "CEDE", "Alcalá", "Scrabble Barcelona"]
SIZES = [(800, 450), (1280, 720)]  # a part's browser source, two of them

# The frames a scene or a grid shows, as rectangles of the page: [part, left, top, right, bottom].
FRAMES_JS = """() => [...document.querySelectorAll('iframe')].map((f) => {
  const r = f.getBoundingClientRect();
  return [f.dataset.part || f.title, r.left, r.top, r.right, r.bottom];
})"""

# What a part shows: the right and bottom edges of its shown boxes (every element with a background
# or an image inside a shown part), or null when it shows nothing.
SHOWN_JS = """() => {
  let right = 0, bottom = 0, any = false;
  for (const n of document.querySelectorAll('.part.shown:not([hidden])')) {
    for (const r of n.getClientRects()) { if (r.width && r.height) { any = true; right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom); } }
  }
  return any ? [Math.ceil(right), Math.ceil(bottom)] : null;
}"""

# The tournament's standings as shown: each row on the page inside its box, and how many.
EVENT_ROWS_JS = """() => {
  const holder = document.querySelector('#event-table');
  if (!holder || !holder.getClientRects().length) return null;
  const h = holder.getBoundingClientRect();
  const rows = [...holder.querySelectorAll('tbody tr:not(.off)')];
  const cut = rows.filter((r) => { const b = r.getBoundingClientRect(); return b.top < h.top - 0.5 || b.bottom > h.bottom + 0.5; });
  return {shown: rows.length, all: holder.querySelectorAll('tbody tr').length, cut: cut.length};
}"""


def photo_png() -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (120, 120), (40, 90, 160))
    ImageDraw.Draw(image).ellipse((30, 20, 90, 80), fill=(240, 200, 160))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def tournament(app: Flask) -> str:
    """The list (every fourth player with a photo), an earlier EloDI for some, the data folder's photos."""
    folder = Path(app.config.get("DATA_DIR") or app.instance_path)
    (folder / "fotos").mkdir(parents=True, exist_ok=True)
    (folder / "fotos" / "foto.png").write_bytes(photo_png())
    lines = ["mesa;nombre;club;licencia;foto"]
    ratings = ["jugador,licencia,club,partidas,rating,volatilidad"]
    for table, name in enumerate(NAMES, start=1):
        lines.append(f"{table};{name};{CLUBS[table % 4]};{1000 + table};{'foto.png' if table % 4 == 1 else ''}")
        if table % 2:
            ratings.append(f"{name},{1000 + table},{CLUBS[table % 4]},30,{1500 + 10 * table},220")
    (folder / "elodi-previas.csv").write_text("\n".join(ratings) + "\n", encoding="utf-8")
    return tournaments_of(app).create("Open Internacional de Otoño", "average_place", listed(parse_player_list("\n".join(lines))))


def played_duplicate(app: Flask, tournament_id: str) -> str:
    """A game of the list in its first round, the clock running, every slip in but the master not published."""
    games = services(app).games
    with app.app_context():
        game_id = new_duplicate(games, tournaments_of(app), tournament_id, "Open Internacional de Otoño, partida 1",
                                DuplicateSettings(rounds=10), "mesas", "arbitro")  # fmt: skip
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    for table, play in [(1, "H3 AMONEN"), (2, "H4 MANEN"), (3, "H3 AMONEN"), (4, "8C AMONEN"), (5, "8D MONEAN")]:
        games.append(game_id, Event("slip", {"round": 1, "player": f"j{table}", "slip": Slip(play).to_json()}))
    games.append(game_id, Event("timer", {"round": 1, "action": "start"}))
    return game_id


def classic_table(app: Flask, tournament_id: str, turns: int) -> str:
    """Table 1 of the tournament, with a chess clock of 30 minutes a player (C.32.1): its first two players,
    ``turns`` turns of a demo game, each an hour ago but the last, made a minute ago (so that 5 minutes
    behind, its rack is the rack of the player to move)."""
    games = services(app).games
    found = tournaments_of(app).get(tournament_id)
    first, second = found.players[0], found.players[1]
    events = classic_demo_events(games.lexicon, seed=4, names=(first.name, second.name))[: turns + 1]
    now = datetime.now(timezone.utc)
    created = events[0]
    data = {**created.data, "title": "Mesa 1", "tournament_players": [first.id, second.id], "clock": "corrido", "minutes": 30}
    game_id = games.create("classic", "Mesa 1", Event(created.kind, data, created.actor, now - timedelta(hours=2)))
    for index, event in enumerate(events[1:], start=1):
        at = now - (timedelta(minutes=1) if index == turns else timedelta(hours=1))
        games.append(game_id, Event(event.kind, event.data, event.actor, at))
    tournaments_of(app).add_game(tournament_id, game_id)
    return game_id


def transparent_outside(page: Any, path: Path, box: tuple[int, int, int, int]) -> list[tuple[int, int]]:
    """The points of ``box`` (left, top, right, bottom), every 16 px, a screenshot without background draws on."""
    from PIL import Image

    page.screenshot(path=str(path), omit_background=True)
    image = Image.open(path).convert("RGBA")
    left, top, right, bottom = box
    return [(x, y) for x in range(left, right, 16) for y in range(top, bottom, 16) if image.getpixel((x, y))[3] != 0]


def frame_problems(page: Any) -> list[str]:
    """``problems_here`` in every frame of ``page`` (the page's own too)."""
    return [f"{frame.url}: {p}" for frame in page.frames for p in problems_here(frame)]


def overlaps(rects: list[list[Any]]) -> list[str]:
    found = []
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            if a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5 and a[2] < b[4] - 0.5 and b[2] < a[4] - 0.5:
                found.append(f"{a[0]} and {b[0]}")
    return found


def check_part(browser: Any, url: str, shots: Path, name: str, probe: str, errors: list[str]) -> Any:
    """The overlay ``url`` at each of ``SIZES``: ``probe`` shown, the screens' checks, transparent outside
    what the part shows (below and right of it); its page, left open at the last size."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
    page.on("pageerror", lambda error: errors.append(f"{name}: {error}"))
    page.goto(url)
    expect(page.locator(probe).first).to_be_visible(timeout=SETTLE_MS)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(600)  # laid out again (and any animation over)
        assert problems_here(page) == [], f"{name} {width}x{height}"
        right, bottom = page.evaluate(SHOWN_JS)
        drawn = transparent_outside(page, shots / f"{name}-{width}x{height}.png", (0, 0, width, height))
        assert drawn and all(x <= right + 2 and y <= bottom + 2 for x, y in drawn), f"{name}: drawn outside its part"
    return page


def test_the_scene_and_every_new_part(served: tuple[str, Flask], browser: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    url, app = served
    app.config["BROADCAST_DELAY_MINUTES"] = 5
    tournament_id = tournament(app)
    game_id = played_duplicate(app, tournament_id)
    notices_of(app).post("La partida 2 empieza a las 18:00", "arbitro")
    errors: list[str] = []

    scene = browser.new_page(viewport={"width": 1920, "height": 1080})
    scene.on("pageerror", lambda error: errors.append(f"scene: {error}"))
    scene.goto(f"{url}/overlay/escena/{game_id}?segundos=600")
    frames = {frame.url.split("?")[0].rsplit("/", 1)[-1]: frame for frame in scene.frames if "/overlay/" in frame.url}
    expect(frames["clock"].locator("#clock-time")).to_be_visible(timeout=SETTLE_MS)
    expect(frames["lowerthird"].locator("#lower-third")).to_be_hidden()  # no master yet
    scene.wait_for_timeout(500)
    scene.screenshot(path=str(shots / "escena-duplicada-ronda.png"))
    assert frame_problems(scene) == []
    services(app).games.append(game_id, Event("master_announced", {"round": 1}))  # the lower third comes at once
    expect(frames["lowerthird"].locator("#lower-third .lower-plays li")).to_have_count(5, timeout=SETTLE_MS)
    expect(frames["lowerthird"].locator("#lower-third li.is-master .lower-who")).to_have_text(f"{LONG2}, {LONG}")
    expect(frames["tournament"].locator("#event-table tbody tr").first).to_be_visible(timeout=SETTLE_MS)
    expect(frames["tournament"].locator("#event-table img.who-badge").first).to_be_visible()
    assert frames["tournament"].evaluate("() => document.querySelector('#event-table img.who-badge').naturalWidth") == 120
    expect(frames["tournament"].locator("#event-table")).to_contain_text("EloDI 1510")
    expect(frames["notices"].locator("#notices")).to_contain_text("18:00")
    expect(frames["rack"].locator("#rack .tile")).to_have_count(7)
    scene.wait_for_timeout(800)
    scene.screenshot(path=str(shots / "escena-duplicada.png"))
    assert overlaps(scene.evaluate(FRAMES_JS)) == []
    assert frame_problems(scene) == []
    rows = frames["tournament"].evaluate(EVENT_ROWS_JS)
    assert rows["cut"] == 0 and rows["shown"] >= min(12, rows["all"]), rows
    camera = transparent_outside(scene, shots / "escena-duplicada-transparente.png", (480, 100, 1160, 790))
    assert camera == [], "the scene draws over the camera's room"

    check_part(browser, f"{url}/overlay/{game_id}/lowerthird?segundos=600", shots, "tercio", "#lower-third li", errors)
    check_part(browser, f"{url}/overlay/{game_id}/tournament", shots, "torneo", "#event-table tbody tr", errors)
    check_part(browser, f"{url}/overlay/{game_id}/standings", shots, "clasificacion-partida", "#standings .who-badge", errors)

    classic = classic_table(app, tournament_id, turns=9)
    live = check_part(browser, f"{url}/overlay/mesa/1/scores", shots, "marcador", "#players .who-badge", errors)
    expect(live.locator("#players")).to_contain_text("EloDI 1510")
    rack = check_part(browser, f"{url}/overlay/mesa/1/rack", shots, "fichas-por-salir", "#unseen span", errors)
    expect(rack.locator("#unseen-head")).to_contain_text("Fichas por salir (bolsa y atriles)")  # never as the rack
    expect(rack.locator("#to-move-rack")).to_be_hidden()
    behind = check_part(browser, f"{url}/overlay/{classic}/rack?retraso=5", shots, "atril", "#to-move-tiles .tile", errors)
    with services(app).games.reading(classic) as game:
        assert isinstance(game, ClassicGame)
        mover = game.players[game.turns[-1].player]
    expect(behind.locator("#to-move-head")).to_contain_text(f"Atril de {mover}")
    expect(behind.locator("#unseen")).to_be_hidden()

    grid = browser.new_page(viewport={"width": 1920, "height": 1080})
    grid.on("pageerror", lambda error: errors.append(f"grid: {error}"))
    games = services(app).games
    games.create("classic", "Mesa 2", ClassicGame.create_event(["Ana Gil", "Bruno Díaz"], title="Mesa 2"))
    for part, probe in (("board", "#board"), ("scores", "#players")):
        for width, height in SIZES:
            grid.set_viewport_size({"width": width, "height": height})
            grid.goto(f"{url}/overlay/mesas/1,2/{part}")
            for frame in grid.frames[1:]:
                expect(frame.locator(probe)).to_be_visible(timeout=SETTLE_MS)
            grid.wait_for_timeout(400)
            cells = grid.evaluate(FRAMES_JS)
            assert len(cells) == 2 and overlaps(cells) == [], cells
            assert all(c[1] >= 0 and c[2] >= 0 and c[3] <= width + 0.5 and c[4] <= height + 0.5 for c in cells), cells
            assert frame_problems(grid) == [], f"mesas {part} {width}x{height}"
            drawn = transparent_outside(grid, shots / f"mesas-{part}-{width}x{height}.png", (0, 0, width, height))
            assert drawn and len(drawn) < 0.9 * (width // 16) * (height // 16), "the grid is not transparent"

    table_scene = browser.new_page(viewport={"width": 1920, "height": 1080})
    table_scene.on("pageerror", lambda error: errors.append(f"classic scene: {error}"))
    table_scene.goto(f"{url}/overlay/escena/mesa/1")
    for frame in table_scene.frames[1:]:
        expect(frame.locator(".part.shown").first).to_be_attached(timeout=SETTLE_MS)
    table_scene.wait_for_timeout(1500)
    table_scene.screenshot(path=str(shots / "escena-clasica.png"))
    assert overlaps(table_scene.evaluate(FRAMES_JS)) == []
    assert frame_problems(table_scene) == []
    assert transparent_outside(table_scene, shots / "escena-clasica-transparente.png", (480, 100, 1160, 760)) == []
    assert errors == []
