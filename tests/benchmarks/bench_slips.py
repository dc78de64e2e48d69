"""Benchmark of the slip reader (issue: scanned slips into the game), next to Tesseract and RapidOCR.

    .venv/bin/python tests/benchmarks/bench_slips.py [--count 200] [--json FILE]

Sets of slips, each drawn on the printed slip, filled in, scanned at a random
rotation and read by the whole pipeline (registration, QR, round box, play):

* ``synthetic``: written with handwriting never used in training nor to set the
  thresholds (fonts Breip and SteveHand, Hershey COMPLEX and SCRIPT_COMPLEX);
* ``real-test``: composed from the *test* part of the real characters of
  ``../shared/data/handwriting/caps_digits`` (never used in training nor to set
  the thresholds);
* ``unipen-test``: real pen strokes of UNIPEN writers of the *test* part (files never trained on
  nor used for a threshold, ``vision.slips.synthetic.unipen.split_of``), each slip one writer's;
* ``unipen-unseen``: UNIPEN writers of the collection in no part at all (``unipen.UNSEEN_COLLECTION``);
* ``absolute-real-test``, ``absolute-unipen-test``: slips in absolute-board notation (D.III.20.1.c),
  the play written on the printed board, by the hands of ``real-test`` and ``unipen-test``;
* ``illegible-real-test``, ``illegible-unipen-test``: slips by those hands whose play no arbiter could score
  as written (D.III.20.4): left blank, scribbled over, blotted, struck out with one line or crossed out with an X
  (``cases.make_illegible_cases``); every one must be flagged (``illegible_flagged``), and one scored is a
  silent error; ``illegible-absolute-*``: the same on the printed board of absolute slips;
* ``two-notations-real-test``, ``two-notations-unipen-test``: absolute slips with a play in the boxes and one on
  the board (D.III.20.2, ``cases.make_two_notation_cases``): the same play in both (scored), two different plays
  (flagged), or one of them crossed out (the other scored);
* ``corrected-real-test``, ``corrected-unipen-test``: box slips whose first word, or every fourth slip its
  coordinate written in the wrong order, is struck out and the one that stands written after it in the same box,
  or, every fourth slip, whose word is crossed out in the box's upper half and the play written under it
  (``cases.make_correction_cases``): the visible play is scored;
* ``misspelt-real-test``, ``misspelt-unipen-test``: box slips each a play of the round with one letter of its word
  written wrong (``cases.make_cases(misspelt=True)``): a word that does not exist scores 0 as written (D.III.25),
  and is never accepted as the legal play one letter away (a silent error); ``absolute-misspelt-*`` on the board;
* ``photo-<set>`` (any set above): the very slips of ``<set>``, photographed with a phone instead of scanned
  (``models.slips.phone``: a phone's resolution, perspective, uneven light, soft shadow bands, glare, JPEG).

Positions and racks are the golden positions (FILE2017); 80 % of slips are written
correctly, the rest oriented or with a mistake (blank not circled, coordinate
order, a word that does not exist). Figures: slips scored right without a flag,
flagged (and of them those whose proposal, what the arbiter confirms with one key, is what the slip
deserves: ``cases.Outcome.proposal_right``), silent errors (a wrong play or score accepted without a flag),
circled-blank detection, speed (CPU seconds on one core), and the exact line read rate of
Tesseract and RapidOCR on the same play lines (cut by our registration). Last, the
phone photos of real pen lines in ``words_es`` (the five written in capitals) read
by the recogniser alone, without the round's knowledge.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from models.slips.cases import (  # noqa: E402
    Capture,
    Case,
    Outcome,
    judge,
    make_cases,
    make_correction_cases,
    make_illegible_cases,
    make_two_notation_cases,
    writers_for,
)
from models.slips.phone import PhoneCapture  # noqa: E402
from rules_core.cgp import Position  # noqa: E402
from rules_core.lexicon import Lexicon  # noqa: E402
from vision.slips import layout  # noqa: E402
from vision.slips.decoder import Thresholds  # noqa: E402
from vision.slips.glyphs import GlyphRecognizer, default_glyph_recognizer  # noqa: E402
from vision.slips.reader import SlipReader, committed_grid_reading, join_line  # noqa: E402
from vision.slips.recognizer import Recognizer  # noqa: E402
from vision.slips.register import find_slips  # noqa: E402
from vision.slips.synthetic import drawn  # noqa: E402

LEXICON = Path(__file__).resolve().parents[3] / "shared" / "lexicon" / "FILE2017.txt"
SEEDS = {"synthetic": 7001, "real-test": 7002, "synthetic-calibration": 8001, "real-calibration": 8002,
         "synthetic-calibration-unseen": 8003, "unipen-test": 7003, "unipen-unseen": 7004, "unipen-calibration": 8004,
         "absolute-real-test": 7005, "absolute-unipen-test": 7006, "illegible-real-test": 7008,
         "illegible-unipen-test": 7009, "illegible-absolute-real-test": 7010, "illegible-absolute-unipen-test": 7011,
         "two-notations-real-test": 7012, "two-notations-unipen-test": 7013, "corrected-real-test": 7014,
         "corrected-unipen-test": 7015, "misspelt-real-test": 7016, "misspelt-unipen-test": 7017,
         "absolute-misspelt-real-test": 7018, "absolute-misspelt-unipen-test": 7019, "misspelt-real-calibration": 8016,
         "misspelt-unipen-calibration": 8017, "absolute-misspelt-real-calibration": 8018,
         "absolute-real-calibration": 8005, "absolute-unipen-calibration": 8006}
# absolute-*: slips in absolute-board notation (D.III.20.1.c), the play on the printed board, by those hands
DEFAULT_SETS = ("synthetic,real-test,unipen-test,unipen-unseen,absolute-real-test,absolute-unipen-test,"
                "illegible-real-test,illegible-unipen-test,illegible-absolute-real-test,illegible-absolute-unipen-test,"
                "two-notations-real-test,two-notations-unipen-test,corrected-real-test,corrected-unipen-test,"
                "misspelt-real-test,misspelt-unipen-test,absolute-misspelt-real-test,"
                "photo-real-test,photo-unipen-test,photo-absolute-real-test,photo-absolute-unipen-test,"
                "photo-illegible-real-test,photo-illegible-absolute-real-test")
PHOTO_SEED = 100_000  # added to a set's seed: the draws of its phone photos (``PhoneCapture``)
ROUNDS = list(range(1, 25))


def run_reader(reader: SlipReader, cases: list[Case]) -> tuple[list[Outcome], dict[str, float]]:
    """Read every case; candidate sets are built before timing the slips (once per position).

    Times are CPU seconds of this process (``time.process_time``; the reader runs on one
    thread), so a machine shared with other work does not skew the per-core speed; the
    wall-clock time of the slips is reported beside it.
    """
    outcomes = []
    builds = []
    for case in cases:
        position = Position.from_cgp(case.cgp)
        start = time.process_time()
        reader.cache.get(position.board, position.rack, reader.lexicon)
        reader.placements.get(position.board, position.rack, reader.lexicon)  # absolute slips' plays by square
        builds.append(time.process_time() - start)
    wall = time.perf_counter()
    for case in cases:
        position = Position.from_cgp(case.cgp)
        fixed = (position.board, position.rack)
        start = time.process_time()
        found = reader.read_slip(case.scan, lambda _: fixed, (), ROUNDS, current=case.round)  # slips come in their round
        seconds = time.process_time() - start
        result = found[0].to_json() if found else {"verdict": "flagged", "flags": ["position_unknown"]}
        outcomes.append(judge(case, result, seconds))
    wall = time.perf_counter() - wall
    positions = len({c.cgp for c in cases})
    build_total = sum(builds)
    return outcomes, {"candidate_build_s_per_position": build_total / max(1, positions),
                      "wall_seconds_per_slip": wall / max(1, len(cases))}  # fmt: skip


def play_line(case: Case) -> np.ndarray | None:
    """The play line (coordinate, gap, word) as our reader cuts it, for the generic OCR engines."""
    found = find_slips(case.scan)
    if not found:
        return None
    rectified = found[0].rectify(case.scan)
    crops = [rectified[y0:y1, x0:x1] for x0, y0, x1, y1 in
             (layout.FIELDS[n].pixels(layout.PX_PER_MM, layout.FIELD_INSET) for n in ("coordenada", "palabra"))]  # fmt: skip
    return join_line(crops[0], crops[1])


PHONE_PHOTOS = LEXICON.parents[1] / "data" / "handwriting" / "words_es"


def phone_photos(reader: SlipReader) -> dict[str, Any]:
    """Real pen lines: the phone photos of ``words_es`` written in capitals, read whole by the
    recogniser with no knowledge of the round (best path): what it makes of real strokes."""
    from vision.slips import ctc, tokens

    rows = [line.split(",", 1) for line in (PHONE_PHOTOS / "gt_samples.csv").read_text().splitlines()[1:]]
    reads = {}
    for stem, truth in rows:
        if truth != truth.upper():
            continue  # slips ask for capitals
        path = next(PHONE_PHOTOS.glob(f"{stem}.*"))
        gray = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        reads[truth] = "".join(tokens.TOKENS[i] for i in ctc.greedy(reader.recognizer.log_probs(gray)))
    exact = sum(normal(read) == normal(truth) for truth, read in reads.items())
    return {"photos": len(reads), "exact": exact, "reads": reads}


def normal(text: str) -> str:
    """Upper case, no separators or arrows: what a generic OCR engine can be compared on."""
    return "".join(c for c in text.upper() if c.isalnum())


def tesseract_reads(lines: list[np.ndarray | None]) -> list[str] | None:
    if shutil.which("tesseract") is None:
        return None
    out = []
    with tempfile.TemporaryDirectory() as folder:
        for i, line in enumerate(lines):
            if line is None:
                out.append("")
                continue
            path = Path(folder) / f"{i}.png"
            cv2.imwrite(str(path), line)
            done = subprocess.run(
                ["tesseract", str(path), "stdout", "--psm", "7", "-l", "spa",
                 "-c", "tessedit_char_whitelist=ABCDEFGHIJKLMNÑOPQRSTUVWXYZ0123456789 -"],
                capture_output=True, text=True, env={**os.environ, "OMP_THREAD_LIMIT": "1"},
            )  # fmt: skip
            out.append(done.stdout.strip())
    return out


def rapidocr_reads(lines: list[np.ndarray | None]) -> list[str] | None:
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        return None
    engine = RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)
    out = []
    for line in lines:
        if line is None:
            out.append("")
            continue
        result, _ = engine(cv2.cvtColor(line, cv2.COLOR_GRAY2BGR))
        out.append(" ".join(r[1] for r in sorted(result or [], key=lambda r: r[0][0][0])))
    return out


def summary(outcomes: list[Outcome], extra: dict[str, float]) -> dict[str, Any]:
    n = len(outcomes)
    clean = [o for o in outcomes if o.kind in ("clean", "oriented")]
    blanks = [o for o in outcomes if o.blank_right is not None]
    unmarked = [o for o in outcomes if o.kind == "unmarked"]
    swapped = [o for o in outcomes if o.kind == "swapped"]
    illegible = [o for o in outcomes if o.kind == "illegible"]
    per_slip = float(np.mean([o.seconds for o in outcomes]))
    build = extra["candidate_build_s_per_position"]
    flags = Counter(f for o in outcomes for f in o.flags)
    return {
        "slips": n,
        "right_without_flag": round(sum(o.right for o in outcomes) / n, 4),
        "right_without_flag_clean": round(sum(o.right for o in clean) / max(1, len(clean)), 4),
        "flagged": round(sum(o.verdict == "flagged" for o in outcomes) / n, 4),
        "flagged_proposal_right": f"{sum(o.proposal_right for o in outcomes)}/{sum(o.verdict == 'flagged' for o in outcomes)}",
        "silent_errors": sum(o.silent_error for o in outcomes),
        "silent_error_rate": round(sum(o.silent_error for o in outcomes) / n, 4),
        "circled_blank_read_right": f"{sum(bool(o.blank_right) for o in blanks)}/{len(blanks)}",
        "unmarked_blank_caught": f"{sum(o.verdict == 'flagged' or o.score == 0 for o in unmarked)}/{len(unmarked)}",
        "coordinate_order_caught": f"{sum(o.verdict == 'flagged' or o.score == 0 for o in swapped)}/{len(swapped)}",
        "silent_errors_on_correct_slips": sum(o.silent_error for o in clean),
        "illegible_flagged": f"{sum(o.verdict == 'flagged' for o in illegible)}/{len(illegible)}",
        "lookalike_coordinate_right": f"{sum(o.right for o in clean if o.lookalike)}/{sum(o.lookalike for o in clean)}",
        "round_read_right": round(sum(o.round_right for o in outcomes) / n, 4),
        "by_kind": {k: f"{sum(o.right for o in outcomes if o.kind == k)}/{c} right, "
                       f"{sum(o.verdict == 'flagged' for o in outcomes if o.kind == k)} flagged, "
                       f"{sum(o.silent_error for o in outcomes if o.kind == k)} silent"
                    for k, c in Counter(o.kind for o in outcomes).items()},  # fmt: skip
        "flags": dict(flags),
        "seconds_per_slip": round(per_slip, 4),
        "wall_seconds_per_slip": round(extra["wall_seconds_per_slip"], 4),
        "candidate_build_s_per_position": round(build, 3),
        "slips_per_second_per_core_round_of_100": round(100 / (build + 100 * per_slip), 2),
    }


def seed_of(name: str) -> int:
    """The seed of the set ``name``: a ``photo-`` set's slips are those of the set it photographs."""
    return SEEDS[name.removeprefix("photo-")]


