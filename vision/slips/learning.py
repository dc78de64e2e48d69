"""Learning the room: the hands of a tournament's players, from the slips whose play is known (issue 68).

What is learned. A slip whose play is known tells every character it holds and where it stands: a slip accepted
with a posterior of ``LEARN_CONFIDENCE`` or more, or one an arbiter settled (never a guess: a flagged slip the
arbiter has not settled teaches nothing). The play's written form the line recogniser finds likeliest
(``CandidateSet.forms``; a reading that is no legal play, as written) is aligned on the line (``glyphs.align``),
each capital and digit is cut where it stands (``glyphs.windows``) and read by the glyph classifier; its last hidden
layer (``glyph_features.onnx``, ``FeatureGlyphs``), each member network's part scaled to length one, is kept with
the character's class, the player (the QR code names them) and the slip (``GlyphMemory``); so are the characters
the line recogniser's unconstrained reading got wrong where it read as many as were written (``misread_pairs``: the
pairs (read, written), ``M`` for an ``N``).

How it is used (``PlayerGlyphs``). A player's characters are read by the glyph classifier as before, and each class
the player has been seen to write is weighed by how like the window is to that player's nearest sample of it:
log p(c) + (s_c / ``TAU``, renormalised within its kind), s_c the cosine of the features with the nearest sample of c,
``FLOOR`` for a class not seen or seen less alike (nearest prototypes as a second expert, multiplied with the
network's probabilities; ``glyphs.of_kind``: letters among letters, digits among digits). The decoder's glyph check
(``glyphs.check_plays``) reads with these; the decoder and its thresholds, calibrated on writers never trained on,
do not change. The player's misreadings serve the room reader (``room``).

Stored (``GlyphMemory(folder)``). Each change is appended to ``folder/aprendido.jsonl`` before it applies (a slip
learned, a slip forgotten, a player reset) and a restart replays the file. The folder belongs to one tournament:
deleting it forgets the event, and nothing is carried to another unless the folder is copied there. A slip learned
again replaces what it taught; a slip scored wrong and corrected is forgotten, then learned as corrected.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from . import ctc, tokens
from .decoder import CandidateSet
from .glyphs import GLYPH_MODEL, GLYPHS, SEPARATORS, align, centres_of, glyph_labels, of_kind, windows
from .recognizer import MODEL_DIR, ModelError, one_thread_session

FEATURES_MODEL: Final = MODEL_DIR / "glyph_features.onnx"  # ``models/slips/glyph_features.py``
JOURNAL: Final = "aprendido.jsonl"
LEARN_CONFIDENCE: Final = 0.99  # an accepted slip is learned from at this posterior or more
FLOOR: Final = 0.7  # cosine: a class the player was not seen to write, or less alike, counts as this alike
TAU: Final = 0.03  # cosine per nat: how sharply the nearest samples speak
_CLASSES: Final = len(GLYPHS)


class LearningError(ValueError):
    """The learned store cannot be read: its file and line are named."""


class FeatureGlyphs:
    """The glyph classifier with its features (``FEATURES_MODEL``), one thread: the classifier's own probabilities
    and its last hidden layer. The model must be made from ``classifier`` (its ``source_sha256``), else
    ``ModelError``: the features of another classifier mean nothing to what was learned with this one."""

    def __init__(self, model: Path = FEATURES_MODEL, classifier: Path = GLYPH_MODEL) -> None:
        self._session = one_thread_session(model, "de rasgos de caracteres (aprendizaje)")
        made_from = self._session.get_modelmeta().custom_metadata_map.get("source_sha256")
        if classifier.exists() and made_from != hashlib.sha256(classifier.read_bytes()).hexdigest():
            raise ModelError(f"{model}: no está hecho del clasificador {classifier.name} "
                             "(python -m models.slips.glyph_features)")  # fmt: skip
        self._input = self._session.get_inputs()[0].name

    def read(self, images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 39) log-probabilities (``glyphs.GlyphRecognizer.log_probs``) and (N, D) features of length one
        (each member network's part scaled to length one, then the whole) of (N, 32, 32) windows."""
        if not len(images):
            return np.zeros((0, _CLASSES + 2), np.float32), np.zeros((0, 0), np.float32)
        log_probs, hidden = self._session.run(["log_probs", "features"], {self._input: images[:, None].astype(np.float32)})
        return np.asarray(log_probs, np.float32), normalised(np.asarray(hidden, np.float32))


