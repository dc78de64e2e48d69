"""Scanned slips in the running server: watched folders and console uploads into their games.

``ScanService`` (``Services.scans``) owns the slip reader's state of one server,
under ``SCANS_PATH`` (default ``<DATA_DIR, else the instance folder>/papeletas``):

* ``escaneres/<scanner>/``: per scanner, the ``Ingestor``'s content-addressed
  archive (``pages/``, ``originals/``, ``refused/``) and its ``journal.jsonl``;
  console uploads are the scanner ``subidas``, whose inbox is ``escaneres/subidas/bandeja``;
* ``revision/``: the arbiter's ``ReviewQueue`` (``review.jsonl``, ``crops/``),
  shared by every scanner and game;
* ``partida.json``: the game the arbiter chose for plain slips (``choose``).

Each file is stored before it is read (``Ingestor``, within ``vision.decoding.SCANS``:
sizes from the headers, 60 pages, PDFs rendered at 200 dpi or less, decoded in a worker
process within ``vision.isolation.Budget``); a refused file (over a limit, damaged, too
slow to decode) is kept with its reason and listed (``refused``, rebuilt from the archives
at start), and the files after it are read. A page whose reading raises is the scanner's
alert and is read again later; the pages after it are read. Every
slip on a page goes to the game of its QR code (game, table, player) when that duplicate
game is running; a printed slip with nothing written on it (one of a pad no one used) is no
slip, and goes to no game (``unused`` in the journal); a slip without a readable QR code, or
a page with no slip, goes to the game chosen for plain slips; a slip of a game that is not
running is held, unread, in the review queue of the game chosen for plain slips, its note naming the other game. While no game is chosen for plain
slips, a page that needs one waits, unread (``waiting``), and is read when one is chosen:
nothing is ever read into a game it does not belong to. Reading goes through each game's
``GameFeed`` and ``LiveGames.append``; the games' lock is held to copy what the reader
needs, to submit and to resolve, never while handwriting is read.

``start`` polls each venue scanner's folder from a background thread (running
``scanimage`` first when the scanner names a SANE device); uploads are stored by the
request and read by the uploads' own thread (``upload``, ``outcome``), so a large PDF never
holds a request. A restart replays the journals and the queue and reads what was left.

Configuration: ``SCANS_PATH`` (the folder above), ``SCAN_POLL_SECONDS`` (default 1),
``SCAN_UPLOAD_BYTES`` (largest upload from the console, ``slip_review``), ``SCAN_DECODE_SECONDS``
(time to open a file and give its first page, default 20; ``vision.isolation.Budget``).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any, Final, Protocol

import numpy as np

from rules_core.duplicate import DuplicateGame
from rules_core.events import GameError
from vision import decoding, isolation
from vision.slips.feed import GameFeed, round_status, short_game
from vision.slips.ingest import Ingestor, Page, StorageError, clean_name, stored_refusals, unique_name
from vision.slips.reader import LocatedSlip, SlipReader, locate_slips
from vision.slips.review import ReviewItem, ReviewQueue

from .live import LiveGames
from .store import GameRecord

log = logging.getLogger(__name__)

POLL_SECONDS: Final = 1.0
SETTLE_SECONDS: Final = 2.0  # a file still being written by a scanner is left for the next poll
UPLOADS: Final = "subidas"  # the scanner name of files uploaded through the console
CHOICE_FILE: Final = "partida.json"
_NAME = re.compile(r"^[a-z0-9_-]{1,64}$")


class ScannerSpec(Protocol):
    """A scanner as the venue describes it (``hardware.venue.ScannerConfig`` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def folder(self) -> Path: ...

    @property
    def scanimage(self) -> str | None: ...


@dataclass(frozen=True)
class ScannerAlert:
    """Why a scanner's folder is not being read (a full disk, a device gone), since ``since`` (epoch s)."""

    scanner: str
    message: str
    since: float

    @property
    def clock(self) -> str:
        """``since`` as the server's local time of day, HH:MM:SS."""
        return time.strftime("%H:%M:%S", time.localtime(self.since))


@dataclass(frozen=True)
class RefusedScan:
    """A file a scanner delivered that could not be stored as pages; kept under ``path`` for the arbiter."""

    scanner: str
    name: str  # as it arrived
    reason: str
    path: Path  # refused/<stored>
    at: float = 0.0  # epoch s (0: unknown)

    @property
    def stored(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class PlainGame:
    """Where plain slips go: the game chosen (``game``, None: none), by whom and when (epoch s), and
    ``ready``: whether it is a duplicate game in play now (a chosen game that has ended is not)."""

    game: str | None
    name: str
    by: str
    at: float
    ready: bool
    waiting: int  # pages that wait for a game to be chosen
    running: int  # duplicate games in play


@dataclass(frozen=True)
class FolderScanner:
    """A watched folder with no device behind it (tests, the demo, a network share)."""

    name: str
    folder: Path
    scanimage: str | None = None


class ScanError(ValueError):
    """A scan request that cannot be done; the message says why, in Spanish."""


class ScanService:
    """The slip reader of one server; ``attach`` binds it to the games and a data folder."""

    def __init__(self) -> None:
        self.games: LiveGames | None = None
        self.root: Path | None = None
        self.ingestors: dict[str, Ingestor] = {}
        self._reader: SlipReader | None = None
        self._queue: ReviewQueue | None = None
        self._feeds: dict[str, GameFeed] = {}
        self._busy: set[str] = set()
        self._polling: dict[str, threading.Lock] = {}  # one poll at a time per archive
        self._setup = threading.Lock()
        self._feeds_lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.alerts: dict[str, ScannerAlert] = {}  # scanner -> why its folder is not being read now
        self._alerts_lock = threading.Lock()  # scanner threads write, requests read
        self._choice: dict[str, Any] = {}  # partida.json: {"game", "by", "at"}
        self._generation = 0  # moves on with every choice: pages waiting for one are tried again
        self._waiting: dict[str, int] = {}  # page sha -> the generation it waited in
        self._archived: dict[str, list[dict[str, Any]]] = {}  # refusals of the archives on disk at start
        self._uploads_lock = threading.Lock()
        self._uploads_wake = threading.Event()
        self._uploads_thread: threading.Thread | None = None
        self.budget = isolation.DEFAULT  # what decoding one scanned file may take

    # -- set-up ----------------------------------------------------------------------

    def attach(self, games: LiveGames, root: Path) -> None:
        """Bind to the server's games and the data folder (once; later calls are ignored): the choice of
        game for plain slips and the refused files of every archive are read back, and uploads left unread
        by a stop are read."""
        with self._setup:
            if self.games is not None:
                return
            self.games, self.root = games, root
            root.mkdir(parents=True, exist_ok=True)
            self._choice = _read_choice(root / CHOICE_FILE)
            archives = sorted(p for p in (root / "escaneres").glob("*") if p.is_dir())
            self._archived = {p.name: stored_refusals(p) for p in archives}
        if (root / "escaneres" / UPLOADS).is_dir():
            uploads = self.uploads()
            if uploads.waiting() or uploads.pending():
                self._kick_uploads()

    def live(self) -> LiveGames:
        """The games this service feeds (ScanError before ``attach``)."""
        if self.games is None or self.root is None:
            raise ScanError("el lector de papeletas no está preparado")
        return self.games

    @property
    def reader(self) -> SlipReader:
        """The reader, its model and the lexicon loaded on first use, once."""
        with self._setup:
            if self._reader is None:
                self._reader = SlipReader(self.live().lexicon)
            return self._reader

    @property
    def queue(self) -> ReviewQueue:
        """The review queue, rebuilt from ``revision/review.jsonl`` on first use."""
        with self._setup:
            if self._queue is None:
                assert self.root is not None
                self._queue = ReviewQueue(self.root / "revision")
            return self._queue

    def add_scanner(self, name: str, inbox: Path, settle: float = 0.0) -> Ingestor:
        """The archive of scanner ``name`` watching ``inbox`` (its journal replayed); see ``Ingestor.settle``."""
        if not _NAME.match(name):
            raise ScanError(f"nombre de escáner no válido: {name!r} (minúsculas, cifras, - y _)")
        self.live()
        assert self.root is not None
        with self._setup:
            if name not in self.ingestors:
                self.ingestors[name] = Ingestor(inbox, self.root / "escaneres" / name, self._read_page, settle,
                                                ready=self._ready, decode=self._decode)  # fmt: skip
            return self.ingestors[name]

    def uploads(self) -> Ingestor:
        """The archive of files uploaded through the console (its own inbox under the data folder)."""
        self.live()
        assert self.root is not None
        return self.add_scanner(UPLOADS, self.root / "escaneres" / UPLOADS / "bandeja")

    # -- the games slips go to ----------------------------------------------------------

    def running(self) -> dict[str, GameRecord]:
        """The duplicate games in play (not ended), by id, oldest first."""
        return {r.id: r for r in self.live().store.games() if r.mode == "duplicate" and not r.snapshot.get("ended")}

    def choose(self, game_id: str | None, actor: str) -> None:
        """Plain slips go to ``game_id`` from now on (None: to no game, they wait); kept in ``partida.json``."""
        if game_id is not None and game_id not in self.running():
            raise ScanError("solo se puede elegir una partida duplicada en juego")
        assert self.root is not None
        choice = {"game": game_id, "by": actor, "at": time.time()}
        _write_json(self.root / CHOICE_FILE, choice)
        self._choice = choice
        self._generation += 1
        if UPLOADS in self.ingestors:
            self._kick_uploads()

    def plain_game(self, running: dict[str, GameRecord] | None = None) -> str | None:
        """The game chosen for plain slips while it is in play, else None."""
        game_id = self._choice.get("game")
        return game_id if isinstance(game_id, str) and game_id in (running or self.running()) else None

    def plain(self) -> PlainGame:
        """Where plain slips go, for the console's banner."""
        game_id = self._choice.get("game")
        game_id = game_id if isinstance(game_id, str) else None
        name = ""
        if game_id is not None:
            try:
                name = self.live().store.game(game_id).name
            except GameError:
                name = short_game(game_id)
        read = [i.read for i in list(self.ingestors.values())]
        waiting = sum(1 for sha, generation in list(self._waiting.items())
                      if generation == self._generation and not any(sha in r for r in read))  # fmt: skip
        running = self.running()
        return PlainGame(game_id, name, str(self._choice.get("by") or ""), float(self._choice.get("at") or 0),
                         self.plain_game(running) is not None, waiting, len(running))  # fmt: skip

    def current_game(self) -> str | None:
        """The duplicate game the room follows: the one chosen for plain slips, else the latest one in play."""
        running = self.running()
        return self.plain_game(running) or next(reversed(running), None)

    def describe(self, game_id: str) -> str:
        """Another game as the arbiter reads it: «name» and whether it ended, or that it is not on this server."""
        try:
            record = self.live().store.game(game_id)
        except GameError:
            return f"{short_game(game_id)}, que no está en este servidor"
        if record.mode != "duplicate":
            return f"la partida «{record.name}», que no es duplicada"
        return f"la partida «{record.name}»" + (" (terminada)" if record.snapshot.get("ended") else "")

    def feed(self, game_id: str) -> GameFeed:
        """The feed of one duplicate game (made once)."""
        games = self.live()
        games.duplicate(game_id)  # GameError when it is not one
        reader, queue = self.reader, self.queue
        with self._feeds_lock:
            if game_id not in self._feeds:
                self._feeds[game_id] = GameFeed(game_id, lambda: games.duplicate(game_id),
                                                partial(games.enter_slip, game_id), reader, queue,
                                                lock=games.lock, describe=self.describe)  # fmt: skip
            return self._feeds[game_id]

    # -- reading a page ------------------------------------------------------------------

    def _decode(self, data: bytes, limits: decoding.Limits) -> Iterator[np.ndarray]:
        """A file's pages, decoded in a worker process within ``budget``."""
        return isolation.pages(data, limits, self.budget)

    def _ready(self, page: Page) -> bool:
        """Whether to offer ``page`` to the reader now: not while stopping, nor while it waits for a choice."""
        return not self._stop.is_set() and self._waiting.get(page.sha) != self._generation

    def _read_page(self, page: Page, gray: np.ndarray) -> list[dict[str, Any]] | None:
        """Every slip of the page into its game (see the module docstring); None: the page waits for a game
        to be chosen for plain slips. Each result names its ``game`` and its ``index`` on the page."""
        generation = self._generation
        located = locate_slips(gray)
        unused = [{"status": "unused", "game": s.qr[0] if s.qr else None, "index": i}
                  for i, s in enumerate(located) if s.unused]  # nothing written: no slip, for no game  # fmt: skip
        slips = [(i, s) for i, s in enumerate(located) if not s.unused]
        running = self.running()
        plain = self.plain_game(running)
        routes, held = self._route(slips, running, plain)
        if plain is None and (not located or len(held) + sum(map(len, routes.values())) < len(slips)):
            self._waiting[page.sha] = generation
            return None
        results: list[dict[str, Any]] = unused
        if not located and plain is not None:
            results += [{**r, "game": plain, "index": 0} for r in self.feed(plain).read_slips(page, [])]
        for game_id, batch in routes.items():
            done = self.feed(game_id).read_slips(page, batch)
            results += [{**r, "game": game_id, "index": i} for (i, _slip), r in zip(batch, done)]
        if held and plain is not None:
            done = self.feed(plain).hold(page, held)
            results += [{**r, "game": plain, "index": i} for (i, _slip, _note), r in zip(held, done)]
        self._waiting.pop(page.sha, None)
        return sorted(results, key=lambda r: int(r["index"]))

    def _route(self, slips: list[tuple[int, LocatedSlip]], running: dict[str, GameRecord], plain: str | None) -> tuple[
            dict[str, list[tuple[int, LocatedSlip]]], list[tuple[int, LocatedSlip, str]]]:  # fmt: skip
        """Slips (by index on the page) per game to read them into, and those to hold in ``plain``'s queue
        with a note; a slip that has neither (no game chosen for plain slips) is in neither."""
        routes: dict[str, list[tuple[int, LocatedSlip]]] = {}
        held: list[tuple[int, LocatedSlip, str]] = []
        for index, slip in slips:
            game = slip.qr[0] if slip.qr else None
            if game in running or (game is None and plain is not None):
                routes.setdefault(game or str(plain), []).append((index, slip))
            elif plain is not None and slip.qr is not None:
                note = f"papeleta de {self.describe(slip.qr[0])}, mesa {slip.qr[1]}: no se anota aquí sin su decisión"
                held.append((index, slip, note))
        return routes, held

    # -- polling -----------------------------------------------------------------------

    def poll(self, name: str) -> list[Page]:
        """Store the files in scanner ``name``'s inbox, then read the pages not yet read into their games;
        returns the pages read now (a page waiting for a game to be chosen stays unread)."""
        ingestor = self.ingestors[name]
        with self._polling.setdefault(name, threading.Lock()):
            self._busy.add(name)
            try:
                return ingestor.poll()
            finally:
                self._busy.discard(name)

    def settled(self, name: str) -> bool:
        """Nothing of scanner ``name`` left to take or read (the demo waits for this before the master)."""
        ingestor = self.ingestors.get(name)
        if ingestor is None:
            return True
        left = [page for page in ingestor.pending() if page.sha not in ingestor.failures]
        return name not in self._busy and not ingestor.waiting() and not left

    # -- uploads --------------------------------------------------------------------------

    def upload(self, file_name: str, source: bytes | IO[bytes]) -> str:
        """Store a file sent from the console in the uploads' inbox under a clean name of its own (returned),
        for the uploads' thread to read (``outcome`` says what became of it); ScanError when it cannot be stored."""
        ingestor = self.uploads()
        with self._uploads_lock:
            name = unique_name(clean_name(file_name), ingestor.name_taken)
            temporary = ingestor.inbox / f".{name}.part"
            try:
                with open(temporary, "wb") as handle:
                    if isinstance(source, bytes):
                        handle.write(source)
                    else:
                        shutil.copyfileobj(source, handle, 1024 * 1024)
                    handle.flush()
                    os.fsync(handle.fileno())
                temporary.replace(ingestor.inbox / name)
            except OSError as error:
                temporary.unlink(missing_ok=True)
                raise ScanError(f"{name}: no se puede guardar el escaneo ({error.strerror or error})") from None
        self._kick_uploads()
        return name

    def outcome(self, name: str) -> dict[str, Any] | None:
        """What became of the upload stored as ``name``: ``Ingestor.outcome``, or ``{"state": "stored"}`` while
        it waits in the inbox, ``"waiting"`` while its pages wait for a game for plain slips; None: no such upload."""
        if name != clean_name(name):
            return None  # never a stored name (and no path of it is looked at)
        ingestor = self.uploads()
        found = ingestor.outcome(name)
        if found is None:  # in the inbox, being moved out of it by a poll, or never uploaded
            stored = (ingestor.inbox / name).is_file() or UPLOADS in self._busy
            found = ingestor.outcome(name)  # a poll may have ended meanwhile
            if found is None:
                return {"state": "stored"} if stored else None
        if found["state"] == "reading":
            shas = ingestor.files.get(ingestor.names.get(name, ""), [])
            if any(self._waiting.get(sha) == self._generation for sha in shas):
                return {**found, "state": "waiting"}
        return found

    def _kick_uploads(self) -> None:
        """Have the uploads' thread poll (started when none runs; it ends when nothing more came)."""
        with self._uploads_lock:
            self._uploads_wake.set()
            if self._uploads_thread is None:
                self._uploads_thread = threading.Thread(target=self._drain_uploads, name=f"escaner-{UPLOADS}",
                                                        daemon=True)  # fmt: skip
                self._uploads_thread.start()

    def _drain_uploads(self) -> None:
        while True:
            self._uploads_wake.clear()
            self._poll_once(UPLOADS)
            with self._uploads_lock:
                if self._stop.is_set() or not self._uploads_wake.is_set():
                    self._uploads_thread = None
                    return

    # -- the arbiter's side --------------------------------------------------------------

    def problems(self) -> list[ScannerAlert]:
        """The scanners whose folder cannot be read now, the oldest problem first."""
        with self._alerts_lock:
            return sorted(self.alerts.values(), key=lambda a: a.since)

    def refused(self) -> list[RefusedScan]:
        """Every file refused by any scanner's archive, opened or only on disk, oldest first."""
        with self._setup:  # scanners are added from other threads
            opened = {name: list(ingestor.refused) for name, ingestor in self.ingestors.items()}
            stored = {name: found for name, found in self._archived.items() if name not in opened}
        assert self.root is not None
        found = [RefusedScan(name, r["name"], r["reason"], self.root / "escaneres" / name / "refused" / r["stored"],
                             float(r.get("at") or 0))
                 for name, records in sorted({**stored, **opened}.items()) for r in records]  # fmt: skip
        return sorted(found, key=lambda r: r.at)

    def pending_count(self, game_id: str) -> int:
        """How many flagged slips of ``game_id`` wait for the arbiter (0 before the queue is loaded)."""
        if self.root is None:
            return 0
        return len(self.pending(game_id))

    def pending(self, game_id: str, round_number: int | None = None) -> list[ReviewItem]:
        """Flagged slips read into a game, waiting for its arbiter, oldest first."""
        with self.live().lock:
            return self.queue.pending(game_id, round_number)

    def items_of(self, game_id: str) -> list[ReviewItem]:
        """Every item read into ``game_id``, pending or resolved."""
        with self.live().lock:
            return [i for i in self.queue.items.values() if i.game == game_id]

    def item(self, item_id: str) -> ReviewItem | None:
        with self.live().lock:
            return self.queue.items.get(item_id)

    def resolve(self, game_id: str, item_id: str, action: str, actor: str, notation: str | None = None,
                reason: str | None = None, player: str | None = None, round_number: int | None = None,
                replacing: str | None = None) -> ReviewItem:  # fmt: skip
        """The arbiter's accept / correct / void (``GameFeed.resolve``: ValueError or GameError when it cannot
        be done, ``ReplacementNeedsReason`` when it would replace a stored slip without ``replacing``)."""
        with self.live().lock:
            item = self.queue.items.get(item_id)
            if item is None or item.game != game_id:
                raise ScanError(f"no hay papeleta en revisión con id {item_id!r} en esta partida")
            return self.feed(game_id).resolve(item_id, action, actor, notation, reason, player, round_number,
                                              replacing)  # fmt: skip

    def round_status(self, game_id: str, game: DuplicateGame, number: int) -> dict[str, str]:
        """Per player id of ``game`` (held under the games' lock): read, flagged or missing."""
        return round_status(game, self.queue, number, game_id)

    def page_source(self, sha: str) -> Page | None:
        """The page with this content address as it arrived (file name, page number), from the archives opened."""
        return next((i.pages[sha] for i in list(self.ingestors.values()) if sha in i.pages), None)

    def page_path(self, sha: str) -> Path | None:
        """The stored page with this content address, from any scanner's archive."""
        if not re.fullmatch(r"[0-9a-f]{64}", sha):
            return None
        for ingestor in self.ingestors.values():
            path = ingestor.root / "pages" / f"{sha}.png"
            if path.exists():
                return path
        if self.root is not None:
            for path in (self.root / "escaneres").glob(f"*/pages/{sha}.png"):
                return path
        return None

    # -- threads -----------------------------------------------------------------------------

    def start(self, scanners: Sequence[ScannerSpec], interval: float = POLL_SECONDS) -> None:
        """One background thread per scanner, polling its folder every ``interval`` seconds."""
        self._stop.clear()
        if scanners:
            self.reader  # noqa: B018 - load the model and the candidates' lexicon now, not under the games' lock
        for spec in scanners:
            self.add_scanner(spec.name, Path(spec.folder), SETTLE_SECONDS)
            thread = threading.Thread(target=self._watch, args=(spec, interval), name=f"escaner-{spec.name}",
                                      daemon=True)  # fmt: skip
            self._threads.append(thread)
            thread.start()

    def stop(self) -> None:
        """Stop the scanners' and the uploads' threads; what they stored is kept, a start reads the rest."""
        self._stop.set()
        with self._uploads_lock:
            uploads = self._uploads_thread
        for thread in [*self._threads, *([uploads] if uploads else [])]:
            thread.join(timeout=10)
        self._threads = []

    def _alert(self, scanner: str, message: str) -> None:
        """Record why ``scanner`` is not read (kept from the first time while the message stays the same)."""
        with self._alerts_lock:
            known = self.alerts.get(scanner)
            if known is None or known.message != message:
                self.alerts[scanner] = ScannerAlert(scanner, message, time.time())

    def _poll_once(self, name: str, interval: float = POLL_SECONDS) -> None:
        """One poll of a scanner's archive from its thread: a failure becomes the scanner's alert, never an end."""
        try:
            self.poll(name)
            failures = list(self.ingestors[name].failures.values())
            if failures:  # a page whose reading raised: the others were read, this one is tried again later
                self._alert(name, failures[0].reason)
            else:
                with self._alerts_lock:
                    self.alerts.pop(name, None)
        except StorageError as error:  # a full disk: the scan stays in the inbox until there is room
            log.error("escáner %s: %s", name, error)
            self._alert(name, error.strerror or str(error))
            self._stop.wait(5 * interval)
        except Exception as error:  # a scanner must not stop the server: say why and try again
            log.exception("escáner %s: fallo al leer la bandeja", name)
            self._alert(name, f"fallo al leer la bandeja: {error}")
            self._stop.wait(5 * interval)

    def _watch(self, spec: ScannerSpec, interval: float) -> None:
        device = None
        if spec.scanimage:
            from hardware.scanner import ScanImage

            device = ScanImage(spec.scanimage)
        while not self._stop.is_set():
            if device is not None:
                try:
                    device.deliver(Path(spec.folder))
                except Exception as error:  # a device gone: say so, read what is there, try again
                    log.exception("escáner %s: fallo del dispositivo", spec.name)
                    self._alert(spec.name, f"fallo del escáner: {error}")
                    self._stop.wait(5 * interval)
                    continue
            self._poll_once(spec.name, interval)
            self._stop.wait(interval)


def _read_choice(path: Path) -> dict[str, Any]:
    """The stored choice of game for plain slips ({} when none was made or the file is unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("elección de partida ilegible (%s): %s", path, error)
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` whole or not at all (temp file, fsync, rename)."""
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, ensure_ascii=False)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
