"""Two consoles, one round, in a real browser (issue 67): two arbiters split the tables and type at once.

Each console keeps to its tables ("Mis mesas": its missing list, a warning for another table), sees
the other's slips appear in its lists, and a slip typed for a table the other stored is not stored
over it: both entries are shown under "Por decidir" until the arbiter keeps one. When both send the
same table within milliseconds, one is stored and the other console is asked.
"""

from __future__ import annotations

import re
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

from ..web_helpers import ARBITER, PASSWORD
from .test_browser import Server

pytest_plugins = ["tests.conftest_web"]

SECOND = "arbitra"
TABLES = 6
LIVE_MS = 5000  # the longest a console may take to show the other's slip here (the benchmark measures it)


@pytest.fixture()
def shared_round(tmp_path: Path, file2017: Lexicon, password_hash: str) -> Iterator[tuple[Server, str, EventStore]]:
    """``veedor serve`` on a game of six players, round 1's rack set (A E M N N O Q), and two arbiters."""
    store = EventStore(f"sqlite:///{tmp_path / 'veedor.db'}")
    with Accounts(store.engine).engine.begin() as connection:
        for login in (ARBITER, SECOND):
            connection.execute(insert(arbiters).values(login=login, password_hash=password_hash,
                                                       created_at=datetime.now(timezone.utc)))  # fmt: skip
    games = LiveGames(store, file2017)
    game_id = games.create_duplicate("Open de dos consolas", DuplicateSettings(bonuses=True))
    for table in range(1, TABLES + 1):
        player = {"player": f"j{table}", "name": f"Jugador {table}", "table": table}
        games.append(game_id, Event("player_added", player))
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    running = Server(tmp_path)
    running.start()
    yield running, game_id, store
    running.stop()


def console(browser: Any, url: str, login: str, errors: list[str]) -> Any:
    """A console in its own browser context (its own session), logged in as ``login``."""
    page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    page.on("pageerror", lambda error: errors.append(f"{login}: {error}"))
    page.goto(url)
    page.fill("input[name=login]", login)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#slip-table:focus")
    return page


def my_tables(page: Any, text: str) -> None:
    page.fill("#my-tables", text)
    page.press("#my-tables", "Enter")


def type_slip(page: Any, table: int, play: str) -> None:
    """Table, Intro, the play, as the arbiter types it; Intro is pressed by the caller."""
    page.keyboard.type(str(table))
    page.keyboard.press("Enter")
    page.keyboard.type(play)


def row(page: Any, table: int) -> Any:
    return page.locator("#slips tbody tr", has=page.locator("td.num", has_text=re.compile(f"^{table}$")))


def slip_kinds(store: EventStore, game_id: str) -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for e in store.events(game_id):
        if e.kind in ("slip", "slip_corrected"):
            kinds.setdefault(e.data["player"], []).append(e.kind)
    return kinds


