"""The glyph classifier with its last hidden layer as a second output: ``glyph_features.onnx``, what the reader learns a
room's hands with (``vision.slips.learning``).

    python -m models.slips.glyph_features [--model models/slips/glyph_recognizer.onnx] [--out FILE]

The committed glyph classifier (``glyph_recognizer.onnx``: two networks whose probabilities are averaged,
``train_glyphs.ensemble``) unchanged, its output ``log_probs`` first, and one output more: ``features`` (N, 192 x
members), each member network's last hidden layer (the ReLU after its first dense layer) side by side. The model's
``source_sha256`` property is the SHA-256 of the classifier it was made from: the reader learns only with the features
of the classifier it reads with, so a retrained classifier needs this run again (the reader refuses a stale file).
Needs the ``onnx`` package (training only; the reader runs the result with onnxruntime).
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import numpy as np

from vision.slips.glyphs import GLYPH_MODEL, GlyphRecognizer
from vision.slips.learning import FEATURES_MODEL, FeatureGlyphs


def make(model: Path, out: Path) -> None:
    """Write ``out``: ``model`` with its members' last hidden layers joined as the output ``features``."""
    import onnx
    from onnx import TensorProto, helper

    loaded = onnx.load(str(model))
    graph = loaded.graph
    hidden = [node.output[0] for node in graph.node if node.op_type == "Relu" and "/head/" in node.output[0]]
    if not hidden:
        raise SystemExit(f"{model}: no se encuentra la capa oculta de la cabeza (Relu en /head/)")
    graph.node.append(helper.make_node("Concat", hidden, ["features"], axis=1))
    graph.output.append(helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", 192 * len(hidden)]))
    helper.set_model_props(loaded, {**{p.key: p.value for p in loaded.metadata_props},
                                    "source_sha256": hashlib.sha256(model.read_bytes()).hexdigest()})  # fmt: skip
    onnx.checker.check_model(loaded)
    onnx.save(loaded, str(out))
    x = np.random.default_rng(0).random((5, 32, 32), dtype=np.float32)
    log_probs, features = FeatureGlyphs(out, model).read(x)
    if not np.allclose(log_probs, GlyphRecognizer(model).log_probs(x), atol=1e-5) or features.shape[0] != 5:
        raise SystemExit("el modelo de rasgos no da las probabilidades del clasificador")
    print(f"{out}: {len(hidden)} redes, rasgos de {features.shape[1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=GLYPH_MODEL)
    parser.add_argument("--out", type=Path, default=FEATURES_MODEL)
    args = parser.parse_args()
    make(args.model, args.out)


if __name__ == "__main__":
    main()
