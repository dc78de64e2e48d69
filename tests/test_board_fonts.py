"""The board's tile font catalogue (``models.board.fonts``, issue 69): glyphs checked on the render,
families split whole by design, kept-out families never trained on, scenes drawn in the catalogue's
faces, and a training run that goes on after a stop as if it had not stopped."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from fontTools.ttLib import TTFont

from models.board import data, font_styles, fonts
from models.board.fonts import Family
from vision.board.synthetic.render_designs import FONT_FAMILIES

ROOT = Path(__file__).resolve().parent.parent
SYSTEM = "/usr/share/fonts"


def _font(name: str) -> str:
    found = next(Path(SYSTEM).rglob(name), None)
    if found is None:
        pytest.skip(f"{name} not installed (make system-packages)")
    return str(found)


def test_a_font_with_every_spanish_capital_passes_and_one_without_letters_does_not() -> None:
    assert font_styles.capitals(_font("DejaVuSans-Bold.ttf")) is not None
    assert font_styles.capitals(_font("D050000L.otf")) is None  # dingbats: no A at all


def test_a_capital_drawn_as_the_missing_glyph_box_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A character map that claims a letter proves nothing: the render must not be the .notdef box."""
    path = _font("D050000L.otf")
    every = {c: "x" for c in range(0x20, 0x250)}
    monkeypatch.setattr(TTFont, "getBestCmap", lambda self: every)
    font_styles.raw_capitals.cache_clear()
    try:
        assert font_styles.capitals(path) is None
    finally:
        font_styles.raw_capitals.cache_clear()


@pytest.mark.parametrize(("name", "style"), [
    ("NimbusSans-Bold.otf", "grotesque"),
    ("DejaVuSans-Bold.ttf", "humanist"),
    ("URWGothic-Demi.otf", "geometric"),
    ("NimbusRoman-Bold.otf", "serif"),
])
def test_well_known_designs_fall_in_their_style(name: str, style: str) -> None:
    assert font_styles.cluster(font_styles.style_features(_font(name))) == style


def test_a_clone_is_one_design_with_its_original_and_another_design_is_not() -> None:
    arimo, liberation = font_styles.capitals(_font("Arimo-Bold.ttf")), font_styles.capitals(_font("LiberationSans-Bold.ttf"))
    dejavu = font_styles.capitals(_font("DejaVuSans-Bold.ttf"))
    assert arimo is not None and liberation is not None and dejavu is not None
    assert font_styles.same_design(arimo, liberation) and not font_styles.same_design(dejavu, liberation)


def _family(name: str, face: str, cluster: str = "humanist") -> Family:
    return Family(name, "fonts-x", [f"/x/{face}"], cluster=cluster, design=fonts.name_root(name))


def test_a_design_takes_the_strictest_part_of_its_families_and_new_designs_are_split_by_hash() -> None:
    families = [_family("Liberation Sans", "LiberationSans-Bold.ttf"), _family("Liberation Mono", "LiberationMono-Bold.ttf"),
                *(_family(f"New{i} Sans", f"New{i}.ttf", "slab") for i in range(20))]
    families[1].design = families[0].design = "Liberation"
    fonts._parts(families)
    assert {f.part for f in families[:2]} == {"heldout"}  # Liberation Sans is kept out since issue 20
    new = [f.part for f in families[2:]]
    assert new.count("train") == 14 and new.count("calibration") == 2 and new.count("heldout") == 4
    again = [_family(f"New{i} Sans", f"New{i}.ttf", "slab") for i in range(20)]
    fonts._parts(again)
    assert [f.part for f in again] == new


def test_the_catalogue_splits_designs_whole_and_keeps_issue_20s_parts() -> None:
    families = fonts.load()
    parts_of: dict[str, set[str]] = {}
    for f in families:
        parts_of.setdefault(f.design, set()).add(f.part)
    assert all(len(parts) == 1 for parts in parts_of.values())
    fixed = fonts.fixed_parts()
    for f in families:
        for face in f.faces:
            if fixed.get(Path(face).name) in ("calibration", "development", "heldout"):
                assert f.part == fixed[Path(face).name], f.name
    assert len({f.design for f in families if f.part == "train"}) > 60 and len(families) > 200
    names = {f.name for f in families}
    assert {"Liberation Sans", "Inter", "Caladea", "League Spartan"} <= {f.name for f in families if f.part == "heldout"} <= names


def test_the_makefile_installs_the_catalogues_packages() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    lists = {m.group(1): m.group(2).split() for m in re.finditer(r"^(\w+_PACKAGES) := (.*)$", makefile, re.M)}
    trained = set(lists["TILE_FONT_PACKAGES"] + lists["DEVELOPMENT_FONT_PACKAGES"] + lists["MORE_TILE_FONT_PACKAGES"])
    assert trained <= set(fonts.PACKAGES) <= trained | set(lists["SYSTEM_PACKAGES"])


def test_a_catalogue_scene_sets_its_tiles_in_the_family_emboldened_and_without_missing_letters(monkeypatch: pytest.MonkeyPatch) -> None:
    face = _font("DejaVuSans-Bold.ttf")
    family = Family("DejaVu Sans", "fonts-dejavu-core", [face], embolden=True, design="DejaVu", part="train")
    monkeypatch.setattr(data, "drawn_letters", lambda path: frozenset({"K", "W"}))  # as if the face had no Ä, Ö, Ü ...
    rng = np.random.default_rng(3)
    cells = [["Ä" if (r + c) % 3 == 0 else "A" for c in range(15)] for r in range(15)]
    scene = data.catalogue_scene(rng, {"DejaVu": [family]}, ("beige",), cells, "train", 0, 640, 360)
    assert scene.tiles.font == face and scene.tiles.weight > 0
    assert {t for row in scene.cells for t in row} <= {"A", "K", "W"}


