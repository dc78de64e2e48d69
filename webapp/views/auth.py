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
SESSION_ID = "sid"  # the cookie's key for the server-side session id
GUARD = "veedor_guard"  # the attribute that tells a guarded view: "arbiter" or "device"

bp = Blueprint("auth", __name__)


def current_arbiter() -> str | None:
    """The arbiter of this request's session, if that session is still open on the server."""
    if "arbiter" not in session:
        return None
    if "veedor_arbiter" not in g:
        session_id = session.get(SESSION_ID)
        login = services().accounts.session_login(session_id) if isinstance(session_id, str) else None
        g.veedor_arbiter = login if login == session.get("arbiter") else None
    return cast("str | None", g.veedor_arbiter)


@bp.route("/login", methods=["GET", "POST"])
def login() -> str | Response | tuple[str, int]:
    target = _safe_next(request.values.get("next", ""))
    if request.method == "GET":
        return render_template("auth/login.html", next=target)
    found = services()
    address = request.remote_addr or "?"
    login_name = request.form.get("login", "").strip()[:64]
    if not found.throttle.attempt(login_name, address):  # counted before the check: no race
        flash(_("Demasiados intentos fallidos. Espere unos minutos."), "error")
        return render_template("auth/login.html", next=target), 429
    if not found.accounts.check_password(login_name, request.form.get("password", "")):
        flash(_("Usuario o contraseña incorrectos."), "error")
        return render_template("auth/login.html", next=target), 401
    found.throttle.succeeded(login_name, address)
    session.clear()
    session.permanent = True
    session["arbiter"] = login_name
    session[SESSION_ID] = found.accounts.open_session(login_name)
    return redirect(target or url_for("arbiter.index"))


@bp.route("/logout", methods=["POST"])
def logout() -> Response:
    """End the session on the server too: a copy of the cookie no longer logs in."""
    session_id = session.get(SESSION_ID)
    if isinstance(session_id, str):
        services().accounts.close_session(session_id)
    session.clear()
    return redirect(url_for("auth.login"))


def _safe_next(target: str) -> str:
    """Only a path on this site (no scheme, no host, no control character) is followed after login."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith(("//", "/\\")):
        return ""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in target):
        return ""
    return target


def login_required(view: F) -> F:
    """The view needs an arbiter's session; others go to the login page (JSON: 401)."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        login_name = current_arbiter()
        if login_name is None:
            session.pop("arbiter", None)
            if wants_json():
                abort(401)
            return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
        g.arbiter = login_name
        return view(*args, **kwargs)

    setattr(wrapped, GUARD, "arbiter")
    return cast(F, wrapped)


def device_required(*roles: str) -> Callable[[F], F]:
    """The API view needs the token of a device of one of ``roles``: ``Authorization: Bearer <token>``.

    ``g.device`` is then the ``Device``; a token of another role is a 403.
    """

    def decorate(view: F) -> F:
        @wraps(view)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            header = request.headers.get("Authorization", "")
            scheme, _sep, token = header.partition(" ")
            device = services().accounts.device_for_token(token.strip()) if scheme.lower() == "bearer" and token else None
            if device is None:
                abort(401)
            if device.role not in roles:
                abort(403, description=_("el dispositivo %(d)s (%(r)s) no puede enviar esto", d=device.name,
                                         r=device.role or _("sin función: regístrelo de nuevo con --role")))  # fmt: skip
            g.device = device
            return view(*args, **kwargs)

        setattr(wrapped, GUARD, "device")
        return cast(F, wrapped)

    return decorate


def guard_of(view: Callable[..., Any]) -> str | None:
    """Who a view lets in: "arbiter" (``login_required``), "device" (``device_required``) or
    None, a public view (the private-data test walks every public GET view)."""
    return cast("str | None", getattr(view, GUARD, None))


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