def normalised(hidden: np.ndarray, members: int = 2) -> np.ndarray:
    """Each member's part of the features scaled to length one, the whole then to length one."""
    parts = np.split(hidden, members, axis=1)
    scaled = [p / (np.linalg.norm(p, axis=1, keepdims=True) + 1e-6) for p in parts]
    return (np.concatenate(scaled, axis=1) / np.sqrt(members)).astype(np.float32)


@dataclass(frozen=True)
class Lesson:
    """What one slip taught: its player's characters (``GLYPHS`` indices) and their features, and the characters the
    line recogniser read wrong (``misread_pairs``)."""

    player: str
    classes: np.ndarray  # (n,) int
    features: np.ndarray  # (n, D) float32
    misread: tuple[tuple[str, str], ...] = ()  # (read, written) for each character read wrong


class GlyphMemory:
    """The labelled characters of a tournament's players, by slip (module docstring); in memory when ``folder`` is
    None."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._lessons: dict[str, Lesson] = {}
        self._players: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        if folder is not None and (folder / JOURNAL).exists():
            self._replay(folder / JOURNAL)

    def learn(self, slip: str, player: str, classes: Sequence[int], features: np.ndarray,
              misread: Sequence[tuple[str, str]] = ()) -> None:  # fmt: skip
        """Keep what ``slip`` teaches of ``player``'s hand (replacing what it taught before)."""
        lesson = Lesson(player, np.asarray(classes, np.int16), np.asarray(features, np.float32), tuple(misread))
        chars = "".join(GLYPHS[int(c)] for c in lesson.classes)
        dim = int(lesson.features.shape[1]) if len(chars) else 0
        packed = base64.b64encode(lesson.features.astype(np.float16).tobytes()).decode()
        self._write({"learn": slip, "player": player, "glyphs": chars, "dim": dim, "features": packed,
                     "misread": ["".join(pair) for pair in lesson.misread]})  # fmt: skip
        self._apply_learn(slip, lesson)

    def forget(self, slip: str) -> bool:
        """Forget what ``slip`` taught (a slip scored wrong and corrected); False when it taught nothing."""
        if slip not in self._lessons:
            return False
        self._write({"forget": slip})
        self._apply_forget(slip)
        return True

    def reset(self, player: str) -> int:
        """Forget everything learned of ``player``'s hand; how many slips it came from."""
        slips = [s for s, lesson in self._lessons.items() if lesson.player == player]
        if slips:
            self._write({"reset": player})
            for slip in slips:
                self._apply_forget(slip)
        return len(slips)

    def of_player(self, player: str | None) -> tuple[np.ndarray, np.ndarray] | None:
        """(features (n, D), classes (n,)) learned of ``player``'s hand, or None."""
        if player is None:
            return None
        if player not in self._players:
            lessons = [lesson for lesson in self._lessons.values() if lesson.player == player and len(lesson.classes)]
            if not lessons:
                return None
            self._players[player] = (np.concatenate([lesson.features for lesson in lessons]),
                                     np.concatenate([lesson.classes for lesson in lessons]))  # fmt: skip
        return self._players[player]

    def misreadings(self, player: str | None) -> Counter[tuple[str, str]]:
        """How often the line recogniser read each (read, written) pair wrong in ``player``'s slips learned from."""
        return Counter(pair for lesson in self._lessons.values() if lesson.player == player for pair in lesson.misread)

    def taught(self, slip: str) -> Lesson | None:
        return self._lessons.get(slip)

    def players(self) -> dict[str, int]:
        """How many characters have been learned of each player's hand."""
        out: dict[str, int] = {}
        for lesson in self._lessons.values():
            out[lesson.player] = out.get(lesson.player, 0) + len(lesson.classes)
        return out

    def _apply_learn(self, slip: str, lesson: Lesson) -> None:
        self._apply_forget(slip)
        self._lessons[slip] = lesson
        self._players.pop(lesson.player, None)

    def _apply_forget(self, slip: str) -> None:
        lesson = self._lessons.pop(slip, None)
        if lesson is not None:
            self._players.pop(lesson.player, None)

    def _write(self, record: dict[str, Any]) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / JOURNAL, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def _replay(self, path: Path) -> None:
        lines = path.read_text(encoding="utf-8").split("\n")
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                self._replay_record(json.loads(line))
            except (ValueError, KeyError, TypeError) as error:
                if number == len(lines) and not line.endswith("}"):
                    break  # the last record, cut short by a stop while it was written: never applied
                raise LearningError(f"{path}:{number}: registro ilegible ({error})") from None

    def _replay_record(self, record: dict[str, Any]) -> None:
        if "learn" in record:
            chars = str(record["glyphs"])
            features = np.frombuffer(base64.b64decode(record["features"]), np.float16).astype(np.float32)
            features = features.reshape(len(chars), int(record["dim"])) if chars else np.zeros((0, 0), np.float32)
            classes = np.array([GLYPHS.index(c) for c in chars], np.int16)
            misread = tuple((pair[0], pair[1]) for pair in record.get("misread", ()))
            self._apply_learn(str(record["learn"]), Lesson(str(record["player"]), classes, features, misread))
        elif "forget" in record:
            self._apply_forget(str(record["forget"]))
        elif "reset" in record:
            for slip in [s for s, lesson in self._lessons.items() if lesson.player == record["reset"]]:
                self._apply_forget(slip)
        else:
            raise KeyError("learn, forget o reset")


