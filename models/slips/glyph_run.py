"""A long run of the glyph classifier on the CPU (issue 68): ``python -m models.slips.glyph_run``.

Fine-tunes the committed classifier's member networks (``glyph_members``: ``glyph_recognizer.onnx``, two
``SquareNet``s read together) on the glyph cache (``glyph_cache``: windows of play lines by the training writers
only, drawn once outside the work tree), both on the same batches, as ``train_squares`` trains one: each batch
moved, turned, sheared and some thickened, the letter's loss plus half the circle's, AdamW, a one-cycle rate over
``--epochs`` of ``--epoch-size`` windows drawn at random from the shards present; the batch norms keep their
statistics (``glyph_members.freeze_norms``). After each epoch the members are measured on windows by the
calibration hands (``CHECKS``: never trained on, never the benchmark's test hands) and exported together to
``training_run/glyph_recognizer.onnx`` (the candidate; the committed model is left alone).

The run's whole state (``long_run``, ``models.board.checkpoint``: weights, optimiser, schedule, the random states, the epoch
and the step inside it, the shards) is saved to ``--checkpoint`` (``training_run/glyphs.pt``, committed) every
``--save-every`` seconds, atomically, with its log (``training_run/glyphs.log``). ``--resume`` goes on from it
with its own settings and data as if it had not stopped; ``--grow`` adds, at an epoch's start, the shards drawn
since; ``--stop-after S`` stops it, saved, after S seconds. The log counts the CPU hours spent.
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from models.board.checkpoint import RunState, restore
from vision.slips import glyphs

from . import glyph_cache, glyph_members, long_run, synth
from .square_net import SquareNet, widths_of
from .train_squares import _augment

HERE = Path(__file__).resolve().parent
RUN = HERE / "training_run"
CLASSES = glyph_members.CLASSES
CHECKS = ("synthetic-calibration", "real-calibration", "unipen-calibration")  # hands measured, never trained on


class Members(nn.Module):
    """The classifier's networks side by side: (B, 1, 32, 32) -> (members, B, classes + 2) log-probabilities."""

    def __init__(self, nets: list[nn.Module]) -> None:
        super().__init__()
        self.nets = nn.ModuleList(nets)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([net(x) for net in self.nets])

    @classmethod
    def shaped_as(cls, state: dict[str, torch.Tensor]) -> Members:
        """Networks of the shapes of a saved ``Members``' weights (``state``), to load them into."""
        count = 1 + max(int(key.split(".")[1]) for key in state)
        nets = [SquareNet(widths_of({k.split(".", 2)[2]: v for k, v in state.items() if k.startswith(f"nets.{i}.")}),
                          classes=CLASSES) for i in range(count)]  # fmt: skip
        return cls(list(nets))


def parse(argv: list[str]) -> argparse.Namespace:
    """The run's settings; ``--resume``: the checkpoint's own, but for where and how long it runs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="*", help="window files (X, L, C) instead of the glyph cache's shards")
    long_run.add_options(parser, RUN / "glyphs.pt", RUN / "glyph_recognizer.onnx")
    parser.add_argument("--init", default=str(glyphs.GLYPH_MODEL), help="the classifier whose members are fine-tuned")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--epoch-size", type=int, default=200_000, help="windows drawn per epoch")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3, help="the one-cycle rate's peak")
    parser.add_argument("--check-lines", type=int, default=150, help="lines per calibration set measured each epoch")
    parser.add_argument("--seed", type=int, default=68)
    args = parser.parse_args(argv)
    long_run.resume_settings(parser, args)
    return args


def load(paths: list[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Windows (N, 32, 32) uint8, glyph classes and circles of the files ``paths``."""
    parts = [np.load(p) for p in paths]
    if not parts:
        raise SystemExit("no glyph windows to train on (python -m models.slips.glyph_cache build)")
    return (torch.from_numpy(np.concatenate([p["X"] for p in parts])),
            torch.from_numpy(np.concatenate([p["L"] for p in parts]).astype(np.int64)),
            torch.from_numpy(np.concatenate([p["C"] for p in parts]).astype(np.int64)))  # fmt: skip


