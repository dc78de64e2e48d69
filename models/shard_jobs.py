"""Training data drawn in shards by child processes, a few at a time: the board's crop cache
(``models.board.crop_cache``) and the slips' glyph and line caches (``models.slips.glyph_cache``,
``line_cache``). Each shard is written under a temporary name and moved into place only when its
process ends well, so a cache never holds half a shard."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ShardJob:
    name: str  # as the progress lines and errors say it
    command: list[str]  # the child process that draws the shard
    log: Path | None  # its output (None: this terminal)
    finish: Callable[[], None]  # moves the finished shard into place


def run_shard_jobs(todo: list[ShardJob], jobs: int) -> None:
    """Run ``todo``, ``jobs`` at a time, each child on one thread; stop at the first that fails."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OMP_THREAD_LIMIT": "1"}
    waiting, running = list(todo), []
    while waiting or running:
        while waiting and len(running) < jobs:
            job = waiting.pop(0)
            out = open(job.log, "w") if job.log else None  # noqa: SIM115 - closed with the process
            running.append((job, subprocess.Popen(job.command, stdout=out, stderr=subprocess.STDOUT if out else None, env=env)))
        time.sleep(2)
        for job, process in list(running):
            if process.poll() is None:
                continue
            running.remove((job, process))
            if process.returncode != 0:
                raise SystemExit(f"shard {job.name} failed" + (f": see {job.log}" if job.log else ""))
            job.finish()
            print(f"{job.name} done ({time.strftime('%H:%M:%S')})", flush=True)
