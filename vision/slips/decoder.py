"""Deciding what a slip says, knowing the round's position and rack (D.III.20, D.III.25).

Every legal play of the round (``rules_core.movegen``) is written out the ways a
player may write it, and each written form is scored against the recogniser's
output by its CTC probability (``ctc.trie_log_probs``):

* ``play``: canonical (``H8 CASa``), oriented with the coordinate in either order
  (``H8 CASa →``, ``8H CASa →``, D.III.20.1.b), board blanks with or without a
  mark, the other direction of a one-tile play; every blank assignment is its own
  play, a circled letter its own token;
* ``unmarked_blank``: a play that needs a blank of the rack, written without the
  circle (D.III.20.3, D.III.25.a);
* ``coordinate_order``: the coordinate in the wrong order without an arrow, or the
  wrong arrow (D.III.20.4), when that text is not itself a legal play: the writings
  ``rules_core.notation.misordered_forms`` names, which the rules score as void too
  (``rules_core.slips.score_slip``), typed or scanned.

The unconstrained reading (CTC beam search) joins them, so a play that is illegal
or not a word is read as written. Separators (space, hyphen) count as nothing.
Each written form may be scored on several views of the line (test-time
augmentation, ``lineimage.variants``), its log-probability the mean over views.
The probabilities, tempered and normalised over all of these (the "other" mass is
the readings'), give each outcome a confidence; ``decide`` turns the best outcome
into a verdict: ``accepted`` (the play and its score), ``invalid`` (read as written
with confidence, scores 0) or ``flagged`` with the reasons an arbiter needs
(``FLAGS``). Accepting or scoring 0 needs both the confidence and the lead over
the runner-up (in nats) above their thresholds, and a play whose unconstrained
reading goes on past its last letter (``says_more``) is never accepted. A play the
unconstrained reading writes too (``confirmed_plays``) needs ``confirmed_accept``,
one the round's knowledge chose over what the reading says needs ``accept``: on the
calibration slips the confident wrong acceptances were nearly all of the second kind
(a phony's last letter read as the legal play's). A play whose characters the glyph classifier (``glyphs``: each
character read alone, where the line recogniser places it) reads as written, each with ``glyph_sure`` or more, needs
no more than ``glyph_accept``. A play is never accepted where the writing, clear, says otherwise (``Scored.clashes``
at ``letter_sure`` or more: a letter of the play's word where both networks read another and neither sees the play's,
or a letter read surely that the word lacks): the nearest legal play is no reading of a word that does not exist
(``4C JEI`` is not ``4C JET``). Such a reading, each character read with ``letter_sure`` by both networks
(``Scored.letters``), is scored 0 as written (D.III.25), one less sure goes to the arbiter; and a reading is scored 0
only where the writing so rules out the likeliest legal play (``_plays_ruled_out``). A play laying a blank of the rack
is accepted only where its circled letters are read with ``circled_sure`` (``Scored.circled``): nothing but the circle
says which letter a blank stands for, and another letter often makes a word too (D.III.20.3). ``letter_sure`` and
``zero_against`` are set by ``models/slips/calibrate_letters.py``, ``circled_sure`` by
``models/slips/calibrate_circled.py``, the other thresholds (``models/slips/thresholds.json``) by
``models/slips/calibrate.py``, on calibration slips written by hands used neither in training nor by the benchmark.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Final

import numpy as np

from rules_core.alphabet import BLANK, Tile, is_blank, label
from rules_core.board import Board
from rules_core.lexicon import Lexicon
from rules_core.movegen import ScoredPlay, generate_plays
from rules_core.notation import NotationError, Play, misordered_forms, swap_coordinate
from rules_core.scoring import RACK_SIZE
from rules_core.slips import Slip, score_slip

from . import ctc, tokens

FLAGS: Final = (
    "illegible",  # D.III.20.4: the handwriting cannot be read with confidence
    "unmarked_blank",  # D.III.20.3, D.III.25.a: a blank of the rack not circled
    "coordinate_order",  # D.III.20.4: coordinate in the wrong order, arrow missing or wrong
    "position_unknown",  # D.III.20.4: round or coordinate not identifiable
    "player_unknown",  # D.III.20.4: player not identifiable
    "several_plays",  # D.III.20.2: more than one play written
    "circled_without_blank",  # a circled letter with no blank on the rack to make it
    "relative_notation",  # D.III.20.1.d: relative-board notation, which the reader does not read
    "blank_letter_unsure",  # D.III.20.3: the letter a blank stands for, circled, not read surely
)
THRESHOLDS_FILE: Final = Path(__file__).resolve().parents[2] / "models" / "slips" / "thresholds.json"
GRID_THRESHOLDS_FILE: Final = THRESHOLDS_FILE.with_name("grid_thresholds.json")  # ``recognizer.GRID_MODEL``'s
SEPARATORS: Final = (tokens.INDEX[" "], tokens.INDEX["-"])
_COORD: Final = r"(?:[A-O](?:1[0-5]|[1-9])|(?:1[0-5]|[1-9])[A-O])"
_PLAY_RE: Final = re.compile(rf"({_COORD})([A-ZÑa-zñ]+)([→↓]?)(?={_COORD}|$)")


@dataclass(frozen=True)
class Thresholds:
    """Minimum confidences: to accept a play, to score a reading 0 as written, to trust a field."""

    accept: float = 0.9
    invalid: float = 0.95
    field: float = 0.8
    reading_prior: float = 4.0  # nats a reading that is no legal play pays (slips hold legal plays)
    current_round_prior: float = 3.0  # nats the round being played gains over older rounds
    mistake_prior: float = 1.0  # nats a legal play written with a mistake pays
    margin: float = 0.0  # nats the best outcome must lead the runner-up by to be accepted or scored 0
    temperature: float = 1.0  # the recogniser's log-probabilities are divided by it (over-confidence)
    variants: int = 1  # how many views of the line are read and averaged (``lineimage.variants``)
    grid_accept: float = 0.0  # an absolute slip's board (``absolute``): its own acceptance threshold (0: ``accept``)
    confirmed_accept: float = 0.0  # to accept a play the raw reading writes too (``Scored.confirmed``; 0: ``accept``)
    glyph_accept: float = 0.0  # to accept a play whose characters the glyph classifier reads as written (0: never)
    glyph_sure: float = 1.0  # ... each at least this probability (``Scored.glyphs``, ``glyphs.glyph_check``)
    square_temperature: float = 0.0  # the board's square classifier's temperature (``squares``; 0: ``temperature``)
    letter_sure: float = 0.0  # a letter this sure is written so, and a play's letter this surely absent is not (0: off)
    circled_sure: float = 0.0  # a play laying a blank needs its circled letters this sure (0: off)
    zero_against: float = 1.0  # a legal play this likely is not overruled by its writing into a 0 (1: never kept)

    def accept_for(self, confirmed: bool, glyphs: float = 0.0) -> float:
        """The confidence a play needs: ``confirmed_accept`` when the unconstrained reading writes it too, and
        no more than ``glyph_accept`` when the glyph classifier reads each of its characters as written with
        ``glyph_sure`` or more (``glyphs``: the lowest of those probabilities)."""
        needed = self.confirmed_accept if confirmed and self.confirmed_accept > 0.0 else self.accept
        if self.glyph_accept > 0.0 and glyphs >= self.glyph_sure:
            return min(needed, self.glyph_accept)
        return needed

    def written_otherwise(self, clash: float) -> bool:
        """Whether the writing clearly says something else than a play: ``Scored.clashes`` at ``letter_sure`` or
        more."""
        return self.letter_sure > 0.0 and clash >= self.letter_sure

    def written_surely(self, letters: Sequence[float]) -> bool:
        """Whether a reading is written so letter for letter: each of its characters read with ``letter_sure`` or
        more (``Scored.letters``)."""
        return self.letter_sure > 0.0 and bool(letters) and min(letters) >= self.letter_sure

    def circled_surely(self, circled: Mapping[str, float] | None, play: str) -> bool:
        """Whether a play's circled letters are written so surely: each read with ``circled_sure`` or more by both
        networks (``Scored.circled``); True where they were not read one by one (None) or the rule is off."""
        return self.circled_sure <= 0.0 or circled is None or circled.get(play, 0.0) >= self.circled_sure

    def may_overrule(self, play_probability: float) -> bool:
        """Whether the writing may overrule a legal play this likely into a 0 as written: below ``zero_against``,
        always where it is 1.0 (off; a posterior rounds to 1.0)."""
        return self.zero_against >= 1.0 or play_probability < self.zero_against

    def read_as_written(self, glyphs: float) -> bool:
        """Whether a reading may be scored 0 as written: with the glyph path on (``glyph_accept``), only where
        the glyph classifier reads each of its characters as written with ``glyph_sure`` or more."""
        return self.glyph_accept <= 0.0 or glyphs >= self.glyph_sure

    @classmethod
    def load(cls, path: Path = THRESHOLDS_FILE) -> Thresholds:
        if not path.exists():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        values: dict[str, Any] = {k: float(data[k]) for k in cls.__dataclass_fields__ if k in data}
        if "variants" in values:
            values["variants"] = int(values["variants"])
        return cls(**values)


@dataclass(frozen=True)
class Candidate:
    """A written form of a play: ``text`` as tokens without separators (``H8CASa→``)."""

    text: str
    kind: str  # "play", "unmarked_blank", "coordinate_order"
    play: str  # canonical notation of the play it stands for
    score: int


def _perpendicular(board: Board, sp: ScoredPlay) -> str | None:
    """The other notation of a one-tile play when it forms a 2+ letter word across too."""
    play = sp.play
    placed = [(sq, t) for sq, t in zip(play.squares(), play.word) if board[sq] == 0]
    if len(placed) != 1:
        return None
    (row, col), tile = placed[0]
    dr, dc = (0, 1) if play.down else (1, 0)
    r, c = row, col
    while 0 <= r - dr and 0 <= c - dc and board.get(r - dr, c - dc):
        r, c = r - dr, c - dc
    start, word = (r, c), []
    while 0 <= r < 15 and 0 <= c < 15 and (board.get(r, c) or (r, c) == (row, col)):
        word.append(tile if (r, c) == (row, col) else board.get(r, c))
        r, c = r + dr, c + dc
    if len(word) < 2:
        return None
    return Play(start[0], start[1], not play.down, tuple(word)).notation()


def _written_forms(board: Board, play: Play) -> tuple[str, str, str]:
    """(as notated, board blanks unmarked, rack blanks unmarked too) words of a play."""
    notated, plain, unmarked = [], [], []
    for square, tile in zip(play.squares(), play.word):
        text = label(tile)
        on_board = board[square] != 0
        notated.append(text)
        plain.append(text.upper() if on_board else text)
        unmarked.append(text.upper())
    return "".join(notated), "".join(plain), "".join(unmarked)


@dataclass
class CandidateSet:
    """Every written form of every legal play of one position and rack, in a token trie."""

    candidates: list[Candidate]
    index: dict[str, int]
    trie: ctc.TokenTrie
    rack_blanks: int

    @cached_property
    def places(self) -> dict[str, frozenset[str]]:
        """The legal plays of each word as notated (``CASa``): where the round's position lets it go."""
        out: dict[str, set[str]] = {}
        for cand in self.candidates:
            if cand.kind == "play":
                out.setdefault(cand.play.partition(" ")[2], set()).add(cand.play)
        return {word: frozenset(plays) for word, plays in out.items()}

    @cached_property
    def forms(self) -> dict[str, tuple[str, ...]]:
        """Each legal play's written forms (``H8CASa``, ``H8CASa→``, ``8HCASa↓``...) by its canonical notation."""
        out: dict[str, list[str]] = {}
        for cand in self.candidates:
            if cand.kind == "play":
                out.setdefault(cand.play, []).append(cand.text)
        return {play: tuple(texts) for play, texts in out.items()}

    @classmethod
    def build(cls, board: Board, rack: Sequence[Tile], lexicon: Lexicon) -> CandidateSet:
        plays = generate_plays(board, rack, lexicon)
        forms: dict[str, Candidate] = {}

        def add(text: str, kind: str, sp: ScoredPlay) -> None:
            if text not in forms:
                forms[text] = Candidate(text, kind, sp.notation, sp.score)

        later: list[tuple[str, str, ScoredPlay]] = []
        for sp in plays:
            play = sp.play
            coordinate = play.coordinate()
            swapped = swap_coordinate(coordinate)
            right = "↓" if play.down else "→"
            notated, plain, unmarked = _written_forms(board, play)
            for word in {notated, plain}:
                add(coordinate + word, "play", sp)
                add(coordinate + word + right, "play", sp)
                add(swapped + word + right, "play", sp)
            other = _perpendicular(board, sp)
            if other:
                coordinate2, word2 = other.split(" ")
                add(coordinate2 + word2.upper(), "play", sp)
            for written, arrow in misordered_forms(play):  # D.III.20.4, judged as the console does
                later.append((written + plain + arrow, "coordinate_order", sp))
            if unmarked != plain:
                for text in (coordinate + unmarked, coordinate + unmarked + right, swapped + unmarked + right):
                    later.append((text, "unmarked_blank", sp))
        for text, kind, sp in later:
            add(text, kind, sp)
        candidates = list(forms.values())
        trie = ctc.TokenTrie.build(tokens.encode(c.text) for c in candidates)
        return cls(candidates, {c.text: i for i, c in enumerate(candidates)}, trie, sum(1 for t in rack if t == BLANK))


