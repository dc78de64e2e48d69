"""Arbiter accounts and device tokens, stored beside the games; the failed-login throttle.

* An arbiter's password is kept as a salted scrypt hash (Werkzeug); a device's token
  (``Authorization: Bearer <token>``) only as its SHA-256.
* ``LoginThrottle`` counts failed logins per address: ``MAX_FAILURES`` within
  ``FAILURE_WINDOW`` seconds lock the address out for as long.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from datetime import datetime, timezone

from sqlalchemy import Column, DateTime, MetaData, String, Table, delete, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from werkzeug.security import check_password_hash, generate_password_hash

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
