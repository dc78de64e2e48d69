"""Capacity of one venue server (issue 7.5): N camera tables at 5 frames a second plus a
burst of 150 scanned slips, on this machine, for N = 1, 2, 3... until a target is missed.

Run with ``make bench`` (or ``python tests/benchmarks/bench_venue.py [--start N]
[--max-cameras N] [--slips 150] [--plays 4]``). Before any timing, and cached in
``--cache``: rendered games seen by a 1280x720 camera (``vision.board.synthetic.scenes``, a hand
placing each play), their frames as JPEG files in one folder per game; a database with
one classic game per camera and a duplicate game of 150 players in round 1; 150 slips
of that round handwritten and scanned (``webapp.services.demo.slips.SlipPainter``).

Each trial is one ``veedor serve --venue`` process (SQLite, a camera worker process per
camera, the scanner's watched folder). Each camera is an MJPEG stream over HTTP served
by this script from a folder of frames, as an IP camera serves it: every stream waits
on its first frame until all N workers are connected, then all play at 5 frames a
second (a frame is timed by its slot, even if the worker reads it late). Two seconds
later the 150 scans land in the watched folder at once. Measured:

* a play is shown when the game's live stream (``/api/games/<id>/stream``, what the
  screens follow) first carries a board with its tiles; its delay runs from the slot of
  the first frame where the hand has left the board. Target: every play shown, 95 % of
  them within 1 s (the maximum is printed too). The delay to the play's event in the
  database is printed beside it: the difference is the server's part.
* a slip is handled when the scanner's journal records its page read (scored into the
  game, or put to the arbiter when doubtful); its delay runs from the moment it was
  written. Target: all 150 within 30 s.
* CPU (cores busy, whole machine and the server's processes) and memory (resident,
  the server and its workers) over the trial.

Prints a row per trial, the largest N held (plays at the 95th percentile, and at the
median) and one JSON line; without ``--all`` it stops at the first N whose median play or
slips miss. Exit status 1 when not even one camera is held at the 95th percentile. Other work on the machine skews the figures; the load
average at the start is printed with them.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from venue_inputs import FPS, REPO, camera_name, lexicon_path, prepare_template, render_streams  # beside this script
from venue_meter import Meter, machine_busy  # beside this script

PLAY_TARGET_S = 1.0
SLIP_TARGET_S = 30.0
SLIPS_AFTER_S = 2.0  # the scanner burst lands this long after the cameras start playing
SCANNER = "escaner1"


# --- the cameras: MJPEG streams over HTTP -------------------------------------------------


class Streams:
    """One MJPEG stream per camera (``/mesaN.mjpg``). Each holds its first frame until ``go``,
    then plays at FPS from ``go``; the last frame is held at the end. A reader that falls
    behind gets the frame of the current slot (an IP camera does not queue frames)."""

    def __init__(self, streams: list[dict[str, Any]], cameras: int) -> None:
        self.streams = streams
        self.cameras = cameras
        self.connected: set[int] = set()
        self.go_at: float | None = None
        self.stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.serve(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.port}/{camera_name(i)}.mjpg"

    def stream_of(self, i: int) -> dict[str, Any]:
        return self.streams[(i - 1) % len(self.streams)]

    def serve(self, handler: BaseHTTPRequestHandler) -> None:
        name = handler.path.strip("/").removesuffix(".mjpg")
        if not name.startswith("mesa") or not name[4:].isdigit():
            handler.send_error(404)
            return
        i = int(name[4:])
        jpegs = self.stream_of(i)["jpegs"]
        handler.send_response(200)
        handler.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
        handler.end_headers()
        self.connected.add(i)
        try:
            while not self.stopping.is_set():
                now = time.monotonic()
                if self.go_at is None or now < self.go_at:
                    index = 0
                    wake = now + 1.0 / FPS
                else:
                    index = min(int((now - self.go_at) * FPS), len(jpegs) - 1)
                    wake = self.go_at + (int((now - self.go_at) * FPS) + 1) / FPS
                part = jpegs[index]
                handler.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(part))
                handler.wfile.write(part + b"\r\n")
                time.sleep(max(0.0, wake - time.monotonic()))
        except OSError:
            return

    def close(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


# --- what the screens see -----------------------------------------------------------------


class Screen(threading.Thread):
    """Follows one game's live stream; the monotonic time each board tile count was first seen."""

    def __init__(self, port: int, game_id: str) -> None:
        super().__init__(daemon=True)
        self.port, self.game_id = port, game_id
        self.first_seen: dict[int, float] = {}
        self.signal_lost = 0
        self.counting_from: float | None = None  # "cámara sin señal" counted from then on
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self._follow()
            except (OSError, http.client.HTTPException):
                time.sleep(0.2)

    def _follow(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", f"/api/games/{self.game_id}/stream")
        response = connection.getresponse()
        if response.status != 200:
            response.read()
            time.sleep(0.5)
            return
        while not self.stopping.is_set():
            line = response.readline()
            if not line:
                return
            if line.startswith(b"data: {") and b'"state"' in line:
                now = time.monotonic()
                message = json.loads(line[6:])
                tiles = sum(1 for row in message["state"]["board"] for cell in row if cell)
                self.first_seen.setdefault(tiles, now)
                camera = message.get("camera")
                started = self.counting_from is not None and now >= self.counting_from
                if started and camera and not camera.get("signal", True):
                    self.signal_lost += 1


# --- one trial ------------------------------------------------------------------------------


@dataclass
class Trial:
    cameras: int
    play_delays: list[float] = field(default_factory=list)
    stored_delays: list[float] = field(default_factory=list)  # the same, to the play's event in the database
    plays_expected: int = 0
    slip_delays: list[float] = field(default_factory=list)
    slips_expected: int = 0
    slips_scored: int = 0
    server_cores: float = 0.0
    machine_cores: float = 0.0
    peak_rss_mb: float = 0.0
    startup_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def plays_held(self) -> bool:
        """Every play shown, 95 % of them within the target (a screen refresh is not a hard deadline)."""
        if len(self.play_delays) != self.plays_expected:
            return False
        ordered = sorted(self.play_delays)
        return not ordered or ordered[int(0.95 * (len(ordered) - 1))] <= PLAY_TARGET_S

    @property
    def slips_held(self) -> bool:
        return len(self.slip_delays) == self.slips_expected and max(self.slip_delays, default=0) <= SLIP_TARGET_S

    @property
    def held(self) -> bool:
        return self.plays_held and self.slips_held

    @property
    def held_at_median(self) -> bool:
        """Every play shown, half of them within the target, the slips within theirs."""
        shown = len(self.play_delays) == self.plays_expected
        return shown and statistics.median(self.play_delays or [0.0]) <= PLAY_TARGET_S and self.slips_held

    def summary(self) -> dict[str, Any]:
        def stats(values: list[float]) -> dict[str, float | None]:
            ordered = sorted(values)
            return {"max": round(ordered[-1], 2) if ordered else None,
                    "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2) if ordered else None,
                    "median": round(statistics.median(ordered), 2) if ordered else None}  # fmt: skip

        return {"cameras": self.cameras, "held": self.held,
                "plays_shown": len(self.play_delays), "plays": self.plays_expected, "play_delay_s": stats(self.play_delays),
                "play_stored_delay_s": stats(self.stored_delays),
                "slips_handled": len(self.slip_delays), "slips": self.slips_expected, "slips_scored": self.slips_scored,
                "slip_delay_s": stats(self.slip_delays), "server_cores": round(self.server_cores, 2),
                "machine_cores": round(self.machine_cores, 2), "peak_rss_mb": round(self.peak_rss_mb),
                "held_at_median": self.held_at_median, "startup_s": round(self.startup_s, 1),
                "notes": self.notes}  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def write_venue(folder: Path, streams: Streams, cameras: int, port: int) -> Path:
    lexicon = lexicon_path()
    lines = [
        'name = "Banco de capacidad"',
        'data = "datos"',
        'database = "sqlite:///datos/veedor.db"',
        *([f'lexicon = "{lexicon}"'] if lexicon else []),
        "[server]", 'host = "127.0.0.1"', f"port = {port}",
    ]
    for i in range(1, cameras + 1):
        lines += ["[[tables]]", f"number = {i}", f'camera = "{camera_name(i)}"']
    for i in range(1, cameras + 1):
        lines += ["[[cameras]]", f'name = "{camera_name(i)}"', f'source = "{streams.url(i)}"', f"fps = {FPS:g}"]
    lines += ["[[scanners]]", f'name = "{SCANNER}"', 'folder = "escaneos"']
    path = folder / "sede.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def wait_for_server(process: subprocess.Popen[str], timeout: float) -> None:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("the server stopped (see servidor.log in the trial's folder)")
        if line.startswith("Veedor en "):
            threading.Thread(target=lambda: [None for _ in process.stdout or []], daemon=True).start()  # drain
            return
    raise RuntimeError("the server did not start in time")


def journal_reads(path: Path) -> tuple[dict[str, str], dict[str, list[dict[str, Any]]]]:
    """From the scanner's journal: file name -> its first page, page -> results read."""
    names: dict[str, str] = {}
    reads: dict[str, list[dict[str, Any]]] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return names, reads
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("kind") == "file" and record.get("pages"):
            names[record["name"]] = record["pages"][0]
        elif record.get("kind") == "read":
            reads[record["page"]] = record["results"]
    return names, reads


def run_trial(cameras: int, streams_data: list[dict[str, Any]], template: Path, work: Path, slips: int) -> Trial:
    trial = Trial(cameras)
    folder = work / f"n{cameras}"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(template / "datos", folder / "datos")
    (folder / "escaneos").mkdir()
    games = json.loads((template / "games.json").read_text(encoding="utf-8"))
    classic = {name: game for name, game in games["classic"].items() if int(name[4:]) <= cameras}
    streams = Streams(streams_data, cameras)
    port = free_port()
    venue = write_venue(folder, streams, cameras, port)
    started = time.monotonic()
    log = open(folder / "servidor.log", "w", encoding="utf-8")  # what the server says, to read after a failure
    server = subprocess.Popen([sys.executable, "-m", "webapp.cli", "serve", "--venue", str(venue)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=log, text=True)  # fmt: skip
    meter = Meter(server.pid)
    screens: list[Screen] = []
    try:
        wait_for_server(server, 120)
        meter.start()
        screens = [Screen(port, classic[camera_name(i)]) for i in range(1, cameras + 1)]
        for screen in screens:
            screen.start()
        deadline = time.monotonic() + 60 + 15 * cameras
        while len(streams.connected) < cameras and time.monotonic() < deadline:
            time.sleep(0.2)
        if len(streams.connected) < cameras:
            trial.notes.append(f"only {len(streams.connected)} of {cameras} cameras connected")
        time.sleep(3.0)  # the workers find the board on the empty table
        trial.startup_s = time.monotonic() - started
        cpu_start, (busy_start, total_start) = meter.cpu_seconds(), machine_busy()
        window_start = time.monotonic()
        go = streams.go_at = time.monotonic()
        go_wall = time.time()
        for screen in screens:
            screen.counting_from = go
        time.sleep(SLIPS_AFTER_S)
        dropped = drop_slips(template / "escaneos-listos", folder / "escaneos", slips)
        trial.slips_expected = len(dropped)
        journal = folder / "datos" / "papeletas" / "escaneres" / SCANNER / "journal.jsonl"
        longest = max(len(streams.stream_of(i)["jpegs"]) for i in range(1, cameras + 1)) / FPS
        end = max(go + longest + 5.0, dropped_at(dropped) + SLIP_TARGET_S + 10.0)
        seen_read: dict[str, float] = {}
        while time.monotonic() < end:
            names, reads = journal_reads(journal)
            now = time.monotonic()
            for name, page in names.items():
                if page in reads and name not in seen_read:
                    seen_read[name] = now
            if len(seen_read) == len(dropped) and now > go + longest + 3.0:
                break
            time.sleep(0.2)
        window = time.monotonic() - window_start
        busy_end, total_end = machine_busy()
        trial.server_cores = (meter.cpu_seconds() - cpu_start) / window
        trial.machine_cores = (busy_end - busy_start) / (total_end - total_start) * (os.cpu_count() or 1)
        trial.peak_rss_mb = meter.peak_rss / 1e6
        _names, reads = journal_reads(journal)
        for name, written in dropped.items():
            if name in seen_read:
                trial.slip_delays.append(seen_read[name] - written)
        trial.slips_scored = sum(1 for results in reads.values() if any(r.get("status") == "submitted" for r in results))
        for i, screen in zip(range(1, cameras + 1), screens):
            marks = streams.stream_of(i)["plays"]
            trial.plays_expected += len(marks)
            for mark in marks:
                shown = next((t for tiles, t in screen.first_seen.items() if tiles >= mark["tiles"]), None)
                if shown is not None:
                    trial.play_delays.append(shown - (go + mark["frame"] / FPS))
            stored = camera_plays(folder / "datos" / "veedor.db", classic[camera_name(i)])
            for mark, at in zip(marks, stored):
                trial.stored_delays.append(at - (go_wall + mark["frame"] / FPS))
            if screen.signal_lost:
                trial.notes.append(f"{camera_name(i)}: 'cámara sin señal' shown {screen.signal_lost} times")
    finally:
        for screen in screens:
            screen.stopping.set()
        meter.stopping.set()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            trial.notes.append("the server did not stop within 30 s")
        streams.close()
        log.close()
    return trial


def camera_plays(database: Path, game_id: str) -> list[float]:
    """Wall-clock times (epoch seconds) of the plays a camera recorded in a game."""
    import sqlite3
    from datetime import datetime, timezone

    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        rows = connection.execute("SELECT at, actor FROM events WHERE game_id = ? AND kind = 'play' ORDER BY seq",
                                  (game_id,)).fetchall()  # fmt: skip
    return [datetime.fromisoformat(at).replace(tzinfo=timezone.utc).timestamp() for at, actor in rows
            if str(actor).startswith("camera:")]  # fmt: skip


def drop_slips(ready: Path, inbox: Path, count: int) -> dict[str, float]:
    """Put ``count`` scans in the watched folder at once, as a scanner's batch; when each landed."""
    landed = {}
    for path in sorted(ready.glob("*.jpg"))[:count]:
        temporary = inbox / f".{path.name}"
        shutil.copyfile(path, temporary)
        os.replace(temporary, inbox / path.name)
        landed[path.name] = time.monotonic()
    return landed


def dropped_at(dropped: dict[str, float]) -> float:
    return min(dropped.values()) if dropped else time.monotonic()


# --- the sweep ------------------------------------------------------------------------------


def row(trial: Trial) -> str:
    s = trial.summary()
    play, slip = s["play_delay_s"], s["slip_delay_s"]
    stored = s["play_stored_delay_s"]
    return (f"{trial.cameras:>3} cámaras | jugadas {s['plays_shown']}/{s['plays']} máx {play['max']} s p95 {play['p95']} s"
            f" mediana {play['median']} s (en la base: mediana {stored['median']} s)"
            f" | papeletas {s['slips_handled']}/{s['slips']} máx {slip['max']} s (puntuadas {s['slips_scored']})"
            f" | CPU servidor {s['server_cores']} núcleos, máquina {s['machine_cores']}/{os.cpu_count()}"
            f" | memoria {s['peak_rss_mb']} MB | se sostiene: p95 {'sí' if trial.held else 'no'},"
            f" mediana {'sí' if trial.held_at_median else 'no'}"
            + (f" | {'; '.join(trial.notes)}" if trial.notes else ""))  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=1, help="first number of cameras (default 1)")
    parser.add_argument("--max-cameras", type=int, default=12, help="stop there (default 12)")
    parser.add_argument("--slips", type=int, default=150, help="scanned slips in the burst (default 150)")
    parser.add_argument("--plays", type=int, default=4, help="plays in each camera's game (default 4)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/veedor-bench-venue"), help="rendered frames and scans")
    parser.add_argument("--all", action="store_true", help="go on to --max-cameras after a trial fails")
    parser.add_argument("--cameras", help="the numbers of cameras to try, e.g. 1,4,8 (instead of --start..--max-cameras)")
    parser.add_argument("--nice", type=int, default=0,
                        help="run the server (and the cameras) at this priority, also against other sessions "
                             "(the scheduler's autogroup); below 0 (root) stands for a laptop given to Veedor "
                             "alone on a machine others are using")  # fmt: skip
    args = parser.parse_args(argv)
    restore = prioritise(args.nice) if args.nice else None
    try:
        return sweep(args)
    finally:
        if restore is not None:
            restore()


def prioritise(nice: int) -> Any:
    """Run this process and its children at ``nice``, its session's autogroup too; the undo."""
    os.nice(nice)
    group = Path("/proc/self/autogroup")
    try:
        before = group.read_text().split()[-1]
        group.write_text(str(nice))
    except (OSError, IndexError):
        return None
    return lambda: group.write_text(before)


def _largest(trials: list[Trial], test: str) -> int:
    """The largest N such that it and every smaller N tried passed ``test``."""
    largest = 0
    for trial in trials:
        if not getattr(trial, test):
            break
        largest = trial.cameras
    return largest


def _autogroup() -> str:
    try:
        return Path("/proc/self/autogroup").read_text().strip()
    except OSError:
        return "no autogroup"


def sweep(args: argparse.Namespace) -> int:
    load = os.getloadavg()[0]
    print(f"bench_venue: {os.cpu_count()} cores, load average {load:.1f} at the start, "
          f"priority {os.getpriority(os.PRIO_PROCESS, 0)} ({_autogroup()})", flush=True)
    args.cache.mkdir(parents=True, exist_ok=True)
    streams = render_streams(args.cache, args.plays)
    counts = [int(n) for n in args.cameras.split(",")] if args.cameras else list(range(args.start, args.max_cameras + 1))
    template = prepare_template(args.cache, max(counts), args.slips)
    work = args.cache / "trials"
    trials: list[Trial] = []
    for cameras in counts:
        trial = run_trial(cameras, streams, template, work, args.slips)
        trials.append(trial)
        print(row(trial), flush=True)
        if not trial.held_at_median and not args.all:
            break
    held = [t.cameras for t in trials if t.held]
    largest, at_median = _largest(trials, "held"), _largest(trials, "held_at_median")
    print(f"largest number of cameras held with plays shown within {PLAY_TARGET_S:g} s (p95) and {args.slips} slips "
          f"handled within {SLIP_TARGET_S:g} s: {largest}; with the median play within {PLAY_TARGET_S:g} s: "
          f"{at_median}", flush=True)  # fmt: skip
    print(json.dumps({"bench": "venue", "cores": os.cpu_count(), "load_average": round(load, 1),
                      "priority": os.getpriority(os.PRIO_PROCESS, 0), "largest_held": largest,
                      "largest_held_at_median": at_median,
                      "held": held, "trials": [t.summary() for t in trials]}))  # fmt: skip
    return 0 if largest >= 1 else 1


if __name__ == "__main__":
    sys.exit(main())
