"""A long run of the line recogniser on the CPU (issue 68): ``python -m models.slips.line_run``.

Fine-tunes the committed recogniser (``from_onnx``: ``slip_recognizer.onnx`` back as a ``CRNN``, its batch norms
fitted on the first lines so that training starts where the committed model is), or with ``--init scratch`` trains a
new network of the same size from the run's seed, on the line cache (``line_cache``:
lines by the training writers only, drawn once outside the work tree), as ``train`` does: CTC loss, gradients
clipped at 5, AdamW, a one-cycle rate (a tenth of it rising) over ``--epochs`` of ``--epoch-size`` lines drawn at
random from the shards present, a batch of lines of similar width (``BUCKET`` batches' lines sorted by width). After
each epoch the network reads the validation lines of ``train.validation_set`` (calibration fonts and real characters,
never the benchmark's) and is exported to ``training_run/slip_recognizer.onnx`` (the candidate; the committed model is
left alone).

Its whole state (``long_run``) is saved to ``--checkpoint`` (``training_run/lines.pt``, committed) every
``--save-every`` seconds, with its log (``training_run/lines.log``); ``--resume`` goes on from it as if it had not
stopped; ``--grow`` adds, at an epoch's start, the shards drawn since; ``--stop-after S`` stops it, saved.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from models.board.checkpoint import RunState, restore
from vision.slips.tokens import TOKENS

from . import from_onnx, line_cache, long_run
from .crnn import CRNN
from .synth import Sample
from .train import collate, evaluate, validation_set

HERE = Path(__file__).resolve().parent
RUN = HERE / "training_run"
BUCKET = 16  # batches whose lines are sorted by width together (little padding)


class Shards:
    """The lines of cache shards, one after another: ``sample(i)`` is line ``i`` as ``train.collate`` takes it."""

    def __init__(self, paths: list[str]) -> None:
        if not paths:
            raise SystemExit("no training lines (python -m models.slips.line_cache build)")
        files = [np.load(p) for p in paths]
        self.ink = [f["ink"] for f in files]
        self.starts = [f["starts"] for f in files]
        self.tokens = [f["tokens"] for f in files]
        self.token_starts = [f["token_starts"] for f in files]
        self.where = [(k, i) for k, s in enumerate(self.starts) for i in range(len(s) - 1)]
        self.widths = np.array([int(self.starts[k][i + 1] - self.starts[k][i]) for k, i in self.where])

    def __len__(self) -> int:
        return len(self.where)

    def sample(self, index: int) -> Sample:
        k, i = self.where[index]
        image = self.ink[k][:, self.starts[k][i] : self.starts[k][i + 1]].astype(np.float32) / 255.0
        label = self.tokens[k][self.token_starts[k][i] : self.token_starts[k][i + 1]].astype(int).tolist()
        return Sample(image, label, "")


def batches_of(picks: np.ndarray, widths: np.ndarray, batch: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``picks`` (line indices) in batches: every ``BUCKET`` batches' lines sorted by width, those batches shuffled."""
    out: list[np.ndarray] = []
    for start in range(0, len(picks) - batch + 1, batch * BUCKET):
        chunk = picks[start : start + batch * BUCKET]
        chunk = chunk[np.argsort(widths[chunk], kind="stable")]
        group = [chunk[i : i + batch] for i in range(0, len(chunk) - batch + 1, batch)]
        out += [group[int(j)] for j in rng.permutation(len(group))]
    return out


