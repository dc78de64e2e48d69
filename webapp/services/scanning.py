"""Scanned slips in the running server: watched folders into the current duplicate game.

``ScanService`` (``Services.scans``) owns the slip reader's state of one server,
under ``SCANS_PATH`` (default ``<DATA_DIR, else the instance folder>/papeletas``):

* ``escaneres/<scanner>/``: per scanner, the ``Ingestor``'s content-addressed
  archive (``pages/``, ``originals/``, ``refused/``) and its ``journal.jsonl``;
* ``revision/``: the arbiter's ``ReviewQueue`` (``review.jsonl``, ``crops/``),
  shared by every scanner and game.

Each page is stored before it is read (``Ingestor``), then read by one
``SlipReader`` (model and lexicon loaded once per server) through a ``GameFeed``
into the *current* duplicate game: the one ``follow`` chose, else the latest
duplicate game that has not ended. Events go through ``LiveGames.append``, so the
screens and the console follow. Pages wait, stored, while no duplicate game is in
play. The games' lock is held to copy the rounds the reader needs, to submit and
to resolve, never while handwriting is read: cameras and screens do not wait on a
burst of scans. ``start_scanners`` polls each scanner's watched folder from a
background thread (and runs ``scanimage`` first when the scanner names a SANE
device); a restart replays the journals and the queue and reads what was left.

Configuration: ``SCANS_PATH`` (the folder above), ``SCAN_POLL_SECONDS`` (default 1),
``SCAN_UPLOAD_BYTES`` (largest upload from the console, ``slip_review``).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np

from rules_core.duplicate import DuplicateGame
from rules_core.events import Event
from vision.slips.feed import GameFeed, round_status
from vision.slips.ingest import Ingestor, Page, StorageError
from vision.slips.reader import SlipReader
from vision.slips.review import ReviewItem, ReviewQueue

from .live import LiveGames

log = logging.getLogger(__name__)

POLL_SECONDS: Final = 1.0
SETTLE_SECONDS: Final = 2.0  # a file still being written by a scanner is left for the next poll
UPLOADS: Final = "subidas"  # the scanner name of files uploaded through the console
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
    name: str
    reason: str
    path: Path


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
        self.followed: str | None = None
        self.ingestors: dict[str, Ingestor] = {}
        self._reader: SlipReader | None = None
        self._queue: ReviewQueue | None = None
        self._feeds: dict[str, GameFeed] = {}
        self._busy: set[str] = set()
        self._polling: dict[str, threading.Lock] = {}  # one poll at a time per archive
        self._setup = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.alerts: dict[str, ScannerAlert] = {}  # scanner -> why its folder is not being read now
        self._alerts_lock = threading.Lock()  # scanner threads write, requests read

    # -- set-up ----------------------------------------------------------------------

    def attach(self, games: LiveGames, root: Path) -> None:
        """Bind to the server's games and the data folder (once; later calls are ignored)."""
        with self._setup:
            if self.games is None:
                self.games, self.root = games, root
                root.mkdir(parents=True, exist_ok=True)

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
                self.ingestors[name] = Ingestor(inbox, self.root / "escaneres" / name, self._read_page, settle)
            return self.ingestors[name]

    def uploads(self) -> Ingestor:
        """The archive of files uploaded through the console (its own inbox under the data folder)."""
        self.live()
        assert self.root is not None
        return self.add_scanner(UPLOADS, self.root / "escaneres" / UPLOADS / "bandeja")

    # -- the current game ------------------------------------------------------------

    def follow(self, game_id: str | None) -> None:
        """Read slips into ``game_id`` (None: the latest duplicate game not ended)."""
        self.followed = game_id

    def current_game(self) -> str | None:
        """The duplicate game scanned slips go to, or None when none is in play."""
        games = self.live()
        if self.followed is not None:
            return self.followed
        for record in reversed(games.store.games()):
            if record.mode == "duplicate" and not record.snapshot.get("ended"):
                return record.id
        return None

    def feed(self, game_id: str) -> GameFeed:
        """The feed of one duplicate game (made once)."""
        games = self.live()
        games.duplicate(game_id)  # GameError when it is not one
        if game_id not in self._feeds:

            def append(event: Event) -> None:
                games.append(game_id, event)

            self._feeds[game_id] = GameFeed(game_id, lambda: games.duplicate(game_id), append, self.reader,
                                            self.queue, lock=games.lock)  # fmt: skip
        return self._feeds[game_id]

    def _read_page(self, page: Page, gray: np.ndarray) -> list[dict[str, Any]]:
        game_id = self.current_game()
        if game_id is None:  # poll() reads only when a game is in play
            raise ScanError("no hay ninguna partida duplicada en juego")
        results = self.feed(game_id).read_page(page, gray)  # holds the games' lock only to copy and submit
        return [{**r, "game": game_id} for r in results]

    # -- polling -----------------------------------------------------------------------

    def poll(self, name: str) -> list[Page]:
        """Store the files in scanner ``name``'s inbox, then read the pages not yet read into the current
        game; returns the pages read now. While no duplicate game is in play the files stay in the inbox."""
        ingestor = self.ingestors[name]
        if self.current_game() is None:
            return []
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
        waiting = any(p.is_file() and not p.name.startswith(".") for p in ingestor.inbox.iterdir())
        return name not in self._busy and not waiting and not ingestor.pending()

    def upload(self, file_name: str, data: bytes) -> list[dict[str, Any]]:
        """A file sent from the console, put in the uploads' inbox and read now: what happened to each
        slip on it (ScanError when it is refused, or kept for later while no duplicate game is in play)."""
        ingestor = self.uploads()
        self.reader  # noqa: B018 - loaded before the games' lock is taken to read
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", Path(file_name).name).lstrip(".") or "escaneo"
        target = ingestor.inbox / safe
        temporary = ingestor.inbox / f".{safe}.part"
        temporary.write_bytes(data)
        temporary.replace(target)
        if self.current_game() is None:
            raise ScanError("escaneo guardado en la bandeja; se leerá cuando haya una partida duplicada en juego")
        refused = len(ingestor.refused)
        self.poll(UPLOADS)
        if len(ingestor.refused) > refused:
            raise ScanError(ingestor.refused[-1]["reason"])
        shas = ingestor.files.get(hashlib.sha256(data).hexdigest(), [])
        return [result for sha in shas for result in ingestor.read.get(sha, [])]

    # -- the arbiter's side --------------------------------------------------------------

    def problems(self) -> list[ScannerAlert]:
        """The scanners whose folder cannot be read now, the oldest problem first."""
        with self._alerts_lock:
            return sorted(self.alerts.values(), key=lambda a: a.since)

    def refused(self) -> list[RefusedScan]:
        """Every file refused by any scanner's archive (oldest first per scanner), with where it is kept."""
        with self._setup:  # scanners are added from other threads
            ingestors = sorted(self.ingestors.items())
        return [RefusedScan(name, r["name"], r["reason"], ingestor.root / "refused" / r["name"])
                for name, ingestor in ingestors for r in list(ingestor.refused)]  # fmt: skip

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
                reason: str | None = None, player: str | None = None,
                round_number: int | None = None) -> ReviewItem:  # fmt: skip
        """The arbiter's accept / correct / void (ValueError or GameError when it cannot be done)."""
        with self.live().lock:
            item = self.queue.items.get(item_id)
            if item is None or item.game != game_id:
                raise ScanError(f"no hay papeleta en revisión con id {item_id!r} en esta partida")
            return self.feed(game_id).resolve(item_id, action, actor, notation, reason, player, round_number)

    def round_status(self, game_id: str, game: DuplicateGame, number: int) -> dict[str, str]:
        """Per player id of ``game`` (held under the games' lock): read, flagged or missing."""
        return round_status(game, self.queue, number, game_id)

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
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=10)
        self._threads = []

    def _alert(self, scanner: str, message: str) -> None:
        """Record why ``scanner`` is not read (kept from the first time while the message stays the same)."""
        with self._alerts_lock:
            known = self.alerts.get(scanner)
            if known is None or known.message != message:
                self.alerts[scanner] = ScannerAlert(scanner, message, time.time())

    def _watch(self, spec: ScannerSpec, interval: float) -> None:
        device = None
        if spec.scanimage:
            from hardware.scanner import ScanImage

            device = ScanImage(spec.scanimage)
        while not self._stop.is_set():
            try:
                if device is not None:
                    device.deliver(Path(spec.folder))
                self.poll(spec.name)
                with self._alerts_lock:
                    self.alerts.pop(spec.name, None)
            except StorageError as error:  # a full disk: the scan stays in the inbox until there is room
                log.error("escáner %s: %s", spec.name, error)
                self._alert(spec.name, error.strerror or str(error))
                self._stop.wait(5 * interval)
            except Exception as error:  # a scanner must not stop the server: say why and try again
                log.exception("escáner %s: fallo al leer la bandeja", spec.name)
                self._alert(spec.name, f"fallo al leer la bandeja: {error}")
                self._stop.wait(5 * interval)
            self._stop.wait(interval)
