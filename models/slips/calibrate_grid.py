"""Choose ``grid_accept``, the acceptance threshold of slips written on the board (absolute notation).

    .venv/bin/python -m models.slips.calibrate_grid [--count 150]

Absolute slips (``cases.make_cases(board=True)``) written by hands neither trained on nor benchmarked:
the calibration part of the real characters and the UNIPEN writers of the *calibration* part
(``unipen.split_of``). Each is read once; its board decided again without thresholds; ``grid_accept`` is
set just above the most confident wrong decision (a wrong play or score let through), never under the
line's ``accept``. The board has its own recogniser (``recognizer.GRID_MODEL``) with its own thresholds:
``--out`` (``models/slips/grid_thresholds.json``) holds the line thresholds ``calibrate.py`` set for that
recogniser, and gains ``grid_accept`` (the rest is kept).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips.decoder import GRID_THRESHOLDS_FILE, Thresholds, decide_scored
from vision.slips.reader import GridReading, SlipReader
from vision.slips.recognizer import GRID_MODEL, Recognizer

from .calibrate import above
from .cases import judge, make_cases, writers_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "benchmarks"))
from bench_slips import LEXICON, ROUNDS

SETS = {"real-calibration": 8102, "unipen-calibration": 8104}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=150, help="absolute slips per calibration set")
    parser.add_argument("--out", type=Path, default=GRID_THRESHOLDS_FILE)
    parser.add_argument("--model", type=Path, default=GRID_MODEL, help="the board's recogniser (ONNX)")
    args = parser.parse_args()
    lexicon = Lexicon.load(LEXICON)
    base = Thresholds.load(args.out) if args.out.exists() else Thresholds.load()
    reader = SlipReader(lexicon, grid=GridReading(Recognizer(args.model), base))
    free = replace(base, accept=0.0, invalid=0.0, margin=-1.0)
    wrong, right, correct = [], [], 0
    for name, seed in SETS.items():
        for case in make_cases(args.count, writers_for(name), seed, lexicon, board=True):
            position = Position.from_cgp(case.cgp)
            found = reader.read_slip(case.scan, lambda _: (position.board, position.rack), (), ROUNDS, current=case.round)
            correct += case.kind in ("clean", "oriented")
            if not found or found[0].scored is None:
                continue
            decision = decide_scored(found[0].scored, position.board, position.rack, lexicon, free)
            outcome = judge(case, decision.to_json(), 0.0)
            if outcome.verdict != "flagged":
                (wrong if outcome.silent_error else right).append((outcome.confidence, outcome.kind))
    grid_accept = max(base.accept, above([c for c, _ in wrong], 0, base.accept))
    record = json.loads(args.out.read_text()) if args.out.exists() else {}
    record["grid_accept"] = grid_accept
    record["grid_calibration"] = {
        "slips": args.count * len(SETS), "correct_slips": correct,
        "right_without_flag": round(sum(1 for c, k in right if c >= grid_accept and k in ("clean", "oriented"))
                                    / max(1, correct), 4),
        "wrong_decisions_seen": len(wrong),
        "made_by": f"python -m models.slips.calibrate_grid --count {args.count} --model {args.model.name}",
    }  # fmt: skip
    args.out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({"grid_accept": grid_accept, **record["grid_calibration"]}, indent=1))


if __name__ == "__main__":
    main()
