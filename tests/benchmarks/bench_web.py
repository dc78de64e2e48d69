"""Load benchmark of the web app: 50 screens connected while 150 slips are entered in one round.

Run with ``make bench`` (or ``python tests/benchmarks/bench_web.py [--screens N]
[--slips N] [--rate R]``). ``veedor serve`` runs in its own process on a SQLite file,
as in a hall. Fifty clients (from 127.0.0.2 on, as the server caps connections per
address) follow the game's live stream as projection screens do;
an arbiter logs in like the console and enters 150 slips, each after a score check
as the console makes while one types (``--rate`` slips per second, 0 as fast as the
server answers). For every slip and screen the delay is measured from the moment the
slip is sent to the moment that screen receives a state counting it. Targets (issue
4): p95 under 1 s, no errors. Prints a summary and one JSON line; exit 1 if missed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
SHARED = Path(os.environ.get("VEEDOR_SHARED", REPO.parent / "shared"))
FILE2017 = SHARED / "lexicon" / "FILE2017.txt"
LOGIN, PASSWORD = "arbitro", "clave-del-banco-1"


def prepare(data: Path, players: int) -> tuple[str, list[str]]:
    """A game of ``players`` in round 1 (rack drawn, clock running); the plays to enter."""
    from duplicate_round import duplicate_in_round_one  # beside this script

    from rules_core.lexicon import Lexicon
    from webapp.services.accounts import Accounts
    from webapp.services.live import LiveGames
    from webapp.services.store import EventStore

    store = EventStore(f"sqlite:///{data / 'veedor.db'}")
    Accounts(store.engine).add_arbiter(LOGIN, PASSWORD)
    game_id, plays = duplicate_in_round_one(LiveGames(store, Lexicon.load(FILE2017)), "Banco de carga", players)
    plays = plays or ["H8 XX"]
    return game_id, [plays[i % len(plays)] for i in range(players)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def screen_address(i: int) -> str:
    """The loopback address screen ``i`` connects from: 127.0.0.2 to .254 (without the attacker's .9),
    as the screens of a hall are on many machines (the server caps connections per address)."""
    last = 2 + i % 252
    return f"127.0.0.{last if last < 9 else last + 1}"


def start_server(data: Path, port: int, threads: int = 100) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "webapp.cli", "serve", "--port", str(port), "--data", str(data),
               "--lexicon", str(FILE2017), "--threads", str(threads)]  # fmt: skip
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/results")
            connection.getresponse().read()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("veedor serve did not start")


class Screen(threading.Thread):
    """One projection screen: follows the stream and notes when each slip count arrives."""

    def __init__(self, port: int, game_id: str, address: str = "127.0.0.1") -> None:
        super().__init__(daemon=True)
        self.port, self.game_id, self.address = port, game_id, address
        self.seen: dict[int, float] = {}  # slips counted -> first time seen
        self.errors: list[str] = []
        self.ready = threading.Event()
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30,
                                                    source_address=(self.address, 0))  # fmt: skip
            connection.request("GET", f"/api/games/{self.game_id}/stream")
            response = connection.getresponse()
            if response.status != 200:
                self.errors.append(f"stream {response.status}")
                return
            while not self.stop.is_set():
                line = response.readline()
                if not line:
                    self.errors.append("stream ended")
                    return
                if line.startswith(b"data: ") and b'"submitted"' in line:
                    count = json.loads(line[6:])["state"]["submitted"]
                    self.seen.setdefault(count, time.monotonic())
                    self.ready.set()
            connection.close()
        except Exception as error:  # a benchmark reports every failure
            self.errors.append(repr(error))
            self.ready.set()


class Arbiter:
    """The console's HTTP traffic: login, then for each slip a score check and the entry."""

    def __init__(self, port: int, game_id: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.game_id = game_id
        self.cookie = ""
        self.errors: list[str] = []
        self.latency: list[float] = []
        token = self._csrf("/login")
        self._request("POST", "/login", {"csrf_token": token, "login": LOGIN, "password": PASSWORD})
        self.token = self._csrf(f"/arbiter/g/{game_id}")

    def _request(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, str]:
        body = urllib.parse.urlencode(form) if form else None
        headers = {"Cookie": self.cookie, "Accept": "application/json" if method == "POST" or "check" in path else "text/html"}
        if body:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["X-CSRF-Token"] = getattr(self, "token", "")
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        text = response.read().decode()
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return response.status, text

    def _csrf(self, path: str) -> str:
        status, text = self._request("GET", path)
        match = re.search(r'name="csrf_token" value="([^"]+)"', text)
        if status != 200 or not match:
            raise RuntimeError(f"no form at {path} ({status})")
        return match.group(1)

    def enter(self, table: int, play: str) -> float:
        """Check then enter one slip; returns the time the entry was sent."""
        query = urllib.parse.urlencode({"round": 1, "table": table, "play": play})
        status, _text = self._request("GET", f"/arbiter/g/{self.game_id}/check?{query}")
        if status != 200:
            self.errors.append(f"check {status}")
        sent = time.monotonic()
        status, text = self._request("POST", f"/arbiter/g/{self.game_id}/slip",
                                     {"csrf_token": self.token, "round": "1", "table": str(table), "play": play})  # fmt: skip
        self.latency.append(time.monotonic() - sent)
        if status != 200:
            self.errors.append(f"slip {status}: {text[:100]}")
        return sent


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(screens: int, slips: int, rate: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="veedor-bench-") as folder:
        data = Path(folder)
        game_id, plays = prepare(data, slips)
        port = free_port()
        server = start_server(data, port)
        try:
            clients = [Screen(port, game_id, screen_address(i)) for i in range(screens)]
            for client in clients:
                client.start()
            for client in clients:
                client.ready.wait(15)
            arbiter = Arbiter(port, game_id)
            started = time.monotonic()
            sent: list[float] = []
            for table in range(1, slips + 1):
                if rate > 0:
                    time.sleep(max(0.0, started + (table - 1) / rate - time.monotonic()))
                sent.append(arbiter.enter(table, plays[table - 1]))
            elapsed = time.monotonic() - started
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(slips not in c.seen for c in clients if not c.errors):
                time.sleep(0.05)
            for client in clients:
                client.stop.set()
        finally:
            server.kill()
            server.wait(10)
    delays, missing = [], 0
    for client in clients:
        for i, at in enumerate(sent, start=1):
            arrived = min((t for count, t in client.seen.items() if count >= i), default=None)
            if arrived is None:
                missing += 1
            else:
                delays.append(max(0.0, arrived - at))
    errors = [e for c in clients for e in c.errors if e != "stream ended"] + arbiter.errors
    return {
        "screens": screens, "slips": slips, "rate_per_s": rate or None, "seconds": round(elapsed, 2),
        "slips_per_s": round(slips / elapsed, 1), "samples": len(delays), "missing": missing,
        "delay_p50_ms": round(1000 * statistics.median(delays), 1) if delays else None,
        "delay_p95_ms": round(1000 * percentile(delays, 0.95), 1) if delays else None,
        "delay_max_ms": round(1000 * max(delays), 1) if delays else None,
        "entry_p95_ms": round(1000 * percentile(arbiter.latency, 0.95), 1),
        "states_per_screen": round(statistics.mean(len(c.seen) for c in clients), 1),
        "errors": len(errors), "error_examples": errors[:5],
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screens", type=int, default=50)
    parser.add_argument("--slips", type=int, default=150)
    parser.add_argument("--rate", type=float, default=0.0, help="slips per second (0: as fast as possible)")
    args = parser.parse_args()
    result = run(args.screens, args.slips, args.rate)
    print(f"web: {result['screens']} screens, {result['slips']} slips in {result['seconds']} s "
          f"({result['slips_per_s']}/s): entry to screen p50 {result['delay_p50_ms']} ms, "
          f"p95 {result['delay_p95_ms']} ms, max {result['delay_max_ms']} ms; "
          f"slip answered p95 {result['entry_p95_ms']} ms; errors {result['errors']}, missing {result['missing']}")  # fmt: skip
    print(json.dumps({"bench": "web", **result, "at": datetime.now(timezone.utc).isoformat()}))
    ok = result["errors"] == 0 and result["missing"] == 0 and (result["delay_p95_ms"] or 1e9) < 1000
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
