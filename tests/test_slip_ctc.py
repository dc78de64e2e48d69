"""CTC decoding and scoring (pure NumPy) against a brute-force sum over every alignment."""

from __future__ import annotations

import itertools

import numpy as np

from vision.slips import ctc


def random_log_probs(seed: int, frames: int, classes: int) -> np.ndarray:
    x = np.random.default_rng(seed).normal(0, 1.5, (frames, classes))
    return x - np.logaddexp.reduce(x, axis=1, keepdims=True)


def collapse(path: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(c for i, c in enumerate(path) if c != 0 and (i == 0 or c != path[i - 1]))


def brute_force(log_probs: np.ndarray) -> dict[tuple[int, ...], float]:
    """log P(labels) for every label sequence, summing all frame paths (tiny sizes only)."""
    totals: dict[tuple[int, ...], float] = {}
    frames, classes = log_probs.shape
    for path in itertools.product(range(classes), repeat=frames):
        key = collapse(path)
        value = float(sum(log_probs[t, c] for t, c in enumerate(path)))
        totals[key] = float(np.logaddexp(totals.get(key, ctc.NEG), value))
    return totals


def test_forward_and_trie_equal_the_sum_over_alignments() -> None:
    lp = random_log_probs(1, 6, 4)
    truth = brute_force(lp)
    sequences = [(1,), (1, 2), (2, 2), (1, 2, 3), (3, 3, 1), (), (1, 1, 1)]
    trie = ctc.TokenTrie.build(sequences)
    by_trie = ctc.trie_log_probs(lp, trie, margin=1e9)
    for sequence, value in zip(sequences, by_trie):
        assert abs(ctc.sequence_log_prob(lp, sequence) - truth[sequence]) < 1e-9
        assert abs(value - truth[sequence]) < 1e-6


def test_beam_search_finds_the_likeliest_sequence() -> None:
    lp = random_log_probs(2, 6, 3)
    truth = brute_force(lp)
    best = max(truth, key=lambda k: truth[k])
    found, score = ctc.beam_search(lp, beam=16, prune=-50)[0]
    assert tuple(found) == best
    assert abs(score - truth[best]) < 1e-6


def test_greedy_collapses_repeats_and_drops_blanks() -> None:
    lp = np.log(np.array([[0.1, 0.9, 0.0 + 1e-9], [0.1, 0.9, 1e-9], [0.9, 0.05, 0.05], [0.1, 0.9, 1e-9], [0.1, 0.1, 0.8]]))
    assert ctc.greedy(lp) == [1, 1, 2]


def test_absorbed_classes_count_as_blank() -> None:
    lp = np.log(np.array([[0.1, 0.1, 0.8], [0.1, 0.8, 0.1]]))
    absorbed = ctc.absorb(lp, [2])
    assert np.isclose(np.exp(absorbed[0, 0]), 0.9)
    assert np.isclose(ctc.sequence_log_prob(absorbed, [1]), np.log(0.9 * 0.8 + 0.1 * 0.8 + 0.1 * 0.2))
