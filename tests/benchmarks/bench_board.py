"""Benchmark of the board reader (issue 6), each figure next to its target.

Run with ``make bench`` (or ``python tests/benchmarks/bench_board.py [--quick]``).

1. Real photos of the games kept out of training (``models.board.data.HELDOUT_GAMES``,
   German set in ../shared): board found in every photo without a hand; cells read
   wrongly as tile/empty <= 0.1 %; blank tiles found >= 99 %; letters shared by both
   alphabets read right >= 99.5 %; letters not Spanish never read as a Spanish letter.
2. Rendered Spanish boards with settings not used in training (``split="heldout"``:
   other fonts, colours, stronger perspective): the same.
3. Rendered boards of every design (green, beige, blue, black, wooden; issue 20), in
   fonts of families trained on and kept out: figures per design and per family.
4. Time per 1920x1080 frame on one core (the tracker's path: refit + read) <= 50 ms;
   the cold search for a board is timed too.
5. Rendered games with hands: every play committed within 1 s of the hands leaving;
   no wrong play ever committed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from models.board import data  # noqa: E402
from rules_core.lexicon import load_lexicon  # noqa: E402
from vision.board.synthetic import render as R  # noqa: E402
from vision.board.cells import board_crops  # noqa: E402
from vision.board.classify import CellClassifier, default_classifier  # noqa: E402
from vision.board.find import find_board, refine_board  # noqa: E402
from vision.board.labels import BLANK, CLASSES, COVERED, FOREIGN, SPANISH, is_tile  # noqa: E402
from vision.board.reading import classify_board, read_board  # noqa: E402
from vision.board.synthetic.scenes import game_frames, solitaire_steps  # noqa: E402
from vision.board.tile_colour import blanks_of_tile_colour  # noqa: E402
from vision.board.tracker import BoardTracker, TrackerSettings  # noqa: E402

SURE = TrackerSettings().min_confidence  # a new tile read below this is a doubt for the arbiter


class Tally:
    """Cell counts for the accuracy figures."""

    def __init__(self) -> None:
        self.cells = self.occupancy_errors = 0
        self.blanks = self.blanks_found = 0
        self.shared = self.shared_right = 0
        self.foreign = self.foreign_right = self.foreign_as_spanish = 0
        self.covered_false = 0
        self.letters_wrong_sure = 0  # a Spanish letter read as another at or above the tracker's doubt threshold
        self.confusion = np.zeros((len(CLASSES), len(CLASSES)), np.int64)

    def add(self, truth: list[str], predicted: list[str], confidence: np.ndarray) -> None:
        """``confidence``: the reading's 15 x 15 confidences (``BoardReading.confidence``), for the letters
        read wrong without a doubt: at or above ``SURE`` a tracker takes such a letter unless the play it
        makes is refused (an upper bound on silent letter errors)."""
        for t, p, sure in zip(truth, predicted, np.ravel(confidence) >= SURE):
            self.letters_wrong_sure += bool(sure) and t in SPANISH and p in SPANISH and p != t
            self.cells += 1
            self.confusion[CLASSES.index(t), CLASSES.index(p)] += 1
            if is_tile(t) != is_tile(p):
                self.occupancy_errors += 1
            if p == COVERED and t != COVERED:
                self.covered_false += 1
            if t == BLANK:
                self.blanks += 1
                self.blanks_found += p == BLANK
            elif t in SPANISH:
                self.shared += 1
                self.shared_right += p == t
            elif t == FOREIGN:
                self.foreign += 1
                self.foreign_right += p == FOREIGN
                self.foreign_as_spanish += p in SPANISH

    def figures(self) -> dict[str, Any]:
        return {
            "cells": self.cells,
            "occupancy_error_pct": 100 * self.occupancy_errors / max(1, self.cells),
            "occupancy_errors": self.occupancy_errors,
            "blanks": self.blanks,
            "blank_found_pct": 100 * self.blanks_found / max(1, self.blanks),
            "letters": self.shared,
            "letters_right_pct": 100 * self.shared_right / max(1, self.shared),
            "foreign": self.foreign,
            "foreign_right_pct": 100 * self.foreign_right / max(1, self.foreign),
            "foreign_as_spanish": self.foreign_as_spanish,
            "covered_false": self.covered_false,
            "letters_wrong_sure": self.letters_wrong_sure,
        }


MODELS: Path | None = None  # ``--models DIR``: a candidate's board_cells.onnx and board_cells_fonts.onnx instead


def classifier_measured() -> CellClassifier:
    """The classifier the figures are of: the committed one, or a candidate's (``--models``; not the tracker's)."""
    if MODELS is None:
        return default_classifier()
    return CellClassifier(MODELS / "board_cells.onnx", font_opinion=MODELS / "board_cells_fonts.onnx")


def bench_photos() -> dict[str, Any]:
    classifier = classifier_measured()
    tally, found, total, hands = Tally(), 0, 0, []
    turns_right = 0
    for photo in data.photos(data.HELDOUT_GAMES):
        image = cv2.imread(str(photo.path))
        if photo.has_hand:
            reading = read_board(image, turn=0, classifier=classifier)
            hands.append({"photo": f"{photo.game}/{photo.path.name}", "found": reading.found,
                          "covered_cells": sum(row.count(COVERED) for row in reading.labels)})
            continue
        total += 1
        reading = read_board(image, turn=None, classifier=classifier)
        if not reading.found:
            print(f"  not found: {photo.game}/{photo.path.name}: {reading.reason}", flush=True)
            continue
        found += 1
        turns_right += reading.turn == 0 or reading.turn_guess is None or reading.turn_guess.turn is None
        if reading.turn != 0:
            assert reading.find is not None
            reading = classify_board(image, reading.find, classifier, turn=0)
        truth = [data.class_of_truth(ch) for row in photo.board for ch in row]
        predicted = [name for row in reading.labels for name in row]
        tally.add(truth, predicted, reading.confidence)
    return {"photos": total, "found": found, "turn_right": turns_right, **tally.figures(), "hands": hands,
            "confusion": tally.confusion.tolist()}


def bench_renders(count: int, seed: int = 90210) -> dict[str, Any]:
    classifier = classifier_measured()
    rng = np.random.default_rng(seed)
    tally, found, turns_right = Tally(), 0, 0
    for _ in range(count):
        scene = R.random_scene(rng, split="heldout", hands=0)
        frame = R.render(scene)
        reading = read_board(frame.image, classifier=classifier)
        if not reading.found:
            continue
        found += 1
        truth_turn = true_turn(reading, frame)
        turns_right += reading.turn == truth_turn
        if reading.turn != truth_turn:
            assert reading.find is not None
            reading = classify_board(frame.image, reading.find, classifier, turn=truth_turn)
        tally.add([n for row in frame.labels for n in row], [n for row in reading.labels for n in row], reading.confidence)
    return {"renders": count, "found": found, "turn_right": turns_right, **tally.figures(), "confusion": tally.confusion.tolist()}


def bench_designs(count: int, seed: int = 60606, part: str | None = None, catalogue: str | None = None,
                  letter_size: float | None = None) -> dict[str, Any]:
    """Renders of every board design (``render_designs.DESIGNS``, held-out colours and camera,
    no hand), each in a font of a family the classifier trained on (``BENCH_TRAIN_FAMILIES``,
    the first twelve) or of one kept out (``heldout``), alternately: figures per design and per
    font family. ``part`` (``calibration``, ``development``, ``heldout``): every board in a family of that part
    instead; ``catalogue`` (``train``, ``calibration``, ``heldout``): every board in a family of that part of the
    font catalogue (``models/board/fonts.json``, issue 69), drawn in its faces as they are. ``letter_size``: every
    tile's letters this size, of a cell (``TileStyle.letter_size``; the tile maker draws 0.42-0.62, so tile sets
    with big letters are measured at 0.72-0.82), drawn after the scene so the scenes stay those of the seed."""
    from vision.board.synthetic.render_designs import BENCH_TRAIN_FAMILIES, DESIGNS, FONT_FAMILIES, SEEN_BY_COMMITTED, families

    classifier = classifier_measured()
    rng = np.random.default_rng(seed)
    trained, kept_out = BENCH_TRAIN_FAMILIES, families("heldout")
    if part is not None:
        trained = kept_out = families(part)
    faces: dict[str, tuple[str, ...]] = {}
    if catalogue is not None:
        faces = catalogue_faces(catalogue)
        trained = kept_out = tuple(sorted(faces))
    per_design = {d: {"renders": 0, "found": 0, "tally": Tally()} for d in DESIGNS}
    per_family: dict[str, Tally] = {}
    for i in range(count):
        design = DESIGNS[i % len(DESIGNS)]
        pool = trained if (i // len(DESIGNS)) % 2 == 0 else kept_out
        family = str(pool[int(rng.integers(len(pool)))])
        scene = R.random_scene(rng, split="heldout", hands=0, design=design, family=None if faces else family, fonts=faces.get(family, ()))
        if letter_size is not None:
            scene = replace(scene, tiles=replace(scene.tiles, letter_size=letter_size))
        frame = R.render(scene)
        per_design[design]["renders"] += 1
        reading = read_board(frame.image, classifier=classifier)
        if not reading.found:
            print(f"  not found: {design} #{i}: {reading.reason}", flush=True)
            continue
        per_design[design]["found"] += 1
        truth_turn = true_turn(reading, frame)
        if reading.turn != truth_turn:
            assert reading.find is not None
            reading = classify_board(frame.image, reading.find, classifier, turn=truth_turn)
        truth, predicted = [n for row in frame.labels for n in row], [n for row in reading.labels for n in row]
        per_design[design]["tally"].add(truth, predicted, reading.confidence)
        per_family.setdefault(family, Tally()).add(truth, predicted, reading.confidence)
    designs = {d: {"renders": v["renders"], "found": v["found"], **v["tally"].figures()} for d, v in per_design.items()}
    fonts = {f: {"part": catalogue or FONT_FAMILIES[f][0], "seen_by_committed": f in SEEN_BY_COMMITTED, **t.figures()}
             for f, t in sorted(per_family.items())}
    return {"designs": designs, "families": fonts}


def design_lines(figures: dict[str, Any]) -> list[str]:
    """The per-design and per-family tables."""
    tiles = f"blanks found | Spanish letters right | wrong letters read at {SURE} or more (no doubt) | non-Spanish read as Spanish |"
    lines = ["", f"| board design (held-out colours, no hand) | found | tile/empty wrong | {tiles}",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, f in figures["designs"].items():
        lines.append(f"| {name} | {f['found']}/{f['renders']} | {f['occupancy_error_pct']:.3f}% ({f['occupancy_errors']}/{f['cells']}) "
                     + _tile_cells(f))
    lines += ["", f"| font family | part | in the main model's training before issue 20 | tile/empty wrong | {tiles}",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, f in figures["families"].items():
        lines.append(f"| {name} | {f['part']} | {'yes' if f['seen_by_committed'] else 'no'} | {f['occupancy_errors']}/{f['cells']} "
                     + _tile_cells(f))
    return lines


def _tile_cells(f: dict[str, Any]) -> str:
    """The tables' last four cells: blanks, letters, letters wrong without a doubt, foreign letters."""
    return (f"| {f['blank_found_pct']:.1f}% of {f['blanks']} | {f['letters_right_pct']:.2f}% of {f['letters']} "
            f"| {f['letters_wrong_sure']} | {f['foreign_as_spanish']} of {f['foreign']} |")