class CandidateCache:
    """Candidate sets by position, most recent kept: every slip of a round shares one."""

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._sets: OrderedDict[tuple[bytes, tuple[Tile, ...], str], CandidateSet] = OrderedDict()

    def get(self, board: Board, rack: Sequence[Tile], lexicon: Lexicon) -> CandidateSet:
        key = (board.to_bytes(), tuple(sorted(rack)), lexicon.name)
        found = self._sets.get(key)
        if found is None:
            found = CandidateSet.build(board, rack, lexicon)
            self._sets[key] = found
            while len(self._sets) > self._size:
                self._sets.popitem(last=False)
        self._sets.move_to_end(key)
        return found


@dataclass(frozen=True)
class Option:
    """One outcome the slip may mean, with its share of the probability."""

    kind: str  # "play", "unmarked_blank", "coordinate_order" or "reading"
    text: str  # the play's canonical notation, or the reading as written
    score: int | None
    probability: float

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "play": self.text, "score": self.score, "probability": round(self.probability, 4)}


@dataclass(frozen=True)
class Decision:
    """What the slip says and what to do with it (the keys of ``read-slip --json``)."""

    reading: str  # as written, circled letters lowercase
    play: str | None  # canonical notation of the play chosen
    score: int | None
    verdict: str  # "accepted", "invalid" or "flagged"
    flags: tuple[str, ...]
    confidence: float
    options: tuple[Option, ...] = ()  # the likeliest outcomes, best first
    reason: str = ""  # why an invalid play scores 0 (rules_core.slips)
    notation: str | None = None  # what goes on the rules' Slip: the play, or the reading as written

    def to_json(self) -> dict[str, Any]:
        return {
            "reading": self.reading,
            "play": self.play,
            "score": self.score,
            "verdict": self.verdict,
            "flags": list(self.flags),
            "confidence": round(self.confidence, 4),
            "candidates": [o.to_json() for o in self.options],
            "reason": self.reason,
        }

    def slip(self, source: str = "escáner") -> Slip | None:
        """The rules' Slip for an accepted or invalid reading; None while it waits for the arbiter."""
        if self.verdict == "flagged" or self.notation is None:
            return None
        return Slip(self.notation, source=source)


