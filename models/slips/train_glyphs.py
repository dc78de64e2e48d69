"""Train the glyph classifier (``glyph_recognizer.onnx``) on the characters of play lines, cut where the line
recogniser places them (``vision.slips.glyphs``).

    .venv/bin/python -m models.slips.train_glyphs data --seed 301 --lines 30000 --out /tmp/veedor-glyphs
    .venv/bin/python -m models.slips.train_glyphs train --data /tmp/veedor-glyphs/glyphs_*.npz --epochs 2 \\
        --out /tmp/veedor-glyphs/glyphs.pt
    .venv/bin/python -m models.slips.train_glyphs export --weights /tmp/veedor-glyphs/glyphs.pt --out new.onnx
    .venv/bin/python -m models.slips.train_glyphs ensemble --models old.onnx new.onnx  # the committed model
    .venv/bin/python -m models.slips.train_glyphs evaluate          # held-out hands: accuracy, confusion plot

``data``: play lines as cut from a slip (``synth.make_slip_sample``, three in four) or any line
(``synth.make_sample``), written by the training writers (``train.training_pool``: the training fonts and
Hershey faces, the real characters' train split, the UNIPEN writers of the *train* part, ``--unipen-share``
of lines); each line read by the committed line recogniser, its true text aligned (``glyphs.align``), each
capital and digit cut at its aligned centre moved by up to a pixel or two (``glyphs.windows``) and saved as
uint8 ink with its class and circle. ``train``: as the square classifier (``train_squares``): AdamW, one-cycle
rate, each batch moved, turned, sheared and some thickened; the last weights are kept (``--widths``: the
network's channels, ``square_net.WIDTHS`` by default; wider was tried, HISTORY.md). ``ensemble``: classifiers
joined into one ONNX model that reads with their mean probability (the committed one holds two, HISTORY.md).
``evaluate`` reads lines written by the calibration and test hands (never trained on).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from vision.slips import glyphs

from . import synth, train_squares
from .square_net import WIDTHS
from .train import training_pool

CLASSES = len(glyphs.GLYPHS)
SLIP_SHARE = 0.75
UNIPEN_SHARE = 0.45


def _line(rng: np.random.Generator, words: list[str], pool: list, emphasis: synth.Emphasis) -> synth.Sample:
    if rng.random() < SLIP_SHARE:
        return synth.make_slip_sample(rng, words, pool, emphasis)
    return synth.make_sample(rng, words, pool, emphasis=emphasis)


def make_data(seed: int, lines: int, out: Path, unipen_share: float = UNIPEN_SHARE) -> Path:
    """The glyphs of ``lines`` lines drawn from ``seed`` into ``out/glyphs_<seed>.npz`` (X uint8 (N, 32, 32),
    L glyph class, C circled); ``unipen_share`` of the lines by the UNIPEN writers of the train part."""
    rng = np.random.default_rng(seed)
    words, pool = synth.load_words(), training_pool(unipen_share=unipen_share)
    emphasis = synth.Emphasis(confusable=0.3, circled=0.45)
    images, labels, circled = [], [], []
    for n in range(lines):
        for image, g, c in synth.line_glyphs(_line(rng, words, pool, emphasis), rng):
            images.append(np.round(image * 255).astype(np.uint8))
            labels.append(g)
            circled.append(c)
        if n % 2000 == 0:
            print(f"{n} lines, {len(images)} glyphs", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"glyphs_{seed}.npz"
    np.savez(path, X=np.stack(images), L=np.array(labels, np.int16), C=np.array(circled, np.int8))
    return path


def train(data: list[Path], epochs: float, lr: float, batch: int, seed: int, out: Path,
          widths: tuple[int, int, int]) -> None:  # fmt: skip
    """The square classifier's training (``train_squares.train``) with the 37 glyph classes."""
    train_squares.train(data, epochs, lr, batch, seed, out, classes=CLASSES, widths=widths)


def export(weights: Path, out: Path) -> None:
    """The weights as ONNX (input ``glyphs`` (N, 1, 32, 32), output ``log_probs`` (N, 39)), checked against
    PyTorch (``train_squares.export``)."""
    train_squares.export(weights, out, tuple(glyphs.GLYPHS), "glyphs", "glyphs")