def check_windows(lines: int, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Windows of ``lines`` play lines per calibration set (``CHECKS``), placed as in training, with their classes."""
    from .cases import writers_for
    from .train_glyphs import _line

    words, emphasis = synth.load_words(seed=seed, limit=20_000), synth.Emphasis(circled=0.45)
    found = {}
    for part in CHECKS if lines else ():
        rng, pool = np.random.default_rng(seed), writers_for(part)
        cut = [item for _ in range(lines) for item in synth.line_glyphs(_line(rng, words, pool, emphasis), None)]
        found[part] = (np.stack([w for w, _, _ in cut]).astype(np.float32), np.array([g for _, g, _ in cut]))
    return found


def measure(members: Members, checks: dict[str, tuple[np.ndarray, np.ndarray]]) -> str:
    """Glyphs right per calibration set, each member alone and read together (mean probability)."""
    members.eval()
    parts = []
    with torch.no_grad():
        for part, (x, y) in checks.items():
            out = members(torch.from_numpy(x)[:, None])[:, :, :CLASSES]
            each = [float((o.argmax(1).numpy() == y).mean()) for o in out]
            both = float((out.exp().mean(0).argmax(1).numpy() == y).mean())
            parts.append(f"{part} {both:.4f} ({' '.join(f'{e:.4f}' for e in each)})")
    glyph_members.freeze_norms(members)
    return ", ".join(parts)


def steps_of(members: Members, optimiser: torch.optim.Optimizer, schedule: torch.optim.lr_scheduler.LRScheduler,
             data: tuple[torch.Tensor, ...], picks: np.ndarray, batch: int, gen: torch.Generator, first: int,
             keep: Callable[[int], bool]) -> tuple[float, bool]:  # fmt: skip
    """An epoch's steps from ``first`` on (``keep(steps done)`` after each: False stops it); the steps' mean loss
    (both members') and whether the epoch finished."""
    images, letters, circled = data
    steps, total = len(picks) // batch, 0.0
    for step in range(first, steps):
        pick = torch.from_numpy(picks[step * batch : (step + 1) * batch])
        out = members(_augment(images[pick].float().unsqueeze(1) / 255.0, gen))
        loss = sum(F.nll_loss(o[:, :CLASSES], letters[pick]) + 0.5 * F.nll_loss(o[:, CLASSES:], circled[pick]) for o in out)
        optimiser.zero_grad()
        loss.backward()  # type: ignore[union-attr]
        optimiser.step()
        schedule.step()
        total += loss.item()  # type: ignore[union-attr]
        if not keep(step + 1):
            return total / max(1, step + 1 - first), False
    return total / max(1, steps - first), True


def export(members: Members, out: Path) -> None:
    """The members as one ONNX classifier (``train_glyphs.ensemble``) at ``out``."""
    from .train_glyphs import ensemble
    from .train_glyphs import export as export_one

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, net in enumerate(copy.deepcopy(members).nets):
            weights, path = Path(folder) / f"m{i}.pt", Path(folder) / f"m{i}.onnx"
            torch.save(net.state_dict(), weights)
            export_one(weights, path)
            paths.append(path)
        ensemble(paths, out)


def run(args: argparse.Namespace) -> None:
    """Train (or go on training) as ``args`` say, the state saved to ``args.checkpoint`` now and then."""
    checkpoint, out = Path(args.checkpoint), Path(args.out)
    log = checkpoint.with_suffix(".log")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    build = "python -m models.slips.glyph_cache build"
    data = long_run.in_cache(long_run.saved_data(checkpoint), glyph_cache.CACHE, build) if args.resume else (
        list(args.data) or [str(s.path) for s in glyph_cache.present()])
    state = RunState(long_run.settings(args), data, epoch_rng=np.random.default_rng(args.seed + 1).bit_generator.state)
    if args.resume:  # networks shaped as the saved ones (the classifier it started from may be elsewhere or changed)
        members = Members.shaped_as(torch.load(checkpoint, weights_only=False)["model"])
    else:
        members = Members(glyph_members.load(Path(args.init)))
    optimiser = torch.optim.AdamW(members.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epoch_size // args.batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=args.epochs * steps, pct_start=0.15)
    if args.resume:
        state = restore(checkpoint, members, optimiser, schedule, gen)
        state.data = data  # where this machine keeps them
        long_run.note(state, log, f"resumed at epoch {state.epoch + 1} step {state.step}")
    windows = [load(state.data)]
    checks = check_windows(args.check_lines, args.seed + 2)
    long_run.note(state, log, f"{len(windows[0][0])} windows in {len(state.data)} files; checks "
                  + ", ".join(f"{k} {len(v[1])}" for k, v in checks.items()))  # fmt: skip
    if not args.resume and checks:
        long_run.note(state, log, f"before: {measure(members, checks)}")
    saver = long_run.Saver(checkpoint, state, (members, optimiser, schedule, gen), args.save_every, args.stop_after)

    def grow() -> None:
        grown = [str(s.path) for s in glyph_cache.present() if str(s.path) not in state.data] if args.grow else []
        if grown:
            state.data += grown
            windows[0] = load(state.data)
            long_run.note(state, log, f"grown by {', '.join(Path(p).name for p in grown)}: {len(windows[0][0])} windows")

    def epoch_steps(rng: np.random.Generator, first: int, keep: Callable[[int], bool]) -> tuple[float, bool]:
        picks = rng.integers(0, len(windows[0][0]), steps * args.batch)
        return steps_of(members, optimiser, schedule, windows[0], picks, args.batch, gen, first, keep)

    def finished(loss: float) -> str:
        measured = measure(members, checks)
        export(members, out)
        return measured

    glyph_members.freeze_norms(members)
    if long_run.train_epochs(saver, log, args.epochs, epoch_steps, finished, grow):
        long_run.note(state, log, f"finished; candidate {out}")


if __name__ == "__main__":
    run(parse(sys.argv[1:]))
