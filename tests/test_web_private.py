"""Private stays private (issue 67): what an arbiter wrote reaches no public surface.

A duplicate game and a classic one are played through the app's services with a unique
secret wherever an arbiter writes free text: a master's annulment reason (D.III.29), a
correction's reason, a slip's void reason typed and given on the scan review, the reason
of a slip entered after its round closed, the reason the game was ended, a doubt's note
and a dismissed doubt's reason. Then every GET route of the URL map that no login or
device token guards is walked as an anonymous client, its arguments filled from those
games (pages, CSV and XLSX unzipped, JSON, a short read of each live stream): no secret
may show. The kind of a void or annulled play still shows; the arbiter still reads every
reason on the console. The walker fails on a public route it cannot fill or reach, so a
new route is walked or the test says so.
"""

from __future__ import annotations

import io
import itertools
import random
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Final

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.routing import Rule
from werkzeug.routing.converters import AnyConverter, NumberConverter

from hardware.venue import ScreenConfig
from rules_core.classic import ClassicGame
from rules_core.duplicate import rack_labels
from rules_core.events import Event
from rules_core.racks import draw_rack
from rules_core.slips import VOID_KINDS, Slip
from vision.slips.review import VOID_REASONS as REVIEW_VOID_REASONS
from vision.slips.review import ReviewItem
from webapp.records.tournaments import TournamentPlayer, tournaments_of
from webapp.services.shared import scan_service, services
from webapp.views.arbiter.common import VOID_REASONS as CONSOLE_VOID_REASONS
from webapp.views.auth import guard_of
from webapp.views.overlay import PARTS

from .web_helpers import ARBITER, arbiter_client, duplicate_game

pytest_plugins = ["tests.conftest_web"]

SECRETS: Final = {
    "annulment": "Secreto-Anulacion-4q7w",
    "correction": "Secreto-Correccion-4q7w",
    "void typed": "Secreto-Nula-Tecleada-4q7w",
    "void on review": "Secreto-Nula-Revisada-4q7w",
    "late slip": "Secreto-Fuera-De-Tiempo-4q7w",
    "end": "Secreto-Final-4q7w",
    "doubt": "Secreto-Duda-4q7w",
    "dismissed": "Secreto-Descarte-4q7w",
}  # fmt: skip
SCREEN = "sala-principal"
ELODI_ROUNDS = 12  # a game is rated from 12 rounds on (``records.elodi``)


@dataclass
class Played:
    """The games played for the walk and the values that fill the routes' arguments."""

    duplicate: str
    classic: str
    fills: dict[str, list[Any]] = field(default_factory=dict)


def slip(app: Flask, game_id: str, kind: str, number: int, player: str, play: Slip, reason: str | None = None) -> None:
    data: dict[str, Any] = {"round": number, "player": player, "slip": play.to_json()}
    if reason:
        data["reason"] = reason
    services(app).games.append(game_id, Event(kind, data, ARBITER))


def doubt(game_id: str, item_id: str, note: str) -> ReviewItem:
    """A flagged slip of round 2 at table 1, as the scan reader queues it."""
    return ReviewItem(item_id, "0" * 64, game_id, 2, "j1", 1, "H8 ILEQ", ("illegible",), 0.2, (), None, "", "", note)


def play_duplicate(app: Flask) -> str:
    """Every kind of arbiter's free text planted in rounds 1 and 2 (see the module docstring), played on
    to the twelve rounds EloDI rates, then ended by the arbiter."""
    game_id = duplicate_game(app, bonuses=True)
    games = services(app).games
    games.append(game_id, Event("player_added", {"player": "j4", "name": "Dora", "table": 4}))
    slip(app, game_id, "slip", 1, "j1", Slip("H3 AMONEN"))
    slip(app, game_id, "slip", 1, "j2", Slip("H4 MANEN", void=SECRETS["void typed"]))
    slip(app, game_id, "slip", 1, "j3", Slip("8C AMONEN"))
    slip(app, game_id, "slip_corrected", 1, "j3", Slip("H4 MANEN"), SECRETS["correction"])
    games.append(game_id, Event("master_announced", {"round": 1}, ARBITER))
    slip(app, game_id, "slip", 1, "j4", Slip("H4 MANEN", late=True), SECRETS["late slip"])
    games.append(game_id, Event("rack_set", {"round": 2, "rack": list("AEILQRS"), "source": "manual"}, ARBITER))
    games.append(game_id, Event("master_annulled", {"round": 1, "reason": SECRETS["annulment"]}, ARBITER))
    scans = scan_service(app)
    for item in (doubt(game_id, "duda-1", SECRETS["doubt"]), doubt(game_id, "duda-2", SECRETS["doubt"]),
                 doubt(game_id, "duda-3", SECRETS["doubt"])):  # fmt: skip
        scans.queue.add(item)
    scans.resolve(game_id, "duda-1", "void", ARBITER, reason=SECRETS["void on review"], player="j1", round_number=2)
    scans.resolve(game_id, "duda-2", "dismiss", ARBITER, reason=SECRETS["dismissed"])
    games.append(game_id, Event("master_announced", {"round": 2}, ARBITER))
    play_on(app, game_id, ELODI_ROUNDS)
    games.append(game_id, Event("game_ended", {"reason": SECRETS["end"]}, ARBITER))
    return game_id


