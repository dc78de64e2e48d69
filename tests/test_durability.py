"""An acknowledged slip is never lost: ``kill -9`` under load, then a restart (issue 67).

Under load, ``kill -9`` and a restart lost slips answered 201: the server had read its own
``veedor.db`` as a plain file (the evidence zip copying a "frame"), which dropped its SQLite
locks, and another process then deleted the WAL under it (``services.stored_files``). A few
short runs here, one on PostgreSQL (``kill_load``: scanners, the console, screens, the evidence file and another
process opening the database, killed at a random moment); ``make bench`` runs 20 on SQLite
and 5 on PostgreSQL (``benchmarks/bench_durability.py``).
"""

from __future__ import annotations

from pathlib import Path

from .conftest import FILE2017
from .kill_load import RunResult, fresh_database, kill_runs

pytest_plugins = ["tests.postgres"]

PLAYERS = 80  # more tables than a short run posts on a busy machine
SECONDS = 2.0  # the kill comes within this much load


def _check(results: list[RunResult]) -> None:
    assert sum(r.acknowledged for r in results) > len(results)  # the load reached the server before the kills
    failed = [(r.killed_after, r.lost, r.duplicated, r.errors_during, r.errors_after) for r in results if not r.ok]
    assert failed == []


def test_acknowledged_slips_survive_kill_9_on_sqlite(tmp_path: Path) -> None:
    _check(kill_runs(f"sqlite:///{tmp_path / 'veedor.db'}", tmp_path, FILE2017, runs=3, seconds=SECONDS, players=PLAYERS))


def test_acknowledged_slips_survive_kill_9_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    url = fresh_database(postgres_url, "veedor_cortes")
    _check(kill_runs(url, tmp_path, FILE2017, runs=1, seconds=SECONDS, players=PLAYERS))
