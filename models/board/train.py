"""Train the cell classifier: ``python -m models.board.train DATA.npz [DATA2.npz ...]``.

Fixed seeds, one thread unless ``--threads`` (the machine is shared); ``--device cuda`` trains on a
GPU (crops and augmentation there too; a GPU run is seeded but not bit-reproducible); ``--width`` scales the
network's channels (``net.CellNet``: 1.5 for the font model). Crops from ``make_data``; real
photo crops (from the training games only) are drawn ``--real-weight`` (4) times as often as
render crops. On-the-fly augmentation: shift, turn and scale (a finder's error,
tiles off-centre), per-channel gain and offset (light), blur and noise. Writes
``models/board/board_cells.onnx`` (via ``export``), ``labels.json`` and a log of
the epochs.
"""

from __future__ import annotations

import argparse
import copy
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from .export import export
from .net import CellNet

HERE = Path(__file__).resolve().parent
SEED = 2017


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """x: N x 3 x 40 x 40 in 0..1 -> the same, disturbed."""
    n, dev = x.shape[0], x.device  # ``gen`` lives on the crops' device
    angle = (torch.rand(n, generator=gen, device=dev) - 0.5) * 2 * math.radians(8)
    scale = 1 + (torch.rand(n, generator=gen, device=dev) - 0.5) * 0.16
    shift = (torch.rand(n, 2, generator=gen, device=dev) - 0.5) * 2 * (3.0 / 20)
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack([torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    gain = 1 + (torch.rand(n, 3, 1, 1, generator=gen, device=dev) - 0.5) * 0.4
    offset = (torch.rand(n, 1, 1, 1, generator=gen, device=dev) - 0.5) * 0.2
    contrast = 1 + (torch.rand(n, 1, 1, 1, generator=gen, device=dev) - 0.5) * 0.5
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * contrast + mean
    x = x * gain + offset
    blur = torch.rand(n, generator=gen, device=dev) < 0.25
    if blur.any():
        x[blur] = F.avg_pool2d(x[blur], 3, 1, 1, count_include_pad=False)
    x = x + torch.randn(x.shape, generator=gen, device=dev) * (torch.rand(n, 1, 1, 1, generator=gen, device=dev) * 0.04)
    return x.clamp(0, 1)


def load(paths: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xs, ys, ss = [], [], []
    for path in paths:
        data = np.load(path)
        xs.append(data["x"]); ys.append(data["y"]); ss.append(data["source"])
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ss)


def split_crops(source: np.ndarray, rng: np.random.Generator,
                real_weight: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Crop indices for training and validation (5 %), and each training crop's drawing
    probability (real photo crops, ``source == 1``, weighed ``real_weight``)."""
    order = rng.permutation(len(source))
    val, train = order[: len(source) // 20], order[len(source) // 20 :]
    weights = np.where(source[train] == 1, real_weight, 1.0)
    return train, val, weights / weights.sum()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data", nargs="+")
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--epoch-size", type=int, default=0, help="crops drawn per epoch (default: the training set's size)")
    parser.add_argument("--real-weight", type=float, default=4.0, help="how much more often a real photo crop is drawn")
    parser.add_argument("--out", default=str(HERE / "board_cells.onnx"))
    parser.add_argument("--seed", type=int, default=SEED, help="weights, draws and augmentation (another seed: a model trained apart)")
    parser.add_argument("--width", type=float, default=1.0, help="channels per layer, times the committed network's")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", help='"cuda" to train on a GPU')
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    device = torch.device(args.device)
    torch.backends.cudnn.benchmark = device.type == "cuda"
    gen = torch.Generator(device=device).manual_seed(args.seed)
    x, y, source = load(args.data)
    train, val, weights = split_crops(source, rng, args.real_weight)
    print(f"{len(train)} train crops ({int((source[train] == 1).sum())} real), {len(val)} validation", flush=True)
    model = CellNet(width=args.width).to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps_per_epoch = (args.epoch_size or len(train)) // args.batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=args.epochs * steps_per_epoch)
    xt = torch.from_numpy(x).permute(0, 3, 1, 2).to(device)  # N x 3 x 40 x 40 uint8
    yt = torch.from_numpy(y).to(device)
    start = time.time()
    for epoch in range(args.epochs):
        model.train()
        picks = rng.choice(train, size=steps_per_epoch * args.batch, p=weights)
        loss = train_epoch(model, optimiser, schedule, xt, yt, picks, args.batch, gen)
        accuracy = evaluate(model, xt[val], yt[val])
        print(f"epoch {epoch + 1}: loss {loss:.4f} val acc {accuracy:.4f} {time.time() - start:.0f}s", flush=True)
        export(copy.deepcopy(model).cpu(), Path(args.out))  # each epoch's: a run stopped early leaves its last
    print("exported", args.out, flush=True)


def train_epoch(model: CellNet, optimiser: torch.optim.Optimizer, schedule: torch.optim.lr_scheduler.LRScheduler,
                xt: torch.Tensor, yt: torch.Tensor, picks: np.ndarray, batch: int, gen: torch.Generator) -> float:
    """One pass over the crops ``picks`` (indices into ``xt``/``yt``) in batches; the mean loss."""
    steps = len(picks) // batch
    total = 0.0
    for step in range(steps):
        idx = torch.from_numpy(picks[step * batch : (step + 1) * batch]).to(xt.device)
        loss = F.cross_entropy(model(augment(xt[idx].float() / 255.0, gen)), yt[idx], label_smoothing=0.05)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        total += loss.item()
    return total / max(1, steps)


@torch.no_grad()
def evaluate(model: CellNet, x: torch.Tensor, y: torch.Tensor) -> float:
    model.eval()
    correct = 0
    for i in range(0, len(y), 1024):
        logits = model(x[i : i + 1024].float() / 255.0)
        correct += int((logits.argmax(1) == y[i : i + 1024]).sum())
    return correct / max(1, len(y))


if __name__ == "__main__":
    main()
