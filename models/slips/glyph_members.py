"""The committed glyph classifier's member networks back as PyTorch ``SquareNet``s, to fine-tune them (issue 68).

``glyph_recognizer.onnx`` holds networks read together (``train_glyphs.ensemble``: each one's nodes prefixed
``m0_``, ``m1_``, ...). Each was exported in evaluation mode, every batch norm folded into the convolution before
it (a weight and a bias). Here each convolution takes its folded weight, and the batch norm after it the folded
bias with identity statistics (mean 0, variance 1 - eps, scale 1): in evaluation mode the network is the ONNX
member exactly. Fine-tuning keeps the norms in evaluation mode (``freeze_norms``): their statistics are never
re-estimated, their scale and shift train as the convolution's own.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import torch
from torch import nn

from vision.slips import glyphs

from .square_net import SquareNet

CLASSES = len(glyphs.GLYPHS)
MEMBER = re.compile(r"m\d+_")  # the prefix of a member's names in an ensemble


def _initialisers(path: Path) -> tuple[dict[str, np.ndarray], list]:
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    return {i.name: numpy_helper.to_array(i) for i in graph.initializer}, list(graph.node)


def load(path: Path = glyphs.GLYPH_MODEL) -> list[SquareNet]:
    """The member networks of the glyph classifier ``path``, in its order, each as its ONNX graph computes."""
    values, nodes = _initialisers(path)
    weights = [n.input[1] for n in nodes if n.op_type == "Conv"]
    prefixes = sorted({m.group() for w in weights if (m := MEMBER.match(w))}, key=lambda p: int(p[1:-1])) or [""]
    members = []
    for prefix in prefixes:
        convs = [n for n in nodes if n.op_type == "Conv" and n.input[1].startswith(prefix)]
        widths = tuple(int(values[c.input[1]].shape[0]) for c in convs[::2])
        net = SquareNet(widths, classes=CLASSES)  # type: ignore[arg-type]
        conv_layers = [m for m in net.features if isinstance(m, nn.Conv2d)]
        norms = [m for m in net.features if isinstance(m, nn.BatchNorm2d)]
        with torch.no_grad():
            for conv, norm, node in zip(conv_layers, norms, convs, strict=True):
                conv.weight.copy_(torch.tensor(values[node.input[1]]))
                norm.bias.copy_(torch.tensor(values[node.input[2]]))
                norm.weight.fill_(1.0)
                norm.running_mean.zero_()
                norm.running_var.fill_(1.0 - norm.eps)
            for index in (2, 5):  # the head's two dense layers
                layer = net.head[index]
                assert isinstance(layer, nn.Linear)
                layer.weight.copy_(torch.tensor(values[f"{prefix}head.{index}.weight"]))
                layer.bias.copy_(torch.tensor(values[f"{prefix}head.{index}.bias"]))
        members.append(net)
    return members


def freeze_norms(model: nn.Module) -> None:
    """Training mode (dropout on) with every batch norm in evaluation mode (its statistics kept)."""
    model.train()
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()


def check(members: list[SquareNet], path: Path = glyphs.GLYPH_MODEL) -> float:
    """The largest difference between the members' mean probability (evaluation mode) and the ONNX model's."""
    x = np.random.default_rng(0).random((9, 32, 32), dtype=np.float32)
    with torch.no_grad():
        probs = [m.eval()(torch.from_numpy(x)[:, None]).exp().numpy() for m in members]
    return float(np.abs(np.log(np.mean(probs, axis=0)) - glyphs.GlyphRecognizer(path).log_probs(x)).max())
