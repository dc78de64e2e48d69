"""Scans go to the slip's game (issue 19.9): the QR code decides; plain slips go to the game an arbiter chose.

Before: every scanned slip went to the latest duplicate game not ended, so creating a second game
while one ran sent the running game's slips to the new one, flagged there as "another game (<uuid>)",
and their players scored 0 in the running game.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from flask import Flask
from flask.testing import FlaskClient

from rules_core.duplicate import DuplicateSettings
from rules_core.events import Event
from webapp.app import create_app
from webapp.services.shared import scan_service, services
from webapp.services.demo.slips import write_scan

from .test_web_slips import game_of, scan_of
from .web_helpers import ARBITER, PLAYERS, arbiter_client, duplicate_game, post

pytest_plugins = ["tests.conftest_web"]


def second_game(app: Flask, name: str = "Open B") -> str:
    """Another duplicate game with the same player ids (j1, j2, j3) and round 1's rack, created later."""
    games = services(app).games
    game_id = games.create_duplicate(name, DuplicateSettings(), actor=ARBITER)
    for table, player in PLAYERS:
        games.append(game_id, Event("player_added", {"player": f"j{table}", "name": player, "table": table}))
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    return game_id


def scan_into(app: Flask, folder: Path, name: str, image: np.ndarray) -> None:
    """Drop a scan in scanner ``escaner1``'s folder and poll it once (as its thread does)."""
    scans = scan_service(app)
    scans.add_scanner("escaner1", folder)
    write_scan(folder, name, image)
    scans.poll("escaner1")


def test_a_slip_goes_to_the_game_of_its_qr_code_not_to_the_newest(app: Flask, tmp_path: Path) -> None:
    first = duplicate_game(app)
    second = second_game(app)  # created while the first is running
    folder = tmp_path / "escaner"
    scan_into(app, folder, "ana.jpg", scan_of(first, "j1", 1, "H3", "AMONEN"))
    scan_into(app, folder, "bea.jpg", scan_of(second, "j2", 2, "H3", "AMONEN"))
    assert game_of(app, first).round(1).results["j1"].score == 22
    assert game_of(app, second).round(1).results["j2"].score == 22
    assert "j1" not in game_of(app, second).round(1).slips and "j2" not in game_of(app, first).round(1).slips
    assert scan_service(app).pending(first) == scan_service(app).pending(second) == []


def test_a_slip_of_a_game_not_in_play_is_held_with_its_name_never_scored(app: Flask, arbiter: FlaskClient,
                                                                       tmp_path: Path) -> None:  # fmt: skip
    ended = second_game(app, "Open del sábado")
    services(app).games.append(ended, Event("game_ended", {"reason": "fin del torneo"}))
    running = duplicate_game(app)
    assert post(arbiter, f"/arbiter/g/{running}/papeletas/seguir").status_code == 302
    scan_into(app, tmp_path / "escaner", "ana.jpg", scan_of(ended, "j1", 1, "H3", "AMONEN"))
    assert game_of(app, running).round(1).slips == {} and game_of(app, ended).round(1).slips == {}
    (held,) = scan_service(app).pending(running)
    assert held.player is None and held.proposal is None and held.flags == ("other_game",)
    assert "«Open del sábado» (terminada), mesa 1" in held.note and ended not in held.note
    html = arbiter.get(f"/arbiter/g/{running}/papeletas").get_data(as_text=True)
    assert "Open del sábado" in html and ended not in html
    assert html.count("sin entregar") == 3  # no player of this game was given the slip