def unseparated(text: str) -> str:
    """``text`` without the separators a player may write between coordinate and word (``tokens.SEPARATORS``)."""
    return "".join(c for c in text if c not in tokens.SEPARATORS)


def format_reading(text: str) -> str:
    """A raw reading as a person writes it: ``H8CASA→`` -> ``H8 CASA →`` (other text kept)."""
    plays = split_plays(unseparated(text))
    if not plays:
        return " ".join(text.split())
    return " ".join(plays)


def split_plays(text: str) -> list[str]:
    """The plays in a separator-free reading, each as ``H8 CASA`` or ``H8 CASA →``; [] if none parses whole."""
    found, position = [], 0
    for match in _PLAY_RE.finditer(text):
        if match.start() != position:
            return []
        coordinate, word, arrow = match.groups()
        found.append(f"{coordinate} {word}" + (f" {arrow}" if arrow else ""))
        position = match.end()
    return found if position == len(text) and found else []


def _tiles_placed(board: Board, play: Play) -> list[Tile]:
    """The tiles a play would lay from the rack: those on squares empty on ``board``."""
    return [t for sq, t in zip(play.squares(), play.word) if board[sq] == 0]


@dataclass(frozen=True)
class Scored:
    """A line scored against a candidate set, before any prior: the raw top reading and
    (kind, text, score, log-probability) for every candidate worth counting and every beam reading."""

    raw: str
    entries: tuple[tuple[str, str, int | None, float], ...]
    confirmed: frozenset[str] = frozenset()  # the plays the raw reading writes too (``confirmed_plays``)
    glyphs: Mapping[str, float] = field(default_factory=dict)  # play -> its characters read one by one (``glyphs``)
    letters: tuple[float, ...] = ()  # how surely each character of ``raw`` (separators aside) is written so
    clashes: Mapping[str, float] = field(default_factory=dict)  # play -> how surely the writing says otherwise
    circled: Mapping[str, float] | None = None  # play -> how surely its circled letters are written so (None: unread)


