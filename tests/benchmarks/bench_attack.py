"""Attack benchmark: one address tries to stop the room while 500 screens follow the game.

Run with ``make bench`` (or ``python tests/benchmarks/bench_attack.py [--screens N]
[--half-open N] [--streams N] [--connects-per-s N] [--slips N] [--rate R] [--threads T]
[--seconds S]``). ``veedor serve``
runs in its own process on a SQLite file, as in a hall, with ``--threads`` sized for the
screens (``threads - 16`` live streams). Only loopback addresses are used:

* the attacker, 127.0.0.9 (its own process): keeps 300 connections sending half a
  request header (a byte a second) and 200 live streams open, reopening what the
  server cuts or refuses (at most ``--connects-per-s`` 200 new connections a second);
* 500 screens (their own process, one thread) on 127.0.0.2 to 127.0.0.254, two or so per
  address, follow the game's live stream as the display page does (retrying a refusal
  after 2 s, as ``live.js``);
* the probes: every half second the room's screen page (127.0.0.3), the screen state
  (127.0.0.4) and the arbiter's console (127.0.0.1, logged in), each on a new connection;
* the arbiter enters 150 slips (``--rate`` a second; 0: as fast as the server answers).

Targets (issue 19): every probe and every slip entry answered within 1 s, entry to
screen p95 under 1 s over every screen, no missing state. Everything stops by itself
(``--seconds`` bounds the attack). Prints a summary and one JSON line; exit 1 if missed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import re
import resource
import selectors
import socket
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_web import Arbiter, free_port, percentile, prepare, screen_address, start_server

ATTACKER = "127.0.0.9"
SUBMITTED = re.compile(rb'"submitted": ?(\d+)')
RETRY_SECONDS = 2.0  # as live.js


def more_files() -> None:
    """Each process here holds hundreds of sockets: raise its open-file limit to the hard one."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536, hard))


