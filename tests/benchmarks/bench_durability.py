"""Durability benchmark: ``kill -9`` under load, then a restart, many times; no acknowledged slip lost (issue 67).

Run with ``make bench`` (or ``python tests/benchmarks/bench_durability.py [--sqlite-runs N]
[--postgres-runs N] [--seconds S] [--players N]``). ``veedor serve`` runs in its own process, on a
SQLite file and then on a private PostgreSQL server (``tests/postgres.py``). Each run
(``tests/kill_load.py``): two scanners post slips through the device API, an arbiter enters slips
in the console, three screens follow the stream, the evidence file of a game whose old events name
the database is downloaded and ``veedor device add`` opens and closes the database from another
process, over and over; ``kill -9`` at a random moment within ``--seconds``, then a restart.

Targets: 0 acknowledged slips lost, 0 stored twice, no 5xx during the load nor any failure after
the restart, on every run (20 on SQLite, 5 on PostgreSQL by default). Prints each run, a summary
per database and one JSON line; exit 1 if missed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
SHARED = Path(os.environ.get("VEEDOR_SHARED", REPO.parent / "shared"))
FILE2017 = SHARED / "lexicon" / "FILE2017.txt"


def summary(name: str, results: list[Any], seconds: float) -> dict[str, Any]:
    lost = sum(len(r.lost) for r in results)
    duplicated = sum(len(r.duplicated) for r in results)
    during = sum(sum(r.errors_during.values()) for r in results)
    after = sum(len(r.errors_after) for r in results)
    figures = {"database": name, "runs": len(results), "acknowledged": sum(r.acknowledged for r in results),
               "stored": sum(r.stored for r in results), "lost": lost, "duplicated": duplicated,
               "errors_during": during, "errors_after": after, "seconds": round(seconds, 1),
               "ok": bool(results) and all(r.ok for r in results)}  # fmt: skip
    print(f"{name}: {figures['runs']} runs killed under load, {figures['acknowledged']} slips acknowledged, "
          f"{figures['stored']} stored; lost {lost}, duplicated {duplicated}; 5xx during the load {during}, "
          f"failures after the restart {after} ({seconds:.0f} s)")  # fmt: skip
    return figures


def runs_on(name: str, url: str, data: Path, runs: int, seconds: float, players: int) -> dict[str, Any]:
    from tests.kill_load import kill_runs

    def report(number: int, r: Any) -> None:
        print(f"  {name} run {number:2d}: killed after {r.killed_after:4.2f} s, {r.acknowledged:3d} acknowledged, "
              f"{r.stored:3d} stored, lost {r.lost or 0}, duplicated {r.duplicated or 0}"
              + (f", 5xx {dict(r.errors_during)}" if r.errors_during else "")
              + (f", after the restart {r.errors_after}" if r.errors_after else ""), flush=True)  # fmt: skip

    started = time.monotonic()
    results = kill_runs(url, data, FILE2017, runs=runs, seconds=seconds, players=players, report=report)
    return summary(name, results, time.monotonic() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sqlite-runs", type=int, default=20)
    parser.add_argument("--postgres-runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0, help="the kill comes within this much load")
    parser.add_argument("--players", type=int, default=300, help="tables of each run's game")
    args = parser.parse_args()
    figures = []
    with tempfile.TemporaryDirectory(prefix="veedor-durability-") as folder:
        if args.sqlite_runs:
            data = Path(folder) / "sqlite"
            data.mkdir()
            figures.append(runs_on("SQLite", f"sqlite:///{data / 'veedor.db'}", data, args.sqlite_runs, args.seconds,
                                   args.players))  # fmt: skip
        if args.postgres_runs:
            from tests.kill_load import fresh_database
            from tests.postgres import postgres_server

            data = Path(folder) / "postgresql"
            data.mkdir()
            with postgres_server() as server:
                url = fresh_database(server, "veedor_cortes")
                figures.append(runs_on("PostgreSQL", url, data, args.postgres_runs, args.seconds, args.players))
    ok = all(f["ok"] for f in figures)
    print(json.dumps({"benchmark": "durability", "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                      "results": figures, "ok": ok}))  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
