"""The histogram percentiles the frame's steps use are numpy's, to the last bit."""

from __future__ import annotations

import numpy as np
import pytest

from vision.board.percentiles import channel_percentiles, row_percentiles


@pytest.mark.parametrize("q", [1.0, 2.0, 30.0, 50.0, 98.0, 99.0])
def test_row_percentiles_are_numpys_on_float32_levels(q: float) -> None:
    rng = np.random.default_rng(int(q))
    for n in (2, 3, 17, 640, 2025):
        rows = rng.integers(0, 256, (4, n)).astype(np.uint8)
        rows[1] = np.minimum(rows[1], 40)  # a dim channel: many equal levels
        assert np.array_equal(row_percentiles(rows, q), np.percentile(rows.astype(np.float32), q, axis=1))
        both = np.percentile(rows[0].astype(np.float32), (q, 100 - q))  # a sequence of q: numpy works in float64
        assert np.array_equal([row_percentiles(rows[:1], q, np.float64)[0], row_percentiles(rows[:1], 100 - q, np.float64)[0]], both)


def test_channel_percentiles_are_per_channel() -> None:
    pixels = np.stack([np.arange(100), np.full(100, 7), 255 - np.arange(100)], axis=1).astype(np.uint8)
    assert np.array_equal(channel_percentiles(pixels, 50.0), np.percentile(pixels.astype(np.float32), 50.0, axis=0))
    with pytest.raises(ValueError, match="vacía"):
        row_percentiles(np.zeros((2, 0), np.uint8), 50.0)
