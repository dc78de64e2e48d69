"""Choose how surely the letter a blank stands for must be written for a play laying it to be accepted (D.III.20.3).

    .venv/bin/python -m models.slips.calibrate_circled [--count 300] [--cache FILE]

A blank's letter is read from its circle alone: the word around it vouches for nothing when another letter makes a
word too (``RUi``, ``RUo``), so the lexicon that corrects a plain letter misread cannot correct it. Slips of positions
whose rack holds a blank, written by the calibration hands (``SETS``: the real characters' calibration part, the
UNIPEN writers of the calibration part and the calibration handwriting fonts; none trained on nor in the slip
benchmarks), scanned and photographed
(``phone``), are read once by the committed reader with the rule off. Every accepted play that lays a blank from the
rack is then decided again at each value of ``CHOICES`` for ``circled_sure`` (``decoder.Thresholds.circled_surely``).
A wrong score nobody sees costs more than any number of flags: the value kept is the least that lets through no wrong
acceptance the strictest value stops, the fewest right ones sent to the arbiter. ``--out``
(``models/slips/thresholds.json``) keeps its other values and gains it, with the counts behind it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from rules_core.alphabet import BLANK
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips.decoder import THRESHOLDS_FILE, Thresholds, lays_a_blank
from vision.slips.reader import SlipReader

from .calibration_files import cached, record_choice
from .cases import Case, judge, make_cases, positions, writers_for
from .phone import PhoneCapture

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "benchmarks"))
from bench_slips import LEXICON, PHOTO_SEED, ROUNDS  # noqa: E402

SETS: Final = (("real-calibration", 8041, False), ("unipen-calibration", 8042, False),
               ("real-calibration", 8041, True), ("unipen-calibration", 8042, True),
               ("synthetic-calibration", 8043, False), ("synthetic-calibration", 8043, True))  # fmt: skip
CHOICES: Final = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)


@dataclass(frozen=True)
class BlankRead:
    """A calibration slip accepted with a play laying a blank of the rack: how surely its circled letters were read
    (``Scored.circled``) and whether the play and score accepted are what the slip deserves."""

    written: str
    play: str
    circled: float
    right: bool


def blank_cases(hands: str, seed: int, photo: bool, lexicon: Lexicon, count: int) -> Iterator[Case]:
    """``count`` slips of positions whose rack holds a blank, by ``hands``, scanned or photographed."""
    cgps = [cgp for cgp in positions() if BLANK in Position.from_cgp(cgp).rack]
    if photo:
        return make_cases(count, writers_for(hands), seed, lexicon, cgps, capture=PhoneCapture(seed + PHOTO_SEED))
    return make_cases(count, writers_for(hands), seed, lexicon, cgps)


def read_all(reader: SlipReader, lexicon: Lexicon, count: int) -> tuple[int, list[BlankRead]]:
    """How many slips were read, and those accepted with a blank from the rack (the rule off)."""
    read, found = 0, []
    for hands, seed, photo in SETS:
        for case in blank_cases(hands, seed, photo, lexicon, count):
            position = Position.from_cgp(case.cgp)
            results = reader.read_slip(case.scan, lambda _: (position.board, position.rack), (), ROUNDS,
                                       current=case.round)  # fmt: skip
            read += 1
            if not results or results[0].decision is None or results[0].scored is None:
                continue
            result, decision = results[0], results[0].decision
            if result.to_json()["verdict"] != "accepted" or not decision.play:
                continue
            if not lays_a_blank(position.board, decision.play):
                continue
            circled = (result.scored.circled or {}).get(decision.play, 0.0)
            found.append(BlankRead(case.written, decision.play, circled, judge(case, result.to_json(), 0.0).right))
        print(f"{hands} {seed} photo={photo}: {read} slips read, {len(found)} accepted with a blank", file=sys.stderr,
              flush=True)  # fmt: skip
    return read, found


def choose(found: list[BlankRead]) -> tuple[float, dict[str, Any]]:
    """The least ``CHOICES`` value that stops every wrong acceptance the strictest one stops, with its counts."""

    def tally(sure: float) -> dict[str, int]:
        passed = [b for b in found if b.circled >= sure]
        return {"accepted_right": sum(b.right for b in passed), "silent": sum(not b.right for b in passed),
                "flagged_right": sum(b.right for b in found) - sum(b.right for b in passed)}  # fmt: skip

    floor = tally(CHOICES[-1])["silent"]
    for sure in CHOICES:
        counts = tally(sure)
        print(f"circled_sure {sure}: {counts}", file=sys.stderr, flush=True)
    kept = next(sure for sure in CHOICES if tally(sure)["silent"] <= floor)
    return kept, {**tally(kept), "silent_without": tally(0.0)["silent"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="slips per calibration set (six sets)")
    parser.add_argument("--out", type=Path, default=THRESHOLDS_FILE)
    parser.add_argument("--cache", type=Path, help="keep the reads here (and read them back)")
    args = parser.parse_args()
    lexicon = Lexicon.load(LEXICON)
    base = Thresholds.load(args.out)
    reader = SlipReader(lexicon, thresholds=replace(base, circled_sure=0.0))
    read, found = cached(args.cache, lambda: read_all(reader, lexicon, args.count))
    chosen, counts = choose(found)
    record_choice(args.out, {"circled_sure": chosen, "circled_calibration": {
        "slips": read, "accepted_with_a_blank": len(found), **counts,
        "made_by": f"python -m models.slips.calibrate_circled --count {args.count}",
    }})  # fmt: skip


if __name__ == "__main__":
    main()
