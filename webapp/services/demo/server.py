"""The live demo of ``veedor serve --demo`` (``make demo``): games that play by themselves.

A duplicate game with a dozen simulated players (``simulation``) advances on its
own: a rack is drawn, the shortened clock runs, slips arrive during the round (with
the mistakes of D.III.25 now and then; in ``serve --demo`` as rendered scans dropped
in a watched folder and read by the real slip reader, ``scanning.DemoSlips``), the
clock closes, the rules' master is published once the scans are read, and the next
round starts; a new game follows the end. A classic table
replays a game generated at start (greedy players on a seeded bag), one turn every
few seconds. A second classic table is fed by rendered camera video through the
real board pipeline (``table``). All go through ``LiveGames.append``
like any arbiter or device, so the
screens, the console and the results show them live; an arbiter may step in (pause
the clock, enter or correct slips) and the driver carries on from the state it finds.
"""

from __future__ import annotations

import logging
import queue
import random
import secrets
import shutil
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final

from flask import Flask
from sqlalchemy import delete

from rules_core.alphabet import BLANK, Tile, full_bag, is_blank
from rules_core.board import Board
from rules_core.classic import ClassicGame, rack_text
from rules_core.duplicate import DuplicateGame, DuplicateSettings, rack_labels
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon
from rules_core.movegen import generate_plays
from rules_core.racks import draw_rack
from rules_core.scoring import RACK_SIZE
from rules_core.slips import Slip

from ..cameras import CameraRegistry
from ..live import LiveGames
from ..shared import scan_service, services, start_scanners
from ..simulation import SimulatedPlayer, make_players, pick_play, write_slip
from .slips import DemoSlips
from ..store import EventStore, StoreError
from ..store import events as event_rows
from ..store import games as game_rows
from .table import DEMO_CAMERA, create_demo_game, run_demo_table

log = logging.getLogger(__name__)

DEMO_LOGIN: Final = "demo"
ACTOR: Final = "demo"
KEEP_ENDED: Final = 1  # per demo table, the games just ended that stay listed beside the one in play
CLASSIC_TABLE: Final = 2  # the replayed classic game's table (the camera's is table 1)
SCAN_PATIENCE: Final = 30.0  # seconds after "TIEMPO" the master waits at most for the scans to be read


@dataclass(frozen=True)
class Timing:
    """Seconds between the demo's steps."""

    round_seconds: int = 30
    show_rack: float = 4.0  # rack on screen before the clock starts
    after_close: float = 3.0  # "TIEMPO" to the master
    after_master: float = 8.0  # master on screen before the next rack
    classic_turn: float = 5.0
    restart: float = 30.0  # a finished game stays on screen
    tick: float = 0.25


