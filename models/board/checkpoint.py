"""A training run's whole state in one file, so that a run stopped anywhere goes on (issue 69).

``save`` writes, atomically (a temporary file renamed), the network's and the optimiser's and the
schedule's state, where the run is (``epoch``, ``step`` inside it), the random states that decide
what comes next (numpy's generator as it was when the epoch's crops were drawn, torch's global one
and the augmentation's generator as they are now), the run's settings, its data (shard names), its
log lines and the CPU seconds spent, and the running mean of the weights at the ends of the schedule's last epochs
(``average``, ``RunState.averaged`` of them; ``train --average-from``). ``restore`` puts them back: the same epoch's crops are drawn
again from the saved generator and the steps already done are skipped, so a run resumed on the same
data continues as if it had not stopped (on one thread).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch


@dataclass
class RunState:
    """Where a run is, besides its network and optimiser."""

    settings: dict[str, Any]
    data: list[str]
    epoch: int = 0  # epochs finished
    step: int = 0  # steps of the current epoch finished
    epoch_rng: dict[str, Any] = field(default_factory=dict)  # numpy's generator before the epoch's draws
    cpu_seconds: float = 0.0
    log: list[str] = field(default_factory=list)
    averaged: int = 0  # epochs' ends in the running mean of the weights (``train --average-from``)


def save(path: Path, state: RunState, model: torch.nn.Module, optimiser: torch.optim.Optimizer,
         schedule: torch.optim.lr_scheduler.LRScheduler, gen: torch.Generator,
         average: dict[str, torch.Tensor] | None = None) -> None:  # fmt: skip
    """Write the run's state to ``path`` (a ``.partial`` file renamed over it), with the weights' running mean."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    torch.save({
        "run": state.__dict__,
        "model": model.state_dict(),
        "optimiser": optimiser.state_dict(),
        "schedule": schedule.state_dict(),
        "torch_rng": torch.get_rng_state(),
        "augment_rng": gen.get_state(),
        "average": average,
    }, partial)
    os.replace(partial, path)


def restore(path: Path, model: torch.nn.Module, optimiser: torch.optim.Optimizer,
            schedule: torch.optim.lr_scheduler.LRScheduler, gen: torch.Generator) -> RunState:
    """Load ``path`` into the network, optimiser, schedule and generators; the run's state."""
    saved = torch.load(path, weights_only=False)
    model.load_state_dict(saved["model"])
    optimiser.load_state_dict(saved["optimiser"])
    schedule.load_state_dict(saved["schedule"])
    torch.set_rng_state(saved["torch_rng"])
    gen.set_state(saved["augment_rng"])
    return RunState(**saved["run"])


def average_of(path: Path) -> dict[str, torch.Tensor] | None:
    """The running mean of the weights a checkpoint keeps (None: none yet, or a checkpoint from before it)."""
    return torch.load(path, weights_only=False).get("average")


def settings_of(path: Path) -> dict[str, Any]:
    """The settings a checkpoint was started with (to build the same network before ``restore``)."""
    return dict(torch.load(path, weights_only=False)["run"]["settings"])


def generator_at(state: dict[str, Any]) -> np.random.Generator:
    """A numpy generator in a saved state."""
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    return rng
