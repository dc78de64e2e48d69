"""``kill -9`` under load: every acknowledged slip survives (issue 67). Shared by ``test_durability`` (a few
short runs) and ``benchmarks/bench_durability.py`` (``make bench``: 20 runs on SQLite, 5 on PostgreSQL).

``veedor serve`` runs in its own process on a SQLite file or a PostgreSQL database, as in a hall. One run:

1. this process creates a duplicate game in round 1 in the database while the server runs (as
   ``veedor duplicate simulate --db`` would), then closes its connections: another process that
   opened and closed the database, the move that deleted the WAL under the server in issue 67;
2. for a random while: two scanners post slips through the device API (acknowledged: 201), an
   arbiter enters slips in the console (acknowledged: the answer shows the stored slip), three
   screens follow the game's stream, the arbiter downloads the evidence file of a classic game
   whose old event names the database as its frame, and ``veedor device add`` opens and closes
   the database from another process, over and over;
3. ``kill -9`` the server at a random moment of that while, start it again on the same storage;
4. check: every acknowledged slip is stored, none twice, no page or API of the game fails after the
   restart (a new slip then acknowledged and stored too), no 5xx during the load.

Each table is posted once by one client; a slip the server never answered may or may not be stored.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules_core.classic import ClassicGame
from rules_core.duplicate import DuplicateSettings, rack_labels
from rules_core.events import Event
from rules_core.lexicon import Lexicon
from rules_core.movegen import generate_plays
from rules_core.racks import draw_rack
from webapp.services.accounts import Accounts
from webapp.services.games import GameService
from webapp.services.store import EventStore

REPO = Path(__file__).resolve().parents[1]
LOGIN, PASSWORD = "arbitro", "clave-de-la-prueba-1"
TIMEOUT = 20.0  # seconds a client waits for an answer
LOAD_REACHED = 2  # slips acknowledged before the kill is timed: the load has reached the server


@dataclass
class RunResult:
    """One run's figures: slips acknowledged, stored, lost, stored twice, 5xx seen, when the kill came."""

    acknowledged: int
    stored: int
    lost: list[int]  # tables acknowledged and not stored
    duplicated: list[int]  # tables stored more than once
    errors_during: Counter[str]  # 5xx answers while loading, before the kill, by request
    errors_after: list[str]  # what failed after the restart
    killed_after: float  # seconds of load before the kill

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.errors_during or self.errors_after)


@dataclass
class Acknowledged:
    """Tables whose slip the server acknowledged, and the 5xx answers seen, shared by the load's threads."""

    tables: list[int] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, table: int) -> None:
        with self.lock:
            self.tables.append(table)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors[text] += 1


class Server:
    """``veedor serve`` on a loopback port, over ``data`` and ``url``; ``kill`` is ``kill -9``."""

    def __init__(self, data: Path, url: str, lexicon: Path) -> None:
        self.data, self.url, self.lexicon = data, url, lexicon
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    def start(self) -> None:
        self.port = _free_port()
        command = [sys.executable, "-m", "webapp.cli", "serve", "--port", str(self.port), "--data", str(self.data),
                   "--db", self.url, "--lexicon", str(self.lexicon), "--threads", "60"]  # fmt: skip
        with open(self.data / "serve.log", "ab") as log:  # kept for a failed run's reader
            self.process = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"veedor serve ended with {self.process.returncode}")
            try:
                if request(self.port, "GET", "/results")[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("veedor serve did not start within 60 s")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, bytes, http.client.HTTPResponse]:  # fmt: skip
    """One request on a new connection: status, body, response. OSError when the server is gone."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read(), response
    except http.client.HTTPException as error:
        raise OSError(str(error)) from error
    finally:
        connection.close()


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the storage, from this process -------------------------------------------------------------


def set_up(url: str, data: Path, lexicon: Lexicon) -> tuple[list[str], str]:
    """The arbiter, two scanner tokens and the classic game whose old events name the database and the session
    key as frames (as an event stored before issue 67 could); the connections closed after."""
    store = EventStore(url)
    try:
        accounts = Accounts(store.engine)
        accounts.add_arbiter(LOGIN, PASSWORD)
        tokens = [accounts.add_device(f"escaner-{n}", "scanner") for n in (1, 2)]
        games = GameService(store, lexicon)
        classic = games.create("classic", "Mesa 1", ClassicGame.create_event(["Ana", "Bruno"]))
        database = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else str(data / "veedor.db")
        named = [database, database + "-wal", database + "-shm", str(data / "secret_key")]
        for player, frame in enumerate(named):
            games.append(classic, Event("pass", {"player": player % 2, "frame": frame}, "dispositivo:viejo"))
        return tokens, classic
    finally:
        store.engine.dispose()


def fresh_database(url: str, name: str) -> str:
    """A new, empty database ``name`` on the PostgreSQL server of ``url``; its URL."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return make_url(url).set(database=name).render_as_string(hide_password=False)


