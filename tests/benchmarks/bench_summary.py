"""Benchmark of the room's round summary (issue 22): 50 live screens, one master published.

Run with ``make bench`` (or ``python tests/benchmarks/bench_summary.py [--screens N]``).
The app is served by Veedor's own server (``webapp.serving``) on a SQLite file; a
duplicate game of 60 players has round 1's slips in. Each screen follows the game's
live stream (Server-Sent Events) on loopback; once all have their first state, the
master is published, and for each screen the time is measured until a state carrying
the round's summary arrives. Target: every screen within 1 s. Prints one line and one
JSON summary; exit 1 when missed.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from rules_core.duplicate import DuplicateSettings  # noqa: E402
from rules_core.events import Event  # noqa: E402
from rules_core.lexicon import load_lexicon  # noqa: E402
from rules_core.slips import Slip  # noqa: E402
from webapp.app import create_app  # noqa: E402
from webapp.serving import make_server  # noqa: E402
from webapp.services.shared import services  # noqa: E402

SHARED = REPO.parent / "shared"
TARGET_S = 1.0


def game_in_round_one(app: object, players: int) -> str:
    games = services(app).games  # type: ignore[arg-type]
    game_id = games.create_duplicate("Banco del resumen", DuplicateSettings(bonuses=True))
    for table in range(1, players + 1):
        games.append(game_id, Event("player_added", {"player": f"j{table}", "name": f"Jugador {table}", "table": table}))
    games.append(game_id, Event("rack_set", {"round": 1, "rack": list("AEMNNOQ"), "source": "manual"}))
    for table in range(1, players + 1):
        play = "H3 AMONEN" if table % 3 else "H4 MANEN"
        games.append(game_id, Event("slip", {"round": 1, "player": f"j{table}", "slip": Slip(play).to_json()}))
    return game_id


def follow(port: int, game_id: str, ready: threading.Barrier, arrived: list[float | None], index: int) -> None:
    """One screen: its first state, then wait for a state with the summary."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as stream:
        stream.sendall(f"GET /api/games/{game_id}/stream HTTP/1.1\r\nHost: sala\r\n\r\n".encode())
        buffer, first = b"", True
        while True:
            chunk = stream.recv(65536)
            if not chunk:
                return
            buffer += chunk
            if first and b"event: state" in buffer:
                first, buffer = False, b""
                ready.wait()
            elif b'"summary":{' in buffer:
                arrived[index] = time.perf_counter()
                return


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--screens", type=int, default=50)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="veedor-summary-"))
    lexicon_file = SHARED / "lexicon" / "FILE2017.txt"
    app = create_app({"DATABASE_URL": f"sqlite:///{work / 'v.db'}", "INSTANCE_PATH": str(work),
                      "LEXICON": load_lexicon(str(lexicon_file) if lexicon_file.exists() else None),
                      "LIVE_STREAMS_PER_ADDRESS": 0})  # fmt: skip
    game_id = game_in_round_one(app, 60)
    server = make_server(app, "127.0.0.1", 0, threads=args.screens + 40, per_address=args.screens + 20)
    threading.Thread(target=server.run, daemon=True).start()
    arrived: list[float | None] = [None] * args.screens
    ready = threading.Barrier(args.screens + 1)
    screens = [threading.Thread(target=follow, args=(server.effective_port, game_id, ready, arrived, i), daemon=True)
               for i in range(args.screens)]  # fmt: skip
    for screen in screens:
        screen.start()
    ready.wait(timeout=60)
    time.sleep(0.5)
    published = time.perf_counter()
    services(app).games.append(game_id, Event("master_announced", {"round": 1}))
    for screen in screens:
        screen.join(10)
    delays = sorted((t - published) for t in arrived if t is not None)
    server.close()
    ok = len(delays) == args.screens and max(delays) <= TARGET_S
    summary = {"screens": args.screens, "reached": len(delays), "median_ms": round(1000 * statistics.median(delays)),
               "max_ms": round(1000 * max(delays)), "target_ms": int(1000 * TARGET_S), "met": ok}  # fmt: skip
    print(f"resumen de la ronda en {len(delays)}/{args.screens} pantallas: mediana {summary['median_ms']} ms, "
          f"máximo {summary['max_ms']} ms (objetivo {summary['target_ms']} ms)")  # fmt: skip
    print(json.dumps(summary))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
