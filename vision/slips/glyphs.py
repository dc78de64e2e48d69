"""A play line's characters read one by one, where the line recogniser places them (``glyph_recognizer.onnx``).

The line recogniser (CTC, ``recognizer``) reads a prepared line (``lineimage``: (32, W) float32 ink) as
T = W // 4 frames. ``align`` finds, by the CTC's best path (Viterbi) through a given written form, the
frames each of its characters takes; a character's centre is the middle of its frames, at
x = (frame + 0.5) * ``FRAME`` px of the prepared line. ``windows`` cuts a ``SIZE`` x ``SIZE`` window of the
prepared line centred there (paper beyond the ends). The glyph classifier maps (N, 1, 32, 32) to (N, 39):
natural-log probabilities of the 27 capitals and 10 digits (``GLYPHS``), then of (plain, circled).

``glyph_check`` reads the windows of a written form (``H8CASa→``: arrows are not read) and gives the
lowest probability the classifier gives any of its characters as written, among the characters of its kind
(``of_kind``: a letter among the letters, a digit among the digits): a second opinion on the line that does
not share the line recogniser's weights. The classifier is trained on windows placed the same
way (``models/slips/train_glyphs.py``), so it sees the placement's errors as it will when reading.

``check_letters`` reads the line's unconstrained reading character by character (``both_reads``: how surely each
is written so, by both networks) and says, for its likeliest plays, how surely the writing says something else
than each (``clash``): a play accepted must be what is written, letter for letter, where the writing is clear
(``decoder.decide_scored``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Final, NamedTuple, Protocol

import numpy as np

from . import ctc, tokens
from .decoder import CandidateSet, Scored, split_plays, unseparated
from .recognizer import MODEL_DIR, one_thread_session

GLYPH_MODEL: Final = MODEL_DIR / "glyph_recognizer.onnx"
GLYPHS: Final = tokens.CAPITALS + tokens.DIGITS
GLYPH_INDEX: Final = {glyph: i for i, glyph in enumerate(GLYPHS)}
SIZE: Final = 32  # px: the window's side (the prepared line's height)
FRAME: Final = 4  # px of the prepared line per recogniser frame (``models/slips/crnn.py``: T = W // 4)
TOP: Final = 3  # the likeliest plays of a line checked glyph by glyph (``check_plays``)
SEPARATORS: Final = (tokens.INDEX[" "], tokens.INDEX["-"])  # counted as blank (``decoder.SEPARATORS``)


def align(log_probs: np.ndarray, labels: Sequence[int]) -> list[tuple[int, int]] | None:
    """The frames (first, last) each label takes on the best CTC path through ``labels``; None when the
    line has too few frames. ``log_probs``: (T, C) natural logs, class 0 the blank (separators absorbed
    into it where they do not count, ``ctc.absorb``)."""
    T = log_probs.shape[0]
    ext = [0]
    for label in labels:
        ext += [int(label), 0]
    S = len(ext)
    if not labels or len(labels) > T:
        return None
    lp = log_probs[:, ext]
    score = np.full(S, ctc.NEG)
    score[:2] = lp[0, :2]
    back = np.zeros((T, S), np.int8)  # how many states back each state came from: 0, 1 or 2
    skip = np.array([s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2] for s in range(S)])
    for t in range(1, T):
        stay = score
        one = np.concatenate(([ctc.NEG], score[:-1]))
        two = np.where(skip, np.concatenate(([ctc.NEG, ctc.NEG], score[:-2])), ctc.NEG)
        choices = np.stack([stay, one, two])
        back[t] = choices.argmax(0)
        score = choices.max(0) + lp[t]
    state = S - 1 if S == 1 or score[-1] >= score[-2] else S - 2
    frames: list[list[int]] = [[] for _ in labels]
    for t in range(T - 1, -1, -1):
        if state % 2:
            frames[state // 2].append(t)
        state -= int(back[t, state])
    if any(not f for f in frames):
        return None
    return [(min(f), max(f)) for f in frames]


def windows(prepared: np.ndarray, centres: Sequence[float]) -> np.ndarray:
    """(N, ``SIZE``, ``SIZE``) float32 windows of a prepared (32, W) line centred at x = ``centres`` (px)."""
    width = prepared.shape[1]
    out = np.zeros((len(centres), SIZE, SIZE), np.float32)
    for i, x in enumerate(centres):
        left = int(round(x)) - SIZE // 2
        a, b = max(0, left), min(width, left + SIZE)
        if a < b:
            out[i, :, a - left : b - left] = prepared[:, a:b]
    return out


def centres_of(spans: Sequence[tuple[int, int]]) -> list[float]:
    """The x (px of the prepared line) of each aligned character: the middle of its frames."""
    return [((first + last) / 2 + 0.5) * FRAME for first, last in spans]


def glyph_labels(text: str) -> list[tuple[int, int, int]]:
    """(position in ``text``, glyph class, circled) of each character of a written form the classifier reads."""
    out = []
    for i, char in enumerate(text):
        base = char.upper()
        if base in GLYPH_INDEX:
            out.append((i, GLYPH_INDEX[base], int(char.islower())))
    return out


class GlyphReader(Protocol):
    """What reads windows as characters: the glyph classifier, or the same with what was learned of a player's hand
    (``learning.PlayerGlyphs``)."""

    def log_probs(self, images: np.ndarray) -> np.ndarray: ...


class GlyphRecognizer:
    """The glyph classifier (``GLYPH_MODEL``), one thread; ``log_probs`` of windows (``windows``)."""

    def __init__(self, model: Path = GLYPH_MODEL) -> None:
        self._session = one_thread_session(model, "de caracteres del lector de papeletas")
        self._input = self._session.get_inputs()[0].name

    def log_probs(self, images: np.ndarray) -> np.ndarray:
        """(N, 39) float32 log-probabilities (``GLYPHS``, then plain/circled) of (N, 32, 32) windows."""
        if not len(images):
            return np.zeros((0, len(GLYPHS) + 2), np.float32)
        out = self._session.run(None, {self._input: images[:, None].astype(np.float32)})[0]
        return np.asarray(out, dtype=np.float32)


@lru_cache(maxsize=1)
def default_glyph_recognizer() -> GlyphRecognizer:
    return GlyphRecognizer()


def glyph_check(recognizer: GlyphReader, prepared: np.ndarray, log_probs: np.ndarray, text: str) -> float:
    """The lowest probability the classifier gives any character of the written form ``text`` (separator-
    free tokens) as written, among the characters of its kind (``of_kind``), letter and circle together,
    each read where the line recogniser's best path through ``text`` puts it; 0.0 when the path cannot be
    found."""
    reads = glyph_labels(text)
    absorbed = ctc.absorb(log_probs, SEPARATORS)
    spans = align(absorbed, tokens.encode(text))
    if spans is None or not reads:
        return 0.0
    centres = centres_of(spans)
    out = recognizer.log_probs(windows(prepared, [centres[i] for i, _, _ in reads]))
    glyphs = len(GLYPHS)
    kind = of_kind(out[:, :glyphs])
    worst = min(kind[k, g] + out[k, glyphs + c] for k, (_, g, c) in enumerate(reads))
    return float(np.exp(worst))


def both_reads(recognizer: GlyphReader | None, prepared: np.ndarray | None, log_probs: np.ndarray,
               text: str) -> list[tuple[float, ...]] | None:  # fmt: skip
    """Each character of ``text`` (separator-free tokens, ``H8CASa→``) as read where the line recogniser's best path
    through ``text`` puts it: the line recogniser's probability of it (the highest over its frames), then the glyph
    classifier's (among its kind, circle included, ``of_kind``) where it reads it (not an arrow; without a
    ``recognizer``, the line recogniser's alone). None when the path cannot be found."""
    absorbed = ctc.absorb(log_probs, SEPARATORS)
    labels = tokens.encode(text)
    spans = align(absorbed, labels)
    if spans is None:
        return None
    out: list[tuple[float, ...]] = [(float(np.exp(absorbed[first : last + 1, label].max())),)
                                    for (first, last), label in zip(spans, labels)]  # fmt: skip
    reads = glyph_labels(text)
    if recognizer is not None and prepared is not None and reads:
        centres = centres_of(spans)
        seen = recognizer.log_probs(windows(prepared, [centres[i] for i, _, _ in reads]))
        kind = of_kind(seen[:, : len(GLYPHS)])
        for k, (i, g, c) in enumerate(reads):
            out[i] += (float(np.exp(kind[k, g] + seen[k, len(GLYPHS) + c])),)
    return out