def score_line(log_probs: np.ndarray, cands: CandidateSet, beam: int = 8,
               views: Sequence[np.ndarray] = ()) -> Scored:  # fmt: skip
    """Score every written form of every legal play, and the unconstrained readings, against ``log_probs``.

    ``views``: the recogniser's output on other views of the same line (``lineimage.variants``); each
    written form that counts is scored on every view too and its log-probability is the mean over views
    (test-time augmentation: a misreading one view is sure of rarely survives the others).
    """
    absorbed = ctc.absorb(log_probs, SEPARATORS)
    scores = ctc.trie_log_probs(absorbed, cands.trie)
    beams = ctc.beam_search(log_probs, beam)
    raw = tokens.decode(beams[0][0]) if beams else ""
    kept = [int(i) for i in np.nonzero(scores > scores.max() - 30.0)[0]] if len(scores) else []  # the rest weigh nothing
    texts = [cands.candidates[i].text for i in kept]
    values = [float(scores[i]) for i in kept]
    readings = []
    for labels, _ in beams:
        text = unseparated(tokens.decode(labels))
        if text in cands.index or text in readings:
            continue
        readings.append(text)
        values.append(ctc.sequence_log_prob(absorbed, tokens.encode(text)))
    if views:
        trie = ctc.TokenTrie.build(tokens.encode(t) for t in texts + readings)
        total = np.array(values)
        for view in views:
            total += ctc.trie_log_probs(ctc.absorb(view, SEPARATORS), trie, margin=1e9)
        values = list(total / (1 + len(views)))
    entries: list[tuple[str, str, int | None, float]] = []
    for i, value in zip(kept, values):
        cand = cands.candidates[i]
        entries.append((cand.kind, cand.play, cand.score, value))
    for text, value in zip(readings, values[len(kept) :]):
        entries.append(("reading", text, None, value))
    return Scored(raw, tuple(entries), confirmed_plays(raw, cands))


