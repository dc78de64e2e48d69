"""Shared fixtures: the official lexicon and golden move lists from ../shared, a small lexicon."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from rules_core.lexicon import ENV_CACHE_DIR, Lexicon

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("VEEDOR_SHARED", REPO.parent / "shared"))
# Timing is no behaviour: property tests keep their examples and checks, but a busy 2-core machine
# (training beside the tests) must not fail them for slowness.
settings.register_profile("veedor", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("veedor")

FILE2017 = SHARED / "lexicon" / "FILE2017.txt"
GOLDEN = SHARED / "golden" / "positions_dev.jsonl.gz"


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"test data missing: {path} (set VEEDOR_SHARED to the shared/ folder)")
    return path


@pytest.fixture(scope="session", autouse=True)
def graph_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Built word graphs and stored lists go to a folder of this test run, never the user's cache
    (``$VEEDOR_CACHE_DIR``, inherited by the command-line runs): FILE2017's graph takes about 3 s to build."""
    folder = tmp_path_factory.mktemp("veedor-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV_CACHE_DIR, str(folder))
        yield folder


@pytest.fixture(scope="session")
def file2017() -> Lexicon:
    """The official FILE2017 lexicon (test data, never shipped)."""
    return Lexicon.load(_require(FILE2017))


@pytest.fixture(scope="session")
def golden() -> list[dict[str, Any]]:
    """The 300 golden positions with every legal play and its score."""
    with gzip.open(_require(GOLDEN), "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


@pytest.fixture(scope="session")
def small_lexicon() -> Lexicon:
    """A few words, for cases that read like a scoresheet."""
    words = "CASA CASAS CASO AS ES OS SE LA AL EL LE ASA OSA CHORIZO CHORIZOS LLAMA CARRO NIÑO"
    return Lexicon.from_words(words.split(), name="mini")
