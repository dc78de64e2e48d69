"""Train the spoilt-box network (``vision.slips.spoilt``) on boxes from ``spoilt_data.py``; export it to ONNX.

    python -m models.slips.train_spoilt train1.pkl train2.pkl --epochs 10 --out models/slips/spoilt_boxes.onnx

The network: four 3x3 convolutions (16, 32, 48, 64 channels; batch norm, ReLU, 2x2 max pooling each), a (2, 5)
convolution over what is left of the box's height, then the maximum and the mean over the box's width, and one
logit (crossed out or not). Boxes of one kind per batch (coordinate boxes 32 x 56, word boxes 32 x 186), scaled
0.85-1.15 in width, moved up to 4 px and their ink scaled 0.7-1.2. AdamW, one-cycle learning rate to 3e-3,
batch 64; seeded, two CPU threads (about a minute an epoch on 48 k boxes).
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

BATCH = 64


class SpoiltNet(nn.Module):
    """(N, 1, 32, W) ink -> (N,) logits; W at least 16."""

    def __init__(self) -> None:
        super().__init__()
        channels = [1, 16, 32, 48, 64]
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 3, padding=1) for a, b in itertools.pairwise(channels))
        self.norms = nn.ModuleList(nn.BatchNorm2d(b) for b in channels[1:])
        self.wide = nn.Conv2d(64, 64, (2, 5), padding=(0, 2))
        self.out = nn.Linear(128, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv, norm in zip(self.convs, self.norms):
            x = F.max_pool2d(F.relu(norm(conv(x))), 2)
        x = F.relu(self.wide(x))
        pooled = torch.cat([x.amax(dim=(2, 3)), x.mean(dim=(2, 3))], 1)
        return self.out(pooled)[:, 0]


def load(paths: list[Path]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per box kind: (N, 32, W) float32 inputs and (N,) float32 labels (1: spoilt)."""
    boxes: list[dict[str, Any]] = []
    for path in paths:
        with open(path, "rb") as handle:
            boxes += pickle.load(handle)
    out = {}
    for name in ("coordenada", "palabra"):
        mine = [b for b in boxes if b["box"] == name]
        inputs = np.stack([b["input"] for b in mine]).astype(np.float32) / 255
        out[name] = (inputs, np.array([b["kind"] != "none" for b in mine], np.float32))
    return out


def augment(batch: np.ndarray, rng: np.random.Generator, weight: float = 0.0) -> np.ndarray:
    """Each box scaled 0.85-1.15 in width about its middle, moved up to 4 px, its ink scaled 0.7-1.2; with
    ``weight``, that share of boxes has its strokes made bolder (2 x 2 dilation) and half that share thinner."""
    n, h, w = batch.shape
    out = np.zeros_like(batch)
    kernel = np.ones((2, 2), np.uint8)
    for i in range(n):
        image = batch[i]
        draw = float(rng.random()) if weight else 1.0  # no draw without it: the same boxes as before the option
        if draw < weight:
            image = cv2.dilate(image, kernel)
        elif draw < 1.5 * weight:
            image = cv2.erode(image, kernel)
        width = max(8, round(w * float(rng.uniform(0.85, 1.15))))
        image = cv2.resize(image, (width, h), interpolation=cv2.INTER_AREA)
        shift = int(rng.integers(-4, 5))
        if width >= w:
            start = min(max((width - w) // 2 + shift, 0), width - w)
            out[i] = image[:, start : start + w]
        else:
            start = min(max((w - width) // 2 + shift, 0), w - width)
            out[i, :, start : start + width] = image
        out[i] *= float(rng.uniform(0.7, 1.2))
    return np.clip(out, 0.0, 1.0)


def train(data: dict[str, tuple[np.ndarray, np.ndarray]], epochs: int, seed: int, weight: float = 0.0) -> SpoiltNet:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = SpoiltNet()
    optimiser = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    per_epoch = sum(len(labels) // BATCH for _, labels in data.values())
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=epochs * per_epoch)
    started = time.time()
    for epoch in range(epochs):
        net.train()
        order = {name: rng.permutation(len(labels)) for name, (_, labels) in data.items()}
        batches = [(name, i) for name, (_, labels) in data.items() for i in range(len(labels) // BATCH)]
        total = 0.0
        for k in rng.permutation(len(batches)):
            name, i = batches[k]
            inputs, labels = data[name]
            chosen = order[name][i * BATCH : (i + 1) * BATCH]
            x = torch.from_numpy(augment(inputs[chosen], rng, weight))[:, None]
            loss = F.binary_cross_entropy_with_logits(net(x), torch.from_numpy(labels[chosen]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        print(f"epoch {epoch + 1}: loss {total / len(batches):.4f}, {time.time() - started:.0f} s", flush=True)
    return net.eval()


def export(net: SpoiltNet, out: Path) -> None:
    example = torch.zeros(1, 1, 32, 56)
    torch.onnx.export(net, (example,), str(out), input_names=["ink"], output_names=["logit"],
                      dynamic_axes={"ink": {0: "boxes", 3: "width"}, "logit": {0: "boxes"}}, opset_version=17,
                      dynamo=False)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weight", type=float, default=0.0, help="share of boxes drawn bolder (half that thinner)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    torch.set_num_threads(2)
    net = train(load(args.data), args.epochs, args.seed, args.weight)
    torch.save(net.state_dict(), args.out.with_suffix(".pt"))
    export(net, args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
