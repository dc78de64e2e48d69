"""The glyph classifier's training windows rendered once, in shards on disk (issue 68):
``python -m models.slips.glyph_cache build``.

Drawing play lines and placing their characters with the line recogniser is the slow part of training
the glyph classifier (about 3 minutes of one core for 16,000 lines), so every shard of ``SHARDS`` is one
``train_glyphs.make_data`` run with its own seed, written to ``CACHE`` (``$VEEDOR_GLYPH_CACHE``, else
``~/.cache/veedor/slip_glyphs``: outside the work tree, about 200 MB a shard, never committed). A shard is
drawn again bit for bit from its line (seed, lines, UNIPEN share) with the same committed line recogniser
(``slip_recognizer.onnx``, which places the characters), so a machine without the cache rebuilds it.
``build --jobs N`` draws the missing shards, N at a time, in ``SHARDS``' order; ``status`` says which exist.

Every shard is written by the training writers only (``train.training_pool``: the training fonts and
Hershey faces, the real characters' *train* part, the UNIPEN writers of the *train* part); the calibration
and test hands and the collection never trained on (``unipen.UNSEEN_COLLECTION``) are never drawn here.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from models.shard_jobs import ShardJob, run_shard_jobs

CACHE: Final = Path(os.environ.get("VEEDOR_GLYPH_CACHE", Path.home() / ".cache" / "veedor" / "slip_glyphs"))
LINES: Final = 16_000  # per shard: about 190,000 windows


@dataclass(frozen=True)
class Shard:
    seed: int
    unipen_share: float  # share of lines by UNIPEN writers of the train part

    @property
    def path(self) -> Path:
        return CACHE / f"glyphs_{self.seed}.npz"


# as the committed classifier's second member was trained (model card, fourteenth revision): most shards at
# 60 % UNIPEN lines, every fourth at 90 % (the share the pool allows)
SHARDS: Final = tuple(Shard(400 + i, 0.9 if i % 4 == 0 else 0.6) for i in range(1, 17))


def present() -> list[Shard]:
    """The shards drawn so far, in ``SHARDS``' order."""
    return [s for s in SHARDS if s.path.is_file()]


def build(jobs: int, count: int) -> None:
    """Draw the first ``count`` shards that are missing, ``jobs`` at a time (each in a folder of its own,
    renamed into the cache when done)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    run_shard_jobs([ShardJob(s.path.name, [sys.executable, "-m", "models.slips.train_glyphs", "data", "--seed", str(s.seed),
                                           "--lines", str(LINES), "--unipen-share", str(s.unipen_share),
                                           "--out", str(CACHE / f"partial_{s.seed}")],
                             CACHE / f"glyphs_{s.seed}.log", lambda s=s: _move_in(s))
                    for s in SHARDS if not s.path.is_file()][:count], jobs)  # fmt: skip


def _move_in(shard: Shard) -> None:
    """A drawn shard out of its own folder into the cache."""
    (CACHE / f"partial_{shard.seed}" / shard.path.name).rename(shard.path)
    (CACHE / f"partial_{shard.seed}").rmdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("build", "status"))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--count", type=int, default=len(SHARDS), help="draw at most this many missing shards")
    args = parser.parse_args()
    if args.command == "build":
        build(args.jobs, args.count)
    for shard in SHARDS:
        size = f"{shard.path.stat().st_size / 1e6:.0f} MB" if shard.path.is_file() else "missing"
        print(f"{shard.path.name:16} UNIPEN {shard.unipen_share:.0%} {size}")


if __name__ == "__main__":
    main()
