"""Fine-tune the committed cell classifier: ``python -m models.board.finetune DATA.npz [...]``.

Starts from the weights inside ``board_cells.onnx`` (its export folded each batch norm
into the convolution before it: the convolutions take those weights and their batch
norms start as the identity and keep their statistics frozen), then trains with
``train.augment`` on crops from ``make_data`` (real photo crops, from the training
games only, drawn ``--real-weight`` (4) times as often as render crops). With ``--distil W`` the start model
is kept as a frozen teacher and its readings, where right, weigh W in the loss (learning without forgetting:
new crops learnt, blanks and sureness kept); ``--teacher`` keeps another model's readings instead. ``--class-weight
'*=3'`` draws a class's crops more often; ``--label-smoothing`` (0.05) sets how sure a right reading may grow. Fixed
seeds, one thread unless ``--threads``.
Writes the model (``--out``, default the committed one) and ``labels.json``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from vision.board.labels import INDEX

from .export import export
from .net import BASE_CHANNELS, CellNet
from .train import LABEL_SMOOTHING, SEED, Distillation, evaluate, load, split_crops, train_epoch, weighed_by_class

HERE = Path(__file__).resolve().parent


def from_onnx(path: Path) -> CellNet:
    """A ``CellNet`` computing what the exported model computes (batch norms as identity)."""
    graph = onnx.load(str(path)).graph
    weights = {init.name: torch.from_numpy(numpy_helper.to_array(init).copy()) for init in graph.initializer}
    convs = [node for node in graph.node if node.op_type == "Conv"]
    model = CellNet(width=weights["head.weight"].shape[1] / BASE_CHANNELS[-1])
    layers = list(model.features)
    pairs = [(m, layers[i + 1]) for i, m in enumerate(layers) if isinstance(m, nn.Conv2d)]
    if len(pairs) != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(pairs)}")
    with torch.no_grad():
        for node, (conv, norm) in zip(convs, pairs):
            assert isinstance(norm, nn.BatchNorm2d)
            conv.weight.copy_(weights[node.input[1]])
            norm.weight.fill_(1.0)
            norm.bias.copy_(weights[node.input[2]])
            assert norm.running_mean is not None and norm.running_var is not None
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        model.head.weight.copy_(weights["head.weight"])
        model.head.bias.copy_(weights["head.bias"])
    return model


def freeze_norms(model: nn.Module) -> None:
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()


def not_letters(y: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Crops whose class is no letter (empty, blank, covered), and every real photo crop: where a fine-tuning on
    letters should keep the start model's readings (``--distil-on not-letters``)."""
    mask: np.ndarray = np.isin(y, [INDEX["."], INDEX["?"], INDEX["#"]]) | (source == 1)
    return mask


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data", nargs="+")
    parser.add_argument("--start", default=str(HERE / "board_cells.onnx"))
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--epoch-size", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--out", default=str(HERE / "board_cells.onnx"))
    parser.add_argument("--real-weight", type=float, default=4.0, help="how much more often a real photo crop is drawn")
    parser.add_argument("--distil", type=float, default=0.0,
                        help="weight of the start model's own readings kept where right (0: plain fine-tuning)")
    parser.add_argument("--distil-on", choices=("all", "not-letters"), default="all",
                        help="not-letters: the teacher kept only on empty squares, blanks, covered squares and real photos")
    parser.add_argument("--teacher", default=None,
                        help="the model kept with --distil (default: the start model)")
    parser.add_argument("--class-weight", action="append", default=[], metavar="CLASS=W",
                        help="draw the crops of CLASS (a label of labels.json, e.g. '*') W times as often; repeatable")
    parser.add_argument("--label-smoothing", type=float, default=LABEL_SMOOTHING)
    parser.add_argument("--threads", type=int, default=1, help="two may sum in another order than one: a rerun can differ in the last bits")
    args = parser.parse_args()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)  # before hours of training, not after
    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    gen = torch.Generator().manual_seed(SEED)
    model = from_onnx(Path(args.start))
    x, y, source = load(args.data)
    train, val, weights = split_crops(source, rng, args.real_weight)
    weights = weighed_by_class(weights, y[train], args.class_weight)
    xt = torch.from_numpy(x).permute(0, 3, 1, 2)
    yt = torch.from_numpy(y)
    print(f"{len(train)} train crops ({int((source[train] == 1).sum())} real), {len(val)} validation; "
          f"start val acc {evaluate(model, xt[val], yt[val]):.4f}", flush=True)
    distil = None
    if args.distil > 0:
        kept = None if args.distil_on == "all" else torch.from_numpy(not_letters(y, source))
        teacher = from_onnx(Path(args.teacher or args.start)).eval()
        distil = Distillation(teacher, args.distil, kept)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epoch_size // args.batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=args.epochs * steps, pct_start=0.15)
    start = time.time()
    for epoch in range(args.epochs):
        model.train()
        freeze_norms(model)
        picks = rng.choice(train, size=steps * args.batch, p=weights)
        loss = train_epoch(model, optimiser, schedule, xt, yt, picks, args.batch, gen, distil, args.label_smoothing)
        accuracy = evaluate(model, xt[val], yt[val])
        print(f"epoch {epoch + 1}: loss {loss:.4f} val acc {accuracy:.4f} {time.time() - start:.0f}s", flush=True)
    export(model, out)
    print("exported", args.out, flush=True)


if __name__ == "__main__":
    main()