def true_turn(reading: Any, frame: R.Render) -> int:
    """The turn whose row A corner is the render's true A1 corner."""
    from vision.board.geometry import image_corners, rotate_board_frame

    truth = image_corners(frame.image_from_board)[0]
    upright = rotate_board_frame(reading.image_from_board, -reading.turn)
    distances = [float(np.linalg.norm(image_corners(rotate_board_frame(upright, k))[0] - truth)) for k in range(4)]
    return int(np.argmin(distances))


def bench_time(count: int) -> dict[str, Any]:
    classifier = classifier_measured()
    rng = np.random.default_rng(7)
    track, cold = [], []
    for _ in range(count):
        scene = R.random_scene(rng, R.random_cells(rng, 0.3), hands=0)
        frame = R.render(scene)
        start = time.perf_counter()
        first = find_board(frame.image)
        if not first.found or first.image_from_board is None:
            continue
        crops = board_crops(frame.image, first.image_from_board)
        blanks_of_tile_colour(crops, classifier.probabilities(crops))
        cold.append(time.perf_counter() - start)
        for _ in range(3):
            start = time.perf_counter()
            again = refine_board(frame.image, first.image_from_board, passes=1, checked=first)  # as the tracker does
            assert again.image_from_board is not None
            crops = board_crops(frame.image, again.image_from_board)
            blanks_of_tile_colour(crops, classifier.probabilities(crops))
            track.append(time.perf_counter() - start)
    return {"frames": len(cold), "track_ms_median": 1000 * statistics.median(track), "track_ms_p95": 1000 * float(np.percentile(track, 95)),
            "cold_ms_median": 1000 * statistics.median(cold)}


