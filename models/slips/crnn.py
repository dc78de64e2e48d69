"""The slip recogniser's network (PyTorch, training only): a small CRNN read by CTC.

Input (B, 1, 32, W) float, ink 1 on paper 0 (``vision.slips.lineimage``); output
(T, B, C) log-probabilities with T = W // 4 frames and C = len(tokens.TOKENS)
classes, index 0 the CTC blank. The runtime never imports this: it runs the ONNX
export with onnxruntime. Two sizes (``SIZES``): ``base`` (~291 k parameters) and
``wide`` (~0.6 M parameters, about twice the arithmetic per line).
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import nn

# size name -> (channels of the four conv blocks, LSTM units per direction)
SIZES: dict[str, tuple[tuple[int, int, int, int], int]] = {
    "base": ((24, 48, 72, 96), 80),
    "wide": ((32, 64, 96, 128), 128),
}


def _block(cin: int, cout: int, pool: tuple[int, int] | None) -> list[nn.Module]:
    layers: list[nn.Module] = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
    if pool:
        layers.append(nn.MaxPool2d(pool, pool))
    return layers


class CRNN(nn.Module):
    def __init__(self, classes: int, hidden: int = 80, channels: tuple[int, int, int, int] = (24, 48, 72, 96)) -> None:
        super().__init__()
        c1, c2, c3, c4 = channels
        self.features = nn.Sequential(
            *_block(1, c1, (2, 2)),  # (B, c1, 16, W/2)
            *_block(c1, c2, (2, 2)),  # (B, c2, 8, W/4)
            *_block(c2, c3, (2, 1)),  # (B, c3, 4, W/4)
            *_block(c3, c4, (2, 1)),  # (B, c4, 2, W/4)
        )
        self.rnn = nn.LSTM(2 * c4, hidden, bidirectional=True)  # (T, B, 2*hidden)
        self.head = nn.Linear(2 * hidden, classes)  # (T, B, C)

    @classmethod
    def sized(cls, classes: int, size: str) -> CRNN:
        """A network of one of ``SIZES``."""
        channels, hidden = SIZES[size]
        return cls(classes, hidden, channels)

    @classmethod
    def from_state(cls, state: Mapping[str, torch.Tensor]) -> CRNN:
        """The network whose shapes match a saved state dict, with those weights."""
        convs = [k for k in state if k.startswith("features.") and k.endswith(".weight") and state[k].dim() == 4]
        channels = tuple(int(state[k].shape[0]) for k in sorted(convs, key=lambda k: int(k.split(".")[1])))
        hidden = int(state["rnn.weight_hh_l0"].shape[1])
        model = cls(int(state["head.weight"].shape[0]), hidden, channels)  # type: ignore[arg-type]
        model.load_state_dict(state)
        return model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x)  # (B, c4, 2, T)
        b, c, h, t = f.shape
        seq = f.reshape(b, c * h, t).permute(2, 0, 1)  # (T, B, 2*c4)
        out, _ = self.rnn(seq)  # (T, B, 2*hidden)
        return self.head(out).log_softmax(-1)  # (T, B, C)