def confirmed_plays(raw: str, cands: CandidateSet) -> frozenset[str]:
    """The plays an unconstrained reading writes too (canonical notation), separators aside: the play it is a
    written form of, and each play of the round whose word as notated it writes after that play's coordinate
    with one character misread (``I2C GRACEJAR`` for ``12C GRACEJAR``, ``10P MOZO`` for ``10D MOZO``; with the
    play's arrow, the coordinate in either order, D.III.20.1.b). The word read as written is what tells a right slip
    from a word that does not exist taken for a legal one (``N1 CULEG`` read exactly so, taken for CULEA);
    where the word fits in several places (``86 HUiFA``: 8G or 8D?), the posterior over those plays decides,
    with its own threshold (``confirmed_accept``: on the calibration slips, the surest wrong place chosen for a
    word read right had 0.53). The coordinate in the other order without an arrow is not a misreading but a
    mistake of its own (D.III.20.4): it confirms nothing; nor does a coordinate two characters off (``2FC``
    before ``ASA`` is no misread ``12G``: it is ``2F`` before ``CASA``)."""
    text = unseparated(raw)
    written = text.replace("→", "").replace("↓", "")
    plays = set()
    found = cands.index.get(text)
    if found is not None and cands.candidates[found].kind == "play":
        plays.add(cands.candidates[found].play)
    for length in (2, 3):
        prefix = written[:length]
        for play in cands.places.get(written[length:], frozenset()):
            coordinate = play.partition(" ")[0]
            if len(coordinate) != length:
                continue
            arrow = "↓" if coordinate[0].isdigit() else "→"  # ``Play.coordinate``: 8H vertical, H8 horizontal
            orders = (coordinate, swap_coordinate(coordinate)) if text.endswith(arrow) else (coordinate,)
            if any(_differ(prefix, order) <= 1 for order in orders):
                plays.add(play)
    return frozenset(plays)


