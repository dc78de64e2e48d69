"""Choose how surely a slip's writing must say a letter for the decoder to hold the player to it (D.III.25).

    .venv/bin/python -m models.slips.calibrate_letters [--count 150] [--cache FILE]

Slips written by the calibration hands (the real characters' calibration part and the UNIPEN writers of the
calibration part, ``SETS``), as they are filled in (``cases.make_cases``) and with one letter of their word written
wrong (``misspelt``: most are no word, or no legal play, and score 0), scanned and photographed (``phone``). Each is
read once by the committed reader with the rule off, its play line kept with its scores; the letters are then read
again (``glyphs.check_letters``) and every value of ``CHOICES`` for ``letter_sure`` decides every slip again: a
legal play is not accepted where the writing says otherwise so surely (``Scored.clashes``), and a reading each
character of which is read so surely is scored as written (``Scored.letters``). The value kept lets through no
wrong decision that the decoder without it does not (a silent error bought) and leaves the arbiter the least work:
flags, and ``SILENT_PRICE`` flags for each silent error, the misspelt slips counted as ``MISSPELT_SHARE`` of a
round's slips (the calibration holds far more); the surer value on a tie. ``zero_against`` (``ZERO_CHOICES``: how
likely a legal play may be and still be overruled by its writing into a 0; below 1.0 such zeros go to the arbiter)
is chosen with it, every pair tried. ``--out``
(``models/slips/thresholds.json``) keeps its other values and gains both, with the counts behind them. An absolute
slip's board is not among them: its two readers must agree (``absolute.agreed``), with ``grid_thresholds.json``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, TypeVar

import numpy as np

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips.decoder import THRESHOLDS_FILE, CandidateCache, Scored, Thresholds, decide_scored
from vision.slips.glyphs import check_letters, default_glyph_recognizer
from vision.slips.lineimage import prepare_line
from vision.slips.reader import SlipReader

from .calibration_files import cached, record_choice
from .cases import Case, Outcome, judge, make_cases, writers_for
from .phone import PhoneCapture

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "benchmarks"))
from bench_slips import LEXICON, PHOTO_SEED, ROUNDS  # noqa: E402

# (hands, seed, a letter written wrong, photographed): the calibration hands, apart from every benchmark set; the
# photographed sets are the scanned ones of the same seed, photographed (``bench_slips.cases_of``)
SETS: Final = (("real-calibration", 8002, False, False), ("unipen-calibration", 8004, False, False),
               ("real-calibration", 8016, True, False), ("unipen-calibration", 8017, True, False),
               ("real-calibration", 8002, False, True), ("unipen-calibration", 8004, False, True),
               ("real-calibration", 8016, True, True))  # fmt: skip
CHOICES: Final = (0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99)
ZERO_CHOICES: Final = (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 1.0)  # ``Thresholds.zero_against``; 1.0: off
Choice = TypeVar("Choice")  # what a calibration chooses: a threshold, or a pair of them
SILENT_PRICE: Final = 10.0  # flags an arbiter would rather see than one wrong score nobody sees
MISSPELT_SHARE: Final = 0.03  # of a round's slips, a play with a letter written wrong


@dataclass(frozen=True)
class LineRead:
    """A calibration slip read once: the case (without its image), whether its set has a letter written wrong in
    every slip, the flags the reader raised besides the play's own, the play line's scores and the grey play line
    (None: the slip's play was not read from a line)."""

    case: Case
    misspelt: bool
    flags: tuple[str, ...]
    result: dict[str, Any]
    scored: Scored | None
    line: np.ndarray | None


def read_all(reader: SlipReader, lexicon: Lexicon, count: int) -> list[LineRead]:
    """Every calibration slip read once with the letters' rule off."""
    reads = []
    for hands, seed, misspelt, photo in SETS:
        capture = PhoneCapture(seed + PHOTO_SEED) if photo else None
        for case in _cases(hands, seed, misspelt, capture, lexicon, count):
            position = Position.from_cgp(case.cgp)
            found = reader.read_slip(case.scan, lambda _: (position.board, position.rack), (), ROUNDS,
                                     current=case.round)  # fmt: skip
            bare = replace(case, scan=case.scan[:0])
            if not found or found[0].decision is None:
                result = found[0].to_json() if found else {"verdict": "flagged"}
                reads.append(LineRead(bare, misspelt, (), result, None, None))
                continue
            slip, decision = found[0], found[0].decision
            own = tuple(f for f in slip.flags if f not in decision.flags)
            reads.append(LineRead(bare, misspelt, own, slip.to_json(), slip.scored, slip.line))
        print(f"{hands} {seed} misspelt={misspelt} photo={photo}: {len(reads)} slips read", file=sys.stderr, flush=True)
    return reads


def _cases(hands: str, seed: int, misspelt: bool, capture: PhoneCapture | None, lexicon: Lexicon,
           count: int) -> Iterator[Case]:  # fmt: skip
    if capture is None:
        return make_cases(count, writers_for(hands), seed, lexicon, misspelt=misspelt)
    return make_cases(count, writers_for(hands), seed, lexicon, misspelt=misspelt, capture=capture)


def with_letters(reads: list[LineRead], reader: SlipReader, lexicon: Lexicon) -> list[Scored | None]:
    """Each slip's scores with its letters read (``glyphs.check_letters``, by the line recogniser and the committed
    glyph classifier)."""
    cache, glyphs = CandidateCache(), default_glyph_recognizer()
    out: list[Scored | None] = []
    for read in reads:
        if read.scored is None or read.line is None:
            out.append(None)
            continue
        position = Position.from_cgp(read.case.cgp)
        prepared = prepare_line(read.line)
        cands = cache.get(position.board, position.rack, lexicon)
        checks = check_letters(glyphs, prepared, reader.recognizer.log_probs(prepared), read.scored, cands)
        out.append(replace(read.scored, letters=checks.letters, clashes=checks.clashes, circled=checks.circled))
    return out


def outcomes(reads: list[LineRead], scored: list[Scored | None], limits: Thresholds, lexicon: Lexicon) -> list[Outcome]:
    """Every slip decided under ``limits``, with the flags its reader raised besides the play's."""
    out = []
    for read, line in zip(reads, scored):
        result = dict(read.result)
        if line is not None:
            position = Position.from_cgp(read.case.cgp)
            decision = decide_scored(line, position.board, position.rack, lexicon, limits)
            flags = list(dict.fromkeys(read.flags + decision.flags))
            result.update(decision.to_json(), flags=flags, verdict="flagged" if flags else decision.verdict)
            result["score"] = None if flags else decision.score
        out.append(judge(read.case, result, 0.0))
    return out


Tally = Callable[[Thresholds], dict[str, Any]]


def tally_of(reads: list[LineRead], scored: list[Scored | None], lexicon: Lexicon) -> Tally:
    """Right, flagged, silent and the arbiter's work a slip (see the module), and the indices of the silent errors
    (``wrong``), of every slip decided under given thresholds."""
    misspelt = np.array([read.misspelt for read in reads])
    weight = np.where(misspelt, MISSPELT_SHARE / max(1, misspelt.sum()), (1 - MISSPELT_SHARE) / max(1, (~misspelt).sum()))

    def tally(limits: Thresholds) -> dict[str, Any]:
        decided = outcomes(reads, scored, limits, lexicon)
        flagged = np.array([o.verdict == "flagged" for o in decided])
        silent = np.array([o.silent_error for o in decided])
        return {"right": sum(o.right for o in decided), "flagged": int(flagged.sum()), "silent": int(silent.sum()),
                "work": float((weight * (flagged + SILENT_PRICE * silent)).sum()), "wrong": set(np.nonzero(silent)[0])}

    return tally


def choose(reads: list[LineRead], scored: list[Scored | None], base: Thresholds,
           lexicon: Lexicon) -> tuple[tuple[float, float], dict[str, Any]]:  # fmt: skip
    """The (``letter_sure``, ``zero_against``) pair that buys no silent error and leaves the arbiter the least work
    (see the module), the surer ``letter_sure`` and the laxer ``zero_against`` on a tie, with the counts behind it
    and behind both rules off."""
    tally = tally_of(reads, scored, lexicon)
    pairs = [(sure, against) for sure in CHOICES for against in ZERO_CHOICES]
    return pick_least_work(lambda pair: tally(replace(base, letter_sure=pair[0], zero_against=pair[1])), pairs,
                           (0.0, 1.0), lambda pair: f"letter_sure {pair[0]} zero_against {pair[1]}")  # fmt: skip


def pick_letter_sure(tally: Callable[[float], dict[str, Any]]) -> tuple[float, dict[str, Any]]:
    """The ``CHOICES`` value whose decisions buy no silent error the rule's absence does not make and leave the
    arbiter the least work; ``tally(sure)``: right, flagged, silent, work and the indices of the silent errors
    (``wrong``) at that value (0: the rule off). Also the counts with and without it."""
    return pick_least_work(tally, CHOICES, 0.0, lambda sure: f"letter_sure {sure}")


def pick_least_work(tally: Callable[[Choice], dict[str, Any]], choices: Sequence[Choice], off: Choice,
                    describe: Callable[[Choice], str]) -> tuple[Choice, dict[str, Any]]:  # fmt: skip
    """Of ``choices``, the one whose decisions buy no silent error that ``off`` (the rules off) does not make and
    leave the arbiter the least work, the later on a tie (``off`` if none does better); ``tally(choice)``: right,
    flagged, silent, work and the indices of the silent errors (``wrong``). With the counts at it and at ``off``."""
    without = tally(off)
    kept, best = off, without
    for choice in choices:
        counts = tally(choice)
        bought = len(counts["wrong"] - without["wrong"])
        print(f"{describe(choice)}: {counts['right']} right, {counts['flagged']} flagged, {counts['silent']} silent "
              f"({bought} bought), arbiter's work {counts['work']:.4f} a slip", file=sys.stderr, flush=True)  # fmt: skip
        if bought == 0 and counts["work"] <= best["work"]:
            kept, best = choice, counts
    keys = ("right", "flagged", "silent")
    return kept, {**{k: best[k] for k in keys}, **{f"{k}_without": without[k] for k in keys}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=150, help="slips per calibration set (seven sets)")
    parser.add_argument("--out", type=Path, default=THRESHOLDS_FILE)
    parser.add_argument("--cache", type=Path, help="keep the reads here (and read them back)")
    args = parser.parse_args()
    lexicon = Lexicon.load(LEXICON)
    base = Thresholds.load(args.out)
    reader = SlipReader(lexicon, thresholds=replace(base, letter_sure=0.0, zero_against=1.0))
    reads = cached(args.cache, lambda: read_all(reader, lexicon, args.count))
    scored = with_letters(reads, reader, lexicon)
    (chosen, against), counts = choose(reads, scored, base, lexicon)
    record_choice(args.out, {"letter_sure": chosen, "zero_against": against, "letters_calibration": {
        "slips": len(reads), "misspelt_slips": sum(r.case.kind == "misspelt" for r in reads), **counts,
        "made_by": f"python -m models.slips.calibrate_letters --count {args.count}",
    }})  # fmt: skip


if __name__ == "__main__":
    main()