def clash(reading: str, sure: Sequence[float], form: str, seen: Sequence[float], word: int = 0) -> float:
    """How surely the writing says something else than the word of the written form ``form`` (its characters from
    ``word`` on: after its coordinate), the two aligned by the fewest edits: a character of the word in the place of
    another of the reading that neither network sees there (1 less ``seen``, the likelier of the two networks'
    probabilities of it, ``both_reads``), or a character of the reading after the coordinate that the form lacks and
    both read surely (``sure``, the lesser of theirs). A character of the form the reading lacks is a stroke too faint
    to read, and no clash; nor is the coordinate, which the word's place in the round settles (``A9 PERDER`` read
    where only ``A4 PERDER`` is legal: a 4 written like a 9, ``decoder.confirmed_plays``). 0.0 when the form's word is
    the reading's."""
    rows, cols = len(reading) + 1, len(form) + 1
    cost = np.zeros((rows, cols), np.int32)
    cost[:, 0], cost[0, :] = np.arange(rows), np.arange(cols)
    for i in range(1, rows):
        for j in range(1, cols):
            cost[i, j] = min(cost[i - 1, j] + 1, cost[i, j - 1] + 1,
                             cost[i - 1, j - 1] + (reading[i - 1] != form[j - 1]))  # fmt: skip
    worst, i, j = 0.0, len(reading), len(form)
    while i > 0 or j > 0:
        if i > 0 and j > 0 and cost[i, j] == cost[i - 1, j - 1] + (reading[i - 1] != form[j - 1]):
            if reading[i - 1] != form[j - 1] and j > word:
                worst = max(worst, 1.0 - seen[j - 1])
            i, j = i - 1, j - 1
        elif i > 0 and cost[i, j] == cost[i - 1, j] + 1:  # the reading's character, not in the form
            worst, i = max(worst, sure[i - 1] if j >= word else 0.0), i - 1
        else:  # the form's character, not read
            j -= 1
    return worst


