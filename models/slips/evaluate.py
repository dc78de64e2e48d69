"""The recogniser alone on held-out lines: line accuracy, character error rate, confusion plot.

    .venv/bin/python -m models.slips.evaluate [--count 600]

Lines are drawn as cut from slips (``synth.make_slip_sample``) by held-out writers
(fonts, Hershey faces), by the *test* part of the real characters and by UNIPEN writers of
the *test* part and of the collection never trained on (``unipen-unseen``); read by the
committed ONNX model with best-path decoding (no knowledge of the game). Writes
``confusion.png`` beside the model: rows the true token, columns what was read
(substitutions after an edit-distance alignment; the last column is "deleted").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.slips import ctc
from vision.slips.recognizer import Recognizer
from vision.slips.tokens import TOKENS

from . import synth
from .cases import writers_for

HERE = Path(__file__).resolve().parent
SEEDS = {"synthetic": 11, "real-test": 12, "unipen-test": 13, "unipen-unseen": 14}


def align(truth: str, read: str) -> list[tuple[str, str]]:
    """(true, read) pairs of a Levenshtein alignment; '' marks a deletion or an insertion."""
    n, m = len(truth), len(read)
    cost = np.zeros((n + 1, m + 1), int)
    cost[:, 0], cost[0, :] = np.arange(n + 1), np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost[i, j] = min(cost[i - 1, j] + 1, cost[i, j - 1] + 1, cost[i - 1, j - 1] + (truth[i - 1] != read[j - 1]))
    pairs, i, j = [], n, m
    while i or j:
        if i and j and cost[i, j] == cost[i - 1, j - 1] + (truth[i - 1] != read[j - 1]):
            pairs.append((truth[i - 1], read[j - 1]))
            i, j = i - 1, j - 1
        elif i and cost[i, j] == cost[i - 1, j] + 1:
            pairs.append((truth[i - 1], ""))
            i -= 1
        else:
            pairs.append(("", read[j - 1]))
            j -= 1
    return pairs[::-1]


def plot(confusion: np.ndarray, labels: list[str], path: Path) -> None:
    """A heat map (log scale) of the confusion counts, labelled."""
    cell, margin = 11, 30
    n = len(labels)
    image = Image.new("L", (margin + cell * (n + 1), margin + cell * n), 255)
    draw = ImageDraw.Draw(image)
    dejavu = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    font = ImageFont.truetype(str(dejavu), 9) if dejavu.exists() else ImageFont.load_default()
    rows = confusion / np.maximum(confusion.sum(axis=1, keepdims=True), 1)
    for r in range(n):
        draw.text((2, margin + r * cell), labels[r], fill=0, font=font)
        draw.text((margin + r * cell + 2, 2 + (r % 2) * 12), labels[r], fill=0, font=font)
        for c in range(n + 1):
            value = rows[r, c]
            if value > 0:
                shade = int(235 - 235 * min(1.0, 0.25 + 0.75 * value ** 0.5))
                x, y = margin + c * cell, margin + r * cell
                draw.rectangle([x, y, x + cell - 2, y + cell - 2], fill=shade)
    draw.text((margin + n * cell, 2), "∅", fill=0, font=font)
    image.save(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=600, help="lines per set")
    parser.add_argument("--model", type=Path, default=HERE / "slip_recognizer.onnx")
    parser.add_argument("--sets", default="synthetic,real-test,unipen-test,unipen-unseen")
    args = parser.parse_args()
    recognizer = Recognizer(args.model)
    labels = [t for t in TOKENS[1:] if t != " "]
    index = {t: i for i, t in enumerate(labels)}
    confusion = np.zeros((len(labels), len(labels) + 1), int)
    report = {}
    words = synth.load_words(seed=99, limit=20_000)
    for name in args.sets.split(","):
        seed = SEEDS[name]
        rng = np.random.default_rng(seed)
        pool = writers_for(name)
        right = errors = chars = 0
        for _ in range(args.count):
            sample = synth.make_slip_sample(rng, words, pool)
            read = "".join(TOKENS[i] for i in ctc.greedy(recognizer.log_probs(sample.image)))
            truth = " ".join(sample.text.split())
            read = " ".join(read.split())
            right += read == truth
            pairs = align(truth.replace(" ", ""), read.replace(" ", ""))
            errors += sum(a != b for a, b in pairs)
            chars += len(truth.replace(" ", ""))
            for a, b in pairs:
                if a in index:
                    confusion[index[a], index.get(b, len(labels))] += 1
        report[name] = {"lines": args.count, "line_accuracy": round(right / args.count, 4),
                        "character_error_rate": round(errors / max(1, chars), 4)}  # fmt: skip
    plot(confusion, labels, args.model.with_name("confusion.png"))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
