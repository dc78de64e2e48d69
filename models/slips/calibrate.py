"""Choose the decoder's views, temperature, priors and thresholds on calibration slips.

    .venv/bin/python -m models.slips.calibrate [--count 800] [--rate 0] [--cache FILE]

Calibration slips are written by hands used neither in training nor by the
benchmark: the calibration faces (``handwriting.writers("calibration")``), those of
them whose families were never trained on (a second set, drawn apart) and the
*calibration* part of the real characters (``--sets``). Each is read once (registration, round
box, play line) and the recogniser's output is kept for the play line and for each
of its views (``lineimage.VIEWS``). Then for every number of views, temperature and
``reading_prior`` of a small grid, every slip is decided again without thresholds, and
for each ``margin`` of a grid

* ``accept`` is set just above the confidence of the k-th most confident wrong
  acceptance (a wrong play or score accepted) that leads its runner-up by
  ``margin`` nats or more, among plays the unconstrained reading does not write
  (``decoder.confirmed_plays``), and ``confirmed_accept`` likewise among those it writes;
* ``invalid`` likewise (j-th) for slips scored 0 as written when they deserved points;

where k + j wrong decisions are let through: ``--rate`` of the calibration slips
(default none: the benchmark's hands are less familiar than the calibration's, so
the calibration's error rate understates it), the split that scores most slips right;

and the setting kept is the one that scores most correctly written slips right
without a flag (fewer views on a tie: they cost time). ``field`` is set the same way
on round numbers read wrong (``--field-rate`` of them let through). Writes ``models/slips/thresholds.json``
with the counts behind it, keeping the other calibrations' values (``letter_sure``, ``zero_against``,
``circled_sure``: ``calibrate_letters``, ``calibrate_circled``). ``--cache`` keeps the reads (per model file)
for another run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips.decoder import (
    THRESHOLDS_FILE, CandidateCache, Scored, Thresholds, decide_scored, lead, options_of, score_line,
)  # fmt: skip
from vision.slips.fields import pick
from vision.slips.glyphs import GLYPH_MODEL, GlyphRecognizer, check_plays
from vision.slips.lineimage import VIEWS, prepare_line, variants
from vision.slips.reader import SlipReader
from vision.slips.recognizer import Recognizer, default_recognizer

from .cases import Case, Outcome, judge, make_cases, writers_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "benchmarks"))
from bench_slips import LEXICON, ROUNDS, SEEDS  # noqa: E402

# the calibration faces, those of families never trained on again (as unfamiliar as a venue's hands:
# their wrong readings are the surest), and the calibration part of the real characters
SETS = ("synthetic-calibration", "synthetic-calibration-unseen", "real-calibration")
VARIANTS = (1, 3, 5)  # the line alone; with narrow and wide; with the two shears too
TEMPERATURES = (1.0, 1.5)
PRIORS = (4.0, 6.0, 8.0, 10.0, 12.0)
MARGINS = (0.0, 1.0, 2.0, 3.0)
GLYPH_SURES = (1.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)  # the glyph classifier's lowest probability a play's characters need (1: off)


@dataclass
class Read:
    case: Case
    log_probs: list[np.ndarray] | None  # the play line's, then each view's (``VIEWS`` order)
    round_scored: list[tuple[str, float, bool]] | None
    prepared: np.ndarray | None = None  # the play line as the recogniser reads it (float16), for the glyphs
    second: list[np.ndarray] | None = None  # a second recogniser's on the same views (``SlipReader.second``)


# an outcome decided without thresholds, its lead in nats, confirmed, its characters read one by one (lowest)
Decided = tuple[Outcome, float, bool, float]


def read_all(reader: SlipReader, lexicon: Lexicon, count: int, sets: tuple[str, ...] = SETS) -> list[Read]:
    """Every calibration slip read once, with the recogniser's output on each view of its play line."""
    reads: list[Read] = []
    for name in sets:
        for case in make_cases(count, writers_for(name), SEEDS[name], lexicon):
            position = Position.from_cgp(case.cgp)
            fixed = (position.board, position.rack)
            found = reader.read_slip(case.scan, lambda _: fixed, (), ROUNDS, current=case.round)
            result = found[0] if found else None
            log_probs, line, second = None, None, None
            if result is not None and result.line is not None:
                prepared = prepare_line(result.line)
                views = [prepared] + variants(prepared, len(VIEWS))
                log_probs = [reader.recognizer.log_probs(v) for v in views]
                line = prepared.astype(np.float16)
                if reader.second is not None:
                    second = [reader.second.log_probs(v) for v in views]
            kept = replace(case, scan=np.zeros((0, 0), np.uint8))  # the scan is not needed again
            reads.append(Read(kept, log_probs, result.round_scored if result else None, line, second))
    return reads


