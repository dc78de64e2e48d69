"""Benchmark: the player of a slip whose QR code cannot be read (issue 5.3).

    .venv/bin/python tests/benchmarks/bench_slip_players.py [--count 150] [--json FILE]

A QR code torn off, covered by a thumb or printed badly leaves the reader the
handwritten table number and the printed name (``SlipReader._player_from_writing``).
Each slip is printed for one player of a 60-player game (tables 1-60, Spanish
names), its QR code whitened out, the table number, round and play handwritten
by hands never used in training nor to set the thresholds (the two benchmark sets of
``bench_slips``), scanned at any rotation and read with the game's players.
Figures per set: the player identified right without a flag, flagged
``player_unknown`` (the arbiter picks the player), and identified wrong without a
flag (a silent error: the slip's score would go to someone else). Target: no silent
error; the flagged share is what it costs the arbiter.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from models.slips.cases import writers_for  # noqa: E402
from rules_core.lexicon import Lexicon  # noqa: E402
from vision.slips import layout  # noqa: E402
from vision.slips.reader import PlayerRef, SlipReader  # noqa: E402
from vision.slips.synthetic import drawn  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_slips import LEXICON, ROUNDS  # noqa: E402

SEEDS = {"synthetic": 7101, "real-test": 7102}
PLAYERS = 60
FIRST = ("Ana", "Bruno", "Carmen", "David", "Elena", "Fernando", "Gloria", "Héctor", "Inés", "Javier",
         "Lucía", "Manuel", "Nuria", "Óscar", "Pilar", "Ramón", "Sara", "Tomás", "Úrsula", "Víctor")  # fmt: skip
LAST = ("García", "Martínez", "López", "Sánchez", "Pérez", "Gómez", "Fernández", "Díaz", "Moreno", "Muñoz",
        "Álvarez", "Romero", "Navarro", "Torres", "Domínguez", "Vázquez", "Ramos", "Gil", "Serrano", "Ibáñez")  # fmt: skip
PLAYS = ("H8 CASA", "8H MONTE", "C3 ÑANDU", "11B QUESO", "J2 PERRO", "5E LLAVE")


def players(rng: np.random.Generator) -> list[PlayerRef]:
    """A game's players: distinct names, tables 1..PLAYERS."""
    names: set[str] = set()
    while len(names) < PLAYERS:
        names.add(f"{FIRST[int(rng.integers(len(FIRST)))]} {LAST[int(rng.integers(len(LAST)))]}")
    return [PlayerRef(f"j{table}", name, table) for table, name in enumerate(sorted(names), start=1)]


def slip_without_qr(player: PlayerRef, rng: np.random.Generator, writer: Any) -> np.ndarray:
    """The player's printed slip, QR code whitened out, filled in by hand and scanned."""
    printed = layout.render_slip(layout.SlipInfo("bench", "Banco de pruebas", player.table, player.id, player.name))
    x0, y0, x1, y1 = (int(v * layout.PX_PER_MM) for v in layout.QR_BOX)
    printed[y0:y1, x0:x1] = 255
    fields = drawn.play_fields(PLAYS[int(rng.integers(len(PLAYS)))])
    fields.update({"ronda": str(int(rng.integers(1, 25))), "mesa": str(player.table)})
    return drawn.scan(drawn.fill_slip(printed, fields, writer, rng), rng)


def bench_set(reader: SlipReader, name: str, count: int) -> dict[str, Any]:
    rng = np.random.default_rng(SEEDS[name])
    game, writers = players(rng), writers_for(name)
    right = flagged = wrong = missed = 0
    for _ in range(count):
        player = game[int(rng.integers(len(game)))]
        scan = slip_without_qr(player, rng, writers[int(rng.integers(len(writers)))])
        found = reader.read_slip(scan, lambda _: None, game, ROUNDS)
        if not found:
            missed += 1
            continue
        result = found[0]
        if "player_unknown" in result.flags:
            flagged += 1
        elif result.player == player.id:
            right += 1
        else:
            wrong += 1
    return {"slips": count, "player_right_without_flag": round(right / count, 4),
            "player_flagged": round(flagged / count, 4), "player_wrong_silent": wrong,
            "slip_not_found": missed}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=150, help="slips per set")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    reader = SlipReader(Lexicon.load(LEXICON))
    report = {name: bench_set(reader, name, args.count) for name in SEEDS}
    print(json.dumps(report, ensure_ascii=False, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
