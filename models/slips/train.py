"""Train the slip recogniser (CRNN + CTC) on synthesised slip lines, on the CPU.

    .venv/bin/python -m models.slips.train [--steps 6000] [--out /tmp/veedor-slips]

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
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset

from vision.slips import handwriting as hw
from vision.slips.tokens import TOKENS, decode

from . import synth
from .crnn import CRNN

REAL_ROOT = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "handwriting" / "caps_digits"
BUCKET = 16  # batches drawn at once and sorted by width, so a batch needs little padding


def training_pool(real_root: Path = REAL_ROOT, real_weight: int = 8) -> list[hw.Writer]:
    """The training writers: fonts, Hershey faces and the real characters' train split."""
    pool = hw.writers("train")
    if real_root.exists():
        pool += [hw.load_real_writer(real_root, "train")] * real_weight
    return pool


class Lines(IterableDataset[list[synth.Sample]]):
    """An endless stream of batches of similar width; worker ``i`` draws from seed + i."""

    def __init__(self, seed: int, batch: int, slip_share: float = 0.0, emphasis: synth.Emphasis = synth.Emphasis()) -> None:
        self.seed, self.batch, self.slip_share, self.emphasis = seed, batch, slip_share, emphasis

    def __iter__(self) -> Iterator[list[synth.Sample]]:
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng(self.seed + (info.id if info else 0))
        words, pool = synth.load_words(), training_pool()
        while True:
            samples = [
                synth.make_slip_sample(rng, words, pool, self.emphasis) if rng.random() < self.slip_share
                else synth.make_sample(rng, words, pool, emphasis=self.emphasis)
                for _ in range(self.batch * BUCKET)
            ]
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
    right = [0, 0]
    with torch.no_grad():
        for i, s in enumerate(samples):
            out = model(torch.from_numpy(s.image)[None, None])[:, 0].numpy()
            right[i % 2] += greedy(out) == s.text
    model.train()
    half = max(1, len(samples) // 2)
    return {"real": right[0] / half, "synthetic": right[1] / half}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("/tmp/veedor-slips"))
    parser.add_argument("--init", type=Path, help="start from these weights (a fine-tuning run)")
    parser.add_argument("--slip-share", type=float, default=0.0, help="share of lines cut as from a slip")
    parser.add_argument("--confusable", type=float, default=0.0, help="share of words stressing confusable tiles")
    parser.add_argument("--circled", type=float, default=0.35, help="share of play lines with circled blanks")
    parser.add_argument("--mixed-writers", type=float, default=0.0, help="share of lines mixing writers per glyph")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    model = CRNN(len(TOKENS))
    if args.init:
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
    emphasis = synth.Emphasis(args.confusable, args.circled, args.mixed_writers)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=args.steps, pct_start=0.1)
    ctc = torch.nn.CTCLoss(blank=0, zero_infinity=True)
    loader = DataLoader(Lines(args.seed, args.batch, args.slip_share, emphasis), batch_size=None, num_workers=1, collate_fn=collate,
                        prefetch_factor=4, persistent_workers=True)  # fmt: skip
    held_out = validation_set(args.seed + 1000, 400)
    log = open(args.out / "log.jsonl", "a")
    start, running = time.time(), 0.0
    for step, (images, targets, inputs, lengths) in enumerate(loader, start=1):
        loss = ctc(model(images), targets, inputs, lengths)
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimiser.step()
        schedule.step()
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 500 == 0 or step == args.steps:
            record = {"step": step, "loss": round(running, 4), "minutes": round((time.time() - start) / 60, 1)}
            record.update(evaluate(model, held_out))
            log.write(json.dumps(record) + "\n")
            log.flush()
            print(json.dumps(record), flush=True)
            torch.save(model.state_dict(), args.out / "crnn.pt")
        if step >= args.steps:
            break


if __name__ == "__main__":
    main()
