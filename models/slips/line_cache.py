"""The line recogniser's training lines drawn once, in shards on disk (issue 68): ``python -m models.slips.line_cache build``.

Drawing a line (a play, a slip's cut, an absolute board's word, by a training writer) takes about 15 ms of one core,
as long as a CPU training step spends on it, so a long run on one core reads its lines from shards drawn beforehand.
Every shard of ``SHARDS`` is ``LINES`` lines drawn from its seed with the sixteenth revision's recipe (``RECIPE``:
``train.Lines`` with four lines in five by UNIPEN *train* writers), written to ``CACHE`` (``$VEEDOR_LINE_CACHE``, else
``~/.cache/veedor/slip_lines``; outside the work tree, about 100 MB a shard, never committed); the same seed draws the
same lines on any machine. A shard file holds ``ink`` (32, total width) uint8, the lines side by side, ``starts`` (each
line's first column, and the end), ``tokens`` (the labels one after another) and ``token_starts``.

The writers are the training ones only (``train.training_pool``): the calibration and test hands and the collection
never trained on (``unipen.UNSEEN_COLLECTION``) are never drawn here.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Final

from models.shard_jobs import ShardJob, run_shard_jobs

import numpy as np

CACHE: Final = Path(os.environ.get("VEEDOR_LINE_CACHE", Path.home() / ".cache" / "veedor" / "slip_lines"))
LINES: Final = 20_000
SEEDS: Final = tuple(range(681, 713))  # one shard each
RECIPE: Final = {"slip_share": 0.5, "unipen_share": 0.8, "confusable": 0.25, "circled": 0.4, "mixed_writers": 0.15,
                 "warped": 0.25}  # fmt: skip


def path_of(seed: int) -> Path:
    return CACHE / f"lines_{seed}.npz"


def present() -> list[Path]:
    """The shards drawn so far, in ``SEEDS``' order."""
    return [path_of(s) for s in SEEDS if path_of(s).is_file()]


def draw(seed: int, count: int, out: Path) -> None:
    """``count`` lines from ``seed`` with ``RECIPE``, written to ``out``."""
    from . import synth
    from .train import Lines, training_pool

    emphasis = synth.Emphasis(RECIPE["confusable"], RECIPE["circled"], RECIPE["mixed_writers"], RECIPE["warped"])
    lines = Lines(seed, 1, RECIPE["slip_share"], emphasis, RECIPE["unipen_share"])
    rng, words, pool = np.random.default_rng(seed), synth.load_words(), training_pool(unipen_share=RECIPE["unipen_share"])
    samples = [lines.sample(rng, words, pool) for _ in range(count)]
    widths = np.array([s.image.shape[1] for s in samples])
    lengths = np.array([len(s.label) for s in samples])
    np.savez(out, ink=np.round(np.concatenate([s.image for s in samples], axis=1) * 255).astype(np.uint8),
             starts=np.concatenate([[0], np.cumsum(widths)]), tokens=np.array([t for s in samples for t in s.label], np.int16),
             token_starts=np.concatenate([[0], np.cumsum(lengths)]))  # fmt: skip


def build(jobs: int, count: int) -> None:
    """Draw the first ``count`` missing shards, ``jobs`` at a time (each to a temporary name, renamed when done)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    run_shard_jobs([ShardJob(path_of(seed).name, [sys.executable, "-m", "models.slips.line_cache", "draw", "--seed", str(seed)],
                             None, lambda: None)
                    for seed in SEEDS if not path_of(seed).is_file()][:count], jobs)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("build", "status", "draw"))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--count", type=int, default=len(SEEDS), help="build: draw at most this many missing shards")
    parser.add_argument("--seed", type=int, help="draw: the shard's seed")
    args = parser.parse_args()
    if args.command == "draw":
        partial = path_of(args.seed).with_suffix(".partial.npz")
        draw(args.seed, LINES, partial)
        partial.rename(path_of(args.seed))
        return
    if args.command == "build":
        build(args.jobs, args.count)
    for seed in SEEDS:
        size = f"{path_of(seed).stat().st_size / 1e6:.0f} MB" if path_of(seed).is_file() else "missing"
        print(f"{path_of(seed).name:16} {size}")


if __name__ == "__main__":
    main()
