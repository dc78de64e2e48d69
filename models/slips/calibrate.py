"""Choose the decoder's priors and thresholds on held-out slips: silent errors rare, flags few.

    .venv/bin/python -m models.slips.calibrate [--count 300] [--allowed 0]

Reads calibration slips once (held-out fonts and faces with their own seed, and
the *calibration* part of the real characters; never the benchmark's), keeping
the raw scores of each play line and round box. Then, for each ``reading_prior``
of a grid, every slip is decided again without thresholds, and

* ``accept`` is set just above the confidence of the ``--allowed``-th most
  confident wrong acceptance (a wrong play or score accepted);
* ``invalid`` likewise for slips scored 0 as written when they deserved points;
* ``field`` likewise for round numbers read wrong;

the prior kept is the one that scores most slips right without a flag. Writes
``models/slips/thresholds.json`` with the counts behind it.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips.decoder import THRESHOLDS_FILE, Scored, Thresholds, decide_scored, pick
from vision.slips.reader import SlipReader

from .cases import Case, judge, make_cases, writers_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "benchmarks"))
from bench_slips import LEXICON, ROUNDS, SEEDS  # noqa: E402

PRIORS = (2.0, 4.0, 6.0, 8.0, 10.0, 12.0)


@dataclass
class Read:
    case: Case
    scored: Scored | None
    round_scored: list[tuple[str, float, bool]] | None


def above(wrong: list[float], allowed: int, floor: float) -> float:
    """A threshold just above all but the ``allowed`` most confident wrong decisions."""
    ranked = sorted(wrong, reverse=True)
    if len(ranked) <= allowed:
        return floor
    return round(min(0.999, max(floor, ranked[allowed] + 0.005)), 3)


def evaluate(reads: list[Read], lexicon: Lexicon, limits: Thresholds, allowed: int) -> tuple[dict[str, float], float]:
    """Thresholds for ``limits.reading_prior`` and the share of slips then right without a flag."""
    free = replace(limits, accept=0.0, invalid=0.0)
    decided = []
    for read in reads:
        if read.scored is None:
            decided.append(None)
            continue
        position = Position.from_cgp(read.case.cgp)
        decision = decide_scored(read.scored, position.board, position.rack, lexicon, free)
        decided.append(judge(read.case, decision.to_json(), 0.0))
    wrong_accept = [o.confidence for o in decided if o and o.verdict == "accepted" and o.silent_error]
    wrong_invalid = [o.confidence for o in decided if o and o.verdict == "invalid" and o.silent_error]
    accept, invalid = above(wrong_accept, allowed, 0.5), above(wrong_invalid, allowed, 0.6)
    right = sum(
        1 for o in decided if o and not o.silent_error and o.verdict != "flagged"
        and o.confidence >= (accept if o.verdict == "accepted" else invalid)
    )  # fmt: skip
    return {"accept": accept, "invalid": invalid}, right / max(1, len(reads))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="slips per calibration set")
    parser.add_argument("--allowed", type=int, default=0, help="wrong decisions let through per kind")
    args = parser.parse_args()
    lexicon = Lexicon.load(LEXICON)
    base = Thresholds.load()
    reader = SlipReader(lexicon, thresholds=base)
    reads: list[Read] = []
    for name in ("synthetic-calibration", "real-calibration"):
        for case in make_cases(args.count, writers_for(name), SEEDS[name], lexicon):
            position = Position.from_cgp(case.cgp)
            fixed = (position.board, position.rack)
            found = reader.read_slip(case.scan, lambda _: fixed, (), ROUNDS, current=case.round)
            result = found[0] if found else None
            reads.append(Read(case, result.scored if result else None, result.round_scored if result else None))
    trials = {}
    for prior in PRIORS:
        chosen, right = evaluate(reads, lexicon, replace(base, reading_prior=prior), args.allowed)
        trials[prior] = (right, chosen)
        print(json.dumps({"reading_prior": prior, "right_without_flag": round(right, 4), **chosen}), flush=True)
    prior = max(PRIORS, key=lambda p: (trials[p][0], p))
    wrong_round = []
    for read in reads:
        if read.round_scored:
            text, confidence = pick(read.round_scored, prior, {str(read.case.round): base.current_round_prior})
            if text != str(read.case.round):
                wrong_round.append(confidence)
    record = {
        **trials[prior][1],
        "field": above(wrong_round, args.allowed, 0.5),
        "reading_prior": prior,
        "mistake_prior": base.mistake_prior,
        "current_round_prior": base.current_round_prior,
        "calibration_slips": len(reads),
        "right_without_flag_on_calibration": round(trials[prior][0], 4),
        "made_by": f"python -m models.slips.calibrate --count {args.count} --allowed {args.allowed}",
    }
    THRESHOLDS_FILE.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