def test_two_consoles_share_a_round_and_a_table_typed_on_both_asks_a_decision(
        shared_round: tuple[Server, str, EventStore], browser: Any, shots: Path) -> None:  # fmt: skip
    from playwright.sync_api import expect

    server, game_id, store = shared_round
    errors: list[str] = []
    url = f"{server.url}/arbiter/g/{game_id}"
    a, b = console(browser, url, ARBITER, errors), console(browser, url, SECOND, errors)
    my_tables(a, "1-3")
    my_tables(b, "4 - 6")
    expect(a.locator("#missing .chip")).to_have_text(["1", "2", "3"])
    expect(b.locator("#missing .chip")).to_have_text(["4", "5", "6"])
    expect(a.locator("#missing-box strong")).to_contain_text("(3; 6 en total)")

    # both type at once; each sees the other's slip arrive
    a.focus("#slip-table")
    b.focus("#slip-table")
    type_slip(a, 1, "H3 AMONEN")
    type_slip(b, 4, "H4 MANEN")
    a.keyboard.press("Enter")
    b.keyboard.press("Enter")
    expect(row(a, 4)).to_contain_text("H4 MANEN", timeout=LIVE_MS)
    expect(row(b, 1)).to_contain_text("H3 AMONEN", timeout=LIVE_MS)
    expect(row(a, 4).locator("td.by")).to_have_text(SECOND)
    expect(row(a, 1).locator("td.by")).to_have_text(f"{ARBITER} (esta consola)")
    expect(a.locator("#missing .chip")).to_have_text(["2", "3"])
    expect(b.locator("#missing .chip")).to_have_text(["5", "6"])
    expect(a.locator("#missing-box strong")).to_contain_text("(2; 4 en total)", timeout=LIVE_MS)

    # a slip of one's own typed again is a correction, asked its reason here
    type_slip(a, 1, "H4 MANEN")
    expect(a.locator("#preview")).to_contain_text("Ya entregó: H3 AMONEN, 22 puntos", timeout=LIVE_MS)
    expect(a.locator("#reason-box")).to_be_visible()
    a.keyboard.press("Escape")

    # a table outside one's own is said; one the other console stored is shown before Intro
    type_slip(b, 5, "H4 MONEAN")
    b.keyboard.press("Enter")
    expect(row(a, 5)).to_contain_text("H4 MONEAN", timeout=LIVE_MS)
    a.focus("#slip-table")
    type_slip(a, 5, "H3 AMONEN")
    expect(a.locator("#preview")).to_contain_text("La mesa 5 no es de sus mesas (1-3)", timeout=LIVE_MS)
    expect(a.locator("#preview")).to_contain_text(
        f"Ya tiene papeleta, no anotada en esta consola: H4 MONEAN, 22 puntos, tecleada por {SECOND} a las")
    a.keyboard.press("Enter")  # sent anyway: not stored, both entries shown to decide
    conflict = a.locator("#conflicts li", has_text="Mesa 5")
    expect(conflict).to_contain_text(f"Guardada: H4 MONEAN, 22 puntos, tecleada por {SECOND} a las", timeout=LIVE_MS)
    expect(conflict).to_contain_text("Tecleada aquí: H3 AMONEN, 22 puntos")
    expect(a.locator("#preview")).to_contain_text(f"Mesa 5 sin anotar: ya tenía papeleta de {SECOND}")
    expect(a.locator("#slip-table")).to_be_focused()  # free for the next slip
    a.screenshot(path=str(shots / "consoles-to-decide.png"), full_page=True)
    conflict.get_by_role("button", name="Sustituirla por la tecleada").click()
    expect(a.locator("#slip-reason")).to_be_focused()
    a.keyboard.type("la mesa 5 escribió H3 AMONEN")
    a.keyboard.press("Enter")
    expect(a.locator("#preview")).to_contain_text("Mesa 5 corregida: H3 AMONEN, 22 puntos", timeout=LIVE_MS)
    expect(a.locator("#conflicts")).to_be_hidden()
    expect(row(b, 5)).to_contain_text("H3 AMONEN", timeout=LIVE_MS)
    expect(row(b, 5)).to_contain_text("corregida")

    # both send table 6 within milliseconds: one is stored, the other console is asked
    b.focus("#slip-table")
    type_slip(a, 6, "8C AMONEN")
    type_slip(b, 6, "H4 MANEN")
    a.keyboard.press("Enter")
    b.keyboard.press("Enter")
    answered = re.compile("Mesa 6 (anotada|sin anotar)")
    expect(a.locator("#preview")).to_contain_text(answered, timeout=LIVE_MS)
    expect(b.locator("#preview")).to_contain_text(answered, timeout=LIVE_MS)
    asked = [page for page in (a, b) if page.locator("#conflicts li", has_text="Mesa 6").count()]
    assert len(asked) == 1
    loser = asked[0]
    loser.reload()  # a decision waits across a reload (the page reloads when the round changes)
    expect(loser.locator("#conflicts li", has_text="Mesa 6")).to_be_visible()
    loser.get_by_role("button", name="Conservar la guardada").click()
    expect(loser.locator("#conflicts")).to_be_hidden()
    expect(loser.locator("#preview")).to_contain_text("Mesa 6: se conserva")

    expect(b.locator("#missing .chip")).to_have_count(0, timeout=LIVE_MS)  # b's tables are in
    expect(a.locator("#missing .chip")).to_have_text(["2", "3"])
    a.focus("#slip-table")
    for text in ("2", "\n", "H4 MANEN", "\n", "3", "\n", "H3 AMONEN", "\n"):  # no pause: as a fast typist does
        a.keyboard.press("Enter") if text == "\n" else a.keyboard.type(text)
    for page in (a, b):
        expect(page.locator("#slips tbody tr")).to_have_count(TABLES, timeout=LIVE_MS)
        expect(page.locator("#missing-count")).to_have_text("0")
    expect(b.locator("#missing-box strong")).to_contain_text("(0; 0 en total)")
    kinds = slip_kinds(store, game_id)
    assert kinds == {"j1": ["slip"], "j2": ["slip"], "j3": ["slip"], "j4": ["slip"], "j5": ["slip", "slip_corrected"],
                     "j6": ["slip"]}  # fmt: skip
    assert errors == []
