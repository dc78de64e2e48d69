"""The demo's scanner: simulated players' slips drawn by hand, scanned, and read by the real reader.

Each round the simulated players (``simulation``) choose their plays and
make their mistakes; each slip is drawn on its printed form (QR with the game,
table and player), handwritten by one of the installed fonts, scanned at a
random rotation (``SlipPainter``) into a folder that ``hardware.scanner.FolderReplay``
replays into the watched inbox; ``Ingestor`` + ``GameFeed`` read them into the game
and queue the doubtful ones, exactly as in a real round. The web demo
(``server``) writes its scans with ``write_scan`` into the folder the
server's ``ScanService`` watches.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import cv2
import numpy as np

from hardware.scanner import FolderReplay
from rules_core.duplicate import DuplicateSettings, rack_labels
from rules_core.events import Event
from rules_core.lexicon import load_lexicon
from rules_core.movegen import generate_plays
from rules_core.racks import draw_rack
from rules_core.slips import Slip
from vision.slips import layout
from vision.slips.feed import GameFeed, round_status
from vision.slips.ingest import Ingestor
from vision.slips.reader import SlipReader
from vision.slips.review import ReviewQueue
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw

from ..games import open_games
from ..scanning import FolderScanner, ScanService
from ..simulation import make_players, pick_play, write_slip


def slip_fields(slip: Slip, round_number: int, table: int, rng: np.random.Generator) -> dict[str, str] | None:
    """What the player writes on the paper for a simulated slip (None: handed in late, never scanned)."""
    if slip.late or not slip.notation:
        return None
    fields = drawn.play_fields(slip.notation)
    if slip.void:  # illegible: a scrawl
        fields["palabra"] = "".join(rng.choice(list("MNUVWIL")) for _ in range(int(rng.integers(4, 9))))
    if slip.other_notations:
        fields["palabra"] += " " + slip.other_notations[0].replace(" ", "")
    fields.update({"ronda": str(round_number), "mesa": str(table)})
    return fields


@dataclass
class SlipPainter:
    """Simulated slips of game ``game_id`` drawn as scans: the printed form (QR with the game,
    table and player; made once per player), a handwriting font, a scanner at a random rotation."""

    game_id: str
    game_name: str
    rng: np.random.Generator
    writers: list[hw.Writer] = field(default_factory=lambda: hw.writers("train") + hw.writers("heldout"))
    _printed: dict[str, np.ndarray] = field(default_factory=dict)

    def scan(self, player: str, name: str, table: int, slip: Slip, round_number: int) -> np.ndarray | None:
        """The grey scan of ``slip`` (None when the slip is never scanned: late, or no play written)."""
        fields = slip_fields(slip, round_number, table, self.rng)
        if fields is None:
            return None
        if player not in self._printed:
            info = layout.SlipInfo(self.game_id, self.game_name, table, player, name)
            self._printed[player] = layout.render_slip(info)
        writer = self.writers[int(self.rng.integers(len(self.writers)))]
        return drawn.scan(drawn.fill_slip(self._printed[player], fields, writer, self.rng), self.rng)


def write_scan(folder: Path, name: str, image: np.ndarray) -> Path:
    """Write a scan as ``folder/name`` (JPEG or PNG by suffix) under a hidden name, then rename:
    a watcher of ``folder`` never sees half a file."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    temporary = folder / f".{name}"
    if not cv2.imwrite(str(temporary), image):
        raise OSError(f"no se pudo escribir el escaneo {temporary}")
    os.replace(temporary, target)
    return target