def above(wrong: list[float], allowed: int, floor: float) -> float:
    """A threshold just above all but the ``allowed`` most confident wrong decisions."""
    ranked = sorted(wrong, reverse=True)
    if len(ranked) <= allowed:
        return floor
    return round(min(0.9999, max(floor, ranked[allowed] + 0.0005)), 4)


def score_all(reads: list[Read], lexicon: Lexicon, count: int, glyphs: GlyphRecognizer | None = None) -> list[Scored | None]:
    """Each slip's play line scored on its first ``count`` views (the line itself first), and on as many of a
    second recogniser's where the reads hold them, its likeliest plays read glyph by glyph too with ``glyphs``
    (``glyphs.check_plays``)."""
    cache = CandidateCache()
    out: list[Scored | None] = []
    for read in reads:
        if read.log_probs is None:
            out.append(None)
            continue
        position = Position.from_cgp(read.case.cgp)
        cands = cache.get(position.board, position.rack, lexicon)
        views = read.log_probs[1:count] + (read.second[:count] if read.second else [])
        scored = score_line(read.log_probs[0], cands, views=views)
        if glyphs is not None and read.prepared is not None:
            prepared = read.prepared.astype(np.float32)
            scored = replace(scored, glyphs=check_plays(glyphs, prepared, read.log_probs[0], scored, cands))
        out.append(scored)
    return out


def decide_free(reads: list[Read], scored: list[Scored | None], lexicon: Lexicon,
                limits: Thresholds) -> list[Decided | None]:  # fmt: skip
    """Each slip decided with no threshold: its outcome, how far its best option leads, and whether
    the unconstrained reading writes the play chosen (``decoder.confirmed_plays``)."""
    free = replace(limits, accept=0.0, invalid=0.0, margin=-1.0, confirmed_accept=0.0, glyph_accept=0.0)
    decided: list[Decided | None] = []
    for read, line in zip(reads, scored):
        if line is None:
            decided.append(None)
            continue
        position = Position.from_cgp(read.case.cgp)
        decision = decide_scored(line, position.board, position.rack, lexicon, free)
        outcome = judge(read.case, decision.to_json(), 0.0)
        options = options_of(line, limits)
        checked = decision.options[0].text if decision.verdict == "invalid" and decision.options else decision.play
        glyphs = line.glyphs.get(checked, 0.0) if checked else 0.0
        decided.append((outcome, lead(options), decision.play in line.confirmed, glyphs))
    return decided


