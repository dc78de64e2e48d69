"""Fixtures for the web app's tests: ``app``, ``client``, ``runner``, a logged-in arbiter.

Test modules load them with ``pytest_plugins = ["tests.conftest_web"]``. The app runs on a
SQLite file in the test's temporary folder with the FILE2017 lexicon.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlalchemy import insert
from werkzeug.security import generate_password_hash

from rules_core.lexicon import Lexicon
from webapp.app import create_app
from webapp.services.accounts import arbiters
from webapp.services.shared import services

from .web_helpers import ARBITER, PASSWORD, arbiter_client


@pytest.fixture(scope="session")
def password_hash() -> str:
    """The test arbiter's password hash, made once (scrypt takes a fifth of a second)."""
    return generate_password_hash(PASSWORD)


@pytest.fixture()
def app(tmp_path: Path, file2017: Lexicon, password_hash: str) -> Iterator[Flask]:
    app = create_app({
        "TESTING": True,
        "SECRET_KEY": "clave-de-los-tests",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'veedor.db'}",
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "LEXICON": file2017,
        "LIVE_PING_SECONDS": 0.2,
        "LIVE_STREAM_SECONDS": 1.0,
    })  # fmt: skip
    with services(app).accounts.engine.begin() as connection:
        connection.execute(insert(arbiters).values(login=ARBITER, password_hash=password_hash,
                                                   created_at=datetime.now(timezone.utc)))  # fmt: skip
    yield app
    services(app).games.close()


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture()
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture()
def arbiter(app: Flask) -> FlaskClient:
    """A client with an arbiter's session and a known CSRF token (``CSRF``)."""
    return arbiter_client(app)