def run_scanned_game(player_count: int, rounds: int, seed: int, state: Path, db: str, lexicon_path: str | None,
                     out: TextIO) -> str:  # fmt: skip
    """Play ``rounds`` rounds with scanned slips; returns the game id. Pages, journal and queue under ``state``."""

    service = open_games(db, load_lexicon(lexicon_path))
    game_id = service.create_duplicate(f"Papeletas escaneadas {seed}", DuplicateSettings(rounds=rounds, seed=seed))
    game = service.duplicate(game_id)

    def append(event: Event) -> None:
        service.append(game_id, event)

    players = make_players(player_count)
    for p in players:
        append(Event("player_added", {"player": p.id, "name": p.name, "table": p.table}))
    queue = ReviewQueue(state / "lector")
    feed = GameFeed(game_id, lambda: service.duplicate(game_id), partial(service.enter_slip, game_id),
                    SlipReader(game.lexicon), queue)  # fmt: skip
    ingestor = Ingestor(state / "bandeja", state / "lector", feed.read_page)
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    painter = SlipPainter(game_id, "Demo", nrng)
    while not game.ended and len(game.rounds) < rounds:
        number = len(game.rounds) + 1
        draw = draw_rack(game.leave, game.bag, number, rng)
        if draw is None:
            break
        append(Event("rack_set", {"round": number, "rack": rack_labels(draw.rack), "source": "sorteo",
                                  "redraws": draw.redraws}))  # fmt: skip
        top = game.top_plays(number)
        if not top:
            break
        r = game.round(number)
        plays = generate_plays(r.board, r.rack, game.lexicon)
        scans = state / "escaneos" / f"ronda-{number:02d}"
        scans.mkdir(parents=True, exist_ok=True)
        for p in players:
            slip = write_slip(pick_play(p.strength, plays, top[0], rng), p, rng)
            image = painter.scan(p.id, p.name, p.table, slip, number)
            if image is not None:
                write_scan(scans, f"{p.id}.jpg", image)
        scanner = FolderReplay(scans, batch=len(players))
        scanner.deliver(ingestor.inbox)
        ingestor.poll()
        out.write(f"Ronda {number}: atril {' '.join(rack_labels(r.rack))}, maestra {top[0].notation} ({top[0].score})\n")
        for player, status in round_status(game, queue, number).items():
            name = game.players[player].name
            if status == "read":
                result = r.results[player]
                text = f"{result.play} {result.score}" + (f" ({result.reason})" if result.reason else "")
            elif status == "flagged":
                item = next(i for i in queue.pending(round_number=number) if i.player == player)
                text = f"«{item.reading}» [{', '.join(item.flags)}]"
            else:
                text = ""
            out.write(f"  {name:<10} {status:<8} {text}\n")
        append(Event("master_announced", {"round": number, "play": top[0].notation}, "árbitro"))
        out.flush()
    return game_id


class DemoSlips:
    """The demo's scanner: simulated players' slips rendered as scans (``SlipPainter``)
    into the folder that scanner ``name`` of ``service`` watches, read there by the real reader."""

    def __init__(self, service: ScanService, folder: Path, seed: int, name: str = "demo") -> None:
        self.service, self.folder, self.name = service, folder, name
        self.rng = np.random.default_rng(seed)
        self.writers = hw.writers("train") + hw.writers("heldout")
        self._painter: Any = None

    def hand_in(self, game_id: str, game_name: str, player: str, name: str, table: int, slip: Slip,
                round_number: int) -> Path | None:  # fmt: skip
        """Render the slip and drop its scan in the folder; None when it is never scanned (a late slip).
        The demo is its own arbiter: while no game takes plain slips, its game does (a QR code the
        scanner blurred leaves a plain slip, which must not wait for a choice nobody will make)."""
        if self._painter is None or self._painter.game_id != game_id:
            self._painter = SlipPainter(game_id, game_name, self.rng, self.writers)
            if self.service.plain_game() is None:
                self.service.choose(game_id, "demostración")
        image = self._painter.scan(player, name, table, slip, round_number)
        if image is None:
            return None
        return write_scan(self.folder, f"{game_id[:8]}-r{round_number:02d}-{player}.jpg", image)

    def settled(self) -> bool:
        """Every scan dropped so far is read or flagged."""
        return self.service.settled(self.name)

    def scanner(self) -> FolderScanner:
        return FolderScanner(self.name, self.folder)