class LetterChecks(NamedTuple):
    """A line's letters read one by one (``check_letters``): the fields of the same names of ``decoder.Scored``."""

    letters: tuple[float, ...]  # how surely each character of the unconstrained reading is written so
    clashes: dict[str, float]  # play -> how surely the writing says something else than its word
    circled: dict[str, float]  # play -> how surely its circled letters are written so (1.0: it has none)


def check_letters(recognizer: GlyphReader | None, prepared: np.ndarray | None, log_probs: np.ndarray,
                  scored: Scored, cands: CandidateSet, top: int = TOP) -> LetterChecks:  # fmt: skip
    """How surely each character of a scored line's unconstrained reading is written so (the lesser of the two
    networks' probabilities, ``both_reads``), and, for its ``top`` likeliest plays (by their written forms' scores
    before any prior), how surely the writing says something else than the play's word (``clash``, on the play's
    written form the line recogniser finds likeliest) and how surely its circled letters are written so (the least,
    by the lesser of the two networks, of each circled letter of that form: a blank's letter has no word around it
    to vouch for it, ``RUi`` or ``RUo``). Empty when the reading's path cannot be found. Without a glyph
    ``recognizer``, by the line recogniser alone."""
    reading = unseparated(scored.raw)
    reads = both_reads(recognizer, prepared, log_probs, reading) if reading else None
    if not reads:
        return LetterChecks((), {}, {})
    sure = tuple(min(read) for read in reads)
    absorbed = ctc.absorb(log_probs, SEPARATORS)
    ranked = sorted(scored.entries, key=lambda e: -e[3])
    clashes, circled = {}, {}
    for play in list(dict.fromkeys(e[1] for e in ranked if e[0] == "play"))[:top]:
        forms = cands.forms.get(play, ())
        form = max(forms, key=lambda t: ctc.sequence_log_prob(absorbed, tokens.encode(t)), default=None)
        seen = both_reads(recognizer, prepared, log_probs, form) if form else None
        clashes[play] = clash(reading, sure, form, [max(read) for read in seen], _word_at(form)) if form and seen else 0.0
        circled[play] = _circled_sure(form, seen) if form and seen else 0.0
    return LetterChecks(sure, clashes, circled)


def _circled_sure(form: str, seen: Sequence[tuple[float, ...]]) -> float:
    """How surely the circled letters of a written form are written so: the least over them of the lesser of the
    networks' probabilities (``both_reads``); 1.0 without one."""
    return min((min(read) for char, read in zip(form, seen) if char.islower()), default=1.0)


def _word_at(form: str) -> int:
    """Where a separator-free written form's word starts: after its coordinate (``H8CASa→``: 2)."""
    plays = split_plays(form)
    return len(plays[0].split(" ")[0]) if plays else 0


def of_kind(log_probs: np.ndarray) -> np.ndarray:
    """(N, 37) log-probabilities of ``GLYPHS`` renormalised within each kind: the 27 capitals among
    themselves, the 10 digits among themselves. A written form says which kind each character is (a
    word has letters only; a coordinate a letter and a number, in either order), so a 1 seen where the
    form has an I does not count against it: only the other letters do (issue 21: 1 I, 0 O, 5 S...)."""
    letters = len(tokens.CAPITALS)
    parts = (log_probs[:, :letters], log_probs[:, letters:])
    return np.concatenate([part - np.logaddexp.reduce(part, axis=1, keepdims=True) for part in parts], axis=1)


def check_plays(recognizer: GlyphReader, prepared: np.ndarray, log_probs: np.ndarray, scored: Scored,
                cands: CandidateSet, top: int = TOP) -> dict[str, float]:  # fmt: skip
    """``glyph_check`` of the ``top`` likeliest plays of a scored line (by their written forms' scores before any
    prior), each on its written form the line recogniser finds likeliest (``CandidateSet.forms``), and of its
    likeliest reading that is no legal play (keyed by its text, ``H8CASAS``; a play by its notation)."""
    absorbed = ctc.absorb(log_probs, SEPARATORS)
    ranked = sorted(scored.entries, key=lambda e: -e[3])
    plays = list(dict.fromkeys(e[1] for e in ranked if e[0] == "play"))[:top]
    out = {}
    for play in plays:
        forms = cands.forms.get(play, ())
        if forms:
            text = max(forms, key=lambda t: ctc.sequence_log_prob(absorbed, tokens.encode(t)))
            out[play] = glyph_check(recognizer, prepared, log_probs, text)
    reading = next((e[1] for e in ranked if e[0] == "reading"), None)
    if reading:
        out[reading] = glyph_check(recognizer, prepared, log_probs, reading)
    return out
