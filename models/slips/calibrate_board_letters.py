"""Choose how surely an absolute slip's board must say a letter for the decoder to hold the player to it (D.III.25).

    .venv/bin/python -m models.slips.calibrate_board_letters [--count 60] [--cache FILE]

The board's counterpart of ``calibrate_letters``: absolute slips (D.III.20.1.c) written by the calibration hands
(``SETS``: the real characters' and the UNIPEN writers' calibration parts, apart from every benchmark set), as they
are filled in and with one letter of their word written wrong (``misspelt``), scanned, and one draw photographed
(``phone``). Each board's written squares are read once by each board reader (``calibrate_grid.BoardRead``), whose
scores carry how surely each square's letter is read and how surely the writing says otherwise than each likely play
(``Scored.letters``, ``Scored.clashes``); every value of ``calibrate_letters.CHOICES`` for the board's
``letter_sure`` then decides every board again (``absolute.decide_board``). The value kept lets through no wrong
decision that the board without it does not and leaves the arbiter the least work (``calibrate_letters.SILENT_PRICE``,
``MISSPELT_SHARE``); ``--out`` (``models/slips/grid_thresholds.json``) keeps its other values and gains it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips import absolute
from vision.slips.decoder import GRID_THRESHOLDS_FILE, Thresholds
from vision.slips.reader import GridReading, committed_grid_reading
from vision.slips.synthetic import drawn

from .calibrate_grid import BoardRead, _scores, outcomes
from .calibrate_letters import MISSPELT_SHARE, SILENT_PRICE, pick_letter_sure
from .calibration_files import cached, record_choice
from .cases import Capture, make_cases, writers_for
from .phone import PhoneCapture

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "benchmarks"))
from bench_slips import LEXICON, PHOTO_SEED  # noqa: E402

# (hands, seed, a letter written wrong, photographed): calibration hands only, seeds of no benchmark set
SETS: Final = (("real-calibration", 8102, False, False), ("unipen-calibration", 8104, False, False),
               ("real-calibration", 8018, True, False), ("unipen-calibration", 8118, True, False),
               ("real-calibration", 8018, True, True))  # fmt: skip


def read_boards(grid: GridReading, lexicon: Lexicon, count: int) -> tuple[list[BoardRead], list[bool]]:
    """Every calibration board read once by each board reader, and whether its set has a letter written wrong."""
    cache, reads, misspelt = absolute.PlacementCache(), [], []
    for hands, seed, wrong, photo in SETS:
        capture: Capture = PhoneCapture(seed + PHOTO_SEED) if photo else drawn.scan
        for case in make_cases(count, writers_for(hands), seed, lexicon, board=True, capture=capture, misspelt=wrong):
            position = Position.from_cgp(case.cgp)
            ordered, scored = _scores(case, position, grid, lexicon, cache)
            reads.append(BoardRead(replace(case, scan=case.scan[:0]), position, ordered, scored))
            misspelt.append(wrong)
        print(f"{hands} {seed} misspelt={wrong} photo={photo}: {len(reads)} boards read", file=sys.stderr, flush=True)
    return reads, misspelt


def choose(reads: list[BoardRead], misspelt: list[bool], grid: GridReading, base: Thresholds,
           lexicon: Lexicon) -> tuple[float, dict[str, Any]]:  # fmt: skip
    """The board's ``letter_sure`` that buys no silent error and leaves the arbiter the least work, with the counts
    behind it and behind the rule off (a board not read as one line is flagged whatever the value)."""
    wrong = np.array(misspelt)
    weight = np.where(wrong, MISSPELT_SHARE / max(1, wrong.sum()), (1 - MISSPELT_SHARE) / max(1, (~wrong).sum()))

    def tally(sure: float) -> dict[str, Any]:
        decided = outcomes(reads, grid.each(replace(base, letter_sure=sure)), lexicon)
        flagged = np.array([o is None or o.verdict == "flagged" for o in decided])
        silent = np.array([o is not None and o.silent_error for o in decided])
        return {"right": sum(o is not None and o.right for o in decided), "flagged": int(flagged.sum()),
                "silent": int(silent.sum()), "work": float((weight * (flagged + SILENT_PRICE * silent)).sum()),
                "wrong": set(np.nonzero(silent)[0])}  # fmt: skip

    return pick_letter_sure(tally)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60, help="absolute slips per calibration set (five sets)")
    parser.add_argument("--out", type=Path, default=GRID_THRESHOLDS_FILE)
    parser.add_argument("--cache", type=Path, help="keep the reads here (and read them back)")
    args = parser.parse_args()
    lexicon = Lexicon.load(LEXICON)
    grid = committed_grid_reading()
    accept = grid.thresholds.grid_accept or grid.thresholds.accept  # as ``SlipReader`` decides a board
    base = replace(grid.thresholds, accept=accept, invalid=accept)
    reads, misspelt = cached(args.cache, lambda: read_boards(grid, lexicon, args.count))
    chosen, counts = choose(reads, misspelt, grid, base, lexicon)
    record_choice(args.out, {"letter_sure": chosen, "letters_calibration": {
        "boards": len(reads), "misspelt_boards": sum(misspelt), **counts,
        "made_by": f"python -m models.slips.calibrate_board_letters --count {args.count}",
    }})  # fmt: skip


if __name__ == "__main__":
    main()
