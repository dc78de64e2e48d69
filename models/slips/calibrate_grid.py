"""Choose how slips written on the board (absolute notation) are decided: temperature, prior, ``grid_accept``.

    .venv/bin/python -m models.slips.calibrate_grid [--count 500]

Absolute slips (``cases.make_cases(board=True)``) written by hands neither trained on nor benchmarked:
the calibration part of the real characters and the UNIPEN writers of the *calibration* part
(``unipen.split_of``), two draws of each (``SETS``). Each board's written squares are read once by each
board reader (the line recogniser ``recognizer.GRID_MODEL`` and the square classifier
``squares.SQUARE_MODEL``, which must agree: ``absolute.decide_board``). Then for every temperature,
reading prior and square classifier's temperature of a small grid, every board is decided again without
thresholds, and ``grid_accept`` is set just above the most confident wrong decision (a wrong play or
score let through), never under ``FLOOR``; the setting kept scores most correctly written boards right
without a flag. ``--out`` (``models/slips/grid_thresholds.json``) keeps its other
values and gains these, with the counts behind them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips import absolute
from vision.slips.decoder import GRID_THRESHOLDS_FILE, Scored, Thresholds
from vision.slips.reader import GridReading, locate_slips
from vision.slips.recognizer import GRID_MODEL, Recognizer
from vision.slips.squares import SQUARE_MODEL, SquareRecognizer

from .calibrate import above
from .cases import Case, Outcome, judge, make_cases, writers_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "benchmarks"))
from bench_slips import LEXICON  # noqa: E402

SETS: Final = (("real-calibration", 8102), ("unipen-calibration", 8104),
               ("real-calibration", 8202), ("unipen-calibration", 8204))  # fmt: skip
TEMPERATURES: Final = (1.0, 1.5, 2.0)
PRIORS: Final = (4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0)
SQUARE_TEMPERATURES: Final = (0.25, 0.35, 0.5, 1.0)  # the square classifier's (``Thresholds.square_temperature``)
FLOOR: Final = 0.9  # a board's play is never accepted below this, whatever the calibration saw
VARIANTS: Final = 5  # views of each board's line read (``lineimage.variants``): the play lines' number


@dataclass(frozen=True)
class BoardRead:
    """One calibration board: the case, its position, the written squares in reading order and each reader's
    scores (None: no single line)."""

    case: Case
    position: Position
    ordered: tuple[tuple[int, int], ...]
    scored: tuple[Scored, ...] | None


def read_boards(grid: GridReading, lexicon: Lexicon, count: int) -> list[BoardRead]:
    """Every calibration board read once by each recogniser of ``grid`` (its ``thresholds.variants`` views)."""
    cache = absolute.PlacementCache()
    reads = []
    for name, seed in SETS:
        for case in make_cases(count, writers_for(name), seed, lexicon, board=True):
            position = Position.from_cgp(case.cgp)
            ordered, scored = _scores(case, position, grid, lexicon, cache)
            reads.append(BoardRead(replace(case, scan=case.scan[:0]), position, ordered, scored))
        print(f"{name} {seed}: {len(reads)} boards read", file=sys.stderr, flush=True)
    return reads


def _scores(case: Case, position: Position, grid: GridReading, lexicon: Lexicon,
            cache: absolute.PlacementCache) -> tuple[tuple[tuple[int, int], ...], tuple[Scored, ...] | None]:  # fmt: skip
    """The written squares of the board on ``case``'s scan, found as the reader finds them, and each reader's
    scores of them; None when no board or no single line of written squares is found."""
    slips = locate_slips(case.scan)
    frame = slips[0].board if slips else None
    ordered = absolute.reading_order(absolute.written_cells(frame)) if frame is not None else None
    if frame is None or not ordered:
        return (), None
    scored, _ = absolute.score_board(frame, ordered, position.board, position.rack, lexicon, grid.readers(), cache)
    return tuple(ordered), tuple(scored)


def outcomes(reads: list[BoardRead], each: list[Thresholds], lexicon: Lexicon) -> list[Outcome | None]:
    """Each board decided by every reader under its thresholds (``each``) and the decisions agreed (None: not
    read)."""
    out: list[Outcome | None] = []
    for read in reads:
        if read.scored is None:
            out.append(None)
            continue
        board, rack = read.position.board, read.position.rack
        decision = absolute.decide_board(read.scored, read.ordered, board, rack, lexicon, each)
        out.append(judge(read.case, decision.to_json(), 0.0))
    return out


def choose(reads: list[BoardRead], grid: GridReading, lexicon: Lexicon) -> tuple[dict[str, float], float]:
    """The temperature, prior, square temperature and ``grid_accept`` that score most correct boards right with
    none wrong."""
    correct = sum(read.case.kind in ("clean", "oriented") for read in reads)
    best: tuple[float, dict[str, float]] = (-1.0, {})
    squares = SQUARE_TEMPERATURES if grid.squares is not None else (0.0,)
    for temperature, prior, square in itertools.product(TEMPERATURES, PRIORS, squares):
        free = replace(grid.thresholds, accept=0.0, invalid=0.0, margin=-1.0, temperature=temperature,
                       reading_prior=prior, square_temperature=square)  # fmt: skip
        decided = [o for o in outcomes(reads, grid.each(free), lexicon) if o is not None and o.verdict != "flagged"]
        accept = above([o.confidence for o in decided if o.silent_error], 0, FLOOR)
        rate = sum(o.right and o.confidence >= accept and o.kind in ("clean", "oriented") for o in decided) / correct
        print(f"temperature {temperature} prior {prior} squares {square}: grid_accept {accept}, {rate:.4f} right",
              file=sys.stderr)  # fmt: skip
        if rate > best[0]:
            best = (rate, {"temperature": temperature, "reading_prior": prior, "square_temperature": square,
                           "grid_accept": accept})  # fmt: skip
    return best[1], best[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500, help="absolute slips per calibration draw (four draws)")
    parser.add_argument("--out", type=Path, default=GRID_THRESHOLDS_FILE)
    parser.add_argument("--model", type=Path, default=GRID_MODEL, help="the board's line recogniser (ONNX)")
    parser.add_argument("--second", type=Path, default=Path("none"),
                        help="a second line recogniser that must agree ('none': no second)")  # fmt: skip
    parser.add_argument("--squares", type=Path, default=SQUARE_MODEL,
                        help="the square classifier that must agree ('none': the line recogniser alone)")  # fmt: skip
    args = parser.parse_args()
    lexicon = Lexicon.load(LEXICON)
    base = replace(Thresholds.load(args.out) if args.out.exists() else Thresholds.load(), variants=VARIANTS)
    second = None if str(args.second) == "none" else Recognizer(args.second)
    squares = None if str(args.squares) == "none" else SquareRecognizer(args.squares)
    grid = GridReading(Recognizer(args.model), base, second, squares)
    reads = read_boards(grid, lexicon, args.count)
    chosen, rate = choose(reads, grid, lexicon)
    record = json.loads(args.out.read_text()) if args.out.exists() else {}
    record.update(chosen, variants=VARIANTS)
    record["grid_calibration"] = {
        "slips": len(reads), "correct_slips": sum(r.case.kind in ("clean", "oriented") for r in reads),
        "right_without_flag": round(rate, 4), "wrong_let_through": 0, "floor": FLOOR,
        "made_by": f"python -m models.slips.calibrate_grid --count {args.count} --model {args.model.name}"
                   f" --second {args.second.name} --squares {args.squares.name}",
    }  # fmt: skip
    args.out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(record, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
