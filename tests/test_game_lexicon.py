"""A game keeps its word list (issue 67): recorded when it is created, kept in the data folder,
replayed with it whatever list the server has; changed in play only by an arbiter with a reason;
a list found nowhere named in a clear message; older games replayed with the server's list."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import insert

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateGame, DuplicateSettings
from rules_core.events import Event, GameError
from rules_core.lexicon import DEFAULT_LEXICON_PATH, Lexicon, LexiconRef, MissingLexicon
from webapp.app import create_app
from webapp.cli import main
from webapp.services.accounts import arbiters
from webapp.services.games import GameService
from webapp.services.lexicons import LexiconShelf, lexicon_folders
from webapp.services.shared import services
from webapp.services.store import EventStore

from .conftest import FILE2017
from .web_helpers import ARBITER, arbiter_client, duplicate_game, event_count, post

pytest_plugins = ["tests.conftest_web"]


@pytest.fixture()
def other() -> Lexicon:
    """A second list, far smaller than FILE2017: its top plays differ."""
    words = "CASA CASAS CASO AS ES OS SE LA AL EL LE ASA OSA CHORIZO CHORIZOS LLAMA CARRO NIÑO"
    return Lexicon.from_words(words.split(), name="OTRA")


def _finder(*lexicons: Lexicon) -> dict[LexiconRef, Lexicon]:
    return {lexicon.ref: lexicon for lexicon in lexicons}


# -- the rules: a list recorded, and changed in play ---------------------------------------------


def test_a_duplicate_game_changes_its_list_only_with_a_reason_and_each_round_keeps_its_own(
    file2017: Lexicon, other: Lexicon
) -> None:
    find = _finder(file2017, other).__getitem__
    game = DuplicateGame(other, find)  # the server's list is another: the recorded one wins
    game.apply(Event("game_created", {"settings": {}, "word_list": file2017.ref.to_json()}))
    game.apply(Event("player_added", {"player": "j1", "name": "Ana", "table": 1}))
    game.apply(Event("rack_set", {"round": 1, "rack": list("CASAOEL"), "source": "manual"}))
    assert game.lexicon is file2017 and game.top_plays(1)[0].score == 74  # H3 ACOLASE

    change = {"word_list": other.ref.to_json()}
    with pytest.raises(GameError, match="necesita un motivo"):
        game.apply(Event("lexicon_changed", change, "arbitro"))
    game.apply(Event("lexicon_changed", {**change, "reason": "lista equivocada"}, "arbitro"))
    assert game.round(1).lexicon is other and game.top_plays(1)[0].score == 12  # no slip yet: round 1 takes it
    game.apply(Event("slip", {"round": 1, "player": "j1", "slip": {"notation": "H3 ACOLASE"}}))
    assert game.round(1).results["j1"].score == 0
    back = {"word_list": file2017.ref.to_json(), "reason": "vuelta a la lista oficial"}
    with pytest.raises(GameError, match="ronda 1 ya tiene papeletas"):
        game.apply(Event("lexicon_changed", back, "arbitro"))
    game.apply(Event("master_announced", {"round": 1}))
    game.apply(Event("lexicon_changed", back, "arbitro"))
    game.apply(Event("rack_set", {"round": 2, "rack": list("AEINRST"), "source": "manual"}))
    assert game.round(2).lexicon is file2017
    correction = {"round": 1, "player": "j1", "slip": {"notation": "H3 ACOLASE"}, "reason": "revisada"}
    game.apply(Event("slip_corrected", correction))
    assert game.round(1).results["j1"].score == 0  # round 1 is still judged with its own list

    again = DuplicateGame.replay(game.events, other, find)
    assert [r.lexicon.sha256 for r in again.rounds] == [other.sha256, file2017.sha256]
    assert again.standings() == game.standings()
    with pytest.raises(MissingLexicon, match="FILE2017"):
        DuplicateGame.replay(game.events, other)  # no way to find FILE2017: never replayed with another


def test_a_classic_game_judges_the_plays_after_a_change_with_the_new_list(file2017: Lexicon, other: Lexicon) -> None:
    game = ClassicGame(file2017, _finder(file2017, other).__getitem__)
    game.apply(Event("game_created", {**ClassicGame.create_event(["Ana", "Bruno"]).data, "word_list": other.ref.to_json()}))
    assert game.lexicon is other
    game.apply(ClassicGame.play_event(0, "H8 CASA"))
    tiny = Lexicon.from_words(["CASA", "COSA"], name="MINIMA")
    game = ClassicGame.replay(game.events, file2017, _finder(other, tiny).__getitem__)
    game.apply(Event("lexicon_changed", {"word_list": tiny.ref.to_json(), "reason": "decisión del comité"}))
    game.apply(ClassicGame.play_event(1, "8H CASAS"))
    assert game.turns[-1].invalid_words == ("CASAS",) and game.turns[0].invalid_words == ()


# -- the copies a server keeps ------------------------------------------------------------------


def test_a_copy_is_the_canonical_list_named_by_its_hash_and_never_overwritten(tmp_path: Path, other: Lexicon) -> None:
    folder = tmp_path / "datos" / "lexicons"
    LexiconShelf(other, [folder]).keep(other)
    copy = folder / f"{other.sha256}.txt.gz"
    assert hashlib.sha256(gzip.decompress(copy.read_bytes())).hexdigest() == other.sha256
    assert json.loads((folder / f"{other.sha256}.json").read_text(encoding="utf-8"))["name"] == "OTRA"
    copy.write_bytes(gzip.compress(b"CASA\n"))  # damaged on disk
    LexiconShelf(other, [folder]).keep(other)
    assert gzip.decompress(copy.read_bytes()) == b"CASA\n"  # never overwritten
    with pytest.raises(MissingLexicon, match="OTRA"):  # and never taken for the list it is named after
        LexiconShelf(Lexicon.from_words(["COSA"]), [folder]).find(other.ref)


def test_the_lists_are_found_in_the_data_folder_and_beside_a_sqlite_database(tmp_path: Path, other: Lexicon) -> None:
    url = f"sqlite:///{tmp_path / 'base' / 'veedor.db'}"
    folders = lexicon_folders(url, tmp_path / "datos")
    assert folders == [tmp_path / "datos" / "lexicons", tmp_path / "base" / "lexicons"]
    LexiconShelf(other, [folders[1]]).keep(other)
    found = LexiconShelf(Lexicon.from_words(["COSA"], name="PROPIA"), folders).find(LexiconRef("OTRA 2024", other.sha256))
    assert (found.sha256, found.name) == (other.sha256, "OTRA 2024")  # called as the game recorded it
    assert lexicon_folders("sqlite://") == []


# -- the reproduction: played with FILE2017, served with the default list ----------------


@pytest.fixture()
def default_app(tmp_path: Path, password_hash: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    """An app on ``tmp_path/datos`` with the free default word list, and the test arbiter."""
    monkeypatch.delenv("VEEDOR_LEXICON", raising=False)
    data = tmp_path / "datos"
    data.mkdir()
    app = create_app({"TESTING": True, "SECRET_KEY": "clave-de-los-tests", "INSTANCE_PATH": str(data),
                      "DATABASE_URL": f"sqlite:///{data / 'veedor.db'}"})  # fmt: skip
    with services(app).accounts.engine.begin() as connection:
        connection.execute(insert(arbiters).values(login=ARBITER, password_hash=password_hash,
                                                   created_at=datetime.now(timezone.utc)))  # fmt: skip
    yield app
    services(app).games.close()


def test_a_game_simulated_with_file2017_opens_and_exports_on_a_server_with_the_default_list(
    default_app: Flask, file2017: Lexicon
) -> None:
    data = Path(default_app.instance_path)
    url = default_app.config["DATABASE_URL"]
    args = ["duplicate", "simulate", "--lexicon", str(FILE2017), "--db", url, "--players", "4", "--rounds", "2",
            "--seed", "2021", "--json"]  # fmt: skip
    assert main(args) == 0
    assert (data / "lexicons" / f"{file2017.sha256}.txt.gz").is_file()
    game_id = EventStore(url).games()[0].id
    events = EventStore(url).events(game_id)
    with pytest.raises(GameError, match="no es una jugada de máxima puntuación"):  # the bug: replayed with the server's list
        DuplicateGame.replay([Event(e.kind, {k: v for k, v in e.data.items() if k != "word_list"}) for e in events],
                             Lexicon.load(DEFAULT_LEXICON_PATH))  # fmt: skip

    app = default_app
    assert services(app).games.lexicon.name == "veedor-es-libre"
    client = app.test_client()
    page = client.get(f"/results/{game_id}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "Léxico:" in text and "FILE2017" in text and file2017.sha256[:8] in text
    for export in ("rondas.csv", "rondas.xlsx", "clasificacion.csv", "clasificacion.xlsx", "imprimir", "ronda/1"):
        assert client.get(f"/results/{game_id}/{export}").status_code == 200, export
    console = arbiter_client(app).get(f"/arbiter/g/{game_id}")
    assert console.status_code == 200 and "FILE2017" in console.get_data(as_text=True)


# -- the console: the list shown, and changed with a reason ----------------------------------------


def test_the_arbiter_changes_the_list_with_a_reason_and_the_pages_say_which(app: Flask, other: Lexicon,
                                                                              file2017: Lexicon) -> None:  # fmt: skip
    services(app).games.shelf.keep(other)  # a list this server has used before
    game_id = duplicate_game(app, rack="CASAOEL")
    arbiter = arbiter_client(app)
    assert f"FILE2017</strong>" in arbiter.get(f"/arbiter/g/{game_id}").get_data(as_text=True)
    before = event_count(app, game_id)
    post(arbiter, f"/arbiter/g/{game_id}/lexicon", {"sha256": other.sha256, "reason": " "})
    assert event_count(app, game_id) == before  # no reason, no change
    post(arbiter, f"/arbiter/g/{game_id}/lexicon", {"sha256": "0" * 64, "reason": "otra"})
    assert event_count(app, game_id) == before  # a list the server does not have
    reason = "Lista equivocada al crear la partida"
    post(arbiter, f"/arbiter/g/{game_id}/lexicon", {"sha256": other.sha256, "reason": reason})
    assert event_count(app, game_id) == before + 1
    games = services(app).games
    games.append(game_id, Event("master_announced", {"round": 1}))
    post(arbiter, f"/arbiter/g/{game_id}/lexicon", {"sha256": file2017.sha256, "reason": "vuelta a la oficial"})
    games.append(game_id, Event("rack_set", {"round": 2, "rack": list("AEINRST"), "source": "manual"}))

    public = app.test_client().get(f"/results/{game_id}").get_data(as_text=True)
    assert f"OTRA</strong>" in public and f"FILE2017</strong>" in public and "desde la ronda 2" in public
    assert reason not in public  # an arbiter's reason stays behind the session
    log = arbiter.get(f"/arbiter/g/{game_id}/log").get_data(as_text=True)
    assert f"Léxico cambiado a OTRA ({other.sha256[:8]}); motivo: {reason}" in log
    assert f"con el léxico FILE2017 ({file2017.sha256[:8]})" in log

    restarted = GameService(EventStore(app.config["DATABASE_URL"]), Lexicon.from_words(["COSA"]),
                            LexiconShelf(Lexicon.from_words(["COSA"]), [Path(app.instance_path) / "lexicons"]))  # fmt: skip
    assert [r.lexicon.name for r in restarted.duplicate(game_id).rounds] == ["OTRA", "FILE2017"]


# -- a list found nowhere; a game from before lists were recorded ------------------------------------


def test_a_game_whose_list_is_nowhere_says_which_list_is_missing(app: Flask, other: Lexicon) -> None:
    games = services(app).games
    game_id = GameService(games.store, other).create_duplicate("Con una lista perdida", DuplicateSettings())
    public = app.test_client().get(f"/results/{game_id}")
    assert public.status_code == 409
    text = public.get_data(as_text=True)
    assert f"léxico OTRA ({other.sha256[:8]})" in text and "--lexicon" in text
    assert app.instance_path not in text  # where it was looked for: for the arbiters only
    console = arbiter_client(app).get(f"/arbiter/g/{game_id}")
    assert console.status_code == 409 and str(Path(app.instance_path) / "lexicons") in console.get_data(as_text=True)
    assert app.test_client().get(f"/results/{game_id}/rondas.csv", headers={"Accept": "application/json"}).status_code == 409
    assert arbiter_client(app).get("/arbiter/").status_code == 200  # the other games still open


def test_a_game_stored_before_lists_were_recorded_is_replayed_with_the_servers_list(app: Flask) -> None:
    store = services(app).games.store
    first = Event("game_created", {"settings": DuplicateSettings().to_json(), "name": "Antigua"})
    game_id = store.create_game("duplicate", "Antigua", first, {})
    page = app.test_client().get(f"/results/{game_id}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "FILE2017</strong>" in text and "Es la lista de este servidor" in text
