"""Train the slip recogniser (CRNN + CTC) on synthesised slip lines, on the CPU or a GPU.

    .venv/bin/python -m models.slips.train [--steps 6000] [--out /tmp/veedor-slips]
    python3 -m models.slips.train --device cuda --workers 14 --minutes 7.3 --batch 64 \
        --model ft:base:3e-4:INIT.pt --model wide:wide:2e-3 ...   # several networks, one stream

Drawing lines is what limits a GPU run: ``--workers`` processes draw them and every
``--model`` trains on each batch. With ``--minutes`` the step count is set from the pace of
the warm-up steps and written to the log (rerun with ``--steps N --warm-up 600`` for the
same schedule); ``VEEDOR_CAPS_DIGITS`` says where the real characters are on a machine
without ``../shared``.

Lines are drawn by ``synth.make_sample`` with the training writers only: the Debian
handwriting fonts of ``handwriting.TRAIN_FONTS``, the Hershey faces of
``TRAIN_HERSHEY`` (jittered, elastic) and the *train* split of the real characters
(``handwriting.real_split``). Held-out fonts, faces and real characters are only
used by ``evaluate`` and the benchmark. Seeds are fixed (``--seed``): the same
command gives the same weights up to floating-point non-determinism of the threads.
Writes ``crnn.pt`` (state dict) and ``log.jsonl`` in ``--out``; then run
``models.slips.export`` to write the committed ONNX model.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset

from vision.slips.synthetic import unipen
from vision.slips.synthetic import handwriting as hw
from vision.slips.tokens import TOKENS, decode

from . import allographs, synth
from .crnn import CRNN

# the real characters (../shared beside the checkout; VEEDOR_CAPS_DIGITS where a training machine keeps them elsewhere)
REAL_ROOT = Path(os.environ.get("VEEDOR_CAPS_DIGITS", Path(__file__).resolve().parents[2].parent / "shared" / "data" / "handwriting" / "caps_digits"))
BUCKET = 16  # batches drawn at once and sorted by width, so a batch needs little padding


def training_pool(real_root: Path = REAL_ROOT, real_weight: int = 8, unipen_share: float = 0.0,
                  stroke_bend: float = 0.0) -> list[hw.Writer]:  # fmt: skip
    """The training writers: fonts, Hershey faces and the real characters' train split; with ``unipen_share``
    also the UNIPEN writers of the *train* part (``vision.slips.synthetic.unipen.split_of``), about that share of lines,
    their strokes bent by ``stroke_bend`` (``unipen.bent_strokes``)."""
    pool = hw.writers("train")
    if real_root.exists():
        pool += [hw.load_real_writer(real_root, "train")] * real_weight
    if unipen_share > 0 and unipen.available():
        found = unipen.writers("train")
        for writer in found:
            writer.bend = stroke_bend
        pens: list[hw.Writer] = list(found)
        repeat = max(1, round(len(pens) * (1 - unipen_share) / (unipen_share * len(pool))))
        pool = pool * repeat + pens
    return pool


class Lines(IterableDataset[list[synth.Sample]]):
    """An endless stream of batches of similar width; worker ``i`` draws from seed + i."""

    def __init__(self, seed: int, batch: int, slip_share: float = 0.0, emphasis: synth.Emphasis = synth.Emphasis(),
                 unipen_share: float = 0.0, grid_share: float = 0.0, stroke_bend: float = 0.0) -> None:  # fmt: skip
        self.seed, self.batch, self.slip_share, self.emphasis = seed, batch, slip_share, emphasis
        self.unipen_share, self.grid_share, self.stroke_bend = unipen_share, grid_share, stroke_bend

    def sample(self, rng: np.random.Generator, words: list[str], pool: list[hw.Writer]) -> synth.Sample:
        """A word from an absolute slip's board (``grid_share``), a play line cut from a slip (``slip_share``
        of the rest) or any line."""
        if rng.random() < self.grid_share:
            return synth.make_grid_sample(rng, words, pool, self.emphasis)
        if rng.random() < self.slip_share:
            return synth.make_slip_sample(rng, words, pool, self.emphasis)
        return synth.make_sample(rng, words, pool, emphasis=self.emphasis)

    def __iter__(self) -> Iterator[list[synth.Sample]]:
        info = torch.utils.data.get_worker_info()
        if info is not None:
            cv2.setNumThreads(1)  # one core per worker
        rng = np.random.default_rng(self.seed + (info.id if info else 0))
        words, pool = synth.load_words(), training_pool(unipen_share=self.unipen_share, stroke_bend=self.stroke_bend)
        while True:
            samples = [self.sample(rng, words, pool) for _ in range(self.batch * BUCKET)]
            samples.sort(key=lambda s: s.image.shape[1])
            batches = [samples[i : i + self.batch] for i in range(0, len(samples), self.batch)]
            for j in rng.permutation(len(batches)):
                yield batches[int(j)]


def collate(samples: list[synth.Sample]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(images (B,1,32,Wmax) zero-padded, targets (sum L), input lengths (B), target lengths (B))."""
    width = max(s.image.shape[1] for s in samples)
    width += (-width) % 4
    images = np.zeros((len(samples), 1, 32, width), np.float32)
    for i, s in enumerate(samples):
        images[i, 0, :, : s.image.shape[1]] = s.image
    targets = torch.tensor([t for s in samples for t in s.label], dtype=torch.long)
    inputs = torch.tensor([s.image.shape[1] // 4 for s in samples], dtype=torch.long)
    lengths = torch.tensor([len(s.label) for s in samples], dtype=torch.long)
    return torch.from_numpy(images), targets, inputs, lengths


def greedy(log_probs: np.ndarray) -> str:
    """Best-path CTC decoding of (T, C) log-probabilities."""
    best = log_probs.argmax(-1)
    keep = [int(c) for i, c in enumerate(best) if c != 0 and (i == 0 or c != best[i - 1])]
    return decode(keep)


def validation_set(seed: int, count: int) -> list[synth.Sample]:
    """Fixed lines to follow training: half by the calibration fonts/faces, half from the calibration
    part of the real characters (the benchmark's hands are never looked at while training)."""
    rng = np.random.default_rng(seed)
    words = synth.load_words(seed=seed + 1, limit=20_000)
    synthetic = hw.writers("calibration")
    real = [hw.load_real_writer(REAL_ROOT, "calibration")] if REAL_ROOT.exists() else synthetic
    return [synth.make_sample(rng, words, synthetic if i % 2 else real) for i in range(count)]


def evaluate(model: CRNN, samples: list[synth.Sample]) -> dict[str, float]:
    """Line accuracy (exact text) on ``samples``, split by odd (synthetic) / even (real) index."""
    model.eval()
    device = next(model.parameters()).device
    right = [0, 0]
    with torch.no_grad():
        for i, s in enumerate(samples):
            out = model(torch.from_numpy(s.image)[None, None].to(device))[:, 0].cpu().numpy()
            right[i % 2] += greedy(out) == s.text
    model.train()
    half = max(1, len(samples) // 2)
    return {"real": right[0] / half, "synthetic": right[1] / half}


@dataclass
class Run:
    """One network trained on the shared stream of lines: ``name:size:lr[:init]`` on the command line
    (with ``init`` the saved weights' own shapes are used, whatever ``size`` says)."""

    name: str
    model: CRNN
    optimiser: torch.optim.Optimizer
    lr: float
    schedule: torch.optim.lr_scheduler.LRScheduler | None = None
    entropy: float = 0.0  # weight of the frames' mean entropy, subtracted from the loss (``--entropy``)

    @classmethod
    def parse(cls, spec: str, device: torch.device, entropy: float = 0.0) -> Run:
        name, size, lr, *init = spec.split(":", 3)
        model = CRNN.from_state(torch.load(init[0], map_location="cpu")) if init else CRNN.sized(len(TOKENS), size)
        model.to(device)
        optimiser = torch.optim.AdamW(model.parameters(), lr=float(lr), weight_decay=1e-4)
        return cls(name, model, optimiser, float(lr), entropy=entropy)

    def start(self, steps: int) -> None:
        self.schedule = torch.optim.lr_scheduler.OneCycleLR(self.optimiser, self.lr, total_steps=steps, pct_start=0.1)

    def step(self, ctc: torch.nn.CTCLoss, batch: tuple[torch.Tensor, ...]) -> float:
        images, targets, inputs, lengths = batch
        log_probs = self.model(images)
        loss = ctc(log_probs, targets, inputs, lengths)
        if self.entropy:
            loss = loss - self.entropy * frame_entropy(log_probs, inputs)
        self.optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
        self.optimiser.step()
        if self.schedule is not None:
            self.schedule.step()
        return float(loss.item())


def frame_entropy(log_probs: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    """Mean entropy (nats) of the (T, B, C) output over each line's own frames (``inputs`` of them): a
    bonus for it keeps the recogniser from being sure where lines disagree (maximum-entropy CTC)."""
    entropy = -(log_probs.exp() * log_probs).sum(-1)
    frames = torch.arange(log_probs.shape[0], device=log_probs.device)[:, None] < inputs[None, :]
    return (entropy * frames).sum() / frames.sum().clamp(min=1)


# Steps before the one-cycle schedule when --minutes asks for a timed run. The pace is timed on the
# second half only: the first batches come from what the workers drew ahead (16 batches each at
# first, BUCKET), which once made a 120-step warm-up read the pace 35 % too fast.
WARM_UP = 600


def warm_up(runs: list[Run], batches: Iterator[tuple[torch.Tensor, ...]], ctc: torch.nn.CTCLoss, count: int) -> float:
    """Train ``count`` steps at the schedule's starting rate (a 25th of the peak); seconds per step
    over the second half, 0 when ``count`` < 2."""
    for run in runs:
        for group in run.optimiser.param_groups:
            group["lr"] = run.lr / 25
    start = 0.0
    for step in range(count):
        start = time.time() if step == count // 2 else start
        batch = next(batches)
        for run in runs:
            run.step(ctc, batch)
    return (time.time() - start) / (count - count // 2) if count > 1 else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--minutes", type=float, help="instead of --steps: as many steps as fit in this time at the "
                        "pace of the warm-up (the log says how many; rerun with --steps for the same weights)")  # fmt: skip
    parser.add_argument("--stop-at", type=int, help="save and stop after this step of the schedule (a run cut short)")
    parser.add_argument("--warm-up", type=int, default=0, help=f"steps before the schedule ({WARM_UP} with --minutes)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes drawing lines")
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--out", type=Path, default=Path("/tmp/veedor-slips"))
    parser.add_argument("--init", type=Path, help="start from these weights (a fine-tuning run)")
    parser.add_argument("--model", action="append", default=[],
                        help="name:size:lr[:init], repeatable: several networks trained on the same lines, "
                        "each saved as <name>.pt (default: crnn, base size, --lr, --init)")  # fmt: skip
    parser.add_argument("--slip-share", type=float, default=0.0, help="share of lines cut as from a slip")
    parser.add_argument("--grid-share", type=float, default=0.0,
                        help="share of lines taken from an absolute slip's board (a board recogniser)")
    parser.add_argument("--confusable", type=float, default=0.0, help="share of words stressing confusable tiles")
    parser.add_argument("--circled", type=float, default=0.35, help="share of play lines with circled blanks")
    parser.add_argument("--mixed-writers", type=float, default=0.0, help="share of lines mixing writers per glyph")
    parser.add_argument("--warped", type=float, default=0.0, help="share of lines whose glyphs are each warped anew")
    parser.add_argument("--allographs", type=float, default=0.0,
                        help="share of lines with characters drawn in shapes hands use and fonts lack")
    parser.add_argument("--allograph-chars", default=allographs.ALL_CHARS,
                        help="which characters --allographs draws in those shapes")
    parser.add_argument("--unipen-share", type=float, default=0.0,
                        help="share of lines written by UNIPEN writers of the train part (real pen strokes)")
    parser.add_argument("--stroke-bend", type=float, default=0.0,
                        help="UNIPEN writers' strokes bent anew per glyph, 0..1 (unipen.bent_strokes)")
    parser.add_argument("--entropy", type=float, default=0.0,
                        help="weight of the output's mean frame entropy subtracted from the CTC loss")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    device = torch.device(args.device)
    specs = args.model or [f"crnn:base:{args.lr}" + (f":{args.init}" if args.init else "")]
    runs = [Run.parse(spec, device, args.entropy) for spec in specs]
    emphasis = synth.Emphasis(args.confusable, args.circled, args.mixed_writers, args.warped, args.allographs,
                              args.allograph_chars)
    ctc = torch.nn.CTCLoss(blank=0, zero_infinity=True)
    lines = Lines(args.seed, args.batch, args.slip_share, emphasis, args.unipen_share, args.grid_share,
                  args.stroke_bend)
    loader = DataLoader(lines, batch_size=None, num_workers=args.workers, collate_fn=collate, prefetch_factor=4,
                        persistent_workers=True)  # fmt: skip
    batches = (tuple(t.to(device, non_blocking=True) for t in batch) for batch in loader)
    pace = warm_up(runs, batches, ctc, args.warm_up or (WARM_UP if args.minutes else 0))
    steps = int(args.minutes * 60 / pace) if args.minutes else args.steps
    for run in runs:
        run.start(steps)
    held_out = validation_set(args.seed + 1000, 400)
    log = open(args.out / "log.jsonl", "a")
    log.write(json.dumps({"steps": steps, "seconds_per_step": round(pace, 4), "models": specs}) + "\n")
    start, running = time.time(), [0.0] * len(runs)
    last = min(steps, args.stop_at or steps)
    for step in range(1, last + 1):
        batch = next(batches)
        for i, run in enumerate(runs):
            loss = run.step(ctc, batch)
            running[i] = 0.98 * running[i] + 0.02 * loss if step > 1 else loss
        if step % max(500, steps // 8) == 0 or step == last:
            for i, run in enumerate(runs):
                record = {"model": run.name, "step": step, "loss": round(running[i], 4),
                          "minutes": round((time.time() - start) / 60, 1)}  # fmt: skip
                if step == last or device.type == "cpu":
                    record.update(evaluate(run.model, held_out))
                log.write(json.dumps(record) + "\n")
                log.flush()
                print(json.dumps(record), flush=True)
                name = "crnn" if not args.model else run.name
                torch.save({k: v.cpu() for k, v in run.model.state_dict().items()}, args.out / f"{name}.pt")


if __name__ == "__main__":
    main()
