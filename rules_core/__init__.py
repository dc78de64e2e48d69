"""Veedor's rules core: Spanish Scrabble under the FILE rules, as pure functions and data.

Modules, one concept each: ``alphabet`` (tiles), ``board`` (squares, premiums),
``notation`` (canonical play notation), ``cgp`` (positions), ``lexicon`` and
``wordgraph`` (word lists), ``scoring``, ``validation``, ``movegen`` (every legal
play). No Flask, OpenCV, ONNX or SQL here; the rest of Veedor builds on this.
"""

from .board import Board
from .cgp import CGPError, Position
from .lexicon import Lexicon, LexiconError, load_lexicon
from .movegen import ScoredPlay, generate_plays
from .notation import NotationError, Play
from .validation import PlacementError, PlayCheck, Problem, check_play, play_from_placement

__all__ = [
    "Board",
    "CGPError",
    "Lexicon",
    "LexiconError",
    "NotationError",
    "PlacementError",
    "Play",
    "PlayCheck",
    "Position",
    "Problem",
    "ScoredPlay",
    "check_play",
    "generate_plays",
    "load_lexicon",
    "play_from_placement",
]