def with_prototypes(log_probs: np.ndarray, features: np.ndarray, learned: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """The classifier's (N, 39) log-probabilities with the player's nearest samples as a second expert (module
    docstring); unchanged when nothing was learned of the player."""
    if learned is None or not len(log_probs):
        return log_probs
    samples, classes = learned
    similarity = features @ samples.T  # (N, n) cosines: features and samples have length one
    nearest = np.full((len(features), _CLASSES), FLOOR)
    for c in np.unique(classes):
        nearest[:, c] = np.maximum(similarity[:, classes == c].max(axis=1), FLOOR)
    combined = of_kind(log_probs[:, :_CLASSES].astype(np.float64)) + of_kind(nearest / TAU)
    out = log_probs.copy()
    out[:, :_CLASSES] = of_kind(combined)
    return out


class PlayerGlyphs:
    """The glyph classifier as it reads one player's hand (``glyphs.GlyphReader``): with what was learned of it."""

    def __init__(self, features: FeatureGlyphs, memory: GlyphMemory, player: str | None) -> None:
        self._features, self._learned = features, memory.of_player(player)

    def log_probs(self, images: np.ndarray) -> np.ndarray:
        log_probs, features = self._features.read(images)
        return with_prototypes(log_probs, features, self._learned)


def written_form(cands: CandidateSet, log_probs: np.ndarray, play: str) -> str:
    """The separator-free written form of ``play`` the line recogniser finds likeliest: among the legal play's forms
    (``CandidateSet.forms``), else ``play`` as written (``4C JEI``, ``8H CASA``)."""
    absorbed = ctc.absorb(log_probs, SEPARATORS)
    forms = cands.forms.get(play, ())
    if forms:
        return max(forms, key=lambda text: ctc.sequence_log_prob(absorbed, tokens.encode(text)))
    return "".join(c for c in play if c not in tokens.SEPARATORS)


def misread_pairs(raw: str, form: str) -> list[tuple[str, str]]:
    """The (read, written) pairs of an unconstrained reading and the written form of the play, both separator-free,
    where the reading has as many characters as the form (else none: a character dropped or added is no misreading
    of one)."""
    read = "".join(c for c in raw if c not in tokens.SEPARATORS)
    if len(read) != len(form):
        return []
    return [(a, b) for a, b in zip(read, form) if a != b]


def glyphs_of(features: FeatureGlyphs, prepared: np.ndarray, log_probs: np.ndarray,
              text: str) -> tuple[list[int], np.ndarray] | None:  # fmt: skip
    """The classes and features of the characters of ``text`` (a written form) where the line recogniser's best path
    through it puts them on the prepared line; None when the path cannot be found."""
    reads = glyph_labels(text)
    spans = align(ctc.absorb(log_probs, SEPARATORS), tokens.encode(text))
    if spans is None or not reads:
        return None
    centres = centres_of(spans)
    _, found = features.read(windows(prepared, [centres[i] for i, _, _ in reads]))
    return [g for _, g, _ in reads], found
