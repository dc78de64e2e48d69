"""Average two recognisers' weights, weight by weight: ``python -m models.slips.average A.pt B.pt --share S --out C.pt``.

The result is ``(1 - S) * A + S * B`` for every floating-point tensor (batch-norm statistics included), and B's value
for the others (the batch norms' step counters). A and B must be the same network (``crnn.CRNN``, as ``train.py``
saves it), B most often a fine-tuning of A: the average keeps what A read well and takes part of what B learnt,
as WiSE-FT does (Wortsman et al., "Robust fine-tuning of zero-shot models", CVPR 2022). Issue 21, sixteenth
revision: the committed ``slip_recognizer.onnx`` is a quarter of a CPU fine-tuning (``HISTORY.md``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch


def average(first: dict[str, torch.Tensor], second: dict[str, torch.Tensor], share: float) -> dict[str, torch.Tensor]:
    """``(1 - share) * first + share * second``, tensor by tensor; the two must hold the same names and shapes."""
    if first.keys() != second.keys():
        raise ValueError(f"different networks: {sorted(first.keys() ^ second.keys())[:5]}")
    out = {}
    for name, a in first.items():
        b = second[name]
        if a.shape != b.shape:
            raise ValueError(f"{name}: shape {tuple(a.shape)} against {tuple(b.shape)}")
        out[name] = (1 - share) * a + share * b if a.is_floating_point() else b.clone()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="weights A (the ones started from)")
    parser.add_argument("second", type=Path, help="weights B (the fine-tuning)")
    parser.add_argument("--share", type=float, required=True, help="B's share, 0 to 1")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if not 0.0 <= args.share <= 1.0:
        parser.error(f"--share {args.share}: must lie between 0 and 1")
    torch.save(average(torch.load(args.first), torch.load(args.second), args.share), args.out)
    print(f"{args.out}: {1 - args.share:g} of {args.first} and {args.share:g} of {args.second}")


if __name__ == "__main__":
    main()
