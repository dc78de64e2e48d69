"""The director's notices and the results' QR code on the room's screen (issue 70): a notice posted
reaches a screen already open, lies in a band the screen makes room for (covering no text, at every
size of ``screen_checks.SIZES``), and goes when removed; the QR code stays inside the side panel and
reads, off a screenshot, as the tournament's results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask

from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from webapp.records.notices import notices_of
from webapp.records.tournaments import tournaments_of
from webapp.services.shared import services

from .screen_checks import fits
from .test_screens_fit import LONG, SETTLE_MS, served  # noqa: F401  (the served app fixture)

pytest_plugins = ["tests.conftest_web"]

QR_INSIDE_JS = """() => {
  const q = document.querySelector('#results-qr img'), s = document.querySelector('#side');
  if (!q || !q.getClientRects().length) return null;
  const a = q.getBoundingClientRect(), b = s.getBoundingClientRect();
  return a.width > 40 && a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
}"""


def read_qr(png: bytes) -> str:
    """The text of the QR code in a screenshot ("" when none is read), by the slips' reader (two OpenCV decoders
    at several sizes: the code holds a random tournament id, and one decoder alone misses some)."""
    import cv2
    import numpy as np

    from vision.slips.qr import read_qr as decode

    return decode(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)) or ""


def test_a_notice_lies_in_its_own_band_at_every_size(served: tuple[str, Flask], browser: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    url, app = served
    games = services(app).games
    game_id = games.create_duplicate("Open Internacional de la Ciudad de Madrid, partida final", DuplicateSettings())
    for table, name in enumerate([LONG, "Carmen", "Bea"], start=1):
        games.append(game_id, Event("player_added", {"player": f"j{table}", "name": name, "table": table}))
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    tournament = tournaments_of(app).create("Open de Madrid", "average_place")
    tournaments_of(app).add_game(tournament, game_id)
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/display/{game_id}?alternar=60")
    expect(page.locator("#notices")).to_be_hidden()
    assert page.evaluate(QR_INSIDE_JS) is True
    assert read_qr(page.screenshot()) == f"{url}/results/torneo/{tournament}"  # a phone reads it off the screen
    first = notices_of(app).post("Pausa de 10 minutos", "arbitro")
    notices_of(app).post("La partida 2 empieza a las 18:00 en la sala grande del hotel", "arbitro")
    expect(page.locator("#notices")).to_contain_text("La partida 2 empieza a las 18:00", timeout=SETTLE_MS)
    fits(page, shots, "aviso")
    page.set_viewport_size({"width": 1920, "height": 1080})
    assert page.evaluate(QR_INSIDE_JS) is True
    notices_of(app).remove(first.id)
    expect(page.locator("#notices")).not_to_contain_text("Pausa", timeout=SETTLE_MS)
    notices_of(app).remove(first.id + 1)
    expect(page.locator("#notices")).to_be_hidden(timeout=SETTLE_MS)
    assert errors == []


def test_the_waiting_screen_takes_the_notices_as_they_come(served: tuple[str, Flask], browser: Any, shots: Path) -> None:
    """A table's screen with no game yet shows the notices, and follows a posted or removed one
    within the few seconds it asks for its game."""
    from playwright.sync_api import expect

    from webapp.views.screens import FOLLOW_SECONDS

    url, app = served
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/display/mesa/9")
    expect(page.locator("#notices")).to_be_hidden()
    notice = notices_of(app).post("La partida 2 empieza a las 18:00", "arbitro")
    follow_ms = 1000 * FOLLOW_SECONDS + SETTLE_MS
    expect(page.locator("#notices")).to_have_text("La partida 2 empieza a las 18:00", timeout=follow_ms)
    page.screenshot(path=str(shots / "aviso-espera.png"))
    notices_of(app).remove(notice.id)
    expect(page.locator("#notices")).to_be_hidden(timeout=follow_ms)
    assert errors == []
