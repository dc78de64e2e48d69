"""The slip recogniser's network (PyTorch, training only): a small CRNN read by CTC.

Input (B, 1, 32, W) float, ink 1 on paper 0 (``vision.slips.lineimage``); output
(T, B, C) log-probabilities with T = W // 4 frames and C = len(tokens.TOKENS)
classes, index 0 the CTC blank. The runtime never imports this: it runs the ONNX
export with onnxruntime.
"""

from __future__ import annotations

import torch
from torch import nn


def _block(cin: int, cout: int, pool: tuple[int, int] | None) -> list[nn.Module]:
    layers: list[nn.Module] = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
    if pool:
        layers.append(nn.MaxPool2d(pool, pool))
    return layers


class CRNN(nn.Module):
    def __init__(self, classes: int, hidden: int = 80) -> None:
        super().__init__()
        self.features = nn.Sequential(
            *_block(1, 24, (2, 2)),  # (B, 24, 16, W/2)
            *_block(24, 48, (2, 2)),  # (B, 48, 8, W/4)
            *_block(48, 72, (2, 1)),  # (B, 72, 4, W/4)
            *_block(72, 96, (2, 1)),  # (B, 96, 2, W/4)
        )
        self.rnn = nn.LSTM(192, hidden, bidirectional=True)  # (T, B, 2*hidden)
        self.head = nn.Linear(2 * hidden, classes)  # (T, B, C)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x)  # (B, 96, 2, T)
        b, c, h, t = f.shape
        seq = f.reshape(b, c * h, t).permute(2, 0, 1)  # (T, B, 192)
        out, _ = self.rnn(seq)  # (T, B, 2*hidden)
        return self.head(out).log_softmax(-1)  # (T, B, C)
