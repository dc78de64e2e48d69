"""``veedor read-move --batch FILE --learn``: play fields read in a tournament's order, learning the room (issue 68).

Each line of the batch is ``{"image": PATH, "cgp": CGP}`` and may carry ``"player"`` (the player who wrote it: the
QR code's), ``"slip"`` (the slip's id; the image's path by default) and ``"truth"``: ``{"play": "H8 CASA" or null,
"score": N}``, what the arbiter decides if the reader flags the slip. The lines are read in order; the output line of
each is decided (and printed) before its truth is looked at; then, if the reader flagged it, the truth is taken as the
arbiter's decision and learned from (``vision.slips.room.RoomReader.settle``; ``"play": null`` teaches nothing). An
accepted slip sure enough teaches at once. What is learned lives in memory for the run, or in ``--learned DIR`` (the
tournament's folder, ``vision.slips.learning.GlyphMemory``), where a later run finds it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rules_core.cgp import Position


class BatchLineError(ValueError):
    """A batch line that is not what ``--learn`` reads: the file and line are named."""


@dataclass(frozen=True)
class LearnJob:
    """One line of a learning batch (module docstring)."""

    image: Path
    cgp: str
    player: str | None
    slip: str
    truth: str | None  # the play the arbiter decides: a legal play's notation, or what was written (scored 0)
    has_truth: bool


def learn_jobs(batch: Path) -> Iterator[LearnJob]:
    """The lines of ``batch`` in order; ``BatchLineError`` names a malformed one."""
    if not batch.exists():
        raise BatchLineError(f"{batch}: no existe")
    for number, line in enumerate(batch.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            yield _job(_parse(batch, number, line), batch, number)


def _parse(batch: Path, number: int, line: str) -> dict[str, Any]:
    try:
        job = json.loads(line)
    except json.JSONDecodeError:
        job = None
    if not isinstance(job, dict) or not isinstance(job.get("image"), str) or not isinstance(job.get("cgp"), str):
        raise BatchLineError(f'{batch}:{number}: se espera {{"image": RUTA, "cgp": CGP}}')
    return job


def _job(job: dict[str, Any], batch: Path, number: int) -> LearnJob:
    player, truth = job.get("player"), job.get("truth")
    if player is not None and not isinstance(player, str):
        raise BatchLineError(f"{batch}:{number}: \"player\" debe ser un texto")
    if truth is not None and not (isinstance(truth, dict) and "play" in truth and "score" in truth
                                  and (truth["play"] is None or isinstance(truth["play"], str))
                                  and isinstance(truth["score"], int)):  # fmt: skip
        raise BatchLineError(f'{batch}:{number}: "truth" debe ser {{"play": JUGADA o null, "score": N}}')
    slip = job.get("slip", job["image"])
    return LearnJob(Path(job["image"]), job["cgp"], player, str(slip), truth["play"] if truth else None, truth is not None)


def run_learning_batch(batch: Path, learned: Path | None, reader: Any, read_image: Callable[[Path], np.ndarray],
                       emit: Callable[[dict[str, Any]], None]) -> None:  # fmt: skip
    """Read ``batch`` in order with a ``RoomReader`` over ``reader`` (a ``SlipReader``), ``emit`` each result before its
    truth is used, then settle flagged slips with it (module docstring). Errors: ``BatchLineError``, ``CGPError``,
    ``ModelError``, ``LearningError``, and ``read_image``'s."""
    from vision.slips.learning import GlyphMemory
    from vision.slips.room import RoomReader

    room = RoomReader(reader, GlyphMemory(learned))
    for job in learn_jobs(batch):
        position = Position.from_cgp(job.cgp)
        decision = room.read_move(read_image(job.image), position.board, position.rack, job.player, job.slip)
        emit({**decision.to_json(), "image": str(job.image)})
        if decision.verdict == "flagged" and job.has_truth:
            room.settle(job.slip, job.truth)
