"""UNIPEN pen strokes (``vision.slips.synthetic.unipen``): parsing each collection, strokes upright,
writer-disjoint splits."""

from __future__ import annotations

import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from vision.slips.synthetic import unipen
from vision.slips.synthetic import handwriting as hw

pytestmark = pytest.mark.skipif(not unipen.available(), reason="../shared/data/handwriting/unipen is missing")


@pytest.fixture(scope="module")
def files() -> list[Path]:
    return unipen.label_files()


def test_segment_specs() -> None:
    parts = [(True, np.array([[0, 0], [1, 1], [2, 2]], np.float32)), (False, np.array([[5, 5]], np.float32)),
             (True, np.array([[3, 3], [4, 4], [5, 5], [6, 6]], np.float32))]  # fmt: skip
    assert [len(s) for s in unipen.segment_strokes("0", parts)] == [3]
    assert [len(s) for s in unipen.segment_strokes("0-2", parts)] == [3, 4]  # the pen-up move is no ink
    assert [len(s) for s in unipen.segment_strokes("2-2:1", parts)] == [2]
    assert [len(s) for s in unipen.segment_strokes("0:1-2:2", parts)] == [2, 3]
    assert [len(s) for s in unipen.segment_strokes("0,2", parts)] == [3, 4]


def test_pen_up_blocks_without_points_are_not_components() -> None:
    lines = [".PEN_DOWN", "1 2", "3 4", ".PEN_UP", ".PEN_DOWN", "0 0", ".PEN_UP", "7 7", "8 8", ".PEN_DOWN", "5 6"]
    parts = unipen.components(lines)
    assert [(down, len(points)) for down, points in parts] == [(True, 2), (True, 1), (False, 2), (True, 1)]


def test_a_sample_flatter_than_any_character_is_left_out_but_a_wide_m_is_kept(tmp_path: Path) -> None:
    """A level line labelled E (a broken sample) is no E; a wide M and a plain T are read."""
    label_file = tmp_path / "data" / "1a" / "imp" / "w0" / "w0.dat"
    label_file.parent.mkdir(parents=True)
    strokes = {"E": [[0, 0], [400, 30]], "M": [[0, 100], [60, 0], [120, 100], [180, 0], [240, 100], [300, 0],
                                                  [360, 100]], "T": [[0, 0], [60, 0], [30, 0], [30, 100]]}  # fmt: skip
    lines = [f'.SEGMENT CHARACTER {i} OK "{label}"' for i, label in enumerate(strokes)]
    for points in strokes.values():
        lines += [".PEN_DOWN", *(f"{x} {y}" for x, y in points), ".PEN_UP"]
    label_file.write_text("\n".join(lines) + "\n", encoding="latin-1")
    assert [c.label for c in unipen.read_file(label_file, tmp_path)] == ["M", "T"]


def test_a_few_files_of_every_collection_parse(files: list[Path]) -> None:
    by_collection: dict[str, list[Path]] = defaultdict(list)
    for path in files:
        by_collection[unipen.collection_of(path)].append(path)
    assert set(by_collection) == set(unipen.COLLECTIONS)
    for collection, paths in by_collection.items():
        characters = [c for path in paths[:2] for c in unipen.read_file(path)]
        assert characters, collection
        assert all(c.label in unipen.GLYPHS and c.strokes for c in characters), collection
        assert all(np.isfinite(np.concatenate(c.strokes)).all() for c in characters), collection


def test_nested_include_is_followed() -> None:
    """pri's pen files include pri/pri.doc in turn: its header comes through, and the strokes parse."""
    lines = list(unipen._include_text(unipen.ROOT, "pri/data/pri0/159.3.dat"))
    assert any(line.strip().startswith(".X_POINTS_PER_MM") for line in lines)
    label_file = unipen.ROOT / "data" / "1b" / "pri" / "pri0" / "159.3.dat"
    characters = unipen.read_file(label_file)
    assert len(characters) >= 10 and {c.label for c in characters} >= {"A", "B", "L"}


@pytest.mark.parametrize("collection", ["gmd", "kai", "aga", "uqb", "syn", "ibm"])
def test_y_up_collections_are_drawn_upright(files: list[Path], collection: str) -> None:
    """The tablets recorded y upwards: flipped, a 7 or a T is wide on top and an L at the bottom."""
    assert collection in unipen.Y_UP
    paths = [p for p in files if unipen.collection_of(p) == collection][:6]
    characters = [c for p in paths for c in unipen.read_file(p)]
    assert unipen.upright(characters) >= 0.8