def choose(decided: list[Decided | None], allowed: int,
           sures: tuple[float, ...] = (1.0,)) -> tuple[dict[str, float], float, int]:  # fmt: skip
    """The best margin with its thresholds (``allowed`` wrong decisions let through in all), the share
    of correct slips then right without a flag, and the wrong decisions let through.

    Accepted plays are split in two, each with its own threshold: those the unconstrained reading
    writes too (``confirmed_accept``) and the others (``accept``). For each of ``sures``, plays whose
    characters the glyph classifier reads as written with at least that probability get a third,
    ``glyph_accept``, just above the surest wrong one among them (none let through, never under one half;
    ``sures`` (1.0,): none), and a reading is scored 0 as written only where they read it so too."""
    correct = sum(1 for d in decided if d and d[0].kind in ("clean", "oriented"))
    best: tuple[dict[str, float], float, int] | None = None
    for margin in MARGINS:
        sure = [(o, confirmed, glyphs) for d in decided if d for o, gap, confirmed, glyphs in [d]
                if gap >= margin and o.verdict != "flagged"]  # fmt: skip
        for wrong_accepts, wrong_confirmed in _splits(allowed):
            accept = above([o.confidence for o, c, _ in sure if o.verdict == "accepted" and o.silent_error and not c],
                           wrong_accepts - wrong_confirmed, 0.5)  # fmt: skip
            confirmed_accept = above([o.confidence for o, c, _ in sure if o.verdict == "accepted" and o.silent_error
                                      and c], wrong_confirmed, 0.5)  # fmt: skip
            for glyph_sure in sures:
                invalid = above([o.confidence for o, _, g in sure if o.verdict == "invalid" and o.silent_error
                                 and (glyph_sure >= 1.0 or g >= glyph_sure)], allowed - wrong_accepts, 0.6)  # fmt: skip
                glyph_accept = 0.0 if glyph_sure >= 1.0 else above(
                    [o.confidence for o, _, g in sure if o.verdict == "accepted" and o.silent_error and g >= glyph_sure],
                    0, 0.5)  # fmt: skip
                limits = {"accept": accept, "confirmed_accept": confirmed_accept, "invalid": invalid,
                          "glyph_accept": glyph_accept, "glyph_sure": glyph_sure}  # fmt: skip
                chosen = Thresholds(**limits)
                passed = [o for o, c, g in sure if passes(o, c, g, chosen)]
                right = sum(1 for o in passed if o.right and o.kind in ("clean", "oriented")) / max(1, correct)
                wrong = sum(1 for o in passed if o.silent_error)
                if best is None or right > best[1]:
                    best = ({**limits, "margin": margin}, right, wrong)
    assert best is not None
    return best


def passes(outcome: Outcome, confirmed: bool, glyphs: float, limits: Thresholds) -> bool:
    """Whether a decision made without thresholds stands with ``limits`` (else the arbiter gets it)."""
    if outcome.verdict == "accepted":
        return outcome.confidence >= limits.accept_for(confirmed, glyphs)
    return outcome.confidence >= limits.invalid and limits.read_as_written(glyphs)


def right_by_set(decided: list[Decided | None], limits: dict[str, float], sets: tuple[str, ...]) -> dict[str, float]:
    """Share of each set's correctly written slips right without a flag with ``limits`` (``choose``'s), the
    sets' slips in ``decided`` one set after another, as many each."""
    chosen = Thresholds(**{k: v for k, v in limits.items() if k != "margin"})
    size = len(decided) // max(1, len(sets))
    shares: dict[str, float] = {}
    for i, name in enumerate(sets):
        part = [d for d in decided[i * size : (i + 1) * size] if d and d[0].kind in ("clean", "oriented")]
        right = [o for o, gap, c, g in part
                 if gap >= limits["margin"] and o.verdict != "flagged" and o.right and passes(o, c, g, chosen)]  # fmt: skip
        shares[name] = round(len(right) / max(1, len(part)), 4)
    return shares


def _splits(allowed: int) -> list[tuple[int, int]]:
    """(wrong acceptances, of them confirmed ones) for every way to let ``allowed`` wrong decisions through."""
    return [(a, c) for a in range(allowed + 1) for c in range(a + 1)]


