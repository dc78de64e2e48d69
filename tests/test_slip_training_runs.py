"""The slip networks' long runs on the CPU (``models.slips.glyph_run``, ``line_run``; issue 68): a run stopped and
resumed ends as one that never stopped (the same batches, the same weights)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest


def _stopped_and_resumed(tmp_path: Path, module: ModuleType, data: Path, common: list[str]) -> None:
    torch = pytest.importorskip("torch")

    def load(name: str) -> dict[str, Any]:
        return dict(torch.load(tmp_path / name / "ck.pt", weights_only=False))

    def run(name: str, *extra: str) -> dict[str, Any]:
        module.run(module.parse([str(data), *common, "--checkpoint", str(tmp_path / name / "ck.pt"), *extra]))
        return load(name)

    whole = run("whole")
    stopped = run("stopped", "--stop-after", "1e-9")  # stops, saved, after the first step
    assert stopped["run"]["epoch"] == 0 and stopped["run"]["step"] == 1
    module.run(module.parse(["--resume", "--checkpoint", str(tmp_path / "stopped" / "ck.pt")]))
    resumed = load("stopped")
    assert resumed["run"]["epoch"] == 2 and whole["run"]["epoch"] == 2
    assert all(torch.equal(whole["model"][k], resumed["model"][k]) for k in whole["model"])
    assert not all(torch.equal(stopped["model"][k], resumed["model"][k]) for k in whole["model"])  # it did train


def _without_export(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
    monkeypatch.setattr(module, "export", lambda model, out: None)  # the ONNX export is not what is checked here


def test_a_glyph_run_stopped_and_resumed_ends_as_one_that_never_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from models.slips import glyph_run

    _without_export(monkeypatch, glyph_run)
    rng = np.random.default_rng(0)
    windows = tmp_path / "glyphs.npz"
    np.savez(windows, X=rng.integers(0, 255, (300, 32, 32), dtype=np.uint8), L=rng.integers(0, 37, 300).astype(np.int16),
             C=rng.integers(0, 2, 300).astype(np.int8))
    _stopped_and_resumed(tmp_path, glyph_run, windows, ["--epochs", "2", "--epoch-size", "96", "--batch", "32", "--check-lines", "0"])


def test_a_line_run_stopped_and_resumed_ends_as_one_that_never_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from models.slips import line_run

    _without_export(monkeypatch, line_run)
    rng = np.random.default_rng(1)
    widths, lengths = rng.integers(40, 90, 24), rng.integers(1, 6, 24)
    lines = tmp_path / "lines.npz"
    np.savez(lines, ink=rng.integers(0, 255, (32, int(widths.sum())), dtype=np.uint8),
             starts=np.concatenate([[0], np.cumsum(widths)]), tokens=rng.integers(1, 60, int(lengths.sum())).astype(np.int16),
             token_starts=np.concatenate([[0], np.cumsum(lengths)]))
    _stopped_and_resumed(tmp_path, line_run, lines, ["--epochs", "2", "--epoch-size", "8", "--batch", "4", "--check-lines", "0"])
