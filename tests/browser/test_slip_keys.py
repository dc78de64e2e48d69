"""The slips panel in a real browser: one key discards a page that is no slip (issue 67); one key enters the
likely play of that number (issue 68).

An uncut sheet, a blank page or a cover sheet scanned with the slips waited for the mouse. Now D asks, naming the
page (its file and page number), and discards it once confirmed: nothing is entered, the scan is kept. A flagged
slip whose proposal is wrong but whose play is among the likely plays listed needed the mouse and Enter, or typing:
the key of its number enters it as the arbiter's correction.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask
from werkzeug.serving import make_server

from webapp.services.shared import scan_service, services

from ..test_scan_routing import scan_into
from ..test_web_decisions import flagged, slip_of
from ..web_helpers import ARBITER, PASSWORD, duplicate_game

pytest_plugins = ["tests.conftest_web"]

SETTLE_MS = 5000


@pytest.fixture()
def served(app: Flask) -> Iterator[str]:
    """The test app served on a free port from a thread (the test reaches its services directly)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.port}"
    server.shutdown()
    thread.join(10)


def logged_in(browser: Any, url: str, errors: list[str]) -> Any:
    """A page of the panel, the arbiter logged in, its script errors kept in ``errors``."""
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.fill("input[name=login]", ARBITER)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    # the panel's load event: its script (at the end of the page) has bound the keys. The first item is
    # rendered selected by the server, so a visible selection alone does not say the script has run.
    page.wait_for_url(url, wait_until="load", timeout=SETTLE_MS)
    return page


def test_d_discards_a_page_that_is_no_slip_once_confirmed_and_keeps_the_scan(app: Flask, served: str, browser: Any,
                                                                             tmp_path: Path) -> None:  # fmt: skip
    from playwright.sync_api import expect

    game_id = duplicate_game(app)
    scans = scan_service(app)
    scans.choose(game_id, ARBITER)
    scan_into(app, tmp_path / "escaner", "portada.png", np.full((700, 900), 235, np.uint8))  # a page, no slip on it
    (item,) = scans.pending(game_id)

    errors: list[str] = []
    asked: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept() if answer["accept"] else dialog.dismiss()

    page = logged_in(browser, f"{served}/arbiter/g/{game_id}/papeletas", errors)
    page.on("dialog", on_dialog)
    expect(page.locator(f"#item-{item.id}.selected")).to_be_visible(timeout=SETTLE_MS)

    with page.expect_event("dialog", timeout=SETTLE_MS):  # the question reaches the test before it looks
        page.keyboard.press("d")  # asked, and refused: nothing happens
    expect(page.locator(f"#item-{item.id}")).to_be_visible()
    assert len(asked) == 1 and "página 1 de «portada.png»" in asked[0] and "el escaneo se conserva" in asked[0]
    assert scans.item(item.id).status == "pending"

    answer["accept"] = True
    with page.expect_event("dialog", timeout=SETTLE_MS):
        page.keyboard.press("d")  # one key, confirmed
    expect(page.locator("#no-items")).to_be_visible(timeout=SETTLE_MS)
    assert len(asked) == 2 and scans.item(item.id).status == "dismissed"
    assert scans.pending(game_id) == [] and services(app).games.duplicate(game_id).round(1).slips == {}
    assert scans.page_path(item.page) is not None  # the scan is kept
    assert errors == []


def test_a_number_key_enters_the_likely_play_of_that_number_as_the_correction(app: Flask, served: str,
                                                                             browser: Any) -> None:  # fmt: skip
    from playwright.sync_api import expect

    game_id = duplicate_game(app)  # round 1: H3 AMONEN 22, H4 MANEN 20
    likely = ({"play": "H3 AMONEN", "score": 22, "probability": 0.6, "kind": "play"},
              {"play": "H4 MANEN", "score": 20, "probability": 0.3, "kind": "play"})
    item = flagged(app, game_id, "bea-0", ("illegible",), "H4 MAMEN", player="j2", top="H3 AMONEN", likely=likely)
    errors: list[str] = []
    page = logged_in(browser, f"{served}/arbiter/g/{game_id}/papeletas", errors)
    expect(page.locator(f"#item-{item.id}.selected")).to_be_visible(timeout=SETTLE_MS)
    expect(page.locator(f"#item-{item.id} .candidates td.key")).to_have_text(["1", "2"])

    page.keyboard.press("3")  # no third play listed: nothing happens
    page.keyboard.press("2")
    expect(page.locator("#no-items")).to_be_visible(timeout=SETTLE_MS)
    resolved = scan_service(app).item(item.id)
    assert resolved is not None and resolved.status == "corrected" and resolved.resolution["actor"] == ARBITER
    assert slip_of(app, game_id, "j2") == ("H4 MANEN", 20)  # the second play, not the proposal
    assert errors == []
