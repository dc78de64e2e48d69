"""Build the training crops: ``python -m models.board.make_data OUT.npz --scenes N --seed S``.

Writes ``x`` (N x 40 x 40 x 3 uint8, normalised BGR crops), ``y`` (class indices) and
``source`` (0 render, 1 real photo). Real crops come from ``data.TRAIN_GAMES`` (``--games heldout``: the
held-out games, for checking a training run, never for training). ``--catalogue PART`` sets the tiles in
the families of the font catalogue (``fonts.json``, issue 69) instead of ``render_designs.FONT_FAMILIES``.
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from vision.board.labels import INDEX
from vision.board.synthetic.render_designs import families as part_families
from vision.board.synthetic.render_random import uninstalled_families

from . import data, fonts

CATALOGUE_DESIGNS = ("green", "beige", "black", "random")  # render_designs.TRAIN_DESIGNS and random palettes


def main() -> None:
    train_families = part_families("train")
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--scenes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep-empty", type=float, default=0.15)
    parser.add_argument("--no-photos", action="store_true")
    parser.add_argument("--photo-empty", type=float, default=1.0, help="share of the photos' empty squares kept (all their tiles are)")
    parser.add_argument("--split", default="train", help='render split: "train" or "train_fonts" (more fonts)')
    parser.add_argument("--foreign", type=float, default=None, help="share of tiles with a non-Spanish letter (default: the renderer's)")
    parser.add_argument("--blanks", type=float, default=None, help="share of tiles that are blanks (default: the renderer's)")
    parser.add_argument("--max-hands", type=int, default=None, help="hands per scene drawn from 0..N (default: the renderer's odds)")
    parser.add_argument("--designs", default="", help='board designs drawn from, comma-separated (e.g. "green,beige,black"; default: the green board alone)')
    parser.add_argument("--families", default="", help="with --designs: the tiles' font family drawn from these train families, "
                        "comma-separated (default: any of the split's part)")
    parser.add_argument("--catalogue", default="", help='tiles set in the font catalogue\'s families of this part ("train" or '
                        '"calibration"; models/board/fonts.json), on boards of --designs (default: green, beige, black and random)')
    parser.add_argument("--games", default="train", help='whose photos: "train" (data.TRAIN_GAMES) or "heldout" (data.HELDOUT_GAMES, '
                        'for checking only)')
    parser.add_argument("--reshaped", type=float, default=0.0, help="share of scenes whose letters are bolder or thinner, wider or "
                        "narrower, slanted (render_random.reshaped_letters)")
    parser.add_argument("--letter-sizes", default="", metavar="LO,HI", help="with --catalogue: the letters' size, of a cell, "
                        "drawn from LO..HI (default: the tile maker's 0.42..0.62)")
    args = parser.parse_args()
    designs = tuple(d for d in args.designs.split(",") if d)
    families = tuple(f for f in args.families.split(",") if f)
    if families and not designs:
        parser.error("--families needs --designs")
    if not set(families) <= set(train_families):
        parser.error(f"not train font families: {', '.join(sorted(set(families) - set(train_families)))}")
    letter_sizes = letter_size_range(parser, args.letter_sizes, bool(args.catalogue))
    catalogue = fonts.designs_of(fonts.load(), args.catalogue) if args.catalogue else {}
    if args.catalogue and (args.catalogue not in ("train", "calibration") or families):
        parser.error("--catalogue takes train or calibration, without --families")
    missing = uninstalled_families(families or train_families) if designs and not catalogue else []
    missing += fonts.uninstalled([f for members in catalogue.values() for f in members])
    if missing:  # their tiles would be set in DejaVu Sans: crops of one family where many were meant
        parser.error(f"fonts not installed for: {', '.join(missing)} (`make train-packages` installs them)")
    cv2.setNumThreads(1)
    rng = np.random.default_rng(args.seed)
    xs, ys, src = [], [], []
    start = time.time()
    if not args.no_photos:
        for photo in data.photos(data.HELDOUT_GAMES if args.games == "heldout" else data.TRAIN_GAMES):
            sample = data.photo_samples(photo)
            if sample is None:
                print("board not found:", photo.path, flush=True)
                continue
            keep = np.ones(len(sample[1]), bool)
            if args.photo_empty < 1.0:  # no draw otherwise: earlier commands make the same crops
                keep = (sample[1] != INDEX["."]) | (rng.random(len(sample[1])) < args.photo_empty)
            xs.append(sample[0][keep]); ys.append(sample[1][keep]); src.append(np.ones(int(keep.sum()), np.int8))
        print(f"photos: {sum(len(y) for y in ys)} crops, {time.time() - start:.0f}s", flush=True)
    for i in range(args.scenes):
        hands = None if args.max_hands is None else int(rng.integers(0, args.max_hands + 1))
        if catalogue:
            x, y = data.catalogue_samples(rng, catalogue, designs or CATALOGUE_DESIGNS, args.keep_empty, foreign=args.foreign,
                                          blanks=args.blanks, hands=hands, letter_sizes=letter_sizes)
        else:
            x, y = data.render_samples(rng, args.split, args.keep_empty, hands=hands, foreign=args.foreign, designs=designs,
                                       blanks=args.blanks, families=families, reshaped=args.reshaped)
        xs.append(x); ys.append(y); src.append(np.zeros(len(y), np.int8))
        if i % 100 == 0:
            print(f"scene {i}: {sum(len(y) for y in ys)} crops, {time.time() - start:.0f}s", flush=True)
    np.savez_compressed(args.out, x=np.concatenate(xs), y=np.concatenate(ys), source=np.concatenate(src))
    print("done", sum(len(y) for y in ys), f"{time.time() - start:.0f}s", flush=True)


def letter_size_range(parser: argparse.ArgumentParser, text: str, catalogue: bool) -> tuple[float, float] | None:
    """``--letter-sizes LO,HI`` as a range, None when not given; a usage error names what is wrong."""
    if not text:
        return None
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        parser.error(f"--letter-sizes takes LO,HI (two numbers), not {text!r}")
    if not 0.2 <= low <= high <= 1.0 or not catalogue:
        parser.error("--letter-sizes takes LO,HI with 0.2 <= LO <= HI <= 1.0, and --catalogue")
    return low, high


if __name__ == "__main__":
    main()