def test_plain_pages_wait_until_an_arbiter_chooses_their_game_and_the_choice_is_kept(
        app: Flask, arbiter: FlaskClient, tmp_path: Path) -> None:  # fmt: skip
    first = duplicate_game(app)
    second = second_game(app)
    scans = scan_service(app)
    blank = np.full((700, 900), 235, np.uint8)  # no slip found: it can only go to the game chosen for plain slips
    scan_into(app, tmp_path / "escaner", "vacia.jpg", blank)
    assert scans.ingestors["escaner1"].pending() and scans.pending(first) == scans.pending(second) == []
    for page in ("/arbiter/", f"/arbiter/g/{first}", f"/arbiter/g/{second}/papeletas"):
        html = arbiter.get(page).get_data(as_text=True)
        assert "Papeletas sin QR: no van a ninguna partida" in html and "1 página espera." in html, page
    assert post(arbiter, f"/arbiter/g/{second}/papeletas/seguir").status_code == 302
    scans.poll("escaner1")
    (item,) = scans.pending(second)
    assert "ninguna papeleta" in item.note and scans.pending(first) == []
    assert "Papeletas sin QR" not in arbiter.get(f"/arbiter/g/{first}").get_data(as_text=True)  # nothing waits now
    panel = arbiter.get(f"/arbiter/g/{first}/papeletas").get_data(as_text=True)
    assert "Las papeletas sin código QR van a «Open B», no a esta partida." in panel
    services(app).games.close()

    restarted = create_app({**{k: app.config[k] for k in ("TESTING", "SECRET_KEY", "DATABASE_URL", "LEXICON")},
                            "INSTANCE_PATH": app.instance_path})  # fmt: skip
    try:
        assert scan_service(restarted).plain().game == second and scan_service(restarted).plain().by == ARBITER
        console = arbiter_client(restarted)
        panel = console.get(f"/arbiter/g/{first}/papeletas").get_data(as_text=True)
        assert "Las papeletas sin código QR van a «Open B», no a esta partida." in panel
        assert "Papeletas sin QR" not in restarted.test_client().get("/display/").get_data(as_text=True)
        assert "Papeletas sin QR" not in console.get("/display/").get_data(as_text=True)  # not a console page
    finally:
        services(restarted).games.close()


def test_the_plain_slips_banner_stands_only_while_plain_pages_wait(app: Flask, arbiter: FlaskClient,
                                                                   tmp_path: Path) -> None:  # fmt: skip
    """Issue 67: the red banner stood on every console page with no scanner at all. It now says where plain slips
    go only while pages of them wait for that choice; the slips panel keeps the choice, red only then."""
    game_id = duplicate_game(app)
    for page in ("/arbiter/", f"/arbiter/g/{game_id}", f"/arbiter/g/{game_id}/papeletas"):
        assert "Papeletas sin QR" not in arbiter.get(page).get_data(as_text=True), page
    panel = arbiter.get(f"/arbiter/g/{game_id}/papeletas").get_data(as_text=True)
    assert 'class="flash inline-form" id="plain-slips"' in panel  # the choice, not an alarm
    post(arbiter, f"/arbiter/g/{game_id}/papeletas/seguir")
    assert "Papeletas sin QR" not in arbiter.get("/arbiter/").get_data(as_text=True)
    services(app).games.append(game_id, Event("game_ended", {"reason": "fin"}))
    second = second_game(app)
    assert "Papeletas sin QR" not in arbiter.get("/arbiter/").get_data(as_text=True)  # the game ended, nothing waits
    scan_into(app, tmp_path / "escaner", "vacia.jpg", np.full((700, 900), 235, np.uint8))  # a page for no game
    html = arbiter.get("/arbiter/").get_data(as_text=True)
    assert "«Open de prueba» ya no está en juego; elija otra partida" in html and "1 página espera." in html
    panel = arbiter.get(f"/arbiter/g/{second}/papeletas").get_data(as_text=True)
    assert 'class="flash inline-form error" id="plain-slips"' in panel
    post(arbiter, f"/arbiter/g/{second}/papeletas/seguir")
    scan_service(app).poll("escaner1")
    assert "Papeletas sin QR" not in arbiter.get("/arbiter/").get_data(as_text=True)


def test_an_uncut_sheet_of_unused_slips_waits_for_nothing_and_asks_nothing(app: Flask, arbiter: FlaskClient,
                                                                           tmp_path: Path) -> None:  # fmt: skip
    """Issue 67: unused printed slips (nothing written) are no slips, of this game, of an ended one or plain."""
    from vision.slips.ingest import split_pages
    from vision.slips.printing import pads, slips_pdf

    running = duplicate_game(app)
    ended = second_game(app, "Open del sábado")
    services(app).games.append(ended, Event("game_ended", {"reason": "fin del torneo"}))
    scans = scan_service(app)
    for number, game_id in enumerate((running, ended)):
        pdf = slips_pdf(pads(game_id, "Open", [(f"j{t}", name, t) for t, name in PLAYERS], per_player=3))
        scan_into(app, tmp_path / "escaner", f"hoja{number}.png", next(iter(split_pages(pdf, "hoja.pdf"))))
    ingestor = scans.ingestors["escaner1"]
    assert not ingestor.pending() and scans.plain().waiting == 0  # read, though no game takes plain slips
    outcome = [r for results in ingestor.read.values() for r in results]
    assert len(outcome) == 16 and {r["status"] for r in outcome} == {"unused"}
    assert scans.pending(running) == [] and game_of(app, running).round(1).slips == {}
    assert "Papeletas sin QR" not in arbiter.get("/arbiter/").get_data(as_text=True)
