"""The glyph classifier's long run (``models.slips.glyph_run``, issue 68): stopped and resumed, it ends as one that
never stopped."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest


def test_a_glyph_run_stopped_and_resumed_ends_as_one_that_never_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from models.slips import glyph_run

    monkeypatch.setattr(glyph_run, "export", lambda members, out: None)  # the ONNX export is not what is checked here
    rng = np.random.default_rng(0)
    windows = tmp_path / "glyphs.npz"
    np.savez(windows, X=rng.integers(0, 255, (300, 32, 32), dtype=np.uint8), L=rng.integers(0, 37, 300).astype(np.int16),
             C=rng.integers(0, 2, 300).astype(np.int8))
    common = ["--epochs", "2", "--epoch-size", "96", "--batch", "32", "--check-lines", "0"]

    def run(name: str, *extra: str) -> dict[str, object]:
        ck = tmp_path / name / "ck.pt"
        glyph_run.run(glyph_run.parse([str(windows), *common, "--checkpoint", str(ck), *extra]))
        return torch.load(ck, weights_only=False)

    whole = run("whole")
    stopped = run("stopped", "--stop-after", "1e-9")  # stops, saved, after the first step
    assert stopped["run"]["epoch"] == 0 and stopped["run"]["step"] == 1
    glyph_run.run(glyph_run.parse(["--resume", "--checkpoint", str(tmp_path / "stopped" / "ck.pt")]))
    resumed = torch.load(tmp_path / "stopped" / "ck.pt", weights_only=False)
    assert resumed["run"]["epoch"] == 2 and whole["run"]["epoch"] == 2
    assert all(torch.equal(whole["model"][k], resumed["model"][k]) for k in whole["model"])
    assert not all(torch.equal(stopped["model"][k], resumed["model"][k]) for k in whole["model"])  # it did train
