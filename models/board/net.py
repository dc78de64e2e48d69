"""The cell classifier network (PyTorch, training only; run time uses the ONNX export).

Input: ``N x 3 x 40 x 40`` float32, BGR crops from ``vision.board.cells`` scaled to
0..1. Output: ``N x 32`` logits over ``vision.board.labels.CLASSES``. About 50k
weights and 3 M multiply-adds per crop: 225 crops take ~18 ms on one core.
"""

from __future__ import annotations

import torch
from torch import nn

from vision.board.labels import CLASSES


def _block(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class CellNet(nn.Module):
    def __init__(self, classes: int = len(CLASSES)) -> None:
        super().__init__()
        self.features = nn.Sequential(
            *_block(3, 16, 2),  # N x 16 x 20 x 20
            *_block(16, 32),  # N x 32 x 20 x 20
            nn.MaxPool2d(2),  # N x 32 x 10 x 10
            *_block(32, 48),  # N x 48 x 10 x 10
            nn.MaxPool2d(2),  # N x 48 x 5 x 5
            *_block(48, 64),  # N x 64 x 5 x 5
            nn.AdaptiveAvgPool2d(1),  # N x 64 x 1 x 1
            nn.Flatten(),  # N x 64
            nn.Dropout(0.1),
        )
        self.head = nn.Linear(64, classes)  # N x 32

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))