def prepare_demo_data(folder: Path) -> None:
    """Each demo starts on a fresh database and slip archive in ``folder`` (the session key is kept)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(folder / "papeletas", ignore_errors=True)
    for path in folder.glob("veedor.db*"):
        path.unlink()


@dataclass
class _Plan:
    """The simulated slips of the open round: (seconds after the start, player, slip)."""

    number: int
    slips: list[tuple[float, str, Slip]] = field(default_factory=list)


class Demo:
    """The driver threads; ``stop`` ends them."""

    def __init__(self, games: LiveGames, timing: Timing, seed: int, camera: bool = False,
                 slips: DemoSlips | None = None) -> None:  # fmt: skip
        self.games = games
        self.timing = timing
        self.slips = slips  # slips handed in as rendered scans, read by the server's ScanService
        self._to_scan: list[tuple[int, str, Slip]] = []
        self.rng = random.Random(seed)
        self.players = make_players(12)
        self.stopped = threading.Event()
        self._tables: dict[str, list[str]] = {}  # each demo table's games, oldest first
        self.duplicate_id = self._new_duplicate()
        self.classic_id = ""
        self._classic_events = classic_demo_events(games.lexicon, self.rng.randrange(10**6))
        self.classic_id = self._moved_on("classic", games.create("classic", _classic_title(self._classic_events[0]),
                                                                 self._classic_events[0]))  # fmt: skip
        self._plan: _Plan | None = None
        self._since = time.monotonic()
        self._threads = [
            threading.Thread(target=self._loop, args=(self._duplicate_step,), name="demo-duplicate", daemon=True),
            threading.Thread(target=self._loop, args=(self._classic_step,), name="demo-classic", daemon=True),
        ]
        self._classic_next = 1
        self._classic_at = time.monotonic() + timing.classic_turn
        self.camera_id = ""
        self.cameras: CameraRegistry | None = None  # the server's: the camera table shows in the console
        if camera:
            self.camera_id = self._moved_on("camera", create_demo_game(games, games.lexicon, ("Carmen", "Diego")))
            self._threads.append(threading.Thread(target=self._camera_loop, name="demo-camera", daemon=True))

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self.stopped.set()
        for thread in self._threads:
            thread.join(timeout=5)
        if self.slips is not None:
            self.slips.service.stop()

    def _loop(self, step: object) -> None:
        assert callable(step)
        while not self.stopped.wait(self.timing.tick):
            try:
                step()
            except (GameError, StoreError) as error:  # an arbiter got there first: carry on
                log.info("demo: %s", error)
            except Exception:  # the demo must not die; say why and go on
                log.exception("demo step failed")
                self.stopped.wait(2.0)

    # -- camera table --------------------------------------------------------------

    def _camera_loop(self) -> None:
        """Rendered games seen by a simulated camera, through the real board pipeline; with the
        server's camera registry the table is one of its cameras (console panel, "sin señal")."""
        registry = self.cameras
        inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        if registry is not None:
            registry.add(DEMO_CAMERA, kind="demo", source="vídeo generado", fps=10.0, deliver=inbox.put, game_id=self.camera_id)

        def send(message: dict[str, Any]) -> None:
            if registry is not None:
                registry.receive(DEMO_CAMERA, message)

        def receive() -> list[dict[str, Any]]:
            out = []
            while not inbox.empty():
                out.append(inbox.get_nowait())
            return out

        def watch(_frame: object, _desk: object) -> None:
            if self.stopped.is_set():
                raise _Stopped

        while not self.stopped.is_set():
            try:
                seed = self.rng.randrange(10**6)
                run_demo_table(self.games, self.camera_id, self.games.lexicon, realtime=True, seed=seed, on_frame=watch,
                               send=send if registry else None, receive=receive,
                               data_dir=registry.data_dir if registry else None)  # fmt: skip
            except _Stopped:
                return
            except Exception:  # the demo must not die; say why and go on
                log.exception("demo camera table failed")
            for _ in range(max(1, int(self.timing.restart))):  # the camera still looks at the finished game
                if self.stopped.wait(1.0):
                    return
                send({"type": "status", "t": time.time(), "signal": True, "reason": "", "state": "estable", "fps": 0.0})
            self.camera_id = self._moved_on("camera", create_demo_game(self.games, self.games.lexicon, ("Carmen", "Diego")))
            if registry is not None:
                registry.attach(DEMO_CAMERA, self.camera_id)

    # -- the demo's games -------------------------------------------------------------

    def _moved_on(self, table: str, game_id: str) -> str:
        """A demo table plays ``game_id`` now: the games it ended before the last one leave the
        demo's database, so that the lists hold each table's game in play and the one just
        ended, not one more per restart (a game is its events: it is not rewound, it is replaced).
        Screens still open on a removed game keep it until they reconnect."""
        played = self._tables.setdefault(table, [])
        played.append(game_id)
        while len(played) > 1 + KEEP_ENDED:
            forget_game(self.games.store, played.pop(0))
        return game_id

    # -- duplicate -----------------------------------------------------------------

    def _new_duplicate(self) -> str:
        settings = DuplicateSettings(round_seconds=self.timing.round_seconds, bonuses=True, seed=self.rng.randrange(10**6))
        game_id = self.games.create_duplicate("Duplicada de demostración", settings, actor=ACTOR)
        for p in self.players:
            self.games.append(game_id, Event("player_added", {"player": p.id, "name": p.name, "table": p.table}, ACTOR))
        return self._moved_on("duplicate", game_id)

    def _append(self, event: Event) -> None:
        self.games.append(self.duplicate_id, event)
        self._since = time.monotonic()

    def _duplicate_step(self) -> None:
        waited = time.monotonic() - self._since
        with self.games.reading(self.duplicate_id) as live:
            assert isinstance(live, DuplicateGame)
            event = self._next_duplicate_event(live, waited)
        self._scan_due()
        if event == "restart":
            self.duplicate_id = self._new_duplicate()
            self._since = time.monotonic()
        elif isinstance(event, Event):
            self._append(event)

    def _next_duplicate_event(self, game: DuplicateGame, waited: float) -> Event | str | None:
        t = self.timing
        current = game.current
        if game.ended:
            return "restart" if waited >= t.restart else None
        if current is None or current.master is not None:
            return self._draw(game) if waited >= (t.after_master if current else t.show_rack) else None
        actions = [a for a, _at in current.timer]
        if not actions:
            return Event("timer", {"round": current.number, "action": "start"}, ACTOR) if waited >= t.show_rack else None
        if "close" in actions:
            return self._master(game) if waited >= t.after_close and self._scans_in(waited) else None
        if not current.timer_running:
            return None  # paused by an arbiter
        now = datetime.now(timezone.utc)
        left = current.remaining_seconds(game.settings.round_seconds, now)
        due = self._due_slip(game, game.settings.round_seconds - left)
        if due is not None:
            return due
        return Event("timer", {"round": current.number, "action": "close"}, ACTOR) if left <= 0 else None

    def _draw(self, game: DuplicateGame) -> Event:
        number = len(game.rounds) + 1
        bag = list((Counter(game.pool) - Counter(game.leave)).elements())
        draw = draw_rack(list(game.leave), bag, number, self.rng)
        if draw is None:
            return Event("game_ended", {"reason": "no se puede formar ningún atril válido (D.III.22)"}, ACTOR)
        data = {"round": number, "rack": rack_labels(draw.rack), "source": "sorteo", "redraws": draw.redraws}
        return Event("rack_set", data, ACTOR)

    def _due_slip(self, game: DuplicateGame, elapsed: float) -> Event | None:
        r = game.current
        assert r is not None
        if self._plan is None or self._plan.number != r.number:
            self._plan = _plan_round(game, self.players, self.rng, game.settings.round_seconds)
        while self._plan.slips and self._plan.slips[0][0] <= elapsed:
            _at, player, slip = self._plan.slips.pop(0)
            if player in game.players and player not in r.slips:
                if self.slips is not None:  # drawn and scanned after the game's lock is released
                    self._to_scan.append((r.number, player, slip))
                    continue
                return Event("slip", {"round": r.number, "player": player, "slip": slip.to_json()}, ACTOR)
        return None

    def _scan_due(self) -> None:
        """The slips due now, handed in as scans into the watched folder."""
        while self.slips is not None and self._to_scan:
            number, player_id, slip = self._to_scan.pop(0)
            player = next(p for p in self.players if p.id == player_id)
            self.slips.hand_in(self.duplicate_id, "Duplicada de demostración", player.id, player.name, player.table,
                               slip, number)  # fmt: skip

    def _scans_in(self, waited: float) -> bool:
        """Every scan handed in is read or flagged (or the reader is given up on after a while)."""
        return self.slips is None or self.slips.settled() or waited >= self.timing.after_close + SCAN_PATIENCE

    def _master(self, game: DuplicateGame) -> Event:
        r = game.current
        assert r is not None
        top = game.top_plays(r.number)
        if not top:
            return Event("game_ended", {"reason": "no hay ninguna jugada posible (D.III.22)"}, ACTOR)
        return Event("master_announced", {"round": r.number, "play": top[0].notation}, ACTOR)

    # -- classic ------------------------------------------------------------------------

    def _classic_step(self) -> None:
        if time.monotonic() < self._classic_at:
            return
        if self._classic_next >= len(self._classic_events):
            self._classic_events = classic_demo_events(self.games.lexicon, self.rng.randrange(10**6))
            first = self._classic_events[0]
            self.classic_id = self._moved_on("classic", self.games.create("classic", _classic_title(first), first))
            self._classic_next = 1
        else:
            self.games.append(self.classic_id, self._classic_events[self._classic_next])
            self._classic_next += 1
        done = self._classic_next >= len(self._classic_events)
        self._classic_at = time.monotonic() + (self.timing.restart if done else self.timing.classic_turn)


