"""Train the square classifier (``square_recognizer.onnx``) on squares written on printed absolute slips.

    .venv/bin/python -m models.slips.train_squares data --seed 101 --count 300000 --out /tmp/veedor-squares
    .venv/bin/python -m models.slips.train_squares train --data /tmp/veedor-squares/squares_*.npz --epochs 2 \\
        --out /tmp/veedor-squares/squares.pt
    .venv/bin/python -m models.slips.train_squares export --weights /tmp/veedor-squares/squares.pt
    .venv/bin/python -m models.slips.train_squares evaluate          # held-out squares: accuracy, confusion plot

``data``: words of the free word list written one letter a square (``synth.make_grid_squares``) on a printed
absolute slip by the training writers (``train.training_pool``: the training fonts and Hershey faces, the
real characters' train split, the UNIPEN writers of the *train* part, 45 % of words), a circled blank in
45 % of the words, the board scanned (``synth.scan_noise``) and each square cut a pixel off now and then as
a homography does; saved as uint8 ink (``squares.square_image``) with its letter and circle. ``train``:
AdamW, one-cycle rate, each batch moved, turned, sheared and some thickened (``_augment``); the last
weights are kept (nothing is chosen on held-out hands). ``evaluate`` reads squares written by the
calibration and test hands (never trained on).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from vision.slips.squares import LETTERS, SIZE, SQUARE_MODEL

from . import synth
from .square_net import WIDTHS, SquareNet, widths_of
from .train import training_pool


def make_data(seed: int, count: int, out: Path) -> Path:
    """``count`` squares drawn from ``seed`` into ``out/squares_<seed>.npz`` (X uint8 (N, 32, 32), L, C)."""
    rng = np.random.default_rng(seed)
    words, pool, slip = synth.load_words(), training_pool(unipen_share=0.45), synth.blank_absolute_slip()
    images = np.zeros((count, SIZE, SIZE), np.uint8)
    letters, circled = np.zeros(count, np.int16), np.zeros(count, np.int8)
    n = 0
    while n < count:
        for image, letter, circle in synth.make_grid_squares(rng, words, pool, slip)[: count - n]:
            images[n], letters[n], circled[n] = np.round(image * 255), letter, circle
            n += 1
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"squares_{seed}.npz"
    np.savez(path, X=images, L=letters, C=circled)
    return path


def _augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """A batch (B, 1, 32, 32) turned up to 8 degrees, scaled +-12 %, sheared, moved up to 10 %; 15 % thickened."""
    b = x.shape[0]

    def uniform(half: float) -> torch.Tensor:
        return (torch.rand(b, generator=g) - 0.5) * 2 * half

    angle, scale, shear = uniform(math.radians(8)), 1 + uniform(0.125), uniform(0.15)
    tx, ty = uniform(0.1), uniform(0.1)
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack([torch.stack([cos, -sin + shear, tx], 1), torch.stack([sin, cos, ty], 1)], 1)
    x = F.grid_sample(x, F.affine_grid(theta, list(x.shape), align_corners=False), align_corners=False)
    thick = (torch.rand(b, generator=g) < 0.15)[:, None, None, None]
    return torch.where(thick, F.max_pool2d(x, 3, 1, 1), x)


def train(data: list[Path], epochs: float, lr: float, batch: int, seed: int, out: Path,
          classes: int = len(LETTERS), widths: tuple[int, int, int] = WIDTHS) -> None:  # fmt: skip
    """Train a ``SquareNet`` of ``classes`` (the letters; the glyph classifier's 37) and ``widths`` (channels) on
    ``data`` (X, L, C) and save its weights to ``out``."""
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    parts = [np.load(path) for path in data]
    images = torch.from_numpy(np.concatenate([p["X"] for p in parts]))
    letters = torch.from_numpy(np.concatenate([p["L"] for p in parts]).astype(np.int64))
    circled = torch.from_numpy(np.concatenate([p["C"] for p in parts]).astype(np.int64))
    steps = int(epochs * len(images) / batch)
    net = SquareNet(widths, classes=classes)
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, lr, total_steps=steps, pct_start=0.15)
    g = torch.Generator().manual_seed(seed)
    started, running = time.time(), 0.0
    net.train()
    for step in range(steps):
        pick = torch.randint(0, len(images), (batch,), generator=g)
        output = net(_augment(images[pick].float().unsqueeze(1) / 255.0, g))
        loss = F.nll_loss(output[:, :classes], letters[pick]) + 0.5 * F.nll_loss(output[:, classes:], circled[pick])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        running = 0.98 * running + 0.02 * loss.item() if step else loss.item()
        if step % 500 == 0 or step == steps - 1:
            print(f"step {step}/{steps} loss {running:.3f} {time.time() - started:.0f} s", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out)


def export(weights: Path, out: Path, classes: Sequence[str] = LETTERS, name: str = "squares",
           key: str = "letters") -> None:  # fmt: skip
    """The weights as ONNX (input ``name`` (N, 1, 32, 32), output ``log_probs`` (N, classes + 2)), the classes in
    its metadata under ``key``, checked against PyTorch."""
    import onnx
    import onnxruntime

    state = torch.load(weights, map_location="cpu")
    net = SquareNet(widths_of(state), classes=len(classes))
    net.load_state_dict(state)
    net.eval()
    example = torch.rand(4, 1, SIZE, SIZE)
    torch.onnx.export(net, (example,), str(out), input_names=[name], output_names=["log_probs"],
                      dynamic_axes={name: {0: "n"}, "log_probs": {0: "n"}}, opset_version=17, dynamo=False)  # fmt: skip
    model = onnx.load(str(out))
    onnx.helper.set_model_props(model, {key: " ".join(classes)})
    onnx.save(model, str(out))
    session = onnxruntime.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).random((7, 1, SIZE, SIZE), dtype=np.float32)
    expected = net(torch.from_numpy(x)).detach().numpy()
    if not np.allclose(session.run(None, {name: x})[0], expected, atol=1e-4):
        raise SystemExit("ONNX and PyTorch differ")
    print(f"{out}: {out.stat().st_size / 1e6:.2f} MB, checked against PyTorch")


HELD_OUT = ("synthetic", "real-calibration", "real-test", "unipen-calibration", "unipen-test", "unipen-unseen")


def evaluate(words_per_set: int, seed: int, model: Path) -> None:
    """Squares written by the hands never trained on (``cases.writers_for``), read by the exported model:
    letters and circles right per set, and ``square_confusion.png`` (rows the letter written, all sets)."""
    from vision.slips.squares import SquareRecognizer

    from .cases import writers_for
    from .evaluate import plot

    recognizer = SquareRecognizer(model)
    words, slip = synth.load_words(seed=seed, limit=20_000), synth.blank_absolute_slip()
    confusion = np.zeros((len(LETTERS), len(LETTERS) + 1), int)
    for part in HELD_OUT:
        rng, pool = np.random.default_rng(seed), writers_for(part)
        squares = [sq for _ in range(words_per_set) for sq in synth.make_grid_squares(rng, words, pool, slip)]
        out = recognizer.log_probs(np.stack([image for image, _, _ in squares]))
        letters, circles = out[:, : len(LETTERS)].argmax(1), out[:, len(LETTERS) :].argmax(1)
        for (_, letter, _), read in zip(squares, letters):
            confusion[letter, read] += 1
        right = np.mean([read == letter for (_, letter, _), read in zip(squares, letters)])
        circled = np.mean([read == circle for (_, _, circle), read in zip(squares, circles)])
        print(f"{part}: {len(squares)} squares, letter right {right:.4f}, circle right {circled:.4f}")
    plot(confusion, list(LETTERS), model.with_name("square_confusion.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    data = sub.add_parser("data")
    data.add_argument("--seed", type=int, required=True)
    data.add_argument("--count", type=int, default=300_000)
    data.add_argument("--out", type=Path, default=Path("/tmp/veedor-squares"))
    fit = sub.add_parser("train")
    fit.add_argument("--data", type=Path, nargs="+", required=True)
    fit.add_argument("--epochs", type=float, default=2.0)
    fit.add_argument("--lr", type=float, default=3e-3)
    fit.add_argument("--batch", type=int, default=256)
    fit.add_argument("--seed", type=int, default=45)
    fit.add_argument("--out", type=Path, default=Path("/tmp/veedor-squares/squares.pt"))
    onnx_out = sub.add_parser("export")
    onnx_out.add_argument("--weights", type=Path, default=Path("/tmp/veedor-squares/squares.pt"))
    onnx_out.add_argument("--out", type=Path, default=SQUARE_MODEL)
    held_out = sub.add_parser("evaluate")
    held_out.add_argument("--words", type=int, default=300, help="words written per set of hands")
    held_out.add_argument("--seed", type=int, default=7)
    held_out.add_argument("--model", type=Path, default=SQUARE_MODEL)
    args = parser.parse_args()
    if args.command == "data":
        print(make_data(args.seed, args.count, args.out))
    elif args.command == "train":
        train(args.data, args.epochs, args.lr, args.batch, args.seed, args.out)
    elif args.command == "export":
        export(args.weights, args.out)
    else:
        evaluate(args.words, args.seed, args.model)


if __name__ == "__main__":
    main()