def open_socket(port: int, source: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    sock.bind((source, 0))
    sock.connect_ex(("127.0.0.1", port))
    return sock


def stream_request(game_id: str) -> bytes:
    return f"GET /api/games/{game_id}/stream HTTP/1.1\r\nHost: veedor\r\nAccept: text/event-stream\r\n\r\n".encode()


# --- the attacker -------------------------------------------------------------------------


class Attack:
    """Half-open connections and live streams from one address, kept up until ``until`` (monotonic)."""

    def __init__(self, port: int, game_id: str, half_open: int, streams: int, per_second: int) -> None:
        self.port, self.request = port, stream_request(game_id)
        self.wanted = {"half": half_open, "stream": streams}
        self.per_second, self.budget, self.budget_at = per_second, float(per_second), time.monotonic()
        self.selector = selectors.DefaultSelector()
        self.kinds: dict[socket.socket, str] = {}
        self.counts = {"half_opened": 0, "half_cut": 0, "streams_opened": 0, "streams_200": 0, "streams_refused": 0,
                       "streams_cut": 0, "most_streams_served": 0}  # fmt: skip
        self.serving: set[socket.socket] = set()
        self.next_stream_at = 0.0

    def run(self, stop: Any, until: float) -> dict[str, int]:
        last_trickle = 0.0
        while not stop.is_set() and time.monotonic() < until:
            self.top_up()
            for key, _mask in self.selector.select(0.1):
                self.on_readable(key.fileobj)  # type: ignore[arg-type]
            if time.monotonic() - last_trickle >= 1.0:
                last_trickle = time.monotonic()
                self.trickle()
        for sock in list(self.kinds):
            sock.close()
        return self.counts

    def top_up(self) -> None:
        """Reopen what the server cut, at most ``per_second`` connections a second (half of them streams)."""
        now = time.monotonic()
        self.budget = min(self.per_second, self.budget + (now - self.budget_at) * self.per_second)
        self.budget_at = now
        open_now = {"half": 0, "stream": 0}
        for kind in self.kinds.values():
            open_now[kind] += 1
        if now >= self.next_stream_at:
            for _ in range(min(int(self.budget / 2), self.wanted["stream"] - open_now["stream"])):
                self.open("stream", self.request)
            self.next_stream_at = now + 1.0
        for _ in range(min(int(self.budget), self.wanted["half"] - open_now["half"])):
            self.open("half", b"GET /results HTTP/1.1\r\nHost: veedor\r\nX-Slow: ")

    def open(self, kind: str, first: bytes) -> None:
        self.budget -= 1
        sock = open_socket(self.port, ATTACKER)
        self.kinds[sock] = kind
        self.counts[f"{'half' if kind == 'half' else 'streams'}_opened"] += 1
        self.selector.register(sock, selectors.EVENT_READ)
        try:
            select_write(sock)
            sock.send(first)
        except OSError:
            self.drop(sock)

    def trickle(self) -> None:
        for sock, kind in list(self.kinds.items()):
            if kind == "half":
                try:
                    sock.send(b"a")
                except OSError:
                    self.drop(sock)

    def on_readable(self, sock: socket.socket) -> None:
        try:
            data = sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        kind = self.kinds.get(sock)
        if not data or kind == "half":
            self.drop(sock)
            return
        if sock not in self.serving and data.startswith(b"HTTP/1.1 "):
            if data.startswith(b"HTTP/1.1 200"):
                self.serving.add(sock)
                self.counts["streams_200"] += 1
                self.counts["most_streams_served"] = max(self.counts["most_streams_served"], len(self.serving))
            else:
                self.counts["streams_refused"] += 1
                self.drop(sock, refused=True)

    def drop(self, sock: socket.socket, refused: bool = False) -> None:
        kind = self.kinds.pop(sock, None)
        if kind == "half":
            self.counts["half_cut"] += 1
        elif kind == "stream" and not refused:
            self.counts["streams_cut"] += 1
        self.serving.discard(sock)
        try:
            self.selector.unregister(sock)
        except (KeyError, ValueError):
            pass
        sock.close()


def select_write(sock: socket.socket, timeout: float = 1.0) -> None:
    """Wait until a non-blocking connect is done (loopback: at once)."""
    with selectors.DefaultSelector() as one:
        one.register(sock, selectors.EVENT_WRITE)
        if not one.select(timeout):
            raise OSError("connect timed out")


def attack_process(port: int, game_id: str, sizes: tuple[int, int, int], stop: Any, until: float, results: Any) -> None:
    """``sizes``: half-open connections, streams, connections opened a second at most."""
    more_files()
    results.put(Attack(port, game_id, *sizes).run(stop, until))


# --- the screens ---------------------------------------------------------------------------


class Screens:
    """``count`` screens on many addresses, one selector: the monotonic time each slip count was first seen."""

    def __init__(self, port: int, game_id: str, count: int) -> None:
        self.port, self.request = port, stream_request(game_id)
        self.selector = selectors.DefaultSelector()
        self.index: dict[socket.socket, int] = {}
        self.tails: dict[socket.socket, bytes] = {}
        self.seen: list[dict[int, float]] = [{} for _ in range(count)]
        self.pending: list[tuple[float, int]] = [(0.0, i) for i in range(count)]  # (when, screen) to (re)open
        self.refused = 0
        self.errors: list[str] = []

    def run(self, ready: Any, stop: Any, until: float) -> None:
        while not stop.is_set() and time.monotonic() < until:
            self.open_due()
            for key, _mask in self.selector.select(0.05):
                self.on_readable(key.fileobj)  # type: ignore[arg-type]
            if not ready.is_set() and all(self.seen):
                ready.set()

    def open_due(self) -> None:
        now, later, opened = time.monotonic(), [], 0
        for when, i in self.pending:
            if when > now or opened >= 50:  # 50 connections a turn: a hall's screens do not start at once
                later.append((when, i))
                continue
            try:
                sock = open_socket(self.port, screen_address(i))
                select_write(sock)
                sock.send(self.request)
            except OSError as error:
                self.errors.append(f"screen {i}: {error}")
                later.append((now + RETRY_SECONDS, i))
                continue
            opened += 1
            self.index[sock], self.tails[sock] = i, b""
            self.selector.register(sock, selectors.EVENT_READ)
        self.pending = later

    def on_readable(self, sock: socket.socket) -> None:
        try:
            data = sock.recv(262144)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        now, i = time.monotonic(), self.index[sock]
        text = self.tails[sock] + data
        if not self.seen[i] and text.startswith(b"HTTP/1.1 ") and not text.startswith(b"HTTP/1.1 200"):
            self.refused += 1
            data = b""
        if not data:  # closed or refused: retry as the page does
            self.selector.unregister(sock)
            sock.close()
            del self.index[sock], self.tails[sock]
            self.pending.append((now + RETRY_SECONDS, i))
            return
        for match in SUBMITTED.finditer(text):
            self.seen[i].setdefault(int(match.group(1)), now)
        self.tails[sock] = text[-40:]


def screens_process(port: int, game_id: str, count: int, ready: Any, stop: Any, until: float, out: str) -> None:
    more_files()
    screens = Screens(port, game_id, count)
    screens.run(ready, stop, until)
    seen = [{str(k): v for k, v in s.items()} for s in screens.seen]
    Path(out).write_text(json.dumps({"seen": seen, "refused": screens.refused, "errors": screens.errors[:20]}))


# --- the probes ----------------------------------------------------------------------------


class Probes(threading.Thread):
    """The room's page, the screen state and the console, each asked every half second on a new connection."""

    def __init__(self, port: int, game_id: str, cookie: str) -> None:
        super().__init__(daemon=True)
        self.port, self.cookie = port, cookie
        self.paths = {
            "display": (f"/display/{game_id}", "127.0.0.3", ""),
            "state": (f"/api/games/{game_id}", "127.0.0.4", ""),
            "console": (f"/arbiter/g/{game_id}", "127.0.0.1", cookie),
        }
        self.times: dict[str, list[float]] = {name: [] for name in self.paths}
        self.failures: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.5):
            for name, (path, source, cookie) in self.paths.items():
                self.times[name].append(self.ask(name, path, source, cookie))

    def ask(self, name: str, path: str, source: str, cookie: str) -> float:
        started = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5, source_address=(source, 0))
            connection.request("GET", path, headers={"Cookie": cookie} if cookie else {})
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status != 200:
                self.failures.append(f"{name} {response.status}")
        except OSError as error:
            self.failures.append(f"{name} {error!r}")
        return time.monotonic() - started