def new_game(url: str, lexicon: Lexicon, players: int, number: int) -> tuple[str, list[str]]:
    """A duplicate game of ``players`` in round 1, clock running; the plays to post (legal, best first)."""
    store = EventStore(url)
    try:
        games = GameService(store, lexicon)
        game_id = games.create_duplicate(f"Prueba de cortes {number}", DuplicateSettings(seed=number))
        for table in range(1, players + 1):
            games.append(game_id, Event("player_added", {"player": f"j{table}", "name": f"Jugador {table}", "table": table}))
        draw = draw_rack([], games.duplicate(game_id).bag, 1, random.Random(number))
        assert draw is not None
        games.append(game_id, Event("rack_set", {"round": 1, "rack": rack_labels(draw.rack), "source": "sorteo"}))
        games.append(game_id, Event("timer", {"round": 1, "action": "start"}))
        r = games.duplicate(game_id).round(1)
        plays = [p.notation for p in generate_plays(r.board, r.rack, lexicon)][:50]
        return game_id, plays
    finally:
        store.engine.dispose()


def stored_slips(url: str, game_id: str) -> Counter[int]:
    """How many slips of round 1 are stored per table."""
    store = EventStore(url)
    try:
        return Counter(int(e.data["player"].removeprefix("j")) for e in store.events(game_id) if e.kind == "slip")
    finally:
        store.engine.dispose()


# -- the load ----------------------------------------------------------------------------------


class Load:
    """The clients of one run (see the module docstring), until ``stop`` is set or the server is gone."""

    def __init__(self, server: Server, game_id: str, classic: str, plays: list[str], players: int,
                 tokens: list[str]) -> None:  # fmt: skip
        self.server, self.game_id, self.classic, self.plays, self.tokens = server, game_id, classic, plays, tokens
        self.tables = iter(range(1, players))  # the last table is posted after the restart
        self.tables_lock = threading.Lock()
        self.acknowledged = Acknowledged()
        self.stop = threading.Event()
        self.port = server.port

    def start(self) -> list[threading.Thread]:
        targets = [*(lambda t=t: self.scanner(t) for t in self.tokens), self.console, self.records,
                   *(self.screen for _ in range(3))]  # fmt: skip
        threads = [threading.Thread(target=target, daemon=True) for target in targets]
        for thread in threads:
            thread.start()
        return threads

    def next_table(self) -> int | None:
        with self.tables_lock:
            return next(self.tables, None)

    def play(self, table: int) -> str:
        return self.plays[table % len(self.plays)]

    def _status(self, status: int, what: str) -> None:
        if status >= 500:
            self.acknowledged.error(f"{what}: {status}")

    def scanner(self, token: str) -> None:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        while not self.stop.is_set() and (table := self.next_table()) is not None:
            body = json.dumps({"table": table, "notation": self.play(table)}).encode()
            try:
                status, _body, _response = request(self.port, "POST", f"/api/games/{self.game_id}/slips", body, headers)
            except OSError:
                return
            self._status(status, "POST slips")
            if status == 201:
                self.acknowledged.add(table)

    def console(self) -> None:
        try:
            console = Console(self.port)
        except OSError:
            return
        while not self.stop.is_set() and (table := self.next_table()) is not None:
            try:
                status, answer = console.enter(self.game_id, table, self.play(table))
            except OSError:
                return
            self._status(status, "POST console slip")
            if status == 200 and answer.get("table") == table and "result" in answer:
                self.acknowledged.add(table)

    def records(self) -> None:
        """The evidence file of the classic game, and ``veedor device add`` from another process, in turns."""
        try:
            console = Console(self.port)
        except OSError:
            return
        while not self.stop.is_set():
            try:
                status = console.get(f"/arbiter/g/{self.classic}/expediente.zip")
            except OSError:
                return
            self._status(status, "GET expediente.zip")
            command = [sys.executable, "-m", "webapp.cli", "device", "add", f"otro-{time.time_ns()}", "--role",
                       "scanner", "--data", str(self.server.data), "--db", self.server.url]  # fmt: skip
            other = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while other.poll() is None:
                if self.stop.wait(0.05):
                    other.kill()  # the run is over: this one too, at whatever step it was
                    other.wait()
                    return

    def screen(self) -> None:
        while not self.stop.is_set():
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
            try:
                connection.request("GET", f"/api/games/{self.game_id}/stream")
                response = connection.getresponse()
                self._status(response.status, "GET stream")
                if response.status != 200:
                    self.stop.wait(1.0)  # as the screen's script retries
                while response.status == 200 and not self.stop.is_set() and response.readline():
                    pass
            except (OSError, http.client.HTTPException):
                return
            finally:
                connection.close()


