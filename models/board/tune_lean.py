"""Tune the lean to ``*`` (``vision.board.classify.lean_to_foreign``) on the CALIBRATION font families.

``python -m models.board.tune_lean --scenes 60 --seed 4242 [--model PATH [--font PATH | --alone]] [--catalogue]``

Renders boards of every design in fonts of the ``calibration`` families only
(``vision.board.synthetic.render_designs.FONT_FAMILIES``: never trained on, never reported), a
fifth of the tiles non-Spanish, and reads their crops (true grid, moved a twentieth of
a cell as a finder leaves it) with the classifier without its lean; then prints, for
each rule tried, the Spanish letters read right and the non-Spanish letters read as
Spanish. The rule is chosen here, and only reported on the held-out families
(``tests/benchmarks/bench_board.py``). ``--catalogue``: the boards drawn instead in the faces of the font catalogue's
calibration families (``fonts.json``, issue 69: Ferrite Core DX, StayPuft... as ``bench_board.py --catalogue-in
calibration`` draws them), where a lean has more to do; ``--alone``: the main model without the font model.
First it prints how well the reader knows when it is right (``sure_right``: right letters read surer than its K-th
surest wrong one): what the tracker's doubt threshold can keep of a candidate's reading (issue 69, thirteenth session).
"""

from __future__ import annotations

import argparse
import itertools
from unittest import mock

import cv2
import numpy as np

from vision.board import classify
from vision.board.synthetic import render as R
from vision.board.cells import board_crops
from vision.board.labels import CLASSES, FOREIGN, INDEX, SPANISH
from vision.board.synthetic.render_designs import DESIGNS

from .data import jittered
from .fonts import load as load_catalogue


def readings(scenes: int, seed: int, model: str | None, font: str | None = None, alone: bool = False,
             catalogue: bool = False) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Probabilities (no lean) and true class indices of every tile crop of the renders; ``model`` and ``font``: a
    candidate's main and font models instead of the committed ones (``alone``: no font model); ``catalogue``: tiles in
    the faces of the font catalogue's calibration families."""
    reader = classify.CellClassifier(model or classify.MODEL_PATH,
                                     font_opinion=None if alone else font or classify.FONT_OPINION_PATH)  # fmt: skip
    faces = {f.name: tuple(f.faces) for f in load_catalogue() if f.part == "calibration"} if catalogue else {}
    names = sorted(faces)
    rng = np.random.default_rng(seed)
    probs, truth = [], []
    with mock.patch.object(classify, "lean_to_foreign", lambda p: p):
        for i in range(scenes):
            design = DESIGNS[i % len(DESIGNS)]
            cells = R.random_cells(rng, foreign=0.2)
            fonts = faces[names[int(rng.integers(len(names)))]] if names else ()
            scene = R.random_scene(rng, cells, split="calibration", hands=0, design=design, fonts=fonts)
            frame = R.render(scene)
            crops = board_crops(frame.image, jittered(frame.image_from_board, rng, 0.05))
            labels = np.array([INDEX[n] for row in frame.labels for n in row])
            tiles = np.array([CLASSES[k] in SPANISH or CLASSES[k] == FOREIGN for k in labels])
            probs.append(reader.probabilities(crops[tiles]))
            truth.append(labels[tiles])
    return np.concatenate(probs), np.concatenate(truth)


def judge(probs: np.ndarray, truth: np.ndarray, below: float, weight: float, lookalikes: tuple[str, ...]) -> tuple[float, int, int]:
    """(Spanish letters right %, Spanish letters read `*`, non-Spanish read as Spanish) under a rule."""
    look = np.array([name in lookalikes for name in CLASSES])  # weight < 1 (a lean to Spanish): rows read `*`
    out = probs.copy()
    unsure = (out.max(axis=1) < below) & look[out.argmax(axis=1)]
    out[unsure, INDEX[FOREIGN]] *= weight
    best = out.argmax(axis=1)
    spanish = np.array([CLASSES[k] in SPANISH for k in truth])
    read_spanish = np.array([CLASSES[k] in SPANISH for k in best])
    right = float((best[spanish] == truth[spanish]).mean() * 100)
    as_foreign = int((best[spanish] == INDEX[FOREIGN]).sum())
    leaked = int((read_spanish & ~spanish).sum())
    return right, as_foreign, leaked


def sure_right(probs: np.ndarray, truth: np.ndarray, wrong: int) -> tuple[float, int]:
    """How well a reader knows when it is right: the confidence of its ``wrong``-th surest wrong Spanish letter
    (counting from 0), and how many Spanish letters it reads right with more confidence than that (no lean). A
    temperature moves the first and hardly the second, so candidates are compared on the second."""
    spanish = np.array([CLASSES[k] in SPANISH for k in truth])
    best, sure = probs.argmax(axis=1)[spanish], probs.max(axis=1)[spanish]
    right = best == truth[spanish]
    misread = np.sort(sure[~right])[::-1]
    threshold = float(misread[wrong]) if wrong < len(misread) else 0.0
    return threshold, int((right & (sure > threshold)).sum())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--model", default=None)
    parser.add_argument("--font", default=None, help="the font model read with --model (default: the committed one)")
    parser.add_argument("--alone", action="store_true", help="the main model without a font model")
    parser.add_argument("--catalogue", action="store_true", help="tiles in the font catalogue's calibration families")
    parser.add_argument("--save", default=None, help="also write the readings (probs, truth) to this .npz")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    probs, truth = readings(args.scenes, args.seed, args.model, args.font, args.alone, args.catalogue)
    if args.save:
        np.savez_compressed(args.save, probs=probs, truth=truth)
    spanish = sum(CLASSES[k] in SPANISH for k in truth)
    families = "the catalogue's calibration families" if args.catalogue else "calibration families"
    print(f"{len(truth)} tiles: {spanish} Spanish letters, {len(truth) - spanish} non-Spanish ({families})")
    print("| wrong Spanish letters read surer | at or above | right Spanish letters read surer |")
    print("| --- | --- | --- |")
    for wrong in (3, 5, 10, 20):
        print("| %d | %.2f | %d |" % (wrong, *sure_right(probs, truth, wrong)))
    print()
    print("| lean | below | weight | Spanish right | Spanish read `*` | non-Spanish read as Spanish |")
    print("| --- | --- | --- | --- | --- | --- |")
    print("| none | - | - | %.2f %% | %d | %d |" % judge(probs, truth, 0.0, 1.0, ()))
    for (below, weight), looks in itertools.product(itertools.product((0.5, 0.6, 0.7), (1.5, 2.0, 3.0, 4.0)), (("A", "O", "U", "C"),)):
        print(f"| {''.join(looks)} | {below} | {weight} | %.2f %% | %d | %d |" % judge(probs, truth, below, weight, looks))
    for below, weight in itertools.product((0.4, 0.5, 0.6, 0.7), (0.5, 0.25, 0.1)):
        print(f"| `*` to Spanish | {below} | {weight} | %.2f %% | %d | %d |" % judge(probs, truth, below, weight, (FOREIGN,)))


if __name__ == "__main__":
    main()
