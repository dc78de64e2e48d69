"""The square classifier's network (``vision.slips.squares``): one written square -> its letter and circle.

Input (B, 1, 32, 32) ink in [0, 1]; output (B, classes + 2): log-softmax over the classes (by default the
28 Spanish letters; the glyph classifier's 37 capitals and digits, ``vision.slips.glyphs``), then over
(plain, circled). Seven 3x3 convolutions in three stages (``WIDTHS``: 16, 32, 64 channels by default; batch
norm, three 2x2 poolings), a 2x2 average, two dense layers; about 0.1 M parameters at the default widths.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from vision.slips.squares import LETTERS


def _conv(inputs: int, outputs: int) -> list[nn.Module]:
    return [nn.Conv2d(inputs, outputs, 3, padding=1, bias=False), nn.BatchNorm2d(outputs), nn.ReLU(inplace=True)]


WIDTHS = (16, 32, 64)  # channels of the three stages (the committed square classifier's)


class SquareNet(nn.Module):
    def __init__(self, widths: tuple[int, int, int] = WIDTHS, classes: int = len(LETTERS)) -> None:
        super().__init__()
        a, b, c = widths
        self.classes = classes
        self.features = nn.Sequential(*_conv(1, a), *_conv(a, a), nn.MaxPool2d(2),
                                      *_conv(a, b), *_conv(b, b), nn.MaxPool2d(2),
                                      *_conv(b, c), nn.MaxPool2d(2), *_conv(c, c), nn.AdaptiveAvgPool2d(2))  # fmt: skip
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(4 * c, 192), nn.ReLU(inplace=True),
                                  nn.Dropout(0.2), nn.Linear(192, classes + 2))  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.head(self.features(x))
        return torch.cat([F.log_softmax(z[:, : self.classes], 1), F.log_softmax(z[:, self.classes :], 1)], 1)


def widths_of(state: dict[str, torch.Tensor]) -> tuple[int, int, int]:
    """The channels of a ``SquareNet``'s three stages, read from its weights: the output channels of its
    first, third and fifth convolutions (each stage opens with one)."""
    convs = [weight for key, weight in state.items() if key.startswith("features.") and weight.ndim == 4]
    a, b, c = (int(convs[i].shape[0]) for i in (0, 2, 4))
    return a, b, c
