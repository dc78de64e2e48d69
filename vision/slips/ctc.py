"""CTC decoding and scoring as pure NumPy functions (no model needed to test them).

All functions take ``log_probs``: float array of shape (T, C), natural-log
probabilities per frame (rows sum to 1 in probability), class 0 the CTC blank.
Label sequences are lists of class indices without blanks.

* ``greedy``: best path, collapsed.
* ``beam_search``: CTC prefix beam search, the likeliest strings with their log-probabilities.
* ``sequence_log_prob``: log P(labels | frames), the CTC forward algorithm.
* ``TokenTrie`` + ``trie_log_probs``: the same for many sequences at once, sharing
  the work of common prefixes (every legal play of a round starts with one of a
  few hundred coordinates), vectorised over the trie's nodes depth by depth.
* ``absorb``: fold classes (separators) into the blank, so a scored string need
  not say whether the writer put a space or a hyphen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

NEG = -1e30  # log 0, kept finite so that arithmetic stays free of NaN


def greedy(log_probs: np.ndarray) -> list[int]:
    """Best-path decoding: the argmax class per frame, repeats collapsed, blanks dropped."""
    best = log_probs.argmax(axis=1)
    return [int(c) for i, c in enumerate(best) if c != 0 and (i == 0 or c != best[i - 1])]


def absorb(log_probs: np.ndarray, classes: Iterable[int]) -> np.ndarray:
    """A copy of ``log_probs`` where ``classes`` are counted as blank (and never emitted)."""
    out = np.array(log_probs, dtype=np.float64, copy=True)
    for c in classes:
        out[:, 0] = np.logaddexp(out[:, 0], out[:, c])
        out[:, c] = NEG
    return out


def sequence_log_prob(log_probs: np.ndarray, labels: Sequence[int]) -> float:
    """log P(labels | log_probs) by the CTC forward algorithm over the extended label (blanks between)."""
    T = log_probs.shape[0]
    ext = [0]
    for label in labels:
        ext += [int(label), 0]
    S = len(ext)
    if S // 2 > T:
        return NEG
    lp = log_probs[:, ext]  # (T, S)
    alpha = np.full(S, NEG)
    alpha[0] = lp[0, 0]
    if S > 1:
        alpha[1] = lp[0, 1]
    skip = np.array([s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2] for s in range(S)])
    for t in range(1, T):
        prev = alpha
        shifted1 = np.concatenate(([NEG], prev[:-1]))
        shifted2 = np.concatenate(([NEG, NEG], prev[:-2]))
        alpha = np.logaddexp(prev, shifted1)
        alpha = np.where(skip, np.logaddexp(alpha, shifted2), alpha) + lp[t]
    if S == 1:
        return float(alpha[0])
    return float(np.logaddexp(alpha[-1], alpha[-2]))


def beam_search(log_probs: np.ndarray, beam: int = 8, prune: float = -9.0) -> list[tuple[list[int], float]]:
    """CTC prefix beam search: up to ``beam`` label sequences, likeliest first, with log-probabilities.

    Per frame only classes with log-probability above ``prune`` extend a prefix
    (the best class always does). The log-probabilities are those of the prefix
    beams, a lower bound of ``sequence_log_prob`` for each.
    """
    beams: dict[tuple[int, ...], tuple[float, float]] = {(): (0.0, NEG)}  # prefix -> (log p_blank, log p_nonblank)
    for t in range(log_probs.shape[0]):
        frame = log_probs[t]
        classes = [int(c) for c in np.nonzero(frame > prune)[0] if c != 0]
        best = int(frame.argmax())
        if best != 0 and best not in classes:
            classes.append(best)
        nxt: dict[tuple[int, ...], list[float]] = {}

        def add(prefix: tuple[int, ...], pb: float, pnb: float) -> None:
            entry = nxt.setdefault(prefix, [NEG, NEG])
            entry[0] = float(np.logaddexp(entry[0], pb))
            entry[1] = float(np.logaddexp(entry[1], pnb))

        for prefix, (pb, pnb) in beams.items():
            total = np.logaddexp(pb, pnb)
            add(prefix, total + frame[0], NEG)
            if prefix:
                add(prefix, NEG, pnb + frame[prefix[-1]])
            for c in classes:
                extended = prefix + (c,)
                if prefix and prefix[-1] == c:
                    add(extended, NEG, pb + frame[c])
                else:
                    add(extended, NEG, total + frame[c])
        ranked = sorted(nxt.items(), key=lambda kv: -np.logaddexp(kv[1][0], kv[1][1]))[:beam]
        beams = {k: (v[0], v[1]) for k, v in ranked}
    results = [(list(k), float(np.logaddexp(*v))) for k, v in beams.items()]
    return sorted(results, key=lambda r: -r[1])


@dataclass
class TokenTrie:
    """A prefix tree of label sequences; node 0 is the root (the empty prefix).

    ``parent[n]``, ``token[n]`` and ``depth[n]`` describe node n; ``ends[i]`` is
    the node where sequence i ends.
    """

    parent: list[int] = field(default_factory=lambda: [-1])
    token: list[int] = field(default_factory=lambda: [0])
    depth: list[int] = field(default_factory=lambda: [0])
    ends: list[int] = field(default_factory=list)
    _children: dict[tuple[int, int], int] = field(default_factory=dict)

    @classmethod
    def build(cls, sequences: Iterable[Sequence[int]]) -> TokenTrie:
        trie = cls()
        for sequence in sequences:
            trie.ends.append(trie.insert(sequence))
        return trie

    def insert(self, sequence: Sequence[int]) -> int:
        node = 0
        for label in sequence:
            key = (node, int(label))
            child = self._children.get(key)
            if child is None:
                child = len(self.parent)
                self._children[key] = child
                self.parent.append(node)
                self.token.append(int(label))
                self.depth.append(self.depth[node] + 1)
            node = child
        return node


def trie_log_probs(log_probs: np.ndarray, trie: TokenTrie, margin: float = 25.0) -> np.ndarray:
    """log P(sequence | log_probs) for every sequence of ``trie`` (array aligned with ``trie.ends``).

    Prefixes whose optimistic bound (their best frame plus the best path of the
    remaining frames) falls ``margin`` nats below the best such bound of their
    depth are dropped: their sequences get ``NEG``. With a generous margin this
    changes no decision and keeps large candidate sets (two blanks) fast.
    """
    lp = np.maximum(np.asarray(log_probs, dtype=np.float64), -60.0)  # floor: no -inf arithmetic
    T = lp.shape[0]
    parent = np.asarray(trie.parent)
    token = np.asarray(trie.token)
    depth = np.asarray(trie.depth)
    n = len(parent)
    cum_blank = np.cumsum(lp[:, 0])
    future = np.concatenate((np.cumsum(lp.max(axis=1)[::-1])[::-1][1:], [0.0]))  # best path after frame t
    final = np.full(n, NEG)
    is_end = np.zeros(n, bool)
    is_end[np.asarray(trie.ends, dtype=np.int64)] = True
    best_final = NEG
    # root: only blanks so far
    pb_prev = np.cumsum(lp[:, 0])[None, :]  # (1, T)
    pnb_prev = np.full((1, T), NEG)
    ids_prev = np.array([0])
    final[0] = pb_prev[0, -1]
    max_depth = int(depth.max()) if n else 0
    order = np.argsort(depth, kind="stable")
    starts = np.searchsorted(depth[order], np.arange(max_depth + 2))
    for d in range(1, max_depth + 1):
        ids = order[starts[d] : starts[d + 1]]
        position = np.full(n, -1)
        position[ids_prev] = np.arange(len(ids_prev))
        rows = position[parent[ids]]
        alive = rows >= 0
        ids, rows = ids[alive], rows[alive]
        if len(ids) == 0:
            break
        c = token[ids]
        same = (token[parent[ids]] == c) & (parent[ids] != 0)
        pb_par, pnb_par = pb_prev[rows], pnb_prev[rows]
        # how the parent prefix can stand at frame t-1 before c is emitted at t
        enter = np.where(same[:, None], pb_par, np.logaddexp(pb_par, pnb_par))
        enter = np.concatenate((np.where(parent[ids] == 0, 0.0, NEG)[:, None], enter[:, :-1]), axis=1)
        emit = lp[:, c].T  # (N, T)
        # pnb[t] = (pnb[t-1] + enter[t]) * emit[t] and pb[t] = (pb[t-1] + pnb[t-1]) * blank[t], solved
        # in closed form with cumulative sums and log-cumulative-sum-exps (no loop over frames)
        cum_emit = np.cumsum(emit, axis=1)
        pnb = cum_emit + np.logaddexp.accumulate(enter - cum_emit + emit, axis=1)
        shifted = np.concatenate((np.full((len(ids), 1), NEG), pnb[:, :-1]), axis=1)
        pb = cum_blank[None, :] + np.logaddexp.accumulate(shifted - cum_blank[None, :] + lp[None, :, 0], axis=1)
        total = np.logaddexp(pb, pnb)
        final[ids] = total[:, -1]
        bound = (total + future[None, :]).max(axis=1)
        ends_here = is_end[ids]
        if ends_here.any():
            best_final = max(best_final, float(total[ends_here, -1].max()))
        keep = bound >= max(bound.max(), best_final) - margin
        pb_prev, pnb_prev, ids_prev = pb[keep], pnb[keep], ids[keep]
    return final[np.asarray(trie.ends, dtype=np.int64)] if trie.ends else np.zeros(0)