# --- the run -------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="veedor-attack-") as folder:
        data = Path(folder)
        game_id, plays = prepare(data, args.slips)
        port = free_port()
        server = start_server(data, port, args.threads)
        until = time.monotonic() + args.seconds
        attack_results = context.Queue()
        ready, stop = context.Event(), context.Event()
        sizes = (args.half_open, args.streams, args.connects_per_s)
        attacker = context.Process(target=attack_process, daemon=True,
                                   args=(port, game_id, sizes, stop, until, attack_results))  # fmt: skip
        out = str(data / "screens.json")
        screens = context.Process(target=screens_process, daemon=True,
                                  args=(port, game_id, args.screens, ready, stop, until, out))  # fmt: skip
        try:
            attacker.start()
            time.sleep(3)  # the attack is in place before the room arrives
            screens.start()
            ready.wait(60)
            arbiter = Arbiter(port, game_id)
            probes = Probes(port, game_id, arbiter.cookie)
            probes.start()
            sent = enter_slips(arbiter, plays, args.rate)
            time.sleep(3)  # the last states reach the screens (a later one counts as missing)
            probes.stop.set()
            probes.join(10)
            stop.set()
            screens.join(30)
            attacked = attack_results.get(timeout=args.seconds + 30)
            attacker.join(10)
        finally:
            for process in (attacker, screens):
                if process.is_alive():
                    process.kill()
            server.kill()
            server.wait(10)
        found = Path(out).exists()
        result = json.loads(Path(out).read_text()) if found else {"seen": [], "refused": 0, "errors": ["no result"]}
    return summarise(args, result, sent, arbiter, probes, attacked)


