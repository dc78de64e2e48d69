"""The committed ONNX recogniser back as PyTorch weights, to fine-tune it (its ``crnn.pt`` is not kept).

    .venv/bin/python -m models.slips.from_onnx [--onnx models/slips/slip_recognizer.onnx] --out /tmp/committed.pt

The export folded each batch norm into its convolution and wrote the LSTM in ONNX's gate order
(i, o, f, c). Here the convolutions take the folded weights, the LSTM its gates in PyTorch's order
(i, f, g, o) and biases, and each batch norm is set, layer by layer on a few batches of training
lines, so that in training mode it gives back what the folded convolution gave (scale the batch's
spread, shift its mean plus the folded bias): fine-tuning starts where the committed model is.
``--check`` compares the network in evaluation mode with onnxruntime.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from vision.slips.tokens import TOKENS

from .crnn import CRNN

HERE = Path(__file__).resolve().parent


def _initialisers(path: Path) -> tuple[dict[str, np.ndarray], list]:
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    return {i.name: numpy_helper.to_array(i) for i in graph.initializer}, list(graph.node)


def load(path: Path) -> tuple[CRNN, list[np.ndarray]]:
    """The network with the ONNX weights (batch norms as identity) and each convolution's folded bias."""
    values, nodes = _initialisers(path)
    convs = [n for n in nodes if n.op_type == "Conv"]
    lstm = next(n for n in nodes if n.op_type == "LSTM")
    channels = tuple(int(values[c.input[1]].shape[0]) for c in convs)
    hidden = int(values[lstm.input[2]].shape[2])
    model = CRNN(len(TOKENS), hidden, channels)  # type: ignore[arg-type]
    state = model.state_dict()
    biases = []
    conv_keys = [k for k in state if k.startswith("features.") and k.endswith(".weight") and state[k].dim() == 4]
    conv_keys.sort(key=lambda k: int(k.split(".")[1]))
    for key, node in zip(conv_keys, convs):
        state[key] = torch.from_numpy(values[node.input[1]].copy())
        bias = values[node.input[2]] if len(node.input) > 2 else np.zeros(state[key].shape[0], np.float32)
        biases.append(bias.astype(np.float32))

    def order(a: np.ndarray) -> np.ndarray:  # ONNX gates i, o, f, c -> PyTorch's i, f, g, o
        return np.concatenate([a[0:hidden], a[2 * hidden : 3 * hidden], a[3 * hidden : 4 * hidden], a[hidden : 2 * hidden]])

    w, r, b = (values[lstm.input[i]] for i in (1, 2, 3))
    for d, suffix in enumerate(("", "_reverse")):
        state[f"rnn.weight_ih_l0{suffix}"] = torch.from_numpy(order(w[d]).copy())
        state[f"rnn.weight_hh_l0{suffix}"] = torch.from_numpy(order(r[d]).copy())
        state[f"rnn.bias_ih_l0{suffix}"] = torch.from_numpy(order(b[d][: 4 * hidden]).copy())
        state[f"rnn.bias_hh_l0{suffix}"] = torch.from_numpy(order(b[d][4 * hidden :]).copy())
    gemm = next(n for n in nodes if n.op_type in ("Gemm", "MatMul"))
    head_w = values[gemm.input[1]]
    state["head.weight"] = torch.from_numpy((head_w if head_w.shape[0] == len(TOKENS) else head_w.T).copy())
    add = [n for n in nodes if n.op_type == "Add" and any(i in values and values[i].shape == (len(TOKENS),) for i in n.input)]
    if gemm.op_type == "Gemm":
        state["head.bias"] = torch.from_numpy(values[gemm.input[2]].copy())
    elif add:
        state["head.bias"] = torch.from_numpy(next(values[i] for i in add[0].input if i in values).copy())
    for key in state:
        if key.endswith("running_mean") or (key.startswith("features.") and key.endswith(".bias") and state[key].dim() == 1):
            state[key] = torch.zeros_like(state[key])
        if key.endswith("running_var"):
            state[key] = torch.ones_like(state[key]) - 1e-5
        bn_weight = key.startswith("features.") and key.endswith(".weight") and state[key].dim() == 1
        if bn_weight:
            state[key] = torch.ones_like(state[key])
    for i, key in enumerate(k.replace(".weight", "") for k in conv_keys):
        index = int(key.split(".")[1]) + 1  # the batch norm right after the convolution
        state[f"features.{index}.bias"] = torch.from_numpy(biases[i])
    model.load_state_dict(state)
    return model, biases


def fit_norms(model: CRNN, biases: list[np.ndarray], batches: list[torch.Tensor]) -> None:
    """Each batch norm set, first to last, so that in training mode it gives what the folded convolution
    gave: weight = the batch spread of its input, bias = its mean + the folded bias, and the running
    statistics those of the lines."""
    norms = [m for m in model.features if isinstance(m, torch.nn.BatchNorm2d)]
    for norm, bias in zip(norms, biases):
        captured: list[torch.Tensor] = []
        hook = norm.register_forward_hook(lambda _m, inputs, _o: captured.append(inputs[0].detach()))
        model.eval()
        with torch.no_grad():
            for x in batches:
                model(x)
        hook.remove()
        z = torch.cat([c.permute(1, 0, 2, 3).reshape(c.shape[1], -1) for c in captured], dim=1)
        mean, var = z.mean(dim=1), z.var(dim=1)
        with torch.no_grad():
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            norm.weight.copy_(torch.sqrt(var + norm.eps))
            norm.bias.copy_(mean + torch.from_numpy(bias))


def check(model: CRNN, path: Path) -> float:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    model.eval()
    worst = 0.0
    for width in (64, 252):
        x = np.random.default_rng(width).random((1, 1, 32, width), dtype=np.float32)
        got = model(torch.from_numpy(x)).detach().numpy()
        expected = session.run(None, {"image": x})[0]
        worst = max(worst, float(np.abs(got - expected).max()))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", type=Path, default=HERE / "slip_recognizer.onnx")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--lines", type=int, default=256, help="training lines to set the batch norms on")
    args = parser.parse_args()
    torch.set_num_threads(1)
    model, biases = load(args.onnx)
    print(f"before the norms are fitted: largest difference from onnxruntime {check(model, args.onnx):.2e}")
    from . import synth
    from .train import collate, training_pool

    rng = np.random.default_rng(0)
    words, pool = synth.load_words(limit=20_000), training_pool()
    samples = [synth.make_sample(rng, words, pool) for _ in range(args.lines)]
    batches = [collate(samples[i : i + 32])[0] for i in range(0, len(samples), 32)]
    fit_norms(model, biases, batches)
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, args.out)
    print(f"{args.out}: written; evaluation mode differs from onnxruntime by {check(model, args.onnx):.2e} at most")


if __name__ == "__main__":
    main()