def bench_games(games: int, plays: int, catalogue: str | None = None) -> dict[str, Any]:
    """Rendered games of ``plays`` plays with hands. A doubt is resolved as the arbiter
    would, with the play really made (``tracker.correct``), and counted as a doubt; a doubt
    that proposes a play (``notation``) counts as a right or a wrong proposal. ``catalogue``
    (a part of the font catalogue): every game on a board of any design in a family of it."""
    from rules_core.notation import Play
    from vision.board.synthetic.render_designs import DESIGNS

    faces = catalogue_faces(catalogue) if catalogue else {}
    lexicon = load_lexicon()
    latencies: list[float] = []
    wrong = missed = doubts = committed = proposed_right = proposed_wrong = 0
    for g in range(games):
        game = solitaire_steps(lexicon, plays, seed=100 + g)
        rng = np.random.default_rng(500 + g)
        if faces:
            family = sorted(faces)[int(rng.integers(len(faces)))]
            scene = R.random_scene(rng, R.empty_labels(), split="heldout", hands=0, design=DESIGNS[g % len(DESIGNS)], fonts=faces[family])
            print(f"  game {g}: {DESIGNS[g % len(DESIGNS)]}, {family}", flush=True)
        else:
            scene = R.random_scene(rng, R.empty_labels(), hands=0)
        scene = replace(scene, lighting=replace(scene.lighting, gain=max(scene.lighting.gain, 0.6)))
        tracker = BoardTracker(f"mesa-{g}", lexicon, TrackerSettings())
        expected = [play.notation() for play, _ in game]
        left_at: dict[int, float] = {}
        seen: list[tuple[str, float]] = []
        done = 0  # plays on the tracker's board, committed or corrected
        for frame, truth in game_frames([("place", placed) for _, placed in game], scene):
            if truth.left is not None:
                left_at[truth.left] = frame.t
            for report in tracker.feed(frame):
                if report.kind == "play":
                    seen.append((report.notation or "", report.t))
                    done += 1
                elif report.kind == "doubt":
                    doubts += 1
                    print(f"  game {g} doubt ({report.reason}): {report.message}", flush=True)
                    if report.notation and done < len(expected):
                        proposed_right += report.notation == expected[done]
                        proposed_wrong += report.notation != expected[done]
                    if done < len(expected):
                        tracker.correct(Play.from_notation(expected[done]))
                        done += 1
        for k, notation in enumerate(expected):
            match = [t for n, t in seen if n == notation]
            if not match:
                missed += 1
                continue
            committed += 1
            latencies.append(match[0] - left_at[k])
        wrong += sum(1 for n, _ in seen if n not in expected)
        if any(n not in expected for n, _ in seen):
            print(f"  game {g} wrong plays: {[n for n, _ in seen if n not in expected]}", flush=True)
    return {"games": games, "plays": games * plays, "committed": committed, "missed": missed, "doubts": doubts,
            "proposed_right": proposed_right, "proposed_wrong": proposed_wrong,
            "wrong": wrong, "latency_max_s": round(max(latencies), 2) if latencies else None,
            "latency_median_s": round(statistics.median(latencies), 2) if latencies else None}


