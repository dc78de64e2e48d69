"""The Flask application factory: configuration, services, blueprints, errors, headers.

``create_app(test_config=None)`` builds the app; nothing starts at import time. The
configuration keys (defaults in ``DEFAULTS``) that matter most:

* ``DATABASE_URL``: the event store (default SQLite ``veedor.db`` in the instance
  folder); served from one process (see ``live``);
* ``LEXICON`` (a loaded ``Lexicon``) or ``LEXICON_PATH`` (default: ``$VEEDOR_LEXICON``,
  else the free list shipped with Veedor): the list new games record; every game is
  replayed with its own list, the server's or a copy kept in the data folder's
  ``lexicons/`` (``services.lexicons``); a game whose list is nowhere answers 409 naming it;
* ``SECRET_KEY``: signs the session; when unset, one is made once and kept in the
  instance folder (``secret_key``), so restarts keep the arbiters logged in;
* ``LIVE_MAX_STREAMS``: most live screens at once (each holds a server thread);
  ``LIVE_STREAMS_PER_ADDRESS``: most of them from one client address (0: no cap);
* ``PROXY_HOPS``: how many proxies in front are trusted to say the client's address
  and scheme (``X-Forwarded-For``/``-Proto``, the last N values; default
  ``$VEEDOR_PROXY_HOPS``, else 0: none, the headers are ignored);
* ``DATA_DIR``: the board cameras' frames, calibrations and attachments (``cameras``;
  default the instance folder);
* ``SESSION_COOKIE_SECURE``: set by ``VEEDOR_HTTPS=1`` when a TLS proxy fronts the app.

The services are built once here (``services.shared.Services``); the views
(``webapp.views``: ``display`` and ``screens`` for the room, ``arbiter``,
``slip_review`` and ``camera_panel`` for the console, ``results``, ``api`` and
``camera_api`` for JSON and devices, ``auth`` for the login) reach them through
``services.shared.services()``.
"""

from __future__ import annotations

import logging
import os
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

import click
from flask import Flask, current_app, render_template, request, session
from flask_babel import Babel, get_locale, lazy_gettext  # type: ignore[import-untyped]
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.wrappers import Response

from rules_core.alphabet import LETTERS
from rules_core.board import CENTRE, PREMIUMS, Premium
from rules_core.events import GameError
from rules_core.lexicon import Lexicon, MissingLexicon, load_lexicon

from .records.timezone import venue_day
from .services.accounts import ROLES, AccountError, Accounts
from .services.cameras import CameraRegistry
from .services.lexicons import LexiconShelf, WordListUse, lexicon_folders, word_list_use
from .services.live import LiveGames, StreamSlots
from .services.login_throttle import LoginThrottle
from .services.shared import EXTENSION, Services, services
from .services.store import EventStore, StoreError
from .services.stored_files import StoredFiles, protected_files
from .views import (
    api,
    arbiter,
    archive,
    auth,
    camera_api,
    camera_panel,
    classic_results,
    display,
    elodi,
    overlay,
    results,
    screens,
    slip_review,
    stream,
    tournaments,
)
from .views.auth import check_csrf, csrf_token, current_arbiter, wants_json
from .views.inputs import check_request_text, widen_form_limits

log = logging.getLogger(__name__)

