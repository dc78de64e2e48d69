"""Lexicons: word-list files read in either spelling of CONVENTIONS, kept as a word graph.

A word list has one word per line, in the FILE form (``[CH]ORIZO``) or in plain
text (``chorizo``, accents allowed). Plain text is normalised: uppercase, accents
removed from vowels, Ü read as U, Ñ kept, CH/LL/RR read as digraph tiles (C.11);
words with K or W (C.10.2), with any other sign (hyphens, apostrophes, digits:
FISE art. 39) or of fewer than two letters (C.2) are dropped. Files may be gzipped.

The graph built from a list is cached on disk, keyed by the list's SHA-256, so the
second load is a file read (see ``cache_dir``).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from . import wordgraph
from .alphabet import LETTERS, Tile, letter_of

ENV_LEXICON: Final = "VEEDOR_LEXICON"
ENV_CACHE_DIR: Final = "VEEDOR_CACHE_DIR"
DEFAULT_LEXICON_PATH: Final = Path(__file__).parent / "data" / "veedor-es-libre.txt.gz"

_CACHE_MAGIC: Final = b"VEEDAWG1"
_CACHE_HEADER: Final = struct.Struct("<8sII")  # magic, word count, edge count

_TILE_CODE: Final = {letter.label: chr(letter.tile) for letter in LETTERS}
_DIGRAPH_CODES: Final = tuple(
    (label, code) for label, code in _TILE_CODE.items() if len(label) == 2
)
# Uppercase text -> tile codes: single letters; accented vowels lose the accent;
# every other character maps to itself and is rejected afterwards.
_TRANSLATE: Final = str.maketrans(
    {
        **{label: code for label, code in _TILE_CODE.items() if len(label) == 1},
        **{accented: _TILE_CODE[plain] for plain, accents in (
            ("A", "ÁÀÂÄ"), ("E", "ÉÈÊË"), ("I", "ÍÌÎÏ"), ("O", "ÓÒÔÖ"), ("U", "ÚÙÛÜ"),
        ) for accented in accents},
    }
)
_MAX_CODE: Final = chr(len(LETTERS))


class LexiconError(ValueError):
    """A lexicon file that cannot be read or holds no word."""


def normalise_word(text: str) -> bytes | None:
    """A word-list entry as tile codes (one byte per tile), or None when it is dropped.

    ``"chorizo"``, ``"CHORIZO"`` and ``"[CH]ORIZO"`` all give the tiles CH O R I Z O.
    """
    word = text.strip().upper()
    for label, code in _DIGRAPH_CODES:
        word = word.replace(f"[{label}]", code).replace(label, code)
    word = word.translate(_TRANSLATE)
    if len(word) < 2 or any(not ("\x01" <= ch <= _MAX_CODE) for ch in word):
        return None
    return word.encode("latin-1")


def read_word_list(path: Path) -> Iterator[str]:
    """Lines of a (possibly gzipped) UTF-8 word list, blank lines and ``#`` comments skipped."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                entry = line.strip()
                if entry and not entry.startswith("#"):
                    yield entry
    except (OSError, UnicodeDecodeError, EOFError) as error:
        raise LexiconError(f"no se puede leer el léxico {str(path)!r}: {error}") from error


def cache_dir() -> Path:
    """Where built graphs are kept: $VEEDOR_CACHE_DIR, else $XDG_CACHE_HOME/veedor, else ~/.cache/veedor."""
    if os.environ.get(ENV_CACHE_DIR):
        return Path(os.environ[ENV_CACHE_DIR])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "veedor"


@dataclass(frozen=True)
class Lexicon:
    """A set of words as a packed word graph (see ``wordgraph``).

    ``name`` is what CGP's ``lex`` opcode calls it (the file's stem, e.g. FILE2017).
    """

    name: str
    edges: array[int] = field(repr=False)
    word_count: int

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "custom") -> Lexicon:
        """Build from word-list entries in either spelling; dropped entries are skipped."""
        codes = sorted({code for code in map(normalise_word, words) if code is not None})
        if not codes:
            raise LexiconError(f"el léxico {name!r} no contiene ninguna palabra válida")
        return cls(name, wordgraph.build(codes), len(codes))

    @classmethod
    def load(cls, path: str | Path, use_cache: bool = True) -> Lexicon:
        """Load a word-list file, from the graph cache when it holds this exact file."""
        source = Path(path)
        if not source.is_file():
            raise LexiconError(f"no existe el archivo de léxico {str(source)!r}")
        name = source.name.split(".")[0]
        digest = hashlib.sha256(source.read_bytes()).hexdigest()[:20]
        cached = cache_dir() / f"{name}-{digest}.dawg"
        if use_cache:
            lexicon = _read_cache(cached, name)
            if lexicon is not None:
                return lexicon
        lexicon = cls.from_words(read_word_list(source), name)
        if use_cache:
            _write_cache(cached, lexicon)
        return lexicon

    def __contains__(self, word: object) -> bool:
        """True if a sequence of tiles (blanks stand for their letter) is a word."""
        if not isinstance(word, Sequence):
            return False
        return wordgraph.contains(self.edges, [letter_of(t) for t in word])

    def words(self) -> Iterator[tuple[Tile, ...]]:
        """Every word, as letter tiles, in alphabetical (tile) order."""
        return wordgraph.iter_words(self.edges)


def _read_cache(path: Path, name: str) -> Lexicon | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < _CACHE_HEADER.size:
        return None
    magic, words, count = _CACHE_HEADER.unpack_from(data)
    if magic != _CACHE_MAGIC or len(data) != _CACHE_HEADER.size + 4 * count:
        return None
    edges = array("I")
    edges.frombytes(data[_CACHE_HEADER.size :])
    return Lexicon(name, edges, words)


def _write_cache(path: Path, lexicon: Lexicon) -> None:
    """Write atomically; a cache that cannot be written only costs the next load time."""
    header = _CACHE_HEADER.pack(_CACHE_MAGIC, lexicon.word_count, len(lexicon.edges))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
            handle.write(header + lexicon.edges.tobytes())
        os.replace(handle.name, path)
    except OSError:
        pass


def resolve_lexicon_path(path: str | Path | None = None) -> Path:
    """The word list to use: ``path`` if given, else $VEEDOR_LEXICON, else the free default."""
    if path:
        return Path(path)
    if os.environ.get(ENV_LEXICON):
        return Path(os.environ[ENV_LEXICON])
    return DEFAULT_LEXICON_PATH


def load_lexicon(path: str | Path | None = None) -> Lexicon:
    """Load the lexicon chosen by ``resolve_lexicon_path``."""
    return Lexicon.load(resolve_lexicon_path(path))
