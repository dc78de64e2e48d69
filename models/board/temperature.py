"""Make an exported cell classifier less sure: ``python -m models.board.temperature IN.onnx OUT.onnx --divide T``.

Divides the last layer's weights and bias (``head.weight``, ``head.bias``) by ``T`` (> 1), so every logit is divided
by ``T``: the same argmax, softer probabilities (temperature scaling). ``T`` is chosen on the calibration families
(``bench_board.py --catalogue-in calibration``), never on the kept-out ones. ``labels.json`` is copied beside ``OUT``.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import onnx
from onnx import numpy_helper

HEAD = ("head.weight", "head.bias")


def divide_logits(source: Path, target: Path, temperature: float) -> None:
    """Write ``source`` with its logits divided by ``temperature`` to ``target`` (and its ``labels.json``)."""
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, not {temperature}")
    model = onnx.load(str(source))
    found = set()
    for init in model.graph.initializer:
        if init.name in HEAD:
            init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init) / temperature, init.name))
            found.add(init.name)
    if found != set(HEAD):
        raise ValueError(f"{source}: no {', '.join(sorted(set(HEAD) - found))} to divide")
    target.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(target))
    labels = source.parent / "labels.json"
    if labels.exists() and labels.resolve() != (target.parent / "labels.json").resolve():
        shutil.copy(labels, target.parent / "labels.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--divide", type=float, required=True, help="the temperature T the logits are divided by")
    args = parser.parse_args()
    divide_logits(args.source, args.target, args.divide)


if __name__ == "__main__":
    main()
