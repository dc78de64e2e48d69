"""The app factory: configuration, errors, security headers, limits, CLI, translations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from rules_core.alphabet import tiles_from_text
from rules_core.lexicon import Lexicon
from webapp.views.inputs import FORM_LIMITS
from webapp.app import create_app
from webapp.services.shared import services

from .web_helpers import CSRF, duplicate_game, post

pytest_plugins = ["tests.conftest_web"]


def test_the_factory_takes_a_lexicon_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEEDOR_CACHE_DIR", str(tmp_path / "cache"))
    words = tmp_path / "mini.txt"
    words.write_text("casa\ncasas\n", encoding="utf-8")
    app = create_app({"LEXICON_PATH": str(words), "INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "x"})
    lexicon = services(app).games.lexicon
    assert lexicon.name == "mini" and tiles_from_text("CASAS") in lexicon and tiles_from_text("COSA") not in lexicon


def test_without_a_secret_key_one_is_made_and_kept(tmp_path: Path, file2017: Lexicon, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VEEDOR_SECRET_KEY", raising=False)
    first = create_app({"INSTANCE_PATH": str(tmp_path), "LEXICON": file2017})
    second = create_app({"INSTANCE_PATH": str(tmp_path), "LEXICON": file2017})
    assert first.config["SECRET_KEY"] == second.config["SECRET_KEY"] and len(first.config["SECRET_KEY"]) == 64
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0
    assert first.config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'veedor.db'}"


def test_security_headers(client: FlaskClient) -> None:
    answer = client.get("/results")
    csp = answer.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"


def test_no_page_loads_anything_from_elsewhere(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    for url in ["/", "/login", "/results", f"/display/{game_id}", f"/arbiter/g/{game_id}", f"/results/{game_id}"]:
        html = arbiter.get(url).text
        sources = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert sources and all(not s.startswith(("http:", "https:", "//")) for s in sources), url
        assert "<script>" not in html  # no inline script: the CSP forbids it


def test_static_files_and_fonts_are_served(client: FlaskClient) -> None:
    for path in ["css/base.css", "css/display.css", "js/display.js", "js/arbiter.js", "fonts/DejaVuSans.ttf",
                 "fonts/DejaVuSans-Bold.ttf", "fonts/DejaVuSansCondensed-Bold.ttf", "fonts/DejaVu-LICENSE.txt"]:  # fmt: skip
        assert client.get(f"/static/{path}").status_code == 200, path
    assert client.get("/favicon.ico").status_code == 200


def test_errors_are_pages_for_people_and_json_for_the_api(client: FlaskClient) -> None:
    page = client.get("/no-existe")
    assert page.status_code == 404 and page.mimetype == "text/html" and "No encontrado" in page.text
    api = client.get("/api/no-existe")
    assert api.status_code == 404 and api.json == {"error": "No encontrado", "status": 404}
    assert client.delete("/api/games").json["status"] == 405


def test_an_unexpected_error_shows_no_trace(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom() -> None:
        raise RuntimeError("secreto interno")

    monkeypatch.setattr(services(app).games.store, "games", boom)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    client = app.test_client()
    page = client.get("/results")
    assert page.status_code == 500 and "secreto" not in page.text and "Traceback" not in page.text
    api = client.get("/api/games")
    assert api.status_code == 500 and api.json["status"] == 500 and "secreto" not in api.text


def test_request_size_is_limited(app: Flask, arbiter: FlaskClient) -> None:
    game_id = duplicate_game(app)
    big = "x" * (300 * 1024)
    # the players' form takes the longest list its page states (inputs.FORM_LIMITS): past it, 413
    beyond = "x" * (FORM_LIMITS["arbiter.add_players"] + 1024)
    answer = post(arbiter, f"/arbiter/g/{game_id}/players", {"players": beyond})
    assert answer.status_code == 413
    token = services(app).accounts.add_device("d", "scanner")
    api = arbiter.post(f"/api/games/{game_id}/events", data=big, content_type="application/json",
                       headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert api.status_code == 413 and api.json["status"] == 413


def test_flask_commands_add_arbiters_and_devices(app: Flask, runner: FlaskCliRunner) -> None:
    result = runner.invoke(args=["arbiter-add", "jefa", "--password", "una-clave-larga"])
    assert result.exit_code == 0 and "jefa" in result.output
    assert services(app).accounts.check_password("jefa", "una-clave-larga")
    again = runner.invoke(args=["arbiter-add", "jefa", "--password", "una-clave-larga"])
    assert again.exit_code != 0 and "ya existe" in again.output
    token = runner.invoke(args=["device-add", "escaner", "--role", "scanner"]).output.strip()
    device = services(app).accounts.device_for_token(token)
    assert device is not None and (device.name, device.role, device.games) == ("escaner", "scanner", None)


def test_the_interface_is_spanish_and_english_can_follow(client: FlaskClient) -> None:
    assert 'lang="es"' in client.get("/results").text
    english = client.get("/results?lang=en").text
    assert 'lang="en"' in english and "Results" in english


def _key(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """A message id or translation, singular or plural forms, as a tuple."""
    return (text,) if isinstance(text, str) else tuple(text)


def test_the_catalogue_is_compiled_and_complete() -> None:
    from babel.messages.mofile import read_mo
    from babel.messages.pofile import read_po

    folder = Path(__file__).resolve().parents[1] / "webapp" / "translations"
    for language in ("es", "en"):
        po_path = folder / language / "LC_MESSAGES" / "messages.po"
        with open(po_path, "rb") as handle:
            po = read_po(handle)
        with open(po_path.with_suffix(".mo"), "rb") as handle:
            mo = read_mo(handle)
        translated = {_key(m.id): _key(m.string) for m in po if m.id and all(_key(m.string)) and not m.fuzzy}
        compiled = {_key(m.id): _key(m.string) for m in mo if m.id}
        assert compiled == translated, f"{language}: run `make translations`"
        if language == "en":
            assert len(translated) == len([m for m in po if m.id]), "English catalogue incomplete"


def test_a_post_with_the_token_works_and_anonymous_does_not(app: Flask, arbiter: FlaskClient, client: FlaskClient) -> None:
    game_id = duplicate_game(app)
    assert client.post(f"/arbiter/g/{game_id}/timer", data={"csrf_token": CSRF, "action": "start"}).status_code == 400
    assert not services(app).games.duplicate(game_id).current.timer_running  # type: ignore[union-attr]
    post(arbiter, f"/arbiter/g/{game_id}/timer", {"action": "start"})
    assert services(app).games.duplicate(game_id).current.timer_running  # type: ignore[union-attr]