LANGUAGES = ("es", "en")
DEFAULTS: dict[str, Any] = {
    "LEXICON": None,
    "LEXICON_PATH": None,
    "MAX_CONTENT_LENGTH": 256 * 1024,  # a request body; slips and forms are far smaller
    "MAX_FORM_MEMORY_SIZE": 64 * 1024,
    "MAX_FORM_PARTS": 400,
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "PERMANENT_SESSION_LIFETIME": timedelta(hours=14),  # a tournament day
    "BABEL_DEFAULT_LOCALE": "es",
    "LIVE_MAX_STREAMS": 200,
    "LIVE_STREAMS_PER_ADDRESS": 16,  # a browser holds at most 6 streams to one server
    "LIVE_PING_SECONDS": 15.0,  # an idle stream's ping: the screen tells a quiet game from a dead link
    "LIVE_STREAM_SECONDS": 900.0,  # then the stream ends and the browser reconnects
}


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The Veedor web app; ``test_config`` overrides the defaults and the environment."""
    config = dict(test_config or {})
    app = Flask(__name__, instance_path=config.pop("INSTANCE_PATH", None) or os.environ.get("VEEDOR_DATA"))
    app.config.update(DEFAULTS)
    app.config["DATABASE_URL"] = os.environ.get("VEEDOR_DATABASE_URL")
    app.config["LEXICON_PATH"] = os.environ.get("VEEDOR_LEXICON")
    app.config["SESSION_COOKIE_SECURE"] = os.environ.get("VEEDOR_HTTPS") == "1"  # served behind TLS
    app.config["PROXY_HOPS"] = _proxy_hops(os.environ.get("VEEDOR_PROXY_HOPS"))
    app.config.update(config)
    if app.config["PROXY_HOPS"]:  # request.remote_addr: the client's, as the trusted proxies say
        hops = int(app.config["PROXY_HOPS"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    app.config["DATABASE_URL"] = app.config["DATABASE_URL"] or _default_database(app)
    app.config["SECRET_KEY"] = app.config.get("SECRET_KEY") or os.environ.get("VEEDOR_SECRET_KEY") or _secret_key(app)

    lexicon: Lexicon = app.config["LEXICON"] or load_lexicon(app.config["LEXICON_PATH"])
    store = EventStore(app.config["DATABASE_URL"])
    data_dir = Path(app.config.get("DATA_DIR") or app.instance_path)
    shelf = LexiconShelf(lexicon, lexicon_folders(app.config["DATABASE_URL"], data_dir))
    app.extensions[EXTENSION] = Services(
        LiveGames(store, lexicon, shelf), Accounts(store.engine),
        StreamSlots(app.config["LIVE_MAX_STREAMS"], app.config["LIVE_STREAMS_PER_ADDRESS"]), LoginThrottle(),
    )  # fmt: skip
    found = services(app)
    data_dir = Path(app.config.get("DATA_DIR") or app.instance_path)
    found.files = StoredFiles(data_dir, protected_files(app.config["DATABASE_URL"], Path(app.instance_path)))
    found.cameras = CameraRegistry(found.games, data_dir, found.files)
    Babel(app, locale_selector=_locale)
    _register_blueprints(app)
    _register_errors(app)
    _register_commands(app)
    app.before_request(widen_form_limits)  # blueprints' own limits (slip uploads) are set earlier still
    app.before_request(check_request_text)
    app.before_request(check_csrf)
    app.after_request(_security_headers)
    app.context_processor(_template_globals)
    app.add_template_filter(venue_day, "venue_date")
    return app


def _proxy_hops(value: str | None) -> int:
    """``$VEEDOR_PROXY_HOPS``: a count of proxies, 0 when unset."""
    if not value:
        return 0
    if not value.strip().isdigit():
        raise ValueError(f"VEEDOR_PROXY_HOPS={value!r}: se esperaba un número de proxies (0, 1, 2...)")
    return int(value)


def _default_database(app: Flask) -> str:
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{Path(app.instance_path) / 'veedor.db'}"


def _secret_key(app: Flask) -> str:
    path = Path(app.instance_path) / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32), encoding="ascii")
        path.chmod(0o600)
    return path.read_text(encoding="ascii").strip()


def _locale() -> str:
    wanted = request.args.get("lang")
    if wanted in LANGUAGES:
        session["lang"] = wanted
    chosen = session.get("lang")
    return chosen if chosen in LANGUAGES else str(current_app.config["BABEL_DEFAULT_LOCALE"])


def _register_blueprints(app: Flask) -> None:
    for blueprint in (auth.bp, display.bp, screens.bp, arbiter.bp, slip_review.bp, camera_panel.bp, results.bp,
                      api.bp, camera_api.bp):  # fmt: skip
        app.register_blueprint(blueprint)
    app.register_blueprint(overlay.bp)
    app.register_blueprint(stream.bp)
    for records in (classic_results.bp, tournaments.bp, elodi.bp, archive.bp):
        app.register_blueprint(records)
    app.add_url_rule("/", "index", display.home)
    app.add_url_rule("/favicon.ico", "favicon", lambda: app.send_static_file("favicon.svg"))


def _register_errors(app: Flask) -> None:
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(GameError, _game_error)
    app.register_error_handler(MissingLexicon, _missing_lexicon)
    app.register_error_handler(StoreError, _store_error)
    app.register_error_handler(Exception, _unexpected_error)


def _error_response(status: int, title: str, message: str) -> tuple[Response | str, int]:
    if wants_json():
        from flask import jsonify

        return jsonify({"error": message, "status": status}), status
    try:
        return render_template("error.html", status=status, title=title, message=message), status
    except Exception:  # the error page itself failed: plain text, still no trace
        log.exception("error page failed")
        return f"{status} {title}", status


_TITLES = {
    400: lazy_gettext("Petición no válida"),
    401: lazy_gettext("Hace falta identificarse"),
    403: lazy_gettext("No permitido"),
    404: lazy_gettext("No encontrado"),
    405: lazy_gettext("Método no permitido"),
    409: lazy_gettext("No se puede hacer ahora"),
    413: lazy_gettext("Petición demasiado grande"),
    429: lazy_gettext("Demasiadas peticiones"),
    503: lazy_gettext("Servicio no disponible"),
}


def _http_error(error: HTTPException) -> tuple[Response | str, int]:
    status = error.code or 500
    title = str(_TITLES.get(status, _("Error")))
    default = error.description == type(error).description
    return _error_response(status, title, title if default else str(error.description))


def _game_error(error: GameError) -> tuple[Response | str, int]:
    return _error_response(409, _("No se puede hacer ahora"), str(error))


def _missing_lexicon(error: MissingLexicon) -> tuple[Response | str, int]:
    """A game whose word list is nowhere: say which list (and, to an arbiter, where it was looked for)."""
    message = _("Esta partida se juega con el léxico %(name)s (%(hash)s) y este servidor no lo tiene. Arranque el "
                "servidor una vez con --lexicon y el archivo de esa lista: se guardará una copia y la partida se "
                "abrirá después con cualquier lista.", name=error.ref.name, hash=error.ref.short)  # fmt: skip
    if error.searched and current_arbiter():
        message += " " + _("Se ha buscado en: %(folders)s.", folders=", ".join(error.searched))
    return _error_response(409, _("Falta el léxico de la partida"), message)


def _store_error(error: StoreError) -> tuple[Response | str, int]:
    log.warning("store refused a write: %s", error)
    return _error_response(503, _("Servicio no disponible"), _("La base de datos no aceptó el cambio; reintente."))


def _unexpected_error(error: Exception) -> tuple[Response | str, int]:
    if isinstance(error, HTTPException):
        return _http_error(error)
    log.exception("unexpected error on %s %s", request.method, request.path)
    return _error_response(500, _("Error interno"), _("Algo ha fallado en el servidor; el error ha quedado registrado."))


_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


def _security_headers(response: Response) -> Response:
    """CSP and friends. The public screens (display, screens, overlay, stream) may be framed by the
    origins the organiser lists: ``EMBED_ORIGINS`` (a list, or a space- or comma-separated
    text), else ``$VEEDOR_EMBED_ORIGINS``; only plain ``http(s)://host[:port]`` are kept. The
    stream's pages are framed by its own scene and grid of tables too (``'self'``), and show the
    players' photos from the addresses their list gives (``img-src`` http and https)."""
    listed = current_app.config.get("EMBED_ORIGINS")
    listed = os.environ.get("VEEDOR_EMBED_ORIGINS", "") if listed is None else listed
    items = listed.replace(",", " ").split() if isinstance(listed, str) else [str(v) for v in listed]
    origins = [o.rstrip("/") for o in items if o.startswith(("http://", "https://"))
               and all(c.isalnum() or c in ".-:" for c in o.split("://", 1)[1].rstrip("/"))]  # fmt: skip
    stream = request.blueprint in ("overlay", "stream")
    ancestors = (["'self'"] if stream else []) + origins
    if ancestors and request.blueprint in ("display", "screens", "overlay", "stream"):
        policy = _CSP.replace("'none'; base", f"{' '.join(ancestors)}; base")
        if stream:
            policy = policy.replace("img-src 'self' data:", "img-src 'self' data: https: http:")
        response.headers.setdefault("Content-Security-Policy", policy)
        if not origins:
            response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
    else:
        response.headers.setdefault("Content-Security-Policy", _CSP)
        response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if request.blueprint in ("arbiter", "auth"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def _template_globals() -> dict[str, Any]:
    return {
        "csrf_token": csrf_token,
        "get_locale": get_locale,
        "current_arbiter": current_arbiter,
        "tile_values": {letter.label: letter.value for letter in LETTERS},
        "board_data": _board_data,
        "game_word_list": _game_word_list,
        "word_lists": lambda: services().games.shelf.known(),
    }


def _game_word_list(game_id: str) -> WordListUse:
    """Which lists a game is judged with, for its pages (``results/word_list.html``)."""
    games = services().games
    with games.reading(game_id) as game:
        return word_list_use(game, games.lexicon.ref)


_PREMIUM_CHARS = {
    Premium.NONE: ".", Premium.DOUBLE_LETTER: "d", Premium.TRIPLE_LETTER: "t",
    Premium.DOUBLE_WORD: "D", Premium.TRIPLE_WORD: "T",
}  # fmt: skip


def _board_data() -> dict[str, Any]:
    """The premium layout (C.13-C.16, from ``rules_core.board``) and the marks drawn on it."""
    rows = ["".join(_PREMIUM_CHARS[p] for p in row) for row in PREMIUMS]
    centre_row, centre_col = CENTRE
    rows[centre_row] = rows[centre_row][:centre_col] + "*" + rows[centre_row][centre_col + 1 :]
    marks = {"d": _("2L"), "t": _("3L"), "D": _("2P"), "T": _("3P"), "*": "★"}
    return {"premiums": rows, "marks": marks}


def _register_commands(app: Flask) -> None:
    @app.cli.command("arbiter-add")
    @click.argument("login")
    @click.password_option()
    def arbiter_add(login: str, password: str) -> None:
        """Create an arbiter account."""
        try:
            services().accounts.add_arbiter(login, password)
        except AccountError as error:
            raise click.ClickException(str(error)) from None
        click.echo(f"árbitro {login} creado")

    @app.cli.command("device-add")
    @click.argument("name")
    @click.option("--role", type=click.Choice(list(ROLES)), required=True, help="what the device may send")
    @click.option("--game", "games", multiple=True, help="a game the device may write to (default: any)")
    @click.option("--camera", "cameras", multiple=True, help="a camera a node posts for (required for a node)")
    def device_add(name: str, role: str, games: tuple[str, ...], cameras: tuple[str, ...]) -> None:
        """Register a device; prints its API token once."""
        try:
            token = services().accounts.add_device(name, role, games, cameras)
        except AccountError as error:
            raise click.ClickException(str(error)) from None
        click.echo(token)

