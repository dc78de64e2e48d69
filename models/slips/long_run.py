"""What a long training run of a slip network does besides training (issue 68): it saves, logs, stops and resumes.

The pattern of the board's run (``models.board.train``), whose checkpoint it uses (``models.board.checkpoint``: the
network, optimiser, schedule, torch's and the augmentation's random states, the epoch and the step inside it, numpy's
generator as it was before the epoch's draws, the data files, the log and the CPU seconds, written atomically).
A run is epochs of steps; each epoch draws its samples from the saved generator, so a resumed epoch draws the same
ones and skips the steps done (``train_epochs``). ``Saver`` saves the state every ``save_every`` seconds and when the
run must stop (``stop_after`` seconds after it started: a session's end); ``note`` logs a line beside the checkpoint.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from models.board.checkpoint import RunState, generator_at, save, settings_of

# where and how long a run runs, not what it is: a resumed run takes these from its command line
KEPT = ("resume", "grow", "threads", "save_every", "stop_after", "checkpoint", "out")

# an epoch's steps from the first given on: (the epoch's generator, first step, keep(steps done) -> go on)
#   -> (the steps' mean loss, whether the epoch finished)
EpochSteps = Callable[[np.random.Generator, int, Callable[[int], bool]], tuple[float, bool]]


def add_options(parser: argparse.ArgumentParser, checkpoint: Path, out: Path) -> None:
    """The options every long run has: where its state and candidate go, when it saves and stops."""
    parser.add_argument("--resume", action="store_true", help="go on from --checkpoint with its settings and data")
    parser.add_argument("--grow", action="store_true", help="at each epoch's start, add the cache's shards drawn since")
    parser.add_argument("--checkpoint", default=str(checkpoint), help="the run's state (its log beside it, .log)")
    parser.add_argument("--out", default=str(out), help="the candidate, exported after each epoch")
    parser.add_argument("--save-every", type=float, default=300.0, help="seconds between saves")
    parser.add_argument("--stop-after", type=float, default=0.0, help="stop (state saved) after so many seconds")
    parser.add_argument("--threads", type=int, default=1)


def resume_settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """With ``--resume``, the checkpoint's own settings in ``args`` but for those of ``KEPT``."""
    if not args.resume:
        return
    if not Path(args.checkpoint).is_file():
        parser.error(f"no checkpoint to resume: {args.checkpoint}")
    kept = {name: getattr(args, name) for name in KEPT}
    vars(args).update(settings_of(Path(args.checkpoint)), **kept)


def settings(args: argparse.Namespace) -> dict[str, object]:
    """The run's own settings, kept in its checkpoint."""
    return {k: v for k, v in vars(args).items() if k not in KEPT}


def saved_data(checkpoint: Path) -> list[str]:
    """The data files a checkpoint's run trains on, as named where it was saved."""
    return list(torch.load(checkpoint, weights_only=False)["run"]["data"])


def in_cache(saved: list[str], cache: Path, build: str) -> list[str]:
    """``saved`` data files, each looked for in ``cache`` when it is not where it was (another machine); an error
    naming the missing ones and the command (``build``) that draws them again."""
    found = [p if Path(p).is_file() else str(cache / Path(p).name) for p in saved]
    missing = [Path(p).name for p in found if not Path(p).is_file()]
    if missing:
        raise SystemExit(f"shards missing: {', '.join(missing)} ({build} draws them again, the same samples)")
    return found


def note(state: RunState, log: Path, line: str) -> None:
    """Print a log line, keep it in the run's state and in the log file."""
    stamped = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}"
    print(stamped, flush=True)
    state.log.append(stamped)
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(stamped + "\n")


class Saver:
    """Saves a run's state now and then, counts its CPU time, and says when it must stop."""

    def __init__(self, checkpoint: Path, state: RunState, parts: tuple[torch.nn.Module, torch.optim.Optimizer,
                 torch.optim.lr_scheduler.LRScheduler, torch.Generator], save_every: float, stop_after: float) -> None:  # fmt: skip
        self.checkpoint, self.state, self.parts = checkpoint, state, parts
        self.save_every, self.stop_after = save_every, stop_after
        self.started, self.saved, self.cpu = time.time(), time.time(), time.process_time()

    def cpu_hours(self) -> float:
        return (self.state.cpu_seconds + time.process_time() - self.cpu) / 3600

    def now(self) -> None:
        self.state.cpu_seconds += time.process_time() - self.cpu
        self.cpu, self.saved = time.process_time(), time.time()
        save(self.checkpoint, self.state, *self.parts)

    def keep(self, step: int) -> bool:
        """After ``step`` steps of the epoch: save if it is time; False when the run must stop (state saved)."""
        self.state.step = step
        stop = bool(self.stop_after) and time.time() - self.started >= self.stop_after
        if stop or time.time() - self.saved >= self.save_every:
            self.now()
        return not stop


def train_epochs(saver: Saver, log: Path, epochs: int, epoch_steps: EpochSteps, finished: Callable[[float], str],
                 grow: Callable[[], None] = lambda: None) -> bool:  # fmt: skip
    """Run the epochs left: ``grow()`` at an epoch's start, then its steps; after each, ``finished(mean loss)`` (its
    measurements and export; a log line) and a save. False when the run stopped before the end (state saved)."""
    state = saver.state
    while state.epoch < epochs:
        if not state.step:  # at an epoch's start only: a resumed epoch draws from the data it began with
            grow()
        rng = generator_at(state.epoch_rng)
        loss, done = epoch_steps(rng, state.step, saver.keep)
        if not done:
            note(state, log, f"stopped at epoch {state.epoch + 1} step {state.step}; go on with --resume")
            return False
        state.epoch, state.step, state.epoch_rng = state.epoch + 1, 0, rng.bit_generator.state
        measured = finished(loss)
        note(state, log, f"epoch {state.epoch}/{epochs}: loss {loss:.4f} {measured} cpu {saver.cpu_hours():.2f} h")
        saver.now()
    return True