def play_on(app: Flask, game_id: str, rounds: int) -> None:
    """Rounds drawn and played to ``rounds`` (everyone hands in the master)."""
    games, rng = services(app).games, random.Random(67)
    while True:
        with games.reading(game_id) as game:
            number = len(game.rounds) + 1
            draw = draw_rack(game.leave, game.bag, number, rng) if number <= rounds else None
            players = list(game.players)
        if draw is None:
            return
        games.append(game_id, Event("rack_set", {"round": number, "rack": rack_labels(draw.rack), "source": "sorteo"}))
        with games.reading(game_id) as game:
            master = game.top_plays(number)[0].notation
        for player in players:
            slip(app, game_id, "slip", number, player, Slip(master))
        games.append(game_id, Event("master_announced", {"round": number}, ARBITER))


def play_classic(app: Flask) -> str:
    """A classic game at table 1 ("Mesa 1"): a play, a play challenged, a pass."""
    games = services(app).games
    game_id = games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bea"]))
    for event in (ClassicGame.play_event(0, "H8 CASA", rack="CASAEIO"), ClassicGame.play_event(1, "8H CUSPE"),
                  ClassicGame.challenge_event(0), ClassicGame.pass_event(0)):  # fmt: skip
        games.append(game_id, event)
    return game_id