def _plan_round(game: DuplicateGame, players: list[SimulatedPlayer], rng: random.Random, seconds: int) -> _Plan:
    r = game.current
    assert r is not None
    plays = generate_plays(r.board, r.rack, game.lexicon)
    top = game.top_plays(r.number)
    plan = _Plan(r.number)
    if not plays or not top:
        return plan
    for p in players:
        slip = write_slip(pick_play(p.strength, plays, top[0], rng), p, rng)
        plan.slips.append((rng.uniform(0.25, 0.95) * seconds, p.id, slip))
    plan.slips.sort(key=lambda item: item[0])
    return plan


def forget_game(store: EventStore, game_id: str) -> None:
    """Remove a finished demo game from the demo's database (events, then the game)."""
    with store.engine.begin() as connection:
        connection.execute(delete(event_rows).where(event_rows.c.game_id == game_id))
        connection.execute(delete(game_rows).where(game_rows.c.id == game_id))


def _classic_title(first: Event) -> str:
    return str(first.data.get("title") or "Mesa clásica")


def classic_demo_events(lexicon: Lexicon, seed: int, names: tuple[str, str] = ("Ana", "Bruno")) -> list[Event]:
    """A whole classic game between two greedy players on a seeded bag, as events.

    Ana plays the best play, Bruno one of the three best; a player with no play
    passes; the game ends when one goes out with the bag empty (C.45.4) or after
    four passes in a row (C.45.2). Every event is checked by ``ClassicGame``.
    """
    rng = random.Random(seed)
    bag = full_bag()
    rng.shuffle(bag)
    racks: list[list[Tile]] = [[bag.pop() for _ in range(RACK_SIZE)] for _ in (0, 1)]
    board = Board()
    game = ClassicGame(lexicon)
    title = f"Mesa {CLASSIC_TABLE}: {names[0]} – {names[1]} (demostración)"
    events = [ClassicGame.create_event(list(names), title=title, actor=ACTOR)]
    game.apply(events[0])
    player, passes = 0, 0
    while len(events) < 120:
        plays = generate_plays(board, racks[player], lexicon)
        if plays:
            play = plays[0] if player == 0 else plays[rng.randrange(min(3, len(plays)))]
            event = ClassicGame.play_event(player, play.notation, rack=rack_text(racks[player]), actor=ACTOR)
            _place(board, racks[player], play.play.squares(), play.word)
            while len(racks[player]) < RACK_SIZE and bag:
                racks[player].append(bag.pop())
            passes = 0
        else:
            event = ClassicGame.pass_event(player, actor=ACTOR)
            passes += 1
        game.apply(event)
        events.append(event)
        if (not racks[player] and not bag) or passes >= 4:
            end = ClassicGame.end_event([rack_text(racks[0]), rack_text(racks[1])], actor=ACTOR)
            game.apply(end)
            events.append(end)
            break
        player ^= 1
    return events


