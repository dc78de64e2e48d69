"""Benchmark: a still board's unsure letters settled by the words they make (issue 69).

Boards of real-length games (``../shared/golden``: 300 positions of 50 simulated duplicate games
under FILE2017) drawn in every board design, each in a tile font of one part of the font catalogue
(``models/board/fonts.json``: ``heldout`` families are never trained on or tuned to; ``calibration``
ones set the lean and nothing here), read by ``read_board``, then settled by ``settle_letters`` with
a lexicon. Printed per part and lexicon: Spanish letters right before and after, letters the words
changed (to the right letter, to a wrong one), wrong letters read at ``SURE`` or more, and boards that
read as a game's. The same on boards of random letters (``random_scene``'s cells) shows the gate:
such a board must not read as a game's.

    python tests/benchmarks/bench_board_words.py [--boards 60] [--part heldout] [--seed 6919]

The lexicons: FILE2017 (the tournament's; ``../shared/lexicon``), and the free list the product
embeds (``rules_core/data``), which lacks some FILE words.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from bench_board import catalogue_faces, true_turn  # noqa: E402
from rules_core.cgp import Position  # noqa: E402
from rules_core.lexicon import Lexicon, load_lexicon  # noqa: E402
from vision.board.classify import default_classifier  # noqa: E402
from vision.board.labels import SPANISH  # noqa: E402
from vision.board.reading import classify_board, read_board  # noqa: E402
from vision.board.settle_letters import SURE, Settled, settle_letters  # noqa: E402
from vision.board.synthetic import render as R  # noqa: E402
from vision.board.synthetic.render_designs import DESIGNS  # noqa: E402
from vision.board.synthetic.render_scene import tiles_to_labels  # noqa: E402

SHARED = Path(os.environ.get("VEEDOR_SHARED", REPO.parent / "shared"))


def game_boards(least_tiles: int = 10) -> list[list[list[str]]]:
    """The golden positions' boards with at least ``least_tiles`` tiles, as render labels."""
    boards = []
    with gzip.open(SHARED / "golden" / "positions_dev.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            board = Position.from_cgp(json.loads(line)["cgp"]).board
            if board.tile_count() >= least_tiles:
                cells = R.empty_labels()
                for (r, c), name in tiles_to_labels(dict(board.occupied())).items():
                    cells[r][c] = name
                boards.append(cells)
    return boards


class Count:
    """Letter counts before and after settling, over boards."""

    def __init__(self) -> None:
        self.boards = self.found = self.games = 0
        self.letters = self.right_before = self.right_after = 0
        self.to_right = self.to_wrong = self.wrong_sure = 0

    def add(self, truth: list[list[str]], reading: Any, settled: Settled | None) -> None:
        """``settled``: ``reading`` settled by a lexicon, None when no board was found."""
        self.boards += 1
        if settled is None:
            return
        self.found += 1
        self.games += settled.reads_as_game
        for r in range(15):
            for c in range(15):
                t, before, after = truth[r][c], reading.labels[r][c], settled.labels[r][c]
                if t not in SPANISH:
                    continue
                self.letters += 1
                self.right_before += before == t
                self.right_after += after == t
                self.to_right += before != after and after == t
                self.to_wrong += before != after and after != t
                self.wrong_sure += after in SPANISH and after != t and float(reading.confidence[r, c]) >= SURE

    def line(self, what: str) -> str:
        pct = lambda n: f"{100 * n / max(1, self.letters):.2f} %"  # noqa: E731
        return (f"| {what} | {self.found}/{self.boards} | {self.games} | {self.letters} | {pct(self.right_before)} | "
                f"{pct(self.right_after)} | {self.to_right} | {self.to_wrong} | {self.wrong_sure} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=60)
    parser.add_argument("--part", default="heldout", choices=("calibration", "heldout", "train"))
    parser.add_argument("--seed", type=int, default=6919)
    parser.add_argument("--random", type=int, default=20, help="boards of random letters for the gate")
    args = parser.parse_args()
    lexicons = {"FILE2017": Lexicon.load(SHARED / "lexicon" / "FILE2017.txt"), "free list": load_lexicon()}
    faces = catalogue_faces(args.part)
    families = sorted(faces)
    boards = game_boards()
    classifier = default_classifier()
    rng = np.random.default_rng(args.seed)
    counts = {name: Count() for name in lexicons}
    random_counts = {name: Count() for name in lexicons}
    per_family: dict[str, Count] = {}
    start, turned = time.perf_counter(), 0
    for i in range(args.boards + args.random):
        family = families[int(rng.integers(len(families)))]
        design = DESIGNS[i % len(DESIGNS)]
        game = i < args.boards
        cells = boards[int(rng.integers(len(boards)))] if game else None
        scene = R.random_scene(rng, cells, split="heldout", hands=0, design=design, fonts=faces[family])
        frame = R.render(scene)
        reading = read_board(frame.image, classifier=classifier)
        if reading.found and reading.turn != (turn := true_turn(reading, frame)):
            turned += 1
            assert reading.find is not None
            reading = classify_board(frame.image, reading.find, classifier, turn=turn)
        settled = {name: settle_letters(reading.labels, reading.confidence, reading.probabilities, lexicon) if reading.found else None
                   for name, lexicon in lexicons.items()}
        for name in lexicons:
            (counts if game else random_counts)[name].add(frame.labels, reading, settled[name])
        if game:
            per_family.setdefault(family, Count()).add(frame.labels, reading, settled["FILE2017"])
    print(f"{args.boards} game boards and {args.random} random ones, {args.part} families ({len(families)}), "
          f"seed {args.seed}, {time.perf_counter() - start:.0f} s; "
          f"{turned} read under a wrong turn (read again under the true one)")
    print("| boards | found | read as a game's | Spanish letters | right, as read | right, settled "
          f"| changed to right | changed to wrong | wrong at {SURE}+ after |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in lexicons:
        print(counts[name].line(f"game positions, {name}"))
        print(random_counts[name].line(f"random letters, {name}"))
    print("\nGame positions by family, FILE2017:")
    for family, count in sorted(per_family.items()):
        print(count.line(family))


if __name__ == "__main__":
    main()
