"""The CPU and memory of a server's process tree, from /proc (for ``bench_venue``).

``Meter`` samples the tree under a pid every half second: peak resident memory (bytes)
and CPU seconds per process; ``machine_busy`` gives the whole machine's busy and total
CPU seconds since boot.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


def _stat(pid: int) -> tuple[int, float, int] | None:
    """(parent pid, CPU seconds, resident bytes) of a process, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks, int(fields[21]) * os.sysconf("SC_PAGE_SIZE")


def tree(root: int) -> dict[int, tuple[float, int]]:
    """CPU seconds and resident bytes of ``root`` and every process under it."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = _stat(int(entry))
            if found is not None:
                stats[int(entry)] = found
    wanted, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _cpu, _rss) in stats.items():
            if ppid == parent and pid not in wanted:
                wanted.add(pid)
                frontier.append(pid)
    return {pid: (stats[pid][1], stats[pid][2]) for pid in wanted if pid in stats}


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    total = sum(values[:8])
    ticks = os.sysconf("SC_CLK_TCK")
    return (total - idle) / ticks, total / ticks


class Meter(threading.Thread):
    """Samples the server's process tree every half second: peak memory, CPU over a window."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_rss = 0
        self.cpu: dict[int, float] = {}
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            self.sample()

    def sample(self) -> None:
        found = tree(self.pid)
        self.peak_rss = max(self.peak_rss, sum(rss for _cpu, rss in found.values()))
        for pid, (cpu, _rss) in found.items():
            self.cpu[pid] = max(self.cpu.get(pid, 0.0), cpu)

    def cpu_seconds(self) -> float:
        self.sample()
        return sum(self.cpu.values())