def _place(board: Board, rack: list[Tile], squares: list[tuple[int, int]], word: bytes) -> None:
    for square, tile in zip(squares, word):
        if not board[square]:
            board[square] = tile
            rack.remove(BLANK if is_blank(tile) else tile)


class _Stopped(Exception):
    """The demo is stopping: leave the rendered game."""


def start_demo(app: Flask, base_url: str, timing: Timing | None = None, seed: int | None = None) -> Demo:
    """Create the demo arbiter and games, start the drivers, print where to look."""
    found = services(app)
    password = secrets.token_urlsafe(9)
    found.accounts.remove_arbiter(DEMO_LOGIN)
    found.accounts.add_arbiter(DEMO_LOGIN, password)
    seed = seed if seed is not None else random.randrange(10**6)
    scans = scan_service(app)
    assert scans.root is not None
    slips = DemoSlips(scans, scans.root / "demo" / "bandeja", seed)
    start_scanners(app, [slips.scanner()])
    demo = Demo(found.games, timing or Timing(), seed, camera=True, slips=slips)
    demo.cameras = found.cameras
    demo.start()
    print(
        "Veedor: demostración en marcha (Ctrl-C para parar)\n"
        f"  pantalla de la duplicada: {base_url}/display/{demo.duplicate_id}\n"
        f"  pantalla de la mesa clásica: {base_url}/display/mesa/{CLASSIC_TABLE}\n"
        f"  pantalla de la mesa con cámara: {base_url}/display/mesa/1\n"
        f"  emisión (con retraso y análisis): {base_url}/emision/mesa/{CLASSIC_TABLE}\n"
        f"  capa para OBS (marcador): {base_url}/overlay/mesa/{CLASSIC_TABLE}/scores\n"
        f"  cámaras (consola): {base_url}/arbiter/cameras\n"
        f"  consola de arbitraje: {base_url}/arbiter/g/{demo.duplicate_id}\n"
        f"  papeletas escaneadas: {base_url}/arbiter/g/{demo.duplicate_id}/papeletas\n"
        f"  resultados: {base_url}/results/{demo.duplicate_id}\n"
        f"  usuario: {DEMO_LOGIN}   contraseña: {password}",
        flush=True,
    )
    return demo
