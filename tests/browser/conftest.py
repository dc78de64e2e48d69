"""The browser the browser tests drive: Debian's chromium through Playwright, never a download."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture()
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright  # pip install playwright (the test extra)

    assert Path(CHROMIUM).exists(), "Chromium missing: apt-get install chromium (make's system packages)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture()
def shots(tmp_path: Path) -> Path:
    """Where the tests' screenshots go: ``VEEDOR_SCREENSHOTS``, or the test's temporary folder."""
    folder = Path(os.environ.get("VEEDOR_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
