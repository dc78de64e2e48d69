"""Who may change things, at the door of each view: the login, the device token, the CSRF check.

* Arbiters log in with a password (``services.accounts``); the login lives in Flask's
  signed session cookie. ``login_required`` guards a view.
* Every request that changes state from a browser (POST, PUT, PATCH, DELETE) must
  carry the session's CSRF token, in the form field ``csrf_token`` or the header
  ``X-CSRF-Token``; the JSON API is exempt because it takes no cookies.
* Devices (the slip scanner, a board camera) call the API with a per-device token,
  ``Authorization: Bearer <token>``; ``device_required`` guards an API view.
* Repeated failed logins from one address are refused for a while (``LoginThrottle``).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
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
from werkzeug.wrappers import Response

from ..services.shared import services

F = TypeVar("F", bound=Callable[..., Any])

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

bp = Blueprint("auth", __name__)


def current_arbiter() -> str | None:
    return cast("str | None", session.get("arbiter"))


@bp.route("/login", methods=["GET", "POST"])
def login() -> str | Response | tuple[str, int]:
    target = _safe_next(request.values.get("next", ""))
    if request.method == "GET":
        return render_template("auth/login.html", next=target)
    throttle = services().throttle
    address = request.remote_addr or "?"
    if throttle.locked(address):
        flash(_("Demasiados intentos fallidos. Espere unos minutos."), "error")
        return render_template("auth/login.html", next=target), 429
    login_name = request.form.get("login", "").strip()
    if not services().accounts.check_password(login_name, request.form.get("password", "")):
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
        if login_name is None or not services().accounts.arbiter_exists(login_name):
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
        name = services().accounts.device_for_token(token.strip()) if scheme.lower() == "bearer" and token else None
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