@pytest.fixture()
def played(app: Flask) -> Played:
    """Both games, a tournament of them, a venue screen, no delay on the overlays, short streams."""
    duplicate, classic = play_duplicate(app), play_classic(app)
    with services(app).games.reading(duplicate) as game:
        players = list(game.players.values())
    listed = [TournamentPlayer(f"L{p.table}", p.name, p.table, licence=f"L{p.table}") for p in players]  # matched by name
    tournament = tournaments_of(app).create("Torneo de prueba", "average_place", listed, ["Juez Árbitro"])
    for game_id in (duplicate, classic):
        tournaments_of(app).add_game(tournament, game_id)
    photos = Path(app.config.get("DATA_DIR") or app.instance_path) / "fotos"
    photos.mkdir(parents=True, exist_ok=True)
    (photos / "dora.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 16 + b"\xff\xd9")  # the stream's photos
    app.config.update(VENUE=SimpleNamespace(screens=(ScreenConfig(SCREEN, f"game:{duplicate}"),), tables=()),
                      OVERLAY_DELAY_MINUTES=0, BROADCAST_DELAY_MINUTES=0, LIVE_STREAM_SECONDS=0.3)  # fmt: skip
    fills: dict[str, list[Any]] = {
        "game_id": [duplicate, classic],
        "number": [1, 2, 3, 4],  # the rounds (1, 2) and the tables (1 to 4)
        "player": [p.id for p in players] + [p.id for p in listed],  # a game's players, the tournament's
        "name": [p.name for p in players] + [SCREEN],  # EloDI's players, the venue's screens
        "part": list(PARTS),
        "tournament_id": [tournament],
        "filename": ["favicon.svg"],
        "tables": ["1,2"],  # several tables at once
        "photo": ["dora.jpg"],
    }  # fmt: skip
    return Played(duplicate, classic, fills)


# -- the walker -----------------------------------------------------------------------------


@dataclass
class Walk:
    """What a walk of the public routes found: per rule its URLs and their statuses."""

    visited: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    unfillable: list[str] = field(default_factory=list)  # rules with an argument no fill names
    unreached: list[str] = field(default_factory=list)  # rules that answered no filled URL with 200
    leaks: list[str] = field(default_factory=list)  # "url: secret"


def public_get_rules(app: Flask) -> Iterator[Rule]:
    """Every GET rule of the app whose view no login or device token guards."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if "GET" in (rule.methods or ()) and guard_of(app.view_functions[rule.endpoint]) is None:
            yield rule


def urls_of(rule: Rule, fills: Mapping[str, Sequence[Any]], any_value: bool = False) -> list[str] | None:
    """Every URL of ``rule`` with its arguments filled (a choice converter: each of its choices);
    None when an argument has no fill, unless ``any_value`` (then a value of its type)."""
    choices: list[list[tuple[str, Any]]] = []
    for argument in sorted(rule.arguments):
        converter = rule._converters[argument]  # werkzeug keeps a rule's converters there
        values = sorted(converter.items) if isinstance(converter, AnyConverter) else fills.get(argument)
        if not values and any_value:
            values = [1] if isinstance(converter, NumberConverter) else ["x"]
        if not values:
            return None
        choices.append([(argument, v) for v in values])
    return [rule.build(dict(combination), append_unknown=False)[1] for combination in itertools.product(*choices)]


def readable(body: bytes) -> str:
    """A response as text to search: a ZIP (XLSX) is every member's text."""
    if body[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            return "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())
    return body.decode("utf-8", "replace")


def found_secrets(text: str) -> list[str]:
    folded = text.casefold()
    return [what for what, secret in SECRETS.items() if secret.casefold() in folded]


def walk(app: Flask, fills: Mapping[str, Sequence[Any]]) -> Walk:
    """Get every public route's every filled URL as an anonymous client (redirects followed)."""
    client, found = app.test_client(), Walk()
    for rule in public_get_rules(app):
        urls = urls_of(rule, fills)
        if urls is None:
            found.unfillable.append(rule.rule)
            continue
        statuses = []
        for url in urls:
            response = client.get(url, follow_redirects=True)
            statuses.append((url, response.status_code))
            found.leaks += [f"{url}: {what}" for what in found_secrets(readable(response.get_data()))]
        found.visited[rule.rule] = statuses
        if not any(status == 200 for _url, status in statuses):
            found.unreached.append(rule.rule)
    return found


# -- the tests ------------------------------------------------------------------------------


def test_no_public_route_shows_what_an_arbiter_wrote(app: Flask, played: Played) -> None:
    found = walk(app, played.fills)
    assert found.unfillable == [], "public routes the walker cannot fill: add their arguments to the fills"
    assert found.unreached == [], "public routes that answered no filled URL with 200: fill them from the games"
    assert len(found.visited) >= 30 and sum(len(urls) for urls in found.visited.values()) >= 80
    for must in ("/results/<game_id>/ronda/<int:number>", "/results/<game_id>/rondas.<any(csv, xlsx):kind>",
                 "/api/games/<game_id>/stream", "/emision/<game_id>", "/overlay/<game_id>/<part>"):  # fmt: skip
        assert must in found.visited
    assert not found.leaks, "what an arbiter wrote, on public routes:\n" + "\n".join(found.leaks)


def test_the_public_sees_the_kind_of_a_void_or_annulled_play(app: Flask, client: FlaskClient, played: Played) -> None:
    page = client.get(f"/results/{played.duplicate}/ronda/1").text
    assert "papeleta nula" in page and "jugada maestra anulada (D.III.29)" in page
    assert "entregada fuera de tiempo" in page
    rounds = client.get(f"/results/{played.duplicate}/rondas.csv").data.decode("utf-8-sig")
    assert "papeleta nula" in rounds and "jugada maestra anulada" in rounds
    printable = client.get(f"/results/{played.duplicate}/imprimir").text
    assert "decisión del Juez Árbitro (D.III.22)" in printable


def test_a_void_reason_of_the_rules_list_shows_publicly(app: Flask, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    slip(app, game_id, "slip", 1, "j1", Slip("H3 AMONEN", void="caligrafía ininteligible"))
    services(app).games.append(game_id, Event("master_announced", {"round": 1}, ARBITER))
    page = client.get(f"/results/{game_id}/jugador/j1").text
    assert "papeleta nula: caligrafía ininteligible" in page


def test_every_void_reason_the_arbiter_picks_from_a_list_is_a_kind_the_public_reads() -> None:
    offered = {*CONSOLE_VOID_REASONS, *REVIEW_VOID_REASONS.values()}
    assert {reason.casefold() for reason in offered} <= VOID_KINDS, "add the new reason to rules_core.slips.VOID_KINDS"


def test_the_arbiter_still_reads_every_reason(app: Flask, played: Played) -> None:
    arbiter = arbiter_client(app)
    game = played.duplicate
    first = arbiter.get(f"/arbiter/g/{game}?ronda=1").text
    assert SECRETS["annulment"] in first and SECRETS["void typed"] in first
    assert SECRETS["void on review"] in arbiter.get(f"/arbiter/g/{game}?ronda=2").text
    assert SECRETS["end"] in arbiter.get(f"/arbiter/g/{game}").text
    log = arbiter.get(f"/arbiter/g/{game}/log").text
    for what in ("annulment", "correction", "late slip", "end"):
        assert SECRETS[what] in log, what
    assert SECRETS["doubt"] in arbiter.get(f"/arbiter/g/{game}/papeletas?ronda=2").text
    evidence = readable(arbiter.get(f"/arbiter/g/{game}/expediente.zip").get_data())
    assert set(found_secrets(evidence)) == set(SECRETS)


def test_every_guarded_page_sends_an_anonymous_visitor_away(app: Flask, played: Played) -> None:
    client = app.test_client()
    public = list(public_get_rules(app))
    guarded = [r for r in app.url_map.iter_rules() if "GET" in (r.methods or ()) and r not in public]
    assert len(guarded) >= 10
    for rule in guarded:
        url = (urls_of(rule, played.fills, any_value=True) or [""])[0]
        response = client.get(url)
        assert response.status_code == 401 or (response.status_code == 302 and "/login" in response.location), url


def test_the_walker_fails_on_a_public_route_it_cannot_fill_or_reach(app: Flask, played: Played) -> None:
    app.add_url_rule("/results/<game_id>/novedad/<cosa>", "novedad", lambda game_id, cosa: "")
    app.add_url_rule("/results/<game_id>/solo-de-otro-tipo", "otro", lambda game_id: ("", 404))
    found = walk(app, played.fills)
    assert "/results/<game_id>/novedad/<cosa>" in found.unfillable
    assert "/results/<game_id>/solo-de-otro-tipo" in found.unreached

