"""A printed field read against the few things it may say: a round number, a table, a player's name.

The recogniser's output on the field's crop (``recognizer``: (T, C) natural-log probabilities, class 0 the CTC
blank) is scored against every option (``ctc.trie_log_probs``, separators counting as nothing) and against the
unconstrained readings (CTC beam search) that are none, which pay ``reading_prior`` nats: a field that says
something else than every option gets a low probability.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import ctc, tokens
from .decoder import SEPARATORS, unseparated


def score_choice(log_probs: np.ndarray, options: Sequence[str]) -> list[tuple[str, float, bool]]:
    """(text, log-probability, is an option) for each of ``options`` and each beam reading that is none."""
    absorbed = ctc.absorb(log_probs, SEPARATORS)
    texts = [unseparated(o) for o in options]
    scores = ctc.trie_log_probs(absorbed, ctc.TokenTrie.build(tokens.encode(t) for t in texts))
    out = [(o, float(v), True) for o, v in zip(options, scores)]
    for labels, _ in ctc.beam_search(log_probs, 4):
        text = unseparated(tokens.decode(labels))
        if text not in texts:
            out.append((text, ctc.sequence_log_prob(absorbed, tokens.encode(text)), False))
    return out


def pick(scored: Sequence[tuple[str, float, bool]], reading_prior: float,
         favoured: dict[str, float] | None = None) -> tuple[str | None, float]:  # fmt: skip
    """The likeliest option of a scored field and its posterior (readings that are no option pay the prior;
    ``favoured`` options, such as the round being played, gain their bonus in nats)."""
    if not any(is_option for _, _, is_option in scored):
        return None, 0.0
    bonus = favoured or {}
    logps = np.array([v + bonus.get(t, 0.0) if is_option else v - reading_prior for t, v, is_option in scored])
    probs = np.exp(logps - np.logaddexp.reduce(logps))
    best = max((i for i, e in enumerate(scored) if e[2]), key=lambda i: probs[i])
    return scored[best][0], float(probs[best])


def choose(log_probs: np.ndarray, options: Sequence[str], reading_prior: float = 4.0) -> tuple[str | None, float]:
    """The likeliest of ``options`` (a round number, a table, a name) and its probability.

    The unconstrained reading competes too (paying ``reading_prior`` nats), so a
    field that says something else gets a low probability. Separators count as
    nothing. (None, 0.0) when there is no option.
    """
    if not options:
        return None, 0.0
    return pick(score_choice(log_probs, options), reading_prior)
