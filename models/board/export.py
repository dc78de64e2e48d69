"""Export the trained cell classifier to ONNX (one file, weights inside) with ``labels.json``."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from vision.board.cells import CROP_PX
from vision.board.labels import CLASSES

from .net import CellNet


def export(model: CellNet, path: Path) -> None:
    """Write ``path`` (input ``crops`` N x 3 x 40 x 40 float 0..1 BGR; output ``logits`` N x 32)
    and ``labels.json`` beside it."""
    model.eval()
    dummy = torch.zeros(2, 3, CROP_PX, CROP_PX)
    torch.onnx.export(
        model, (dummy,), str(path), input_names=["crops"], output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17,
        external_data=False, dynamo=False,
    )
    labels = {"classes": list(CLASSES), "input": "crops", "output": "logits", "crop_px": CROP_PX,
              "layout": "N x 3 x H x W, BGR, 0..1, crops from vision.board.cells.board_crops"}
    (path.parent / "labels.json").write_text(json.dumps(labels, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