def test_big_letter_scenes_draw_their_letter_size_from_the_range_and_leave_other_scenes_as_they_were() -> None:
    face = _font("DejaVuSans-Bold.ttf")
    family = Family("DejaVu Sans", "fonts-dejavu-core", [face], embolden=False, design="DejaVu", part="train")

    def scene(seed: int, sizes: tuple[float, float] | None = None) -> data.Scene:
        return data.catalogue_scene(np.random.default_rng(seed), {"DejaVu": [family]}, ("beige",), None, "train", 0, 640, 360, sizes)

    sizes = [scene(seed, (0.7, 0.86)).tiles.letter_size for seed in range(8)]
    assert all(0.7 <= size <= 0.86 for size in sizes) and len(set(sizes)) > 1
    # the size is drawn last: but for it, the scene of a seed is the one the shards rendered without a range hold
    plain, big = scene(5), scene(5, (0.7, 0.86))
    assert 0.42 <= plain.tiles.letter_size <= 0.62 < big.tiles.letter_size
    assert replace(big, tiles=replace(big.tiles, letter_size=plain.tiles.letter_size)) == plain


def test_a_training_run_stopped_and_resumed_ends_as_one_that_never_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    from models.board import train

    monkeypatch.setattr(train, "export", lambda model, path: None)  # the ONNX export is not what is checked here
    rng = np.random.default_rng(0)
    crops = tmp_path / "crops.npz"
    np.savez(crops, x=rng.integers(0, 255, (600, 40, 40, 3), dtype=np.uint8), y=rng.integers(0, 32, 600), source=np.zeros(600, np.int8))
    common = ["--epochs", "3", "--epoch-size", "512", "--batch", "64", "--average-from", "1"]

    def run(name: str, *extra: str) -> dict[str, object]:
        args = train.parse([str(crops), *common, "--checkpoint", str(tmp_path / name / "ck.pt"), "--out", str(tmp_path / name / "m.onnx"), *extra])
        train.run(args, tmp_path / name / "ck.pt", tmp_path / name / "m.onnx")
        return torch.load(tmp_path / name / "ck.pt", weights_only=False)

    whole = run("whole")
    stopped = run("stopped", "--stop-after", "1e-9")  # stops, saved, after the first step
    assert stopped["run"]["epoch"] == 0 and stopped["run"]["step"] == 1
    resumed_args = train.parse(["--resume", "--checkpoint", str(tmp_path / "stopped" / "ck.pt")])
    train.run(resumed_args, tmp_path / "stopped" / "ck.pt", tmp_path / "stopped" / "m.onnx")
    resumed = torch.load(tmp_path / "stopped" / "ck.pt", weights_only=False)
    assert resumed["run"]["epoch"] == 3
    assert all(torch.equal(whole["model"][k], resumed["model"][k]) for k in whole["model"])
    assert whole["run"]["averaged"] == resumed["run"]["averaged"] == 2  # the ends of epochs 2 and 3
    assert all(torch.equal(whole["average"][k], resumed["average"][k]) for k in whole["average"])
    assert any(not torch.equal(whole["average"][k], v) for k, v in whole["model"].items() if v.is_floating_point())


def test_the_running_mean_of_weights_averages_floats_and_keeps_the_last_counts() -> None:
    torch = pytest.importorskip("torch")
    from models.board.net import CellNet
    from models.board.train import running_mean

    models = [CellNet(width=0.5) for _ in range(3)]
    for k, model in enumerate(models):
        for tensor in model.state_dict().values():
            tensor.fill_(k) if tensor.is_floating_point() else tensor.fill_(10 * k)
    average = None
    for count, model in enumerate(models):
        average = running_mean(average, model, count)
    assert average is not None
    assert all(torch.allclose(v, torch.ones_like(v)) for v in average.values() if v.is_floating_point())  # (0+1+2)/3
    assert all(int(v.max()) == 20 for v in average.values() if not v.is_floating_point())


def test_distillation_costs_nothing_where_the_model_reads_as_its_teacher_and_ignores_what_the_teacher_misreads() -> None:
    torch = pytest.importorskip("torch")
    from models.board.net import CellNet
    from models.board.train import distillation_loss

    torch.manual_seed(0)
    teacher, student = CellNet(width=0.5).eval(), CellNet(width=0.5).eval()
    crops = torch.rand(6, 3, 40, 40)
    with torch.no_grad():
        read = teacher(crops).argmax(1)
        assert float(distillation_loss(teacher(crops), teacher, crops, read)) == pytest.approx(0.0, abs=1e-6)
        assert float(distillation_loss(student(crops), teacher, crops, read)) > 0.0
        misread = (read + 1) % 32  # labels the teacher gets wrong on every crop: nothing of it is kept
        assert float(distillation_loss(student(crops), teacher, crops, misread)) == 0.0


def test_a_class_weighed_w_is_drawn_w_times_as_often_and_an_unknown_class_is_refused() -> None:
    pytest.importorskip("torch")
    from models.board.train import weighed_by_class
    from vision.board.labels import INDEX

    labels = np.array([INDEX["A"], INDEX["*"], INDEX["*"], INDEX["."]])
    weights = weighed_by_class(np.full(4, 0.25), labels, ["*=3"])
    assert weights.sum() == pytest.approx(1.0)
    assert weights[1] == weights[2] == pytest.approx(3 * weights[0]) and weights[0] == weights[3]
    with pytest.raises(SystemExit, match="K"):
        weighed_by_class(np.full(4, 0.25), labels, ["K=2"])