def _differ(a: str, b: str) -> int:
    """How many characters of two strings as long differ."""
    return sum(x != y for x, y in zip(a, b))


def options_of(scored: Scored, limits: Thresholds) -> list[Option]:
    """Outcomes with their posterior probabilities, likeliest first.

    Priors (in nats, from the calibration): a slip almost always holds a legal play,
    so a reading that is none pays ``reading_prior``, and a legal play written with
    a mistake (unmarked blank, coordinate order) pays ``mistake_prior``.
    """
    if not scored.entries:
        return []
    penalty = {"reading": limits.reading_prior, "unmarked_blank": limits.mistake_prior,
               "coordinate_order": limits.mistake_prior}  # fmt: skip
    logps = np.array([e[3] / limits.temperature - penalty.get(e[0], 0.0) for e in scored.entries])
    probs = np.exp(logps - np.logaddexp.reduce(logps))
    grouped: dict[tuple[str, str], list[Any]] = {}
    for (kind, text, score, _), p in zip(scored.entries, probs):
        slot = grouped.setdefault((kind, text), [score, 0.0])
        slot[1] += float(p)
    options = [Option(kind, text, slot[0], slot[1]) for (kind, text), slot in grouped.items()]
    return sorted(options, key=lambda o: -o.probability)


def decide(log_probs: np.ndarray, cands: CandidateSet, board: Board, rack: Sequence[Tile], lexicon: Lexicon,
           thresholds: Thresholds | None = None, top: int = 5) -> Decision:  # fmt: skip
    """The verdict on one play field read by the recogniser (see the module docstring)."""
    return decide_scored(score_line(log_probs, cands), board, rack, lexicon, thresholds, top)


