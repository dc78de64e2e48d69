"""The demo's scanner: simulated players' slips drawn by hand, scanned, and read by the real reader.

Each round the simulated players (``webapp.simulation``) choose their plays and
make their mistakes; each slip is drawn on its printed form (QR with the game,
table and player), handwritten by one of the installed fonts, scanned at a
random rotation into a folder that ``hardware.scanner.FolderReplay`` replays into
the watched inbox; ``Ingestor`` + ``GameFeed`` read them into the game and queue
the doubtful ones, exactly as in a real round.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TextIO

import cv2
import numpy as np

from hardware.scanner import FolderReplay
from rules_core.duplicate import DuplicateSettings, rack_labels
from rules_core.events import Event
from rules_core.lexicon import load_lexicon
from rules_core.movegen import generate_plays
from rules_core.racks import draw_rack
from rules_core.slips import Slip

from . import handwriting as hw
from . import layout, synthetic
from .feed import GameFeed, round_status
from .ingest import Ingestor
from .reader import SlipReader
from .review import ReviewQueue


def slip_fields(slip: Slip, round_number: int, table: int, rng: np.random.Generator) -> dict[str, str] | None:
    """What the player writes on the paper for a simulated slip (None: handed in late, never scanned)."""
    if slip.late or not slip.notation:
        return None
    fields = synthetic.play_fields(slip.notation)
    if slip.void:  # illegible: a scrawl
        fields["palabra"] = "".join(rng.choice(list("MNUVWIL")) for _ in range(int(rng.integers(4, 9))))
    if slip.other_notations:
        fields["palabra"] += " " + slip.other_notations[0].replace(" ", "")
    fields.update({"ronda": str(round_number), "mesa": str(table)})
    return fields


def run_scanned_game(player_count: int, rounds: int, seed: int, state: Path, db: str, lexicon_path: str | None,
                     out: TextIO) -> str:  # fmt: skip
    """Play ``rounds`` rounds with scanned slips; returns the game id. Pages, journal and queue under ``state``."""
    from webapp.games import GameService
    from webapp.simulation import make_players, pick_play, write_slip
    from webapp.store import EventStore

    service = GameService(EventStore(db), load_lexicon(lexicon_path))
    game_id = service.create_duplicate(f"Papeletas escaneadas {seed}", DuplicateSettings(rounds=rounds, seed=seed))
    game = service.duplicate(game_id)

    def append(event: Event) -> None:
        service.append(game_id, event)

    players = make_players(player_count)
    for p in players:
        append(Event("player_added", {"player": p.id, "name": p.name, "table": p.table}))
    queue = ReviewQueue(state / "lector")
    feed = GameFeed(game_id, lambda: service.duplicate(game_id), append, SlipReader(service.lexicon), queue)
    ingestor = Ingestor(state / "bandeja", state / "lector", feed.read_page)
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    writers = hw.writers("train") + hw.writers("heldout")
    printed = {p.id: layout.render_slip(layout.SlipInfo(game_id, "Demo", p.table, p.id, p.name)) for p in players}
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
            fields = slip_fields(slip, number, p.table, nrng)
            if fields is None:
                continue
            writer = writers[int(nrng.integers(len(writers)))]
            image = synthetic.scan(synthetic.fill_slip(printed[p.id], fields, writer, nrng), nrng)
            cv2.imwrite(str(scans / f"{p.id}.jpg"), image)
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
