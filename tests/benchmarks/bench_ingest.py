"""Benchmark of the scan ingest on files that stop decoders (issue 67.5): how long each takes to be refused.

Run with ``make bench`` (or ``python tests/benchmarks/bench_ingest.py [--mutations N] [--seed S]``). Each
bad file is dropped in a watched folder before a good one and polled once by an ``Ingestor`` with the
server's budget (``vision.isolation.DEFAULT``): the time until both are done is measured. Also: the seconds
a page of a 600 dpi scan takes, against the budget's seconds a page. Targets: the self-referencing page tree
refused within 1 s (a worker already running) and the file after it read; the nested forms cut by the budget
(+3 s: the next file starts a new worker) or by the worker's memory cap; every fuzzed file read or refused;
a 600 dpi page within a third of the budget. Prints one line per figure and one JSON summary; exit 1 when a
target is missed.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.malformed_scans import (  # noqa: E402
    encoded,
    fixed_cases,
    good_page,
    mutated_cases,
    nested_forms_pdf,
    self_referencing_pdf,
)
from vision import isolation  # noqa: E402
from vision.slips.ingest import Ingestor, Page  # noqa: E402


def read(page: Page, gray: np.ndarray) -> list[dict[str, Any]]:
    return [{"status": "read"}]


def timed(folder: Path, number: int, name: str, data: bytes) -> tuple[float, str, str]:
    """Seconds for one poll to take ``data`` and a good file after it: (seconds, state of the bad, of the good)."""
    ingest = Ingestor(folder / "bandeja", folder / "estado", read)
    (ingest.inbox / f"{number:04d}-a-{name}").write_bytes(data)
    (ingest.inbox / f"{number:04d}-b.png").write_bytes(encoded(good_page(number), "PNG"))
    start = time.perf_counter()
    ingest.poll()
    seconds = time.perf_counter() - start
    bad, good = ingest.outcome(f"{number:04d}-a-{name}"), ingest.outcome(f"{number:04d}-b.png")
    return seconds, (bad or {}).get("state", "left"), (good or {}).get("state", "left")


def scan_pdf(pages: int) -> bytes:
    """A PDF of A4 pages scanned at 600 dpi (JPEG, 35 megapixels each)."""
    rng = np.random.default_rng(0)
    sheet = np.full((7016, 4960), 245, np.uint8) - rng.integers(0, 10, (7016, 4960), dtype=np.uint8)
    image = Image.fromarray(sheet)
    out = io.BytesIO()
    image.save(out, "PDF", save_all=True, append_images=[image] * (pages - 1), resolution=600, quality=85)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutations", type=int, default=500)
    parser.add_argument("--seed", type=int, default=67)
    args = parser.parse_args()
    budget = isolation.DEFAULT
    summary: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        isolation.close_workers()
        cold = timed(root / "frio", 0, "arbol-propio.pdf", self_referencing_pdf())
        warm = timed(root / "tibio", 1, "arbol-propio.pdf", self_referencing_pdf())
        forms = timed(root / "formas", 2, "formas.pdf", nested_forms_pdf(12))
        summary["self_referencing_s"] = {"cold": round(cold[0], 3), "warm": round(warm[0], 3),
                                         "states": [cold[1], cold[2], warm[1], warm[2]]}  # fmt: skip
        summary["nested_forms_s"] = {"seconds": round(forms[0], 2), "budget": budget.seconds,
                                     "states": [forms[1], forms[2]]}  # fmt: skip
        print(f"page tree that contains itself: refused, next file read in {cold[0]:.3f} s (worker started), "
              f"{warm[0]:.3f} s (running): {cold[1:]}, {warm[1:]}")
        reason = Ingestor(root / "formas" / "bandeja", root / "formas" / "estado", read).refused[0]["reason"]
        summary["nested_forms_s"]["reason"] = reason
        print(f"nested forms (4**12 strokes): cut in {forms[0]:.2f} s (budget {budget.seconds:g} s): {forms[1:]}, "
              f"{reason!r}")
        cases = fixed_cases() + mutated_cases(args.seed, args.mutations)
        times, ends = [], {"read": 0, "refused": 0, "left": 0, "good read": 0}
        for number, (name, data, _what) in enumerate(cases, 10):
            seconds, bad, good = timed(root / f"caso-{number}", number, name, data)
            times.append(seconds)
            ends[bad if bad in ("read", "refused") else "left"] += 1
            ends["good read"] += good == "read"
        summary["fuzz"] = {"files": len(cases), **ends, "median_s": round(statistics.median(times), 3),
                           "max_s": round(max(times), 3)}  # fmt: skip
        print(f"fuzzed files: {len(cases)}, {ends['read']} read, {ends['refused']} refused, {ends['left']} left; "
              f"the good file after each read {ends['good read']} times; median {statistics.median(times):.3f} s, "
              f"max {max(times):.3f} s")
        data = scan_pdf(10)
        start = time.perf_counter()
        pages = sum(1 for _ in isolation.pages(data))
        per_page = (time.perf_counter() - start) / pages
        summary["scan_600dpi_s_per_page"] = round(per_page, 3)
        print(f"A4 scanned at 600 dpi ({len(data) // 1_000_000} MB, {pages} pages): {per_page:.3f} s a page "
              f"(budget {budget.per_page:g} s a page)")
    isolation.close_workers()
    missed = [
        warm[0] > 1.0 or (warm[1], warm[2]) != ("refused", "read"),
        forms[0] > budget.seconds + 3.0 or (forms[1], forms[2]) != ("refused", "read"),  # + a new worker's start
        ends["left"] > 0 or ends["good read"] != len(cases),
        per_page > budget.per_page / 3,
    ]
    print(json.dumps(summary))
    return 1 if any(missed) else 0


if __name__ == "__main__":
    sys.exit(main())
