"""Export the trained recogniser to ONNX, with its label map beside it.

    .venv/bin/python -m models.slips.export [--weights /tmp/veedor-slips/crnn.pt]

Writes ``models/slips/slip_recognizer.onnx`` (input ``image`` (1, 1, 32, W) float,
W any multiple of 4; output ``log_probs`` (W/4, 1, C)) and ``labels.json`` (the
classes in order, index 0 the CTC blank), then checks that onnxruntime gives
the same numbers as PyTorch.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from vision.slips.tokens import TOKENS

from .crnn import CRNN

HERE = Path(__file__).resolve().parent


def export(weights: Path, out: Path) -> None:
    model = CRNN.from_state(torch.load(weights, map_location="cpu"))
    model.eval()
    example = torch.rand(1, 1, 32, 160)
    try:
        torch.onnx.export(model, (example,), str(out), input_names=["image"], output_names=["log_probs"],
                          dynamic_axes={"image": {3: "width"}, "log_probs": {0: "frames"}}, opset_version=17,
                          dynamo=False)  # fmt: skip
    except (TypeError, RuntimeError):
        width = torch.export.Dim("width", min=8, max=1024)
        program = torch.onnx.export(model, (example,), input_names=["image"], output_names=["log_probs"],
                                    dynamic_shapes={"x": {3: width * 4}}, dynamo=True)  # fmt: skip
        program.save(str(out), external_data=False)
    labels = {"labels": list(TOKENS), "blank": 0, "input_height": 32, "frames_per_pixel": 0.25}
    (out.parent / "labels.json").write_text(json.dumps(labels, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    check(model, out)


def check(model: CRNN, path: Path) -> None:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for width in (64, 252, 480):
        x = np.random.default_rng(width).random((1, 1, 32, width), dtype=np.float32)
        expected = model(torch.from_numpy(x)).detach().numpy()
        got = session.run(None, {"image": x})[0]
        if got.shape != expected.shape or not np.allclose(got, expected, atol=1e-3):
            raise SystemExit(f"ONNX and PyTorch differ at width {width}")
    print(f"{path}: {path.stat().st_size / 1e6:.2f} MB, checked against PyTorch")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", type=Path, default=Path("/tmp/veedor-slips/crnn.pt"))
    parser.add_argument("--out", type=Path, default=HERE / "slip_recognizer.onnx")
    args = parser.parse_args()
    torch.set_num_threads(1)
    export(args.weights, args.out)


if __name__ == "__main__":
    main()
