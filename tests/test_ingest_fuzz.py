"""No file stops the room (issue 67.5): whatever the scan ingest cannot decode is refused with a reason and
kept, within a bounded time, and the file queued after it is read.

A 238-byte PDF whose page tree contains itself raised an uncaught pdfium error on every poll: every file
after it stayed unread, across restarts; a 2.6 KB PDF of nested forms kept the reader busy for minutes.
Files are now decoded in a worker process with a deadline (``vision.isolation``), and whatever the decoder
raises refuses the file, not the poll.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision import decoding, isolation
from vision.slips.ingest import Ingestor, Page, page_sha

from .malformed_scans import encoded, fixed_cases, good_page, mutated_cases, nested_forms_pdf, self_referencing_pdf

SEED = 67


class Reader:
    """A read_page callback that records the pages it read."""

    def __init__(self) -> None:
        self.read: list[str] = []

    def __call__(self, page: Page, gray: np.ndarray) -> list[dict[str, Any]]:
        self.read.append(page.sha)
        return [{"status": "read"}]


def ingestor(tmp_path: Path, budget: isolation.Budget = isolation.DEFAULT, read: Any = None) -> Ingestor:
    return Ingestor(tmp_path / "bandeja", tmp_path / "estado", read or Reader(),
                    decode=partial(isolation.pages, budget=budget))  # fmt: skip


def test_the_page_tree_that_contains_itself_is_refused_and_the_next_file_read_across_restarts(tmp_path: Path) -> None:
    bad = self_referencing_pdf()
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    (inbox / "a-ronda.pdf").write_bytes(bad)
    (inbox / "b-ana.png").write_bytes(encoded(good_page(1), "PNG"))
    ingest = ingestor(tmp_path)
    assert [p.source for p in ingest.poll()] == ["b-ana.png"]
    assert ingest.outcome("a-ronda.pdf") == {"state": "refused",
                                             "reason": "a-ronda.pdf: PDF dañado: la página 1 no se puede abrir"}
    assert (tmp_path / "estado" / "refused" / "a-ronda.pdf").read_bytes() == bad  # kept as it came
    assert list(inbox.iterdir()) == []
    restarted = ingestor(tmp_path, read=(reader := Reader()))
    assert restarted.poll() == [] and reader.read == []  # nothing left, nothing read twice
    assert restarted.outcome("a-ronda.pdf") == ingest.outcome("a-ronda.pdf")


def test_a_pdf_that_hangs_the_decoder_is_cut_at_its_deadline_and_the_next_file_read(tmp_path: Path) -> None:
    """4**12 nested strokes: pdfium renders this 2.6 KB page for minutes; the worker is killed at the budget."""
    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    (inbox / "a-formas.pdf").write_bytes(nested_forms_pdf(12))
    (inbox / "b-ana.png").write_bytes(encoded(good_page(2), "PNG"))
    ingest = ingestor(tmp_path, isolation.Budget(seconds=1.0, per_page=1.0))
    assert [p.source for p in ingest.poll()] == ["b-ana.png"]
    found = ingest.outcome("a-formas.pdf")
    assert found is not None and found["state"] == "refused"
    assert found["reason"] == ("a-formas.pdf: el archivo tarda demasiado en leerse (más de 1 s, y 1 s por cada "
                               "página más): apartado sin leer")  # fmt: skip


def _children() -> list[int]:
    """The decoding workers of this process (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            if entry.name.isdigit() and int(stat.rpartition(")")[2].split()[1]) == os.getpid() \
                    and b"vision.isolation" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _cpu_ticks(pid: int) -> int:
    """The processor time a process used, in clock ticks (user + system, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_decoder_that_crashes_refuses_the_file_not_the_server() -> None:
    """A worker dying mid-file (a segfault in a decoder) is a refusal naming the signal; the next file is decoded."""
    result: dict[str, str] = {}

    def decode() -> None:
        try:
            list(isolation.pages(nested_forms_pdf(12), budget=isolation.Budget(seconds=60.0)))
        except decoding.Refused as error:
            result["reason"] = str(error)

    isolation.close_workers()
    assert len(list(isolation.pages(encoded(good_page(8), "PNG")))) == 1  # one worker started, ready, idle
    (worker,) = _children()
    thread = threading.Thread(target=decode)
    thread.start()
    busy = _cpu_ticks(worker) + 20
    while _cpu_ticks(worker) < busy:  # the worker is rendering (for minutes)
        time.sleep(0.02)
    os.kill(worker, signal.SIGSEGV)
    thread.join(60)
    assert result == {"reason": "el archivo hizo fallar al lector de escaneos (señal 11): apartado sin leer"}
    assert len(list(isolation.pages(encoded(good_page(3), "PNG")))) == 1


def test_a_page_whose_reading_raises_does_not_stop_the_pages_after_it(tmp_path: Path) -> None:
    """The reader failing on one page (a bug, a database gone) leaves it unread with the reason, reads the others,
    and reads it on a later poll."""
    first, second = good_page(4), good_page(5)
    failing = {page_sha(first)}
    read: list[str] = []

    def reader(page: Page, gray: np.ndarray) -> list[dict[str, Any]]:
        if page.sha in failing:
            raise RuntimeError("la base de datos no responde")
        read.append(page.sha)
        return [{"status": "read"}]

    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    (inbox / "a.png").write_bytes(encoded(first, "PNG"))
    (inbox / "b.png").write_bytes(encoded(second, "PNG"))
    ingest = ingestor(tmp_path, read=reader)
    ingest.retry = 0.0
    assert [p.source for p in ingest.poll()] == ["b.png"]
    assert ingest.failures[page_sha(first)].reason == ("a.png, página 1: fallo al leerla (RuntimeError: la base de "
                                                       "datos no responde); se volverá a intentar")  # fmt: skip
    assert ingest.outcome("a.png") == {"state": "reading", "pages": 1, "read": 0}
    failing.clear()
    assert [p.source for p in ingest.poll()] == ["a.png"] and ingest.failures == {}
    assert read == [page_sha(second), page_sha(first)]


def test_a_page_whose_reading_raises_waits_longer_each_time(tmp_path: Path) -> None:
    def reader(page: Page, gray: np.ndarray) -> list[dict[str, Any]]:
        raise RuntimeError("fallo")

    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    (inbox / "a.png").write_bytes(encoded(good_page(6), "PNG"))
    ingest = ingestor(tmp_path, read=reader)
    ingest.retry = 60.0
    ingest.poll()
    ingest.poll()  # too soon: not tried again
    (failure,) = ingest.failures.values()
    assert failure.count == 1 and failure.next_try > time.monotonic() + 50


def test_fuzzed_files_each_end_read_or_refused_and_the_good_file_after_each_is_read(tmp_path: Path) -> None:
    """The pathological files and 120 seeded mutations: each ends read (its pages stored) or refused (kept, with
    a reason); a good file queued after each is read; nothing stays in the inbox and no poll raises."""
    cases = fixed_cases() + mutated_cases(SEED, 120)
    reader = Reader()
    ingest = ingestor(tmp_path, read=reader)
    inbox = tmp_path / "bandeja"
    ends: dict[str, int] = {"read": 0, "refused": 0}
    for number, (name, data, what) in enumerate(cases):
        good = good_page(10_000 + number)
        (inbox / f"{number:03d}-a-{name}").write_bytes(data)
        (inbox / f"{number:03d}-b-buena.png").write_bytes(encoded(good, "PNG"))
        ingest.poll()
        found = ingest.outcome(f"{number:03d}-a-{name}")
        assert found is not None and found["state"] in ("read", "refused"), (what, found)
        if found["state"] == "refused":
            assert found["reason"].startswith(f"{number:03d}-a-{name}: ") and len(found["reason"]) > len(name) + 12
            assert (tmp_path / "estado" / "refused" / f"{number:03d}-a-{name}").read_bytes() == data, what
        ends[found["state"]] += 1
        assert ingest.outcome(f"{number:03d}-b-buena.png") == {"state": "read", "pages": 1,
                                                               "results": [{"status": "read"}]}, what  # fmt: skip
        assert page_sha(good) in reader.read
        assert list(inbox.iterdir()) == []
    assert ends["refused"] >= len(fixed_cases()) - 2  # the shallow forms and the PNG named .pdf are read
    assert sum(ends.values()) == len(cases)


def test_no_decoder_at_all_refuses_nothing_the_file_waits_in_the_inbox(tmp_path: Path) -> None:
    """A worker that cannot start is the machine's fault, not the file's: the poll fails (the scanner's alert)."""

    def unavailable(data: bytes, limits: decoding.Limits) -> Any:
        raise isolation.Unavailable("el lector de escaneos no arranca (sin memoria)")
        yield

    inbox = tmp_path / "bandeja"
    inbox.mkdir()
    (inbox / "a.png").write_bytes(encoded(good_page(7), "PNG"))
    ingest = Ingestor(inbox, tmp_path / "estado", Reader(), decode=unavailable)
    with pytest.raises(isolation.Unavailable):
        ingest.poll()
    assert [p.name for p in inbox.iterdir()] == ["a.png"] and ingest.refused == []
