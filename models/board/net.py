"""The cell classifier network (PyTorch, training only; run time uses the ONNX export).

Input: ``N x 3 x 40 x 40`` float32, BGR crops from ``vision.board.cells`` scaled to
0..1. Output: ``N x 32`` logits over ``vision.board.labels.CLASSES``. At width 1 (the
main and opinion models) 49k weights and ~4 M multiply-adds per crop: 225 crops take ~18 ms
on one core; at width 1.5 (the font model) 108k weights and ~9 M: 25 crops take ~7 ms.
"""

from __future__ import annotations

import torch
from torch import nn

from vision.board.labels import CLASSES


def _block(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


BASE_CHANNELS = (16, 32, 48, 64)  # per block at width 1


class CellNet(nn.Module):
    """``width`` scales every layer's channels (1: 16-32-48-64; 1.5: 24-48-72-96)."""

    def __init__(self, classes: int = len(CLASSES), width: float = 1.0) -> None:
        super().__init__()
        c1, c2, c3, c4 = (round(base * width) for base in BASE_CHANNELS)
        self.features = nn.Sequential(
            *_block(3, c1, 2),  # N x c1 x 20 x 20
            *_block(c1, c2),  # N x c2 x 20 x 20
            nn.MaxPool2d(2),  # N x c2 x 10 x 10
            *_block(c2, c3),  # N x c3 x 10 x 10
            nn.MaxPool2d(2),  # N x c3 x 5 x 5
            *_block(c3, c4),  # N x c4 x 5 x 5
            nn.AdaptiveAvgPool2d(1),  # N x c4 x 1 x 1
            nn.Flatten(),  # N x c4
            nn.Dropout(0.1),
        )
        self.head = nn.Linear(c4, classes)  # N x 32

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))