class Console:
    """An arbiter's console over HTTP: logged in, with the session's CSRF token."""

    def __init__(self, port: int) -> None:
        self.port, self.cookie = port, ""
        token = self._csrf("/login")
        self._send("POST", "/login", {"csrf_token": token, "login": LOGIN, "password": PASSWORD})
        self.token = self._csrf("/arbiter/")

    def _send(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, bytes]:
        headers = {"Cookie": self.cookie, "Accept": "application/json" if method == "POST" else "text/html"}
        body = urllib.parse.urlencode(form).encode() if form else None
        if body:
            headers |= {"Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": getattr(self, "token", "")}
        status, text, response = request(self.port, method, path, body, headers)
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return status, text

    def _csrf(self, path: str) -> str:
        status, text = self._send("GET", path)
        match = re.search(rb'name="csrf_token" value="([^"]+)"', text)
        if status != 200 or not match:
            raise OSError(f"no form at {path} ({status})")
        return match.group(1).decode()

    def get(self, path: str) -> int:
        return self._send("GET", path)[0]

    def enter(self, game_id: str, table: int, play: str) -> tuple[int, dict[str, Any]]:
        status, text = self._send("POST", f"/arbiter/g/{game_id}/slip",
                                  {"csrf_token": self.token, "round": "1", "table": str(table), "play": play})  # fmt: skip
        try:
            return status, json.loads(text)
        except ValueError:
            return status, {}


# -- a run --------------------------------------------------------------------------------------


def after_restart(server: Server, game_id: str, classic: str, load: Load, table: int) -> list[str]:
    """What went wrong once the server is back: a page or API of the game that fails, the last table's slip
    not acknowledged (it is then counted as acknowledged)."""
    errors = []
    console = Console(server.port)
    for path in (f"/results/{game_id}", f"/api/games/{game_id}", f"/display/{game_id}", "/results", "/api/games",
                 f"/arbiter/g/{game_id}", f"/arbiter/g/{classic}/expediente.zip", f"/arbiter/g/{game_id}/expediente.zip"):  # fmt: skip
        status = console.get(path)
        if status != 200:
            errors.append(f"GET {path}: {status}")
    body = json.dumps({"table": table, "notation": load.play(table)}).encode()
    headers = {"Authorization": f"Bearer {load.tokens[0]}", "Content-Type": "application/json"}
    status = request(server.port, "POST", f"/api/games/{game_id}/slips", body, headers)[0]
    if status == 201:
        load.acknowledged.add(table)
    else:
        errors.append(f"POST slips: {status}")
    return errors


def kill_run(server: Server, lexicon: Lexicon, tokens: list[str], classic: str, rng: random.Random, number: int,
             seconds: float, players: int) -> RunResult:  # fmt: skip
    """One run on a running ``server``, which is running again (restarted) when it returns."""
    game_id, plays = new_game(server.url, lexicon, players, number)
    load = Load(server, game_id, classic, plays, players, tokens)
    started = time.monotonic()
    threads = load.start()
    _until_acknowledged(load, LOAD_REACHED)  # on a loaded machine the first answers may take seconds
    time.sleep(rng.uniform(0.0, seconds))
    killed_after = time.monotonic() - started
    server.kill()
    load.stop.set()
    for thread in threads:
        thread.join(TIMEOUT + 5)
    errors_during = Counter(load.acknowledged.errors)  # every answer came before the kill
    server.start()
    errors_after = after_restart(server, game_id, classic, load, players)
    stored = stored_slips(server.url, game_id)
    acknowledged = load.acknowledged.tables
    return RunResult(len(acknowledged), sum(stored.values()), sorted(set(acknowledged) - set(stored)),
                     sorted(t for t, n in stored.items() if n > 1), errors_during, errors_after, killed_after)  # fmt: skip


def _until_acknowledged(load: Load, count: int, deadline: float = 60.0) -> None:
    """Wait (at most ``deadline`` seconds) until ``count`` slips were acknowledged: the load reached the server."""
    end = time.monotonic() + deadline
    while len(load.acknowledged.tables) < count and time.monotonic() < end:
        time.sleep(0.02)


def kill_runs(url: str, data: Path, lexicon_path: Path, runs: int, seconds: float, players: int, seed: int = 67,
              report: Callable[[int, RunResult], None] | None = None) -> list[RunResult]:  # fmt: skip
    """``runs`` runs on one storage (``url``, ``data``), the server restarted after each kill; ``report`` sees
    each run as it ends."""
    lexicon = Lexicon.load(lexicon_path)
    tokens, classic = set_up(url, data, lexicon)
    rng = random.Random(seed)
    server = Server(data, url, lexicon_path)
    server.start()
    results = []
    try:
        for number in range(1, runs + 1):
            results.append(kill_run(server, lexicon, tokens, classic, rng, number, seconds, players))
            if report is not None:
                report(number, results[-1])
        return results
    finally:
        server.stop()