def ensemble(models: list[Path], out: Path) -> None:
    """One ONNX model that runs each of ``models`` (glyph classifiers, the same input and output) on its input
    and gives the log of their mean probability (letters, then circle; each part stays a distribution)."""
    import onnx
    from onnx import compose, helper

    loaded = [onnx.load(str(path)) for path in models]
    first = loaded[0].graph
    source = first.input[0].name
    nodes, weights, probs = [], [], []
    for i, model in enumerate(loaded):
        graph = compose.add_prefix(model, f"m{i}_").graph
        for node in graph.node:
            node.input[:] = [source if name == f"m{i}_{source}" else name for name in node.input]
        nodes += graph.node
        weights += graph.initializer
        probs.append(f"m{i}_probs")
        nodes.append(helper.make_node("Exp", [graph.output[0].name], [probs[-1]]))
    nodes.append(helper.make_node("Mean", probs, ["mean_probs"]))
    nodes.append(helper.make_node("Log", ["mean_probs"], [first.output[0].name]))
    graph = helper.make_graph(nodes, "glyph_ensemble", [first.input[0]], [first.output[0]], weights)
    merged = helper.make_model(graph, opset_imports=loaded[0].opset_import, ir_version=loaded[0].ir_version)
    helper.set_model_props(merged, {p.key: p.value for p in loaded[0].metadata_props})
    onnx.checker.check_model(merged)
    onnx.save(merged, str(out))
    x = np.random.default_rng(0).random((7, 32, 32), dtype=np.float32)
    mean = np.mean([np.exp(glyphs.GlyphRecognizer(path).log_probs(x)) for path in models], axis=0)
    if not np.allclose(glyphs.GlyphRecognizer(out).log_probs(x), np.log(mean), atol=1e-4):
        raise SystemExit("the ensemble differs from its models' mean")
    print(f"{out}: {len(models)} models, {out.stat().st_size / 1e6:.2f} MB, checked against each model")


HELD_OUT = ("synthetic", "real-calibration", "real-test", "unipen-calibration", "unipen-test", "unipen-unseen")


def evaluate(lines_per_set: int, seed: int, model: Path) -> None:
    """Glyphs of play lines by the hands never trained on (``cases.writers_for``), read by the exported model
    where the line recogniser places them: glyphs and circles right per set, and ``glyph_confusion.png``."""
    from .cases import writers_for
    from .evaluate import plot

    recognizer = glyphs.GlyphRecognizer(model)
    words = synth.load_words(seed=seed, limit=20_000)
    emphasis = synth.Emphasis(circled=0.45)
    confusion = np.zeros((CLASSES, CLASSES + 1), int)
    for part in HELD_OUT:
        rng, pool = np.random.default_rng(seed), writers_for(part)
        cut = [item for _ in range(lines_per_set) for item in synth.line_glyphs(_line(rng, words, pool, emphasis), None)]
        out = recognizer.log_probs(np.stack([image for image, _, _ in cut]))
        read, circles = out[:, :CLASSES].argmax(1), out[:, CLASSES:].argmax(1)
        for (_, g, _), r in zip(cut, read):
            confusion[g, r] += 1
        right = np.mean([r == g for (_, g, _), r in zip(cut, read)])
        circle = np.mean([r == c for (_, _, c), r in zip(cut, circles)])
        print(f"{part}: {len(cut)} glyphs, right {right:.4f}, circle right {circle:.4f}", flush=True)
    plot(confusion, list(glyphs.GLYPHS), model.with_name("glyph_confusion.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    data = sub.add_parser("data")
    data.add_argument("--seed", type=int, required=True)
    data.add_argument("--lines", type=int, default=30_000)
    data.add_argument("--out", type=Path, default=Path("/tmp/veedor-glyphs"))
    data.add_argument("--unipen-share", type=float, default=UNIPEN_SHARE, help="share of lines by UNIPEN writers")
    fit = sub.add_parser("train")
    fit.add_argument("--data", type=Path, nargs="+", required=True)
    fit.add_argument("--epochs", type=float, default=2.0)
    fit.add_argument("--lr", type=float, default=3e-3)
    fit.add_argument("--batch", type=int, default=256)
    fit.add_argument("--seed", type=int, default=47)
    fit.add_argument("--widths", type=int, nargs=3, default=WIDTHS, help="channels of the network's three stages")
    fit.add_argument("--out", type=Path, default=Path("/tmp/veedor-glyphs/glyphs.pt"))
    onnx_out = sub.add_parser("export")
    onnx_out.add_argument("--weights", type=Path, default=Path("/tmp/veedor-glyphs/glyphs.pt"))
    onnx_out.add_argument("--out", type=Path, default=glyphs.GLYPH_MODEL)
    joined = sub.add_parser("ensemble")
    joined.add_argument("--models", type=Path, nargs="+", required=True)
    joined.add_argument("--out", type=Path, default=glyphs.GLYPH_MODEL)
    held_out = sub.add_parser("evaluate")
    held_out.add_argument("--lines", type=int, default=300, help="lines written per set of hands")
    held_out.add_argument("--seed", type=int, default=7)
    held_out.add_argument("--model", type=Path, default=glyphs.GLYPH_MODEL)
    args = parser.parse_args()
    if args.command == "data":
        print(make_data(args.seed, args.lines, args.out, args.unipen_share))
    elif args.command == "train":
        train(args.data, args.epochs, args.lr, args.batch, args.seed, args.out, tuple(args.widths))
    elif args.command == "export":
        export(args.weights, args.out)
    elif args.command == "ensemble":
        ensemble(args.models, args.out)
    else:
        evaluate(args.lines, args.seed, args.model)


if __name__ == "__main__":
    main()
