"""Benchmark of the rules core: lexicon load (cold and cached), move generation, memory.

Run with ``make bench``. Each measurement runs in its own process so that load times
are real and peak memory (max RSS) belongs to that job alone. Move generation is
timed per golden position (median of 5 runs, one thread), next to the figures of
the wolges engine stored in the golden file. Targets (issue 2): mean under 30 ms,
p95 under 150 ms, second load of FILE2017 under 2 s, process under 400 MB.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("VEEDOR_SHARED", REPO.parent / "shared"))
FILE2017 = SHARED / "lexicon" / "FILE2017.txt"
GOLDEN = SHARED / "golden" / "positions_dev.jsonl.gz"
RUNS = 5


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker_load() -> dict[str, Any]:
    from rules_core.lexicon import Lexicon

    start = time.perf_counter()
    Lexicon.load(FILE2017)
    return {"seconds": time.perf_counter() - start, "peak_mb": peak_mb()}


def worker_movegen() -> dict[str, Any]:
    from rules_core.cgp import Position
    from rules_core.lexicon import Lexicon
    from rules_core.movegen import generate_plays

    with gzip.open(GOLDEN, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    cases = [(Position.from_cgp(r["cgp"]), r["wolges_ms"], len(r["moves"])) for r in records]
    del records
    lexicon = Lexicon.load(FILE2017)
    ms, wolges, plays = [], [], []
    for position, wolges_ms, expected in cases:
        runs = []
        for _ in range(RUNS):
            start = time.perf_counter()
            found = generate_plays(position.board, position.rack, lexicon)
            runs.append((time.perf_counter() - start) * 1000)
        assert len(found) == expected, position.cgp()
        ms.append(statistics.median(runs))
        wolges.append(wolges_ms)
        plays.append(expected)
    return {"ms": ms, "wolges_ms": wolges, "plays": plays, "peak_mb": peak_mb()}


def run_worker(name: str, cache_dir: str) -> dict[str, Any]:
    env = dict(os.environ, VEEDOR_CACHE_DIR=cache_dir, OMP_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, __file__, "--worker", name], env=env, check=True, capture_output=True, text=True
    ).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (
        f"mean {statistics.mean(ordered):8.3f}  median {statistics.median(ordered):8.3f}  "
        f"p95 {p95:8.3f}  max {ordered[-1]:8.3f}"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as cache_dir:
        cold = run_worker("load", cache_dir)
        cached = run_worker("load", cache_dir)
        movegen = run_worker("movegen", cache_dir)
    ms, wolges, plays = movegen["ms"], movegen["wolges_ms"], movegen["plays"]
    print(f"Veedor rules core benchmark: {len(ms)} golden positions, {sum(plays):,} plays")
    print(f"lexicon FILE2017 load, cold (build + cache write): {cold['seconds']:.2f} s, peak {cold['peak_mb']:.0f} MB")
    print(f"lexicon FILE2017 load, cached:                     {cached['seconds']:.3f} s, peak {cached['peak_mb']:.0f} MB")
    print(f"move generation ms/position (Veedor):  {summary(ms)}")
    print(f"move generation ms/position (wolges):  {summary(wolges)}")
    print(f"Veedor / wolges, ratio of means: {statistics.mean(ms) / statistics.mean(wolges):.1f}x")
    print(f"move generation process peak memory: {movegen['peak_mb']:.0f} MB")
    met = (
        statistics.mean(ms) < 30
        and sorted(ms)[int(0.95 * len(ms))] < 150
        and cached["seconds"] < 2
        and max(cold["peak_mb"], movegen["peak_mb"]) < 400
    )
    print(f"targets: mean < 30 ms, p95 < 150 ms, cached load < 2 s, memory < 400 MB: {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        job = {"load": worker_load, "movegen": worker_movegen}[sys.argv[2]]
        print(json.dumps(job()))
    else:
        main()
