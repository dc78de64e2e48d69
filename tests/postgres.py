"""A throw-away PostgreSQL server for the storage tests (Debian's postgresql package).

The server runs as the ``postgres`` system user (PostgreSQL refuses root) in a
temporary folder, listening only on a Unix socket there; it is stopped at the end. The
benchmarks use ``postgres_server`` directly.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))), None)
    if not found:
        pytest.fail(f"PostgreSQL's {name} is missing: install Debian's postgresql package (make test does)")
    return found


def _as_postgres(*command: str) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *command], check=True, capture_output=True)


@contextmanager
def postgres_server() -> Iterator[str]:
    """A SQLAlchemy URL to an empty database on a private PostgreSQL server, stopped on leaving."""
    folder = Path(tempfile.mkdtemp(prefix="veedor-pg-"))
    data = folder / "data"
    shutil.chown(folder, "postgres")
    os.chmod(folder, 0o755)
    _as_postgres(_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
    port = 20000 + os.getpid() % 20000  # the socket file's name; runs side by side differ
    options = f"-k {folder} -c listen_addresses='' -p {port}"
    log = folder / "server.log"
    _as_postgres(_bin("pg_ctl"), "-D", str(data), "-o", options, "-l", str(log), "-w", "start")
    try:
        yield f"postgresql+psycopg://postgres@/postgres?host={folder}&port={port}"
    finally:
        _as_postgres(_bin("pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A SQLAlchemy URL to an empty database on a private PostgreSQL server."""
    with postgres_server() as url:
        yield url
