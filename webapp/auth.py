"""Who may change things: arbiter accounts, device tokens, the CSRF check.

* Arbiters log in with a password (stored as a salted scrypt hash, Werkzeug); the
  login lives in Flask's signed session cookie. ``login_required`` guards a view.
* Every request that changes state from a browser (POST, PUT, PATCH, DELETE) must
  carry the session's CSRF token, in the form field ``csrf_token`` or the header
  ``X-CSRF-Token``; the JSON API is exempt because it takes no cookies.
* Devices (the slip scanner, a board camera) call the API with a per-device token,
  ``Authorization: Bearer <token>``; only its SHA-256 is stored. ``device_required``
  guards an API view.
* Repeated failed logins from one address are refused for a while.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from functools import wraps
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import Column, DateTime, MetaData, String, Table, delete, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.wrappers import Response

F = TypeVar("F", bound=Callable[..., Any])

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MIN_PASSWORD = 8
MAX_FAILURES = 5  # failed logins from one address...
FAILURE_WINDOW = 300.0  # ...within this many seconds lock it out for as long

metadata = MetaData()
arbiters = Table(
    "arbiters",
    metadata,
    Column("login", String(64), primary_key=True),
    Column("password_hash", String(255), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
devices = Table(
    "devices",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)


class AccountError(ValueError):
    """An account or device that cannot be created; the message says why, in Spanish."""


class Accounts:
    """Arbiter accounts and device tokens, in the games' database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        metadata.create_all(engine)

    def add_arbiter(self, login: str, password: str) -> None:
        login = login.strip()
        if not login or len(login) > 64:
            raise AccountError("el usuario debe tener entre 1 y 64 caracteres")
        if len(password) < MIN_PASSWORD:
            raise AccountError(f"la contraseña debe tener al menos {MIN_PASSWORD} caracteres")
        try:
            with self.engine.begin() as connection:
                connection.execute(insert(arbiters).values(
                    login=login, password_hash=generate_password_hash(password),
                    created_at=datetime.now(timezone.utc)))  # fmt: skip
        except IntegrityError:
            raise AccountError(f"ya existe el árbitro {login!r}") from None

    def set_password(self, login: str, password: str) -> None:
        self.remove_arbiter(login)
        self.add_arbiter(login, password)

    def remove_arbiter(self, login: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(delete(arbiters).where(arbiters.c.login == login))

    def arbiter_exists(self, login: str) -> bool:
        with self.engine.connect() as connection:
            return connection.execute(select(arbiters.c.login).where(arbiters.c.login == login)).first() is not None

    def check_password(self, login: str, password: str) -> bool:
        with self.engine.connect() as connection:
            row = connection.execute(select(arbiters).where(arbiters.c.login == login)).first()
        if row is None:
            generate_password_hash(password)  # as slow as a real check: no timing hint
            return False
        return check_password_hash(row.password_hash, password)

    def add_device(self, name: str) -> str:
        """Register a device; returns its token (shown once, only its hash is kept)."""
        name = name.strip()
        if not name or len(name) > 64:
            raise AccountError("el dispositivo necesita un nombre de 1 a 64 caracteres")
        token = secrets.token_urlsafe(32)
        try:
            with self.engine.begin() as connection:
                connection.execute(insert(devices).values(
                    name=name, token_sha256=_sha256(token), created_at=datetime.now(timezone.utc)))  # fmt: skip
        except IntegrityError:
            raise AccountError(f"ya existe el dispositivo {name!r}") from None
        return token

    def remove_device(self, name: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(delete(devices).where(devices.c.name == name))

    def device_for_token(self, token: str) -> str | None:
        """The device's name, or None when no device has this token."""
        with self.engine.connect() as connection:
            row = connection.execute(select(devices.c.name).where(devices.c.token_sha256 == _sha256(token))).first()
        return None if row is None else str(row.name)


def _sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class LoginThrottle:
    """Counts failed logins per address; too many within the window lock it out."""

    def __init__(self) -> None:
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, address: str, now: float) -> list[float]:
        recent = [t for t in self._failures.get(address, []) if now - t < FAILURE_WINDOW]
        self._failures[address] = recent
        return recent

    def locked(self, address: str) -> bool:
        with self._lock:
            return len(self._recent(address, time.monotonic())) >= MAX_FAILURES

    def fail(self, address: str) -> None:
        with self._lock:
            self._recent(address, time.monotonic()).append(time.monotonic())

    def clear(self, address: str) -> None:
        with self._lock:
            self._failures.pop(address, None)


# -- views ------------------------------------------------------------------

bp = Blueprint("auth", __name__)


def accounts() -> Accounts:
    return cast(Accounts, current_app.extensions["veedor"].accounts)


def current_arbiter() -> str | None:
    return cast("str | None", session.get("arbiter"))


@bp.route("/login", methods=["GET", "POST"])
def login() -> str | Response | tuple[str, int]:
    target = _safe_next(request.values.get("next", ""))
    if request.method == "GET":
        return render_template("auth/login.html", next=target)
    throttle: LoginThrottle = current_app.extensions["veedor"].throttle
    address = request.remote_addr or "?"
    if throttle.locked(address):
        flash(_("Demasiados intentos fallidos. Espere unos minutos."), "error")
        return render_template("auth/login.html", next=target), 429
    login_name = request.form.get("login", "").strip()
    if not accounts().check_password(login_name, request.form.get("password", "")):
        throttle.fail(address)
        flash(_("Usuario o contraseña incorrectos."), "error")
        return render_template("auth/login.html", next=target), 401
    throttle.clear(address)
    session.clear()
    session.permanent = True
    session["arbiter"] = login_name
    return redirect(target or url_for("arbiter.index"))


@bp.route("/logout", methods=["POST"])
def logout() -> Response:
    session.clear()
    return redirect(url_for("auth.login"))


def _safe_next(target: str) -> str:
    """Only a path on this site (no scheme, no host) is followed after login."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return ""
    return target


def login_required(view: F) -> F:
    """The view needs an arbiter's session; others go to the login page (JSON: 401)."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        login_name = current_arbiter()
        if login_name is None or not accounts().arbiter_exists(login_name):
            session.pop("arbiter", None)
            if wants_json():
                abort(401)
            return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
        g.arbiter = login_name
        return view(*args, **kwargs)

    return cast(F, wrapped)


def device_required(view: F) -> F:
    """The API view needs a device token: ``Authorization: Bearer <token>``."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        header = request.headers.get("Authorization", "")
        scheme, _sep, token = header.partition(" ")
        name = accounts().device_for_token(token.strip()) if scheme.lower() == "bearer" and token else None
        if name is None:
            abort(401)
        g.device = name
        return view(*args, **kwargs)

    return cast(F, wrapped)


def wants_json() -> bool:
    """True for the API and for console requests made by its scripts (fetch)."""
    if is_api():
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and not request.accept_mimetypes.accept_html


# -- CSRF ---------------------------------------------------------------------


def csrf_token() -> str:
    """The session's CSRF token (made on first use); put it in every form."""
    token = session.get(CSRF_FIELD)
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session[CSRF_FIELD] = token
    return token


def is_api() -> bool:
    """True for requests to the JSON API (matched or not)."""
    return request.blueprint == "api" or request.path.startswith("/api/")


def check_csrf() -> None:
    """Before every request: a state-changing browser request needs the session's token."""
    if request.method in SAFE_METHODS or is_api():
        return
    expected = session.get(CSRF_FIELD)
    given = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD, "")
    if not isinstance(expected, str) or not hmac.compare_digest(expected.encode(), given.encode()):
        abort(400, description=_("El formulario ha caducado o no es válido. Recargue la página."))


def api_error(status: int, message: str) -> tuple[Response, int]:
    return jsonify({"error": message, "status": status}), status
