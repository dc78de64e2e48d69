"""The training crops rendered once, in shards on disk (issue 69): ``python -m models.board.crop_cache build``.

Rendering is the slow part of training (about a second a scene on one core), so every shard of
``SHARDS`` is one ``make_data`` run with its own seed, written to ``CACHE`` (``$VEEDOR_BOARD_CACHE``,
else ``~/.cache/veedor/board_crops``: outside the work tree, several gigabytes, never committed).
A shard is rendered again bit for bit from its line, so a machine without the cache rebuilds it.
``build --jobs N`` renders the missing shards, N at a time, in ``SHARDS``' order (mixed, so a
cache built in part already has every kind). ``status`` says which exist.

Kinds: ``train`` shards (the catalogue's train families, ``fonts.json``, on the green, beige, black
and random boards; some blank-rich, some with more foreign letters) and the training games'
photos are trained on; ``check`` shards (the catalogue's calibration families, the held-out
games' photos) only measure a run, never train it.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from models.shard_jobs import ShardJob, run_shard_jobs

CACHE: Final = Path(os.environ.get("VEEDOR_BOARD_CACHE", Path.home() / ".cache" / "veedor" / "board_crops"))
SCENES: Final = 150  # per render shard: about 13,000 crops, 45 MB
LETTER_SIZES: Final = "0.40,0.86"  # the big-letter shards' letter sizes, of a cell (the tile maker draws 0.42-0.62)


@dataclass(frozen=True)
class Shard:
    name: str
    kind: str  # "train" or "check"
    options: tuple[str, ...]  # make_data's, after OUT

    @property
    def path(self) -> Path:
        return CACHE / f"{self.name}.npz"


def _render(name: str, seed: int, *extra: str, part: str = "train") -> Shard:
    kind = "train" if part == "train" else "check"
    return Shard(name, kind, ("--scenes", str(SCENES), "--seed", str(seed), "--no-photos", "--catalogue", part, *extra))


def _shards() -> tuple[Shard, ...]:
    plain = [_render(f"t{i:02d}", 6900 + i) for i in range(1, 25)]
    blank_rich = [_render(f"b{i:02d}", 6950 + i, "--blanks", "0.12", "--keep-empty", "0.3") for i in range(1, 7)]
    foreign = [_render(f"f{i:02d}", 6970 + i, "--foreign", "0.12") for i in range(1, 5)]  # f03-f04: the second run (width 1)
    big_letters = [_render(f"s{i:02d}", 7100 + i, "--letter-sizes", LETTER_SIZES) for i in range(1, 11)]  # the fine-tuning
    mixed: list[Shard] = []
    for i, shard in enumerate(plain):  # a blank-rich or foreign shard after every third plain one
        mixed.append(shard)
        extra = (blank_rich + foreign)[i // 3] if i % 3 == 2 and i // 3 < len(blank_rich) + len(foreign) else None
        if extra:
            mixed.append(extra)
    mixed += [s for s in blank_rich + foreign if s not in mixed] + big_letters
    photos = Shard("photos_train", "train", ("--scenes", "0", "--seed", "44", "--photo-empty", "0.23"))
    check = (
        Shard("photos_heldout", "check", ("--scenes", "0", "--seed", "45", "--games", "heldout")),
        _render("c01", 6990, "--keep-empty", "0.3", part="calibration"),
        _render("c02", 6991, "--keep-empty", "0.3", "--letter-sizes", LETTER_SIZES, part="calibration"),
    )
    return (photos, *check, *mixed)


SHARDS: Final = _shards()


def present(kind: str) -> list[Shard]:
    """The shards of that kind rendered so far."""
    return [s for s in SHARDS if s.kind == kind and s.path.is_file()]


def build(jobs: int, first: tuple[str, ...] = ()) -> None:
    """Render the missing shards, ``jobs`` at a time (each to a temporary name, renamed when done), those named
    in ``first`` before the others."""
    CACHE.mkdir(parents=True, exist_ok=True)
    run_shard_jobs([ShardJob(s.name, [sys.executable, "-m", "models.board.make_data", str(s.path.with_suffix(".partial.npz")),
                                      *s.options], s.path.with_suffix(".log"),
                             lambda s=s: s.path.with_suffix(".partial.npz").rename(s.path))
                    for s in sorted(SHARDS, key=lambda s: s.name not in first) if not s.path.is_file()], jobs)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("build", "status"))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--first", default="", help="shards to render before the others, comma-separated (e.g. f01,f02)")
    args = parser.parse_args()
    if args.command == "build":
        build(args.jobs, tuple(filter(None, args.first.split(","))))
    for shard in SHARDS:
        size = f"{shard.path.stat().st_size / 1e6:.0f} MB" if shard.path.is_file() else "missing"
        print(f"{shard.name:15} {shard.kind:6} {size}")


if __name__ == "__main__":
    main()
