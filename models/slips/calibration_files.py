"""What the threshold calibrations (``calibrate_letters``, ``calibrate_circled``, ``calibrate_board_letters``) keep on
disk: their reads, pickled in a ``--cache`` file so that a choice can be made again without reading every slip, and
their choices, merged into a thresholds file (``decoder.THRESHOLDS_FILE`` or the board's) beside its other values."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

Reads = TypeVar("Reads")


def cached(cache: Path | None, read: Callable[[], Reads]) -> Reads:
    """The reads kept in ``cache``, else ``read()``'s, kept there (no cache: read every time)."""
    if cache and cache.exists():
        found: Reads = pickle.loads(cache.read_bytes())
        return found
    reads = read()
    if cache:
        cache.write_bytes(pickle.dumps(reads))
    return reads


def record_choice(path: Path, values: dict[str, Any]) -> None:
    """``values`` written into the thresholds file ``path`` (its other values kept), and the whole file printed."""
    record = json.loads(path.read_text(encoding="utf-8"))
    record.update(values)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=1, ensure_ascii=False))
