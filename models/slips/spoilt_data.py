"""Coordinate and word boxes as the reader cuts them from scanned slips, clean or spoilt: the spoilt-box network's
data (``vision.slips.spoilt``; trained by ``train_spoilt.py``).

Each slip holds a random coordinate (either order) and a random word of the free word list (two letters in a third
of the slips, else three to eight; a fifth with one letter circled as a blank), written by a hand of the part. Each
box is left clean (half) or spoilt, as ``synthetic`` spoils a play: struck out with one line, crossed out with an X,
or zigzagged, a sixth each. The slip is printed, scanned (``drawn.scan``), found and straightened as the
reader does it (``register.find_slips``), and both boxes cut at ``layout.FIELD_INSET``. Stored per box: the
network's input (``spoilt.box_input``, as uint8 0..255 ink), the grey crop, the spoil and the text written.

    python -m models.slips.spoilt_data --hands train --count 12000 --seed 101 --out train1.pkl

``--hands train``: the training fonts and Hershey faces, the training part of the real characters and the UNIPEN
training writers; any other value is a part of ``cases.writers_for`` (``real-calibration``, ...). Fixed by
``--seed``.
"""

from __future__ import annotations

import argparse
import gzip
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np

from models.slips import cases, synth
from models.slips.synth import MixedWriter
from vision.slips import layout
from vision.slips.register import find_slips
from vision.slips.spoilt import box_input
from vision.slips.synthetic import drawn, unipen
from vision.slips.synthetic import handwriting as hw

WORD_LIST: Final = synth.LEXICON  # the free word list (``rules_core/data``), not the official lexicon
SPOILS: Final = {"strike": drawn.strike_through, "cross": drawn.cross_out, "zigzag": drawn.scrawl_through}
KINDS: Final = ("none", "none", "none", "strike", "cross", "zigzag")
COLUMNS: Final = "ABCDEFGHIJKLMNO"


def training_writers() -> list[hw.Writer]:
    """Every training hand: fonts and faces, the real characters' training part (drawn as often as four fonts) and
    the UNIPEN training writers."""
    real = hw.load_real_writer(cases.REAL, "train")
    return [*hw.writers("train"), *[real] * 4, *unipen.writers("train", complete=True)]


def words_by_length(path: Path = WORD_LIST) -> dict[int, list[str]]:
    """The free word list's words of two to eight plain capitals, by length (its comment lines left out)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        words = [line.strip() for line in handle if not line.startswith("#")]
    return {n: [w for w in words if len(w) == n and w.isalpha() and w.isupper()] for n in range(2, 9)}


def _text(rng: np.random.Generator, words: dict[int, list[str]]) -> tuple[str, str]:
    column, row = COLUMNS[int(rng.integers(15))], str(int(rng.integers(1, 16)))
    coordinate = column + row if rng.random() < 0.5 else row + column
    length = 2 if rng.random() < 0.35 else int(rng.integers(3, 9))
    word = words[length][int(rng.integers(len(words[length])))]
    if rng.random() < 0.2:  # one letter circled: a blank
        i = int(rng.integers(len(word)))
        word = word[:i] + word[i].lower() + word[i + 1 :]
    return coordinate, word


def spoilt_boxes(writers: list[hw.Writer], count: int, seed: int, mixed: float = 0.0) -> Iterator[dict[str, Any]]:
    """``count`` slips' boxes (fewer when a scan is not found), see the module docstring; ``mixed``: the share of
    slips whose every character is lent by a writer drawn anew (``synth.MixedWriter``: a hand unlike any one)."""
    rng = np.random.default_rng(seed)
    words = words_by_length()
    for made in range(count):
        coordinate, word = _text(rng, words)
        writer = writers[int(rng.integers(len(writers)))]
        if mixed and rng.random() < mixed:
            writer = MixedWriter(writers)
        fields = {"coordenada": coordinate, "palabra": word, "ronda": "3", "mesa": "1"}
        filled = drawn.fill_slip(layout.render_slip(cases.bench_slip(made)), fields, writer, rng)
        kinds = {name: KINDS[int(rng.integers(len(KINDS)))] for name in ("coordenada", "palabra")}
        ink = float(rng.uniform(10, 90))
        for name, kind in kinds.items():
            if kind != "none":
                SPOILS[kind](filled, layout.FIELDS[name].pixels(layout.PX_PER_MM, 0.6), rng, ink)
        scan = drawn.scan(filled, rng)
        found = find_slips(scan)
        if not found:
            continue
        rectified = found[0].rectify(scan)
        for name, kind in kinds.items():
            x0, y0, x1, y1 = layout.FIELDS[name].pixels(layout.PX_PER_MM, layout.FIELD_INSET)
            crop = rectified[y0:y1, x0:x1].copy()
            small = np.round(box_input(crop) * 255).astype(np.uint8)
            text = coordinate if name == "coordenada" else word
            yield {"box": name, "kind": kind, "text": text, "writer": getattr(writer, "name", "?"), "gray": crop,
                   "input": small}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--mixed", type=float, default=0.0, help="share of slips by a mixed hand")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    writers = training_writers() if args.hands == "train" else cases.writers_for(args.hands)
    boxes = list(spoilt_boxes(writers, args.count, args.seed, args.mixed))
    with open(args.out, "wb") as handle:
        pickle.dump(boxes, handle)
    print(f"{args.out}: {len(boxes)} boxes by {len(writers)} hands")


if __name__ == "__main__":
    main()
