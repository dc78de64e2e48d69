"""Reading a tournament's play fields with what the room taught (issue 68): ``RoomReader``.

Slips come in the order a tournament feeds them. Each is decided before anything it could teach is known
(``read_move``), with what earlier slips taught of its player's hand (``learning.GlyphMemory``):

* the decoder's glyph check reads the player's characters with the player's nearest learned samples as a second
  expert (``learning.PlayerGlyphs``); but a play whose written form is shorter than the line's unconstrained reading
  is not accepted on its characters (``unseen_tail``): the characters the check reads are the play's, not the ink
  after them, and a slip read as a shorter play of the round is a wrong score;
* a play the unconstrained reading writes but for characters the line recogniser was seen to misread in this
  player's slips, as often as ``MISREAD_SEEN`` (each, at most ``MISREADS`` of them: ``M`` for an ``N`` in a slip of a
  player whose N it read as M), counts as written by the reading (``Scored.confirmed``, ``decoder.confirmed_plays``).

Nothing else changes: the decoder and its thresholds are those calibrated on writers never trained on. Then the slip
teaches what is known: at once when accepted with a posterior of ``learning.LEARN_CONFIDENCE`` or more; a flagged
slip only when the arbiter settles it (``settle``: the play decided, or None when there is none to learn, such as a
void slip); a slip scored wrong and corrected (``correct``) is forgotten, then learned as corrected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final

import numpy as np

from rules_core.alphabet import Tile
from rules_core.board import Board

from . import ctc, tokens
from .decoder import CandidateSet, Decision, Scored, decide_scored, options_of, unseparated
from .learning import (
    LEARN_CONFIDENCE, FeatureGlyphs, GlyphMemory, PlayerGlyphs, glyphs_of, misread_pairs, written_form,
)  # fmt: skip
from .lineimage import prepare_line
from .reader import SlipReader

MISREADS: Final = 2  # characters of a play the reading may have misread as the player's slips showed
MISREAD_SEEN: Final = 1  # ... each seen this often in the player's slips learned from
ARROWS: Final = "→↓"


@dataclass
class _Read:
    """A slip read, kept until it is settled: what learning from it needs."""

    player: str | None
    line: np.ndarray = field(repr=False)
    board: Board
    rack: tuple[Tile, ...]
    decision: Decision


class RoomReader:
    """``SlipReader.read_move`` for a tournament's slips, learning as they are decided (module docstring)."""

    def __init__(self, reader: SlipReader, memory: GlyphMemory, features: FeatureGlyphs | None = None) -> None:
        self.reader, self.memory = reader, memory
        self.features = features or FeatureGlyphs()
        self._reads: dict[str, _Read] = {}

    def read_move(self, line: np.ndarray, board: Board, rack: Sequence[Tile], player: str | None,
                  slip: str) -> Decision:  # fmt: skip
        """The decision on a play field (``SlipReader.read_move``) of ``player``'s ``slip``, with what was learned
        before it; learned from at once when accepted with a posterior of ``LEARN_CONFIDENCE`` or more."""
        glyphs = PlayerGlyphs(self.features, self.memory, player)
        scored = self.reader.score_line(line, board, rack, glyphs=glyphs)
        cands = self.reader.cache.get(board, rack, self.reader.lexicon)
        scored = self._confirmed(unseen_tail(scored, cands), cands, player)
        decision = decide_scored(scored, board, rack, self.reader.lexicon, self.reader.thresholds)
        self._reads[slip] = _Read(player, line, board, tuple(rack), decision)
        if decision.verdict == "accepted" and decision.play is not None and decision.confidence >= LEARN_CONFIDENCE:
            self._learn(slip, decision.play)
        return decision

    def settle(self, slip: str, play: str | None) -> bool:
        """The arbiter's decision on a flagged ``slip``: the play as written (a legal play's notation, or what was
        written when it scores 0), or None when there is none to learn. Whether anything was learned."""
        if slip not in self._reads or play is None:
            return False
        return self._learn(slip, play)

    def correct(self, slip: str, play: str | None) -> bool:
        """A slip scored wrong, corrected by the arbiter: what it taught is forgotten, then learned as corrected."""
        self.memory.forget(slip)
        return self.settle(slip, play)

    def _learn(self, slip: str, play: str) -> bool:
        read = self._reads[slip]
        if read.player is None:
            return False
        prepared = prepare_line(read.line)
        log_probs = self.reader.recognizer.log_probs(prepared)
        cands = self.reader.cache.get(read.board, read.rack, self.reader.lexicon)
        form = written_form(cands, log_probs, play)
        found = glyphs_of(self.features, prepared, log_probs, form)
        if found is None:
            return False
        self.memory.learn(slip, read.player, *found, misread=misread_pairs(raw_reading(log_probs), form))
        return True

    def _confirmed(self, scored: Scored, cands: CandidateSet, player: str | None) -> Scored:
        """``scored`` with the likeliest play counted as written by the reading when it is but for the player's known
        misreadings (module docstring)."""
        options = options_of(scored, self.reader.thresholds)
        if not options or options[0].kind != "play" or options[0].text in scored.confirmed:
            return scored
        seen = self.memory.misreadings(player)
        if not seen:
            return scored
        raw = unseparated(scored.raw)
        for form in cands.forms.get(options[0].text, ()):
            pairs = misread_pairs(raw, form)
            if 0 < len(pairs) <= MISREADS and all(seen[pair] >= MISREAD_SEEN for pair in pairs):
                return replace(scored, confirmed=scored.confirmed | {options[0].text})
        return scored


def unseen_tail(scored: Scored, cands: CandidateSet) -> Scored:
    """``scored`` without the glyph check of each play whose written forms are all shorter than the unconstrained
    reading (arrows aside): the check read the play's characters, not the ink the reading found after them."""
    reading = len(unseparated(scored.raw).translate({ord(a): None for a in ARROWS}))
    glyphs = {play: value if any(len(f.translate({ord(a): None for a in ARROWS})) >= reading
                                 for f in cands.forms.get(play, (unseparated(play),))) else 0.0
              for play, value in scored.glyphs.items()}  # fmt: skip
    return replace(scored, glyphs=glyphs)


def raw_reading(log_probs: np.ndarray) -> str:
    """The line recogniser's unconstrained reading of a line (its best beam, as ``decoder.score_line``'s)."""
    beams = ctc.beam_search(log_probs, 8)
    return tokens.decode(beams[0][0]) if beams else ""