def cached_reads(reader: SlipReader, lexicon: Lexicon, count: int, cache: Path | None,
                 sets: tuple[str, ...] = SETS) -> list[Read]:  # fmt: skip
    """``read_all``, kept in ``cache`` for the same model files and count."""
    models = [getattr(r, "model_path", None) for r in (reader.recognizer, reader.second) if r is not None]
    key = "+".join(hashlib.sha256(Path(m).read_bytes()).hexdigest() if m else "" for m in models)
    if cache is not None and cache.exists():
        stored = pickle.loads(cache.read_bytes())
        if stored["model"] == key and stored["count"] == count and tuple(stored.get("sets", SETS)) == sets:
            return list(stored["reads"])
    reads = read_all(reader, lexicon, count, sets)
    if cache is not None:
        cache.write_bytes(pickle.dumps({"model": key, "count": count, "sets": sets, "reads": reads}))
    return reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=800, help="slips per calibration set")
    parser.add_argument("--rate", type=float, default=0.0, help="share of slips decided wrong let through")
    parser.add_argument("--field-rate", type=float, default=0.00125,
                        help="share of round numbers read wrong let through (a wrong round rarely scores: "
                             "the play is then decided against another position)")  # fmt: skip
    parser.add_argument("--sets", default=",".join(SETS), help="calibration sets (cases.writers_for), comma-separated")
    parser.add_argument("--cache", type=Path, help="keep the reads here (reused for the same model)")
    parser.add_argument("--model", type=Path, help="recogniser ONNX model (default: the committed one)")
    parser.add_argument("--second", type=Path, help="a second line recogniser read together with the first "
                        "(SlipReader.second), on trial")
    parser.add_argument("--glyphs", type=Path, default=GLYPH_MODEL,
                        help="glyph classifier ONNX model (glyphs.GLYPH_MODEL); a missing file: no glyph path")
    parser.add_argument("--out", type=Path, default=THRESHOLDS_FILE)
    args = parser.parse_args()
    lexicon = Lexicon.load(LEXICON)
    base = Thresholds.load()
    recognizer = Recognizer(args.model) if args.model else default_recognizer()
    second = Recognizer(args.second) if args.second else None
    reader = SlipReader(lexicon, recognizer, thresholds=replace(base, variants=1), second=second)
    glyphs = GlyphRecognizer(args.glyphs) if args.glyphs.exists() else None
    sets = tuple(args.sets.split(","))
    reads = cached_reads(reader, lexicon, args.count, args.cache, sets)
    allowed = int(args.rate * len(reads))
    trials: dict[tuple[int, float, float], tuple[dict[str, float], float, int]] = {}
    by_set: dict[tuple[int, float, float], dict[str, float]] = {}
    for count in VARIANTS:
        scored = score_all(reads, lexicon, count, glyphs)
        for temperature in TEMPERATURES:
            for prior in PRIORS:
                limits = replace(base, reading_prior=prior, temperature=temperature)
                decided = decide_free(reads, scored, lexicon, limits)
                trials[(count, temperature, prior)] = choose(decided, allowed, GLYPH_SURES if glyphs else (1.0,))
                by_set[(count, temperature, prior)] = right_by_set(decided, trials[(count, temperature, prior)][0], sets)
                chosen, right, wrong = trials[(count, temperature, prior)]
                print(json.dumps({"variants": count, "temperature": temperature, "reading_prior": prior,
                                  "right_without_flag": round(right, 4), "wrong": wrong, **chosen}), flush=True)  # fmt: skip
    key = max(trials, key=lambda k: (round(trials[k][1], 4), -k[0], k[2]))
    count, temperature, prior = key
    wrong_round = []
    for read in reads:
        if read.round_scored:
            text, confidence = pick(read.round_scored, prior, {str(read.case.round): base.current_round_prior})
            if text != str(read.case.round):
                wrong_round.append(confidence)
    record = {
        **trials[key][0],
        "field": above(wrong_round, int(args.field_rate * len(reads)), 0.5),
        "reading_prior": prior,
        "temperature": temperature,
        "variants": count,
        "mistake_prior": base.mistake_prior,
        "current_round_prior": base.current_round_prior,
        "calibration_slips": len(reads),
        "correct_right_without_flag_on_calibration": round(trials[key][1], 4),
        "wrong_let_through_on_calibration": trials[key][2],
        "correct_right_without_flag_by_set": by_set[key],
        "made_by": f"python -m models.slips.calibrate --count {args.count} --rate {args.rate} "
                   f"--field-rate {args.field_rate} --sets {args.sets}" + ("" if glyphs else " (no glyphs)")
                   + (f" --second {args.second}" if args.second else ""),
    }
    others = json.loads(THRESHOLDS_FILE.read_text(encoding="utf-8")) if THRESHOLDS_FILE.exists() else {}
    record |= {k: v for k, v in others.items() if k not in record}  # the other calibrations' (letters, circles)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