def catalogue_faces(part: str) -> dict[str, tuple[str, ...]]:
    """The font files of each family of ``part`` of the font catalogue (``models/board/fonts.json``)."""
    from models.board.fonts import load

    return {f.name: tuple(f.faces) for f in load() if f.part == part}


def row(what: str, figure: str, target: str) -> str:
    return f"| {what} | {figure} | {target} |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer renders and games")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--designs-in", metavar="PART", choices=("calibration", "development", "heldout"),
                        help="only the per-design figures, every board in a font family of PART (with --seed, --count)")
    parser.add_argument("--catalogue-in", metavar="PART", choices=("train", "calibration", "heldout"),
                        help="as --designs-in, every board in a family of PART of the font catalogue (models/board/fonts.json)")
    parser.add_argument("--games-in", metavar="PART", choices=("train", "calibration", "heldout"),
                        help="only rendered games (--count of them, 6 plays each), tiles in families of PART of the font catalogue")
    parser.add_argument("--seed", type=int, default=60606, help="with --designs-in: the renders' seed")
    parser.add_argument("--count", type=int, default=150, help="with --designs-in: how many boards")
    parser.add_argument("--letter-size", type=float, default=None, help="with --designs-in or --catalogue-in: every tile's "
                        "letters this size, of a cell (the tile maker draws 0.42-0.62)")
    parser.add_argument("--models", type=Path, default=None, help="a folder with a candidate's board_cells.onnx and "
                        "board_cells_fonts.onnx, measured instead of the committed ones (not in the games' tracker)")
    args = parser.parse_args()
    global MODELS
    MODELS = args.models
    cv2.setNumThreads(1)
    if args.games_in:
        print(json.dumps(bench_games(args.count, 6, catalogue=args.games_in), indent=1))
        return
    if args.catalogue_in:
        from models.board.fonts import load, uninstalled

        missing = uninstalled([f for f in load() if f.part == args.catalogue_in])
        if missing:
            parser.error(f"fonts not installed for: {', '.join(missing)} (`make train-packages` installs them)")
        print("\n".join(design_lines(bench_designs(args.count, args.seed, catalogue=args.catalogue_in, letter_size=args.letter_size))))
        return
    if args.designs_in:
        from vision.board.synthetic.render_designs import families
        from vision.board.synthetic.render_random import uninstalled_families

        missing = uninstalled_families(families(args.designs_in))
        if missing:  # the renderer would set their tiles in DejaVu Sans and the figures would lie
            parser.error(f"fonts not installed for: {', '.join(missing)} (`make train-packages` installs them)")
        print("\n".join(design_lines(bench_designs(args.count, args.seed, args.designs_in, letter_size=args.letter_size))))
        return
    renders, frames, games = (20, 5, 1) if args.quick else (80, 12, 3)
    print("real photos of the held-out games...", flush=True)
    photos = bench_photos()
    print("rendered boards, held-out settings...", flush=True)
    rendered = bench_renders(renders)
    print("rendered boards of every design, fonts trained on and kept out...", flush=True)
    designs = bench_designs(25 if args.quick else 150)
    print("time per frame...", flush=True)
    timing = bench_time(frames)
    print("rendered games with hands...", flush=True)
    game = bench_games(games, 6)
    lines = ["| what | figure | target |", "| --- | --- | --- |"]
    for name, f in (("real photos (held-out games)", photos), ("renders (held-out settings)", rendered)):
        n = f.get("photos", f.get("renders"))
        lines += [
            row(f"{name}: board found", f"{f['found']}/{n}", "all (photos without a hand)"),
            row(f"{name}: cells wrong as tile/empty", f"{f['occupancy_error_pct']:.3f}% ({f['occupancy_errors']}/{f['cells']})", "<= 0.1%"),
            row(f"{name}: blank tiles found", f"{f['blank_found_pct']:.1f}% of {f['blanks']}", ">= 99%"),
            row(f"{name}: shared letters right", f"{f['letters_right_pct']:.2f}% of {f['letters']}", ">= 99.5%"),
            row(f"{name}: letters wrong without a doubt (read at {SURE} or more)", str(f["letters_wrong_sure"]), "0"),
            row(f"{name}: non-Spanish letters read `*`", f"{f['foreign_right_pct']:.1f}% of {f['foreign']}; as a Spanish letter: {f['foreign_as_spanish']}", "never a Spanish letter"),
            row(f"{name}: row A inferred", f"{f['turn_right']}/{f['found']}", ""),
        ]
    lines += [
        row("time per 1920x1080 frame, tracking (refit + read 225 cells), one core", f"median {timing['track_ms_median']:.0f} ms, p95 {timing['track_ms_p95']:.0f} ms", "<= 50 ms"),
        row("time per 1920x1080 frame, cold search + read", f"median {timing['cold_ms_median']:.0f} ms", ""),
        row("rendered games with hands: plays committed by the camera alone", f"{game['committed']}/{game['plays']} (doubts put to the arbiter: {game['doubts']}; "
            f"proposing the right play {game['proposed_right']}, a wrong one {game['proposed_wrong']})", "all"),
        row("rendered games: commit after hands leave", f"max {game['latency_max_s']} s, median {game['latency_median_s']} s", "<= 1 s"),
        row("rendered games: wrong plays committed", str(game["wrong"]), "0"),
    ]
    lines += design_lines(designs)
    print("\n".join(lines))
    for hand in photos["hands"]:
        print(f"photo with a hand {hand['photo']}: found {hand['found']}, {hand['covered_cells']} cells read as covered")
    if args.json:
        Path(args.json).write_text(json.dumps({"photos": photos, "renders": rendered, "designs": designs, "time": timing, "games": game}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