def parse(argv: list[str]) -> argparse.Namespace:
    """The run's settings; ``--resume``: the checkpoint's own, but for where and how long it runs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="*", help="line shards instead of the line cache's")
    long_run.add_options(parser, RUN / "lines.pt", RUN / "slip_recognizer.onnx")
    parser.add_argument("--init", default=str(HERE / "slip_recognizer.onnx"),
                        help='the recogniser fine-tuned, or "scratch": a new network of the base size, its own seed\'s weights')
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--epoch-size", type=int, default=64_000, help="lines drawn per epoch")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2.5e-4, help="the one-cycle rate's peak (the sixteenth revision's)")
    parser.add_argument("--check-lines", type=int, default=200, help="validation lines read after each epoch")
    parser.add_argument("--seed", type=int, default=69)
    args = parser.parse_args(argv)
    long_run.resume_settings(parser, args)
    return args


def starting_network(init: str, lines: Shards) -> CRNN:
    """The recogniser ``init`` as PyTorch, its batch norms fitted on the first 256 training lines; ``"scratch"``: a new
    network of the committed one's size (weights drawn from the run's seed)."""
    if init == "scratch":
        return CRNN.sized(len(TOKENS), "base")
    model, biases = from_onnx.load(Path(init))
    samples = [lines.sample(i) for i in range(min(256, len(lines)))]
    from_onnx.fit_norms(model, biases, [collate(samples[i : i + 32])[0] for i in range(0, len(samples), 32)])
    return model


def export(model: CRNN, out: Path) -> None:
    """The network as the reader's ONNX model at ``out`` (``models.slips.export``)."""
    from .export import export as export_onnx

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        weights = Path(folder) / "crnn.pt"
        torch.save({k: v.detach().clone() for k, v in model.state_dict().items()}, weights)
        export_onnx(weights, out)


def run(args: argparse.Namespace) -> None:
    """Train (or go on training) as ``args`` say, the state saved to ``args.checkpoint`` now and then."""
    checkpoint, out = Path(args.checkpoint), Path(args.out)
    log = checkpoint.with_suffix(".log")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)  # the checkpoint keeps one; lines are not augmented here
    build = "python -m models.slips.line_cache build"
    data = long_run.in_cache(long_run.saved_data(checkpoint), line_cache.CACHE, build) if args.resume else (
        list(args.data) or [str(p) for p in line_cache.present()])
    state = RunState(long_run.settings(args), data, epoch_rng=np.random.default_rng(args.seed + 1).bit_generator.state)
    lines = [Shards(data)]
    if args.resume:  # a network shaped as the saved one (the recogniser it started from may be elsewhere or changed)
        model = CRNN.from_state(torch.load(checkpoint, weights_only=False)["model"])
    else:
        model = starting_network(args.init, lines[0])
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epoch_size // args.batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=args.epochs * steps, pct_start=0.1)
    if args.resume:
        state = restore(checkpoint, model, optimiser, schedule, gen)
        state.data = data
        long_run.note(state, log, f"resumed at epoch {state.epoch + 1} step {state.step}")
    held_out = validation_set(args.seed + 1000, args.check_lines) if args.check_lines else []
    long_run.note(state, log, f"{len(lines[0])} lines in {len(state.data)} files; {len(held_out)} validation lines")
    if not args.resume and held_out:
        long_run.note(state, log, "before: " + " ".join(f"{k} {v:.4f}" for k, v in evaluate(model, held_out).items()))
    saver = long_run.Saver(checkpoint, state, (model, optimiser, schedule, gen), args.save_every, args.stop_after)
    ctc = torch.nn.CTCLoss(blank=0, zero_infinity=True)

    def grow() -> None:
        grown = [str(p) for p in line_cache.present() if str(p) not in state.data] if args.grow else []
        if grown:
            state.data += grown
            lines[0] = Shards(state.data)
            long_run.note(state, log, f"grown by {', '.join(Path(p).name for p in grown)}: {len(lines[0])} lines")

    def epoch_steps(rng: np.random.Generator, first: int, keep: Callable[[int], bool]) -> tuple[float, bool]:
        batches = batches_of(rng.integers(0, len(lines[0]), steps * args.batch), lines[0].widths, args.batch, rng)
        model.train()
        total = 0.0
        for step in range(first, len(batches)):
            images, targets, inputs, lengths = collate([lines[0].sample(int(i)) for i in batches[step]])
            loss = ctc(model(images), targets, inputs, lengths)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimiser.step()
            schedule.step()
            total += loss.item()
            if not keep(step + 1):
                return total / max(1, step + 1 - first), False
        return total / max(1, len(batches) - first), True

    def finished(loss: float) -> str:
        measured = " ".join(f"{k} {v:.4f}" for k, v in evaluate(model, held_out).items()) if held_out else ""
        export(model, out)
        return measured

    if long_run.train_epochs(saver, log, args.epochs, epoch_steps, finished, grow):
        long_run.note(state, log, f"finished; candidate {out}")


if __name__ == "__main__":
    run(parse(sys.argv[1:]))
