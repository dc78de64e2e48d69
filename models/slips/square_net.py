"""The square classifier's network (``vision.slips.squares``): one written square -> its letter and circle.

Input (B, 1, 32, 32) ink in [0, 1]; output (B, 30): log-softmax over the 28 Spanish letters, then over
(plain, circled). Seven 3x3 convolutions (16, 32, 64 channels, batch norm, three 2x2 poolings), a 2x2
average, two dense layers; about 0.1 M parameters.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from vision.slips.squares import LETTERS


def _conv(inputs: int, outputs: int) -> list[nn.Module]:
    return [nn.Conv2d(inputs, outputs, 3, padding=1, bias=False), nn.BatchNorm2d(outputs), nn.ReLU(inplace=True)]


class SquareNet(nn.Module):
    def __init__(self, widths: tuple[int, int, int] = (16, 32, 64)) -> None:
        super().__init__()
        a, b, c = widths
        self.features = nn.Sequential(*_conv(1, a), *_conv(a, a), nn.MaxPool2d(2),
                                      *_conv(a, b), *_conv(b, b), nn.MaxPool2d(2),
                                      *_conv(b, c), nn.MaxPool2d(2), *_conv(c, c), nn.AdaptiveAvgPool2d(2))  # fmt: skip
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(4 * c, 192), nn.ReLU(inplace=True),
                                  nn.Dropout(0.2), nn.Linear(192, len(LETTERS) + 2))  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.head(self.features(x))
        letters = len(LETTERS)
        return torch.cat([F.log_softmax(z[:, :letters], 1), F.log_softmax(z[:, letters:], 1)], 1)