def decide_scored(scored: Scored, board: Board, rack: Sequence[Tile], lexicon: Lexicon,
                  thresholds: Thresholds | None = None, top: int = 5) -> Decision:  # fmt: skip
    """The verdict on a scored line (``score_line``) under ``thresholds``."""
    limits = thresholds or Thresholds()
    raw, options = scored.raw, options_of(scored, limits)
    reading = format_reading(raw)
    shown = tuple(options[:top])
    if not options or not raw.strip():
        return Decision(reading, None, None, "flagged", ("illegible",), 0.0, shown)
    best = options[0]
    confidence = best.probability
    sure = lead(options) >= limits.margin
    if best.kind == "play" and limits.written_otherwise(scored.clashes.get(best.text, 0.0)):
        return _written_otherwise(scored, reading, shown, board, rack, lexicon, limits, confidence)
    if best.kind == "play" and lays_a_blank(board, best.text) and not limits.circled_surely(scored.circled, best.text):
        return Decision(reading, best.text, None, "flagged", ("blank_letter_unsure",), confidence, shown)
    if best.kind == "play":
        needed = limits.accept_for(best.text in scored.confirmed, scored.glyphs.get(best.text, 0.0))
        if confidence >= needed and sure and not says_more(raw, best.text):
            return Decision(reading, best.text, best.score, "accepted", (), confidence, shown, notation=best.text)
        return Decision(reading, best.text, None, "flagged", ("illegible",), confidence, shown)
    if best.kind in ("unmarked_blank", "coordinate_order"):
        return Decision(reading, best.text, None, "flagged", (best.kind,), confidence, shown)
    surely = best.text == unseparated(raw) and limits.written_surely(scored.letters)
    return _decide_reading(best, reading, shown, board, rack, lexicon, limits, sure, scored.glyphs.get(best.text, 0.0),
                           surely, _plays_ruled_out(scored, options, limits))  # fmt: skip


def lays_a_blank(board: Board, notation: str) -> bool:
    """Whether a play (canonical notation) lays a blank from the rack: which letter it stands for is read from its
    circle alone, no word around it vouching for it (``RUi`` or ``RUo`` are both words), so ``decide_scored``
    accepts it only where that letter is written surely (``Thresholds.circled_surely``)."""
    try:
        return any(is_blank(tile) for tile in _tiles_placed(board, Play.from_notation(notation)))
    except NotationError:
        return False


def _plays_ruled_out(scored: Scored, options: Sequence[Option], limits: Thresholds) -> bool:
    """Whether the writing, each character read surely (``Thresholds.written_surely``), says something else than the
    likeliest legal play (``Thresholds.written_otherwise``); True without one, or without letters read one by one. Else
    a reading is not scored 0 but offered to the arbiter (``C2 DIVO``, I and V run together, read ``C2 DNO``)."""
    play = next((o for o in options if o.kind == "play"), None)
    return (play is None or limits.letter_sure <= 0.0 or not scored.letters or (limits.written_surely(scored.letters)
            and limits.written_otherwise(scored.clashes.get(play.text, 0.0))))  # fmt: skip


def _written_otherwise(scored: Scored, reading: str, shown: tuple[Option, ...], board: Board, rack: Sequence[Tile],
                       lexicon: Lexicon, limits: Thresholds, play_probability: float) -> Decision:  # fmt: skip
    """The likeliest play (``play_probability`` its posterior) is not what is written (``Thresholds.written_otherwise``):
    never accepted. The reading is decided as written where each of its characters is written surely
    (``Thresholds.written_surely``: a word that does not exist scores 0, D.III.25) and the play is not so likely that
    both networks misreading one letter the same way is the likelier story (``zero_against``: ``5C rOLLARA``, read
    ``rOLLARI`` surely by both, is no 0); it goes to the arbiter otherwise."""
    confidence = min(scored.letters, default=0.0)
    if not limits.written_surely(scored.letters) or not limits.may_overrule(play_probability):
        return Decision(reading, None, None, "flagged", ("illegible",), confidence, shown)
    written = Option("reading", unseparated(scored.raw), None, confidence)
    return _decide_reading(written, reading, shown, board, rack, lexicon, limits, surely=True)


def says_more(raw: str, play: str) -> bool:
    """The unconstrained reading is the play with letters after it (``H8 CASAS`` for the play
    ``H8 CASA``): the slip shows more than the play, most often a word that does not exist whose
    legal prefix the candidates offered. Not accepted without the arbiter."""
    written, chosen = ("".join(c for c in text.upper() if c.isalnum()) for text in (raw, play))
    return len(written) > len(chosen) and written.startswith(chosen)


