"""Arbiter accounts, their sessions, and device tokens, stored beside the games.

* An arbiter's password is kept as a salted scrypt hash (Werkzeug).
* A login opens a *session* kept on the server (only the SHA-256 of its random id is
  stored; the id travels in the signed cookie). Logging out ends it; a password change
  or the account's removal ends all of the arbiter's sessions, so a copied cookie
  dies with them, and re-adding the account does not revive them.
* A device's token (``Authorization: Bearer <token>``) is kept as its SHA-256, with the
  device's *role* (``ROLES``: what it may send), optionally the games it may write to and,
  for a camera node, the cameras it posts for (required: a node never posts for a camera
  it was not registered for, nor creates one).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final

from sqlalchemy import Column, DateTime, MetaData, String, Table, Text, delete, insert, inspect, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from werkzeug.security import check_password_hash, generate_password_hash

MIN_PASSWORD = 8
CAMERA_NAME: Final = re.compile(r"^[a-z0-9_-]{1,40}$")  # a camera's name as a node posts it
# What each kind of device may send (checked by ``views.auth.device_required``).
ROLES: Final = {
    "scanner": "papeletas escaneadas (POST /api/games/<id>/slips, eventos 'slip')",
    "camera": "jugadas de una mesa clásica (eventos 'play', 'challenge', 'exchange', 'pass')",
    "node": "mensajes de un nodo de cámara (POST /api/cameras/messages)",
    "clock": "el reloj de una mesa clásica (POST /api/games/<id>/clock: pulsaciones, inicio)",
}

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
    Column("role", String(16)),  # one of ROLES; NULL for a token made before roles: refused
    Column("games", Text),  # game ids separated by spaces; NULL: any game
    Column("cameras", Text),  # a node's cameras separated by spaces; NULL for other roles (and old nodes: refused)
)
sessions = Table(
    "arbiter_sessions",
    metadata,
    Column("id_sha256", String(64), primary_key=True),
    Column("login", String(64), nullable=False, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class Device:
    """A registered device: its name, its role (``ROLES``), the games it may write to (None: any) and,
    for a node, the cameras it posts for (None: none)."""

    name: str
    role: str | None
    games: frozenset[str] | None = None
    cameras: frozenset[str] | None = None

    def may_write(self, game_id: str) -> bool:
        return self.games is None or game_id in self.games


class AccountError(ValueError):
    """An account or device that cannot be created; the message says why, in Spanish."""


class Accounts:
    """Arbiter accounts and device tokens, in the games' database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        metadata.create_all(engine)
        _add_missing_columns(engine)

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
        """A new password; every session of the arbiter ends."""
        self.remove_arbiter(login)
        self.add_arbiter(login, password)

    def remove_arbiter(self, login: str) -> None:
        """Delete the account and end all its sessions."""
        with self.engine.begin() as connection:
            connection.execute(delete(arbiters).where(arbiters.c.login == login))
            connection.execute(delete(sessions).where(sessions.c.login == login))

    # -- sessions ---------------------------------------------------------------------

    def open_session(self, login: str) -> str:
        """A new session of ``login``; returns its id (for the cookie; only its hash is kept)."""
        session_id = secrets.token_urlsafe(32)
        with self.engine.begin() as connection:
            connection.execute(insert(sessions).values(
                id_sha256=_sha256(session_id), login=login, created_at=datetime.now(timezone.utc)))  # fmt: skip
        return session_id

    def session_login(self, session_id: str) -> str | None:
        """The arbiter whose open session this is, or None (ended, or never opened)."""
        with self.engine.connect() as connection:
            row = connection.execute(select(sessions.c.login).where(sessions.c.id_sha256 == _sha256(session_id))).first()
        return None if row is None else str(row.login)

    def close_session(self, session_id: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(delete(sessions).where(sessions.c.id_sha256 == _sha256(session_id)))

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

    # -- devices ----------------------------------------------------------------------

    def add_device(self, name: str, role: str, games: Iterable[str] = (), cameras: Iterable[str] = ()) -> str:
        """Register a device of ``role`` (limited to ``games`` when given; a node, to its ``cameras``, at least
        one); returns its token, shown once: only its hash is kept."""
        name = name.strip()
        if not name or len(name) > 64:
            raise AccountError("el dispositivo necesita un nombre de 1 a 64 caracteres")
        if role not in ROLES:
            raise AccountError(f"función de dispositivo desconocida {role!r}: una de {', '.join(ROLES)}")
        limited = " ".join(sorted({g.strip() for g in games if g.strip()})) or None
        node_cameras = _node_cameras(role, cameras)
        token = secrets.token_urlsafe(32)
        try:
            with self.engine.begin() as connection:
                connection.execute(insert(devices).values(
                    name=name, token_sha256=_sha256(token), created_at=datetime.now(timezone.utc),
                    role=role, games=limited, cameras=node_cameras))  # fmt: skip
        except IntegrityError:
            raise AccountError(f"ya existe el dispositivo {name!r}") from None
        return token

    def remove_device(self, name: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(delete(devices).where(devices.c.name == name))

    def device_for_token(self, token: str) -> Device | None:
        """The device with this token, or None."""
        with self.engine.connect() as connection:
            row = connection.execute(select(devices).where(devices.c.token_sha256 == _sha256(token))).first()
        if row is None:
            return None
        games = frozenset(row.games.split()) if row.games else None
        cameras = frozenset(row.cameras.split()) if row.cameras else None
        return Device(str(row.name), row.role, games, cameras)


def _node_cameras(role: str, cameras: Iterable[str]) -> str | None:
    """The cameras column: a node's cameras (at least one, each a camera name), nothing for other roles."""
    names = sorted({c.strip() for c in cameras if c.strip()})
    if role != "node":
        if names:
            raise AccountError("solo un nodo de cámara (--role node) lleva --camera")
        return None
    if not names:
        raise AccountError("un nodo de cámara necesita las cámaras para las que envía: --camera NOMBRE")
    for camera in names:
        if not CAMERA_NAME.match(camera):
            raise AccountError(f"nombre de cámara no válido: {camera!r} (minúsculas sin tilde, cifras, '-' y '_')")
    return " ".join(names)


def _sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _add_missing_columns(engine: Engine) -> None:
    """A database made before device roles (or nodes' cameras) gets the new columns (its old tokens have no
    role; its old nodes no cameras, refused until registered again)."""
    present = {column["name"] for column in inspect(engine).get_columns("devices")}
    with engine.begin() as connection:
        for name, kind in (("role", "VARCHAR(16)"), ("games", "TEXT"), ("cameras", "TEXT")):
            if name not in present:
                connection.execute(text(f"ALTER TABLE devices ADD COLUMN {name} {kind}"))