def enter_slips(arbiter: Arbiter, plays: list[str], rate: float) -> list[float]:
    started, sent = time.monotonic(), []
    for table in range(1, len(plays) + 1):
        if rate > 0:
            time.sleep(max(0.0, started + (table - 1) / rate - time.monotonic()))
        sent.append(arbiter.enter(table, plays[table - 1]))
    return sent


def summarise(args: argparse.Namespace, screens: dict[str, Any], sent: list[float], arbiter: Arbiter,
              probes: Probes, attacked: dict[str, int]) -> dict[str, Any]:  # fmt: skip
    delays, missing = [], 0
    for seen in screens["seen"]:
        counts = sorted((int(count), at) for count, at in seen.items())
        for i, at in enumerate(sent, start=1):
            arrived = min((t for count, t in counts if count >= i), default=None)
            if arrived is None:
                missing += 1
            else:
                delays.append(max(0.0, arrived - at))
    probe_max = {name: round(1000 * max(times), 1) if times else None for name, times in probes.times.items()}
    probe_p95 = {name: round(1000 * percentile(times, 0.95), 1) if times else None
                 for name, times in probes.times.items()}  # fmt: skip
    return {
        "screens": args.screens, "screens_following": sum(1 for s in screens["seen"] if s), "slips": len(sent),
        "rate_per_s": args.rate or None, "threads": args.threads,
        "attack": {"half_open": args.half_open, "streams": args.streams, "connects_per_s": args.connects_per_s,
                   **attacked},
        "delay_p50_ms": round(1000 * statistics.median(delays), 1) if delays else None,
        "delay_p95_ms": round(1000 * percentile(delays, 0.95), 1) if delays else None,
        "delay_max_ms": round(1000 * max(delays), 1) if delays else None, "samples": len(delays), "missing": missing,
        "entry_p95_ms": round(1000 * percentile(arbiter.latency, 0.95), 1),
        "entry_max_ms": round(1000 * max(arbiter.latency), 1),
        "probe_p95_ms": probe_p95, "probe_max_ms": probe_max, "probes": sum(len(t) for t in probes.times.values()),
        "probe_failures": probes.failures[:5], "screen_refusals": screens["refused"],
        "errors": len(arbiter.errors) + len(screens["errors"]),
        "error_examples": (arbiter.errors + screens["errors"])[:5],
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screens", type=int, default=500)
    parser.add_argument("--half-open", type=int, default=300)
    parser.add_argument("--streams", type=int, default=200, help="the attacker's live streams")
    parser.add_argument("--connects-per-s", type=int, default=200, help="the attacker's new connections a second")
    parser.add_argument("--slips", type=int, default=150)
    parser.add_argument("--rate", type=float, default=0.0, help="slips per second (0: as fast as possible)")
    parser.add_argument("--threads", type=int, default=600, help="serve --threads (live streams: threads-16)")
    parser.add_argument("--seconds", type=float, default=240.0, help="the attack and the screens stop by then")
    args = parser.parse_args()
    result = run(args)
    print(f"attack: {result['attack']}")
    print(f"web under attack: {result['screens_following']}/{result['screens']} screens, {result['slips']} slips: "
          f"entry to screen p50 {result['delay_p50_ms']} ms, p95 {result['delay_p95_ms']} ms, "
          f"max {result['delay_max_ms']} ms; slip answered p95 {result['entry_p95_ms']} ms, "
          f"max {result['entry_max_ms']} ms; probes max {result['probe_max_ms']} ms; "
          f"errors {result['errors']}, missing {result['missing']}")  # fmt: skip
    print(json.dumps({"bench": "attack", **result, "at": datetime.now(timezone.utc).isoformat()}))
    probe_max = result["probe_max_ms"].values()
    probes_ok = not result["probe_failures"] and all(v is not None and v < 1000 for v in probe_max)
    ok = (probes_ok and result["errors"] == 0 and result["missing"] == 0 and result["entry_max_ms"] < 1000
          and (result["delay_p95_ms"] or 1e9) < 1000)  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