def lead(options: Sequence[Option]) -> float:
    """How many nats the likeliest outcome leads the runner-up by (infinite when it stands alone)."""
    if len(options) < 2 or options[1].probability <= 0.0:
        return float("inf")
    return float(np.log(max(options[0].probability, 1e-300)) - np.log(options[1].probability))


def _decide_reading(best: Option, reading: str, shown: tuple[Option, ...], board: Board, rack: Sequence[Tile],
                    lexicon: Lexicon, limits: Thresholds, sure: bool = True, glyphs: float = 0.0,
                    surely: bool = False, ruled_out: bool = True) -> Decision:  # fmt: skip
    """A reading that is no legal play: several plays, no coordinate, or a play read as written (scored 0 only
    where the glyph classifier reads it so too, ``glyphs``: ``Thresholds.read_as_written``, or where each of its
    characters is written surely, ``surely``: ``Thresholds.written_surely``; and only where the writing rules out
    the likeliest legal play, ``ruled_out``: ``_plays_ruled_out``; else the arbiter is offered it as written)."""
    confidence = best.probability
    plays = split_plays(best.text)
    if len(plays) > 1:
        return Decision(reading, None, None, "flagged", ("several_plays",), confidence, shown)
    if not plays:
        letters = any(c.isalpha() for c in best.text)
        flag = "position_unknown" if letters and not re.match(_COORD, best.text) else "illegible"
        return Decision(reading, None, None, "flagged", (flag,), confidence, shown)
    written = plays[0]
    try:
        play = Play.from_notation(written)
    except NotationError:
        return Decision(reading, None, None, "flagged", ("illegible",), confidence, shown)
    placed = _tiles_placed(board, play)
    if sum(1 for t in placed if is_blank(t)) > sum(1 for t in rack if t == BLANK):
        return Decision(reading, None, None, "flagged", ("circled_without_blank",), confidence, shown)
    too_many = len(placed) > RACK_SIZE  # C.6: no player laid it; most likely the coordinate is misread
    read_surely = surely or (confidence >= limits.invalid and sure and limits.read_as_written(glyphs))
    if too_many or not read_surely:
        return Decision(reading, None, None, "flagged", ("illegible",), confidence, shown)
    result = score_slip(board, rack, lexicon, Slip(written))
    if result.valid:
        return Decision(reading, result.play, result.score, "accepted", (), confidence, shown, notation=result.play)
    if "comodín no marcado" in result.reason:
        return Decision(reading, result.play, None, "flagged", ("unmarked_blank",), confidence, shown)
    if ends_with_a_play(written, board, rack, lexicon):
        return Decision(reading, result.play, None, "flagged", ("several_plays",), confidence, shown)
    if not ruled_out:
        return Decision(reading, result.play, None, "flagged", ("illegible",), confidence, shown, result.reason)
    return Decision(reading, result.play, 0, "invalid", (), confidence, shown, result.reason, notation=written)


def ends_with_a_play(written: str, board: Board, rack: Sequence[Tile], lexicon: Lexicon) -> bool:
    """Whether the word of a play read as written (``2A ARANO``) ends with the word of a legal play at the same
    coordinate (2A ANO; two letters or more, arrow kept). The letters before it are most likely a word given up and
    struck out that the strike tests missed (``strikes.struck_in_part``, ``strikes.struck_before_gap``): that a
    word the player meant ends with the letters of a legal word laid from its own first square is a coincidence.
    Scored 0 as written it would be a silent error; two plays may be visible (D.III.20.2), for the arbiter. On
    calibration slips it flagged none of the words read as written and scored 0 rightly."""
    coordinate, word, *arrow = written.split(" ")
    return any(score_slip(board, rack, lexicon, Slip(" ".join([coordinate, word[k:], *arrow]))).valid
               for k in range(1, len(word) - 1))  # fmt: skip