def cases_of(name: str, count: int, seed: int, lexicon: Lexicon) -> list[Case]:
    """The slips of the set ``name`` (the module's docstring), fixed by ``seed``; a ``photo-`` set's photographed
    with draws of their own (``PHOTO_SEED``)."""
    capture: Capture = drawn.scan
    if name.startswith("photo-"):
        name, capture = name.removeprefix("photo-"), PhoneCapture(seed + PHOTO_SEED)
    if name.startswith("two-notations-"):
        hands = writers_for(name.removeprefix("two-notations-"))
        return list(make_two_notation_cases(count, hands, seed, lexicon, capture=capture))
    if name.startswith("corrected-"):
        return list(make_correction_cases(count, writers_for(name.removeprefix("corrected-")), seed, lexicon, capture))
    spoilt = name.startswith("illegible-")
    board = name.removeprefix("illegible-").startswith("absolute-")
    misspelt = name.removeprefix("absolute-").startswith("misspelt-")
    hands = writers_for(name.removeprefix("illegible-").removeprefix("absolute-").removeprefix("misspelt-"))
    return list(make_illegible_cases(count, hands, seed, lexicon, board=board, capture=capture) if spoilt
                else make_cases(count, hands, seed, lexicon, board=board, capture=capture, misspelt=misspelt))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="slips per set")
    parser.add_argument("--sets", default=DEFAULT_SETS)
    parser.add_argument("--no-ocr", action="store_true", help="skip Tesseract and RapidOCR")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--model", type=Path, help="line recogniser ONNX model (default: the committed one); "
                        "the committed glyph classifier and board readers read with it")
    parser.add_argument("--second", type=Path, help="a second line recogniser on trial, read together with the first "
                        "(SlipReader.second); give the thresholds calibrated for the pair")
    parser.add_argument("--thresholds", type=Path, help="the decoder's thresholds (default: the committed ones)")
    parser.add_argument("--glyphs", type=Path, help="glyph classifier ONNX model on trial (default: the committed one)")
    parser.add_argument("--seed-offset", type=int, default=0,
                        help="added to each set's seed: a fresh draw of the same hands (the reported figures: 0)")
    args = parser.parse_args()
    lexicon = Lexicon.load(LEXICON)
    thresholds = Thresholds.load(args.thresholds) if args.thresholds else None
    # a line recogniser on trial reads with the committed glyph classifier and board readers, as it would if kept
    trial = Recognizer(args.model) if args.model else None
    glyph_reader = GlyphRecognizer(args.glyphs) if args.glyphs else default_glyph_recognizer()
    second = Recognizer(args.second) if args.second else None
    reader = SlipReader(lexicon, trial, thresholds, committed_grid_reading(), glyph_reader, second)
    report: dict[str, Any] = {}
    for name in args.sets.split(","):
        cases = cases_of(name, args.count, seed_of(name) + args.seed_offset, lexicon)
        outcomes, extra = run_reader(reader, cases)
        figures = summary(outcomes, extra)
        if not args.no_ocr and name.split("-")[0] in ("synthetic", "real", "unipen"):  # the boxes of correct slips: generic OCR
            clean = [c for c in cases if c.kind in ("clean", "oriented")]
            lines = [play_line(c) for c in clean]
            truth = [normal(c.written) for c in clean]
            for engine, reads in (("tesseract", tesseract_reads(lines)), ("rapidocr", rapidocr_reads(lines))):
                if reads is None:
                    figures[f"{engine}_exact_line"] = "not available"
                else:
                    figures[f"{engine}_exact_line"] = round(sum(normal(r) == t for r, t in zip(reads, truth)) / len(clean), 4)
        report[name] = figures
        print(json.dumps({name: figures}, ensure_ascii=False, indent=1), flush=True)
    if PHONE_PHOTOS.exists():
        report["phone_photos"] = phone_photos(reader)
        print(json.dumps({"phone_photos": report["phone_photos"]}, ensure_ascii=False, indent=1), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
