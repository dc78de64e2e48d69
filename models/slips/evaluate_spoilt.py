"""The spoilt-box network measured on hands it was not trained on: boxes flagged by the strike rules alone, by the
network alone, and by both as the reader judges them (``boxes.play_spoilt``), per box and spoil; and
``spoilt_confusion.png`` (rows: each box's spoil, columns: judged written or spoilt by the reader).

    python -m models.slips.evaluate_spoilt --sets real-calibration,unipen-calibration --count 2000 --seed 201

Each set is a part of ``cases.writers_for``; the boxes are ``spoilt_data.spoilt_boxes``' (``--seed`` fixes them).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from models.slips import cases
from models.slips.spoilt_data import KINDS, spoilt_boxes
from vision.slips import boxes as box_rules
from vision.slips.spoilt import SPOILT_MODEL, SpoiltBoxNet

SPOILS = tuple(dict.fromkeys(KINDS))  # none, strike, cross, zigzag


def judged(box: dict[str, Any], net: SpoiltBoxNet) -> tuple[bool, bool, bool]:
    """(the rules alone, the network alone at its bound, the reader) on one box, alone in its slip: the reader's
    own ``boxes.play_spoilt``, without the network and with it."""
    gray = box["gray"]
    blank = np.full((gray.shape[0], 16), int(np.percentile(gray, 90)), np.uint8)  # the other box left empty
    if box["box"] == "palabra":
        bound, boxes = box_rules.WORD_SPOILT, (gray, box_rules.visible_part(gray), blank, blank)
    else:
        bound, boxes = box_rules.COORDINATE_SPOILT, (blank, blank, box_rules.visible_coordinate(gray), gray)
    rules, reader = (box_rules.play_spoilt(*boxes, network=network) for network in (False, True))
    return rules, net.probability(gray) >= bound, reader


def plot(counts: Counter[tuple[str, str, bool]], path: Path) -> None:
    """Rows: coordinate and word boxes by spoil; columns: judged written, judged spoilt (shade: share of the row)."""
    rows = [(box, kind) for box in ("coordenada", "palabra") for kind in SPOILS]
    cell, left, top = 40, 150, 30
    image = Image.new("L", (left + 2 * cell + 10, top + cell * len(rows) + 10), 255)
    draw = ImageDraw.Draw(image)
    dejavu = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    font = ImageFont.truetype(str(dejavu), 11) if dejavu.exists() else ImageFont.load_default()
    draw.text((left + 2, 8), "written", fill=0, font=font)
    draw.text((left + cell + 2, 8), "spoilt", fill=0, font=font)
    for r, (box, kind) in enumerate(rows):
        total = max(1, counts[box, kind, False] + counts[box, kind, True])
        draw.text((4, top + r * cell + 12), f"{box} {kind}", fill=0, font=font)
        for c, flag in enumerate((False, True)):
            share = counts[box, kind, flag] / total
            x, y = left + c * cell, top + r * cell
            draw.rectangle([x, y, x + cell - 2, y + cell - 2], fill=int(235 - 235 * share ** 0.5) if share else 245)
            draw.text((x + 4, y + 12), str(counts[box, kind, flag]), fill=255 if share > 0.5 else 0, font=font)
    image.save(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True)
    parser.add_argument("--count", type=int, default=1000, help="slips per set (two boxes each)")
    parser.add_argument("--seed", type=int, default=301)
    parser.add_argument("--model", type=Path, default=SPOILT_MODEL)
    parser.add_argument("--plot", type=Path, default=None, help="the confusion plot of all sets together")
    args = parser.parse_args()
    net = SpoiltBoxNet(args.model)
    together: Counter[tuple[str, str, bool]] = Counter()
    for part in args.sets.split(","):
        tally: Counter[tuple[str, str, str]] = Counter()
        for box in spoilt_boxes(cases.writers_for(part), args.count, args.seed):
            flags = judged(box, net)
            for name, flag in zip(("rules", "network", "reader"), flags):
                tally[box["box"], box["kind"], name] += flag
            tally[box["box"], box["kind"], "boxes"] += 1
            together[box["box"], box["kind"], flags[2]] += 1
        for box_name in ("coordenada", "palabra"):
            line = ", ".join(f"{kind} {tally[box_name, kind, 'rules']}/{tally[box_name, kind, 'network']}/"
                             f"{tally[box_name, kind, 'reader']} of {tally[box_name, kind, 'boxes']}"
                             for kind in SPOILS)  # fmt: skip
            print(f"{part} {box_name} (rules/network/reader flagged): {line}", flush=True)
    if args.plot:
        plot(together, args.plot)


if __name__ == "__main__":
    main()