def test_split_keeps_writers_apart(files: list[Path]) -> None:
    parts: dict[str, set[str]] = defaultdict(set)
    for path in files:
        key = "/".join(path.relative_to(unipen.ROOT / "data").parts[1:])  # a writer: digits and capitals together
        parts[unipen.split_of(path)].add(key)
    assert set(parts) == {"train", "calibration", "test", "unseen"}
    for a in parts:
        for b in parts:
            if a < b:
                assert not parts[a] & parts[b], (a, b)
    assert {k.split("/")[0] for k in parts["unseen"]} == {unipen.UNSEEN_COLLECTION}
    for part in ("train", "calibration", "test"):
        assert unipen.UNSEEN_COLLECTION not in {k.split("/")[0] for k in parts[part]}
    assert len(parts["train"]) > 3 * len(parts["test"]) > 0


def _small_root(tmp_path: Path, files: list[Path]) -> Path:
    """A copy of a few writers of two collections (labels and pen files), for a fast load."""
    root = tmp_path / "unipen"
    for collection in ("imp", "aga"):
        names = sorted({p.name for p in files if unipen.collection_of(p) == collection})[:4]
        for path in [p for p in files if unipen.collection_of(p) == collection and p.name in names]:
            target = root / path.relative_to(unipen.ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
        shutil.copytree(unipen.ROOT / "include" / collection, root / "include" / collection, dirs_exist_ok=True)
    return root


def test_writers_of_a_part_come_only_from_its_files(tmp_path: Path, files: list[Path]) -> None:
    root = _small_root(tmp_path, files)
    seen: dict[str, str] = {}
    for part in ("train", "calibration", "test"):
        for writer in unipen.writers(part, root, min_glyphs=1):
            assert writer.name not in seen, (writer.name, seen.get(writer.name), part)
            seen[writer.name] = part
            path = next(root.glob(f"data/*/{writer.name}"))
            assert unipen.split_of(path, root) == part
            if writer.fallback is not None:
                assert unipen.split_of(next(root.glob(f"data/*/{writer.fallback.name}")), root) == part


def test_a_play_line_in_one_writers_pen(tmp_path: Path, files: list[Path]) -> None:
    """A writer draws a whole line (digits, letters, Ñ, a circled blank, an arrow) as ink."""
    root = _small_root(tmp_path, files)
    writer = max(unipen.writers("train", root, min_glyphs=1), key=lambda w: w.digits() + w.letters())
    rng = np.random.default_rng(4)
    digits = sorted(c for c in writer.samples if c.isdigit())
    letters = sorted(c for c in writer.samples if c.isalpha())
    assert digits and len(letters) >= 5
    text = f"{digits[0]}{letters[0]}-{''.join(letters[1:4])}{letters[4].lower()}↓"  # as 8H-CHORIZo↓
    mask = hw.render_line(text, writer, rng)
    assert mask.dtype == np.float32 and mask.shape[0] > 30 and mask.shape[1] > 150 and 0.03 < mask.mean() < 0.5
    if "N" in writer.samples:
        assert hw.render_line(f"{digits[0]}{letters[0]} Ñ{letters[1]}", writer, rng).shape[1] > 80
    gray = unipen.ink_on_textured_paper(mask, rng)
    assert gray.dtype == np.uint8 and gray.shape == mask.shape and gray.min() < 130 < gray.max()


def test_bent_strokes_move_each_stroke_a_little_and_keep_the_character() -> None:
    """Training variety (``UnipenWriter.bend``): an H's crossbar moves against its stems, yet no point strays
    more than a third of the height, and a writer that does not bend draws the strokes as written."""
    stems = [np.array([[0.0, 0.0], [0.0, 100.0]], np.float32), np.array([[60.0, 0.0], [60.0, 100.0]], np.float32)]
    letter = (stems[0], np.array([[0.0, 50.0], [60.0, 50.0]], np.float32), stems[1])
    rng = np.random.default_rng(3)
    assert all(np.array_equal(a, b) for a, b in zip(unipen.bent_strokes(letter, rng, 0.0), letter))
    bars = []
    for _ in range(50):
        bent = unipen.bent_strokes(letter, rng, 1.0)
        assert [len(s) for s in bent] == [2, 2, 2]
        assert max(float(np.abs(b - s).max()) for b, s in zip(bent, letter)) < 100 / 3
        bars.append(float(bent[1][:, 1].mean() - (bent[0][:, 1].mean() + bent[2][:, 1].mean()) / 2))
    assert np.std(bars) > 1.0  # the crossbar sits higher or lower than the middle of the stems
    writer, same = unipen.UnipenWriter("w", {"H": [letter]}), np.random.default_rng(5)
    as_written = unipen.draw_strokes(letter, same, 32.0, 2.5, float(same.uniform(0.2, 0.8)), writer.pressure)
    assert np.array_equal(writer.draw(letter, np.random.default_rng(5), 1.0), as_written)
    writer.bend = 1.0
    assert not np.array_equal(writer.draw(letter, np.random.default_rng(5), 1.0), as_written)
