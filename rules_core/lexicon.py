"""Lexicons: word-list files read in either spelling of CONVENTIONS, kept as a word graph.

A word list has one word per line, in the FILE form (``[CH]ORIZO``) or in plain
text (``chorizo``, accents allowed). Plain text is normalised: uppercase, accents
removed from vowels, Ü read as U, Ñ kept, CH/LL/RR read as digraph tiles (C.11);
words with K or W (C.10.2), with any other sign (hyphens, apostrophes, digits:
FISE art. 39) or of fewer than two letters (C.2) are dropped. Files may be gzipped.

A lexicon is known by its name and the SHA-256 of its *canonical word list*
(``Lexicon.sha256``, ``LexiconRef``): every word in FILE spelling (``[CH]ORIZO``), in
tile order, one a line ending in a newline, in UTF-8. The same words give the same
hash whatever the file's spelling, order or compression. A game records the ref of the
list it is played with; ``lexicon_for`` gives the lexicon a ref names.

The graph built from a list is cached on disk, keyed by the file's SHA-256, so the
second load is a file read (see ``cache_dir``).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
import tempfile
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from . import wordgraph
from .alphabet import LETTERS, Tile, letter_of
from .events import GameError

ENV_LEXICON: Final = "VEEDOR_LEXICON"
ENV_CACHE_DIR: Final = "VEEDOR_CACHE_DIR"
DEFAULT_LEXICON_PATH: Final = Path(__file__).parent / "data" / "veedor-es-libre.txt.gz"

_CACHE_MAGIC: Final = b"VEEDAWG2"
_CACHE_HEADER: Final = struct.Struct("<8sII32s")  # magic, word count, edge count, canonical SHA-256

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
# Tile codes -> FILE spelling, digraphs in brackets: the canonical word list's text.
_CANONICAL: Final = str.maketrans({code: f"[{label}]" if len(label) == 2 else label for label, code in _TILE_CODE.items()})
_HEX: Final = frozenset("0123456789abcdef")


class LexiconError(ValueError):
    """A lexicon file that cannot be read or holds no word."""


@dataclass(frozen=True)
class LexiconRef:
    """Which word list: its name (e.g. FILE2017) and the SHA-256 of its canonical word list."""

    name: str
    sha256: str

    def __post_init__(self) -> None:
        if not (len(self.sha256) == 64 and set(self.sha256) <= _HEX):
            raise GameError(f"{self.sha256!r} no es el SHA-256 de una lista de palabras (64 cifras hexadecimales)")
        if not self.name.strip() or len(self.name) > 100 or not self.name.isprintable():
            raise GameError(f"{self.name!r} no es un nombre de léxico (de 1 a 100 caracteres)")

    @property
    def short(self) -> str:
        """The hash's first 8 digits, as the pages show it."""
        return self.sha256[:8]

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "sha256": self.sha256}

    @classmethod
    def from_json(cls, value: object) -> LexiconRef:
        """From ``to_json``'s form; GameError when it is not one."""
        if not isinstance(value, Mapping) or not isinstance(value.get("name"), str) or not isinstance(
            value.get("sha256"), str
        ):
            raise GameError(f"léxico mal indicado: {value!r} (se espera nombre y sha256)")
        return cls(value["name"], value["sha256"])


class MissingLexicon(GameError):
    """The word list a game is played with is nowhere to be found (``searched``: where it was looked for)."""

    def __init__(self, ref: LexiconRef, searched: Sequence[str] = ()) -> None:
        self.ref = ref
        self.searched = tuple(searched)
        where = f"; se ha buscado en {', '.join(self.searched)}" if self.searched else ""
        super().__init__(f"falta el léxico {ref.name} (SHA-256 {ref.short}…) con el que se juega esta partida{where}")


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
    edges: array[int] = field(repr=False, compare=False)
    word_count: int
    sha256: str  # of the canonical word list (see the module docstring)

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "custom") -> Lexicon:
        """Build from word-list entries in either spelling; dropped entries are skipped."""
        codes = sorted({code for code in map(normalise_word, words) if code is not None})
        if not codes:
            raise LexiconError(f"el léxico {name!r} no contiene ninguna palabra válida")
        text = "".join(code.decode("latin-1").translate(_CANONICAL) + "\n" for code in codes)
        return cls(name, wordgraph.build(codes), len(codes), hashlib.sha256(text.encode()).hexdigest())

    @classmethod
    def load(cls, path: str | Path, use_cache: bool = True, name: str | None = None) -> Lexicon:
        """Load a word-list file, from the graph cache when it holds this exact file.

        ``name`` defaults to the file's name up to its first dot (``FILE2017.txt.gz``: FILE2017).
        """
        source = Path(path)
        if not source.is_file():
            raise LexiconError(f"no existe el archivo de léxico {str(source)!r}")
        name = name or source.name.split(".")[0]
        digest = hashlib.sha256(source.read_bytes()).hexdigest()[:20]
        cached = cache_dir() / f"{name}-{digest}.v2.dawg"  # v2: the header holds the canonical SHA-256
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

    def matches(self, pattern: Sequence[Tile | None]) -> bool:
        """True if some word fits ``pattern``: tiles (blanks stand for their letter), ``None`` for any letter."""
        return wordgraph.matches(self.edges, [None if t is None else letter_of(t) for t in pattern])

    def words(self) -> Iterator[tuple[Tile, ...]]:
        """Every word, as letter tiles, in alphabetical (tile) order."""
        return wordgraph.iter_words(self.edges)

    @property
    def ref(self) -> LexiconRef:
        return LexiconRef(self.name, self.sha256)

    def canonical_lines(self) -> Iterator[str]:
        """The canonical word list, a line at a time (newline included): its SHA-256 is ``sha256``."""
        for word in wordgraph.iter_words(self.edges):
            yield bytes(word).decode("latin-1").translate(_CANONICAL) + "\n"


FindLexicon = Callable[[LexiconRef], Lexicon]


def lexicon_for(ref: LexiconRef, current: Lexicon, find: FindLexicon | None) -> Lexicon:
    """The lexicon ``ref`` names, under ``ref``'s name: ``current`` when it holds those words,
    else what ``find`` gives; MissingLexicon when there is no ``find`` or it gives another list."""
    if ref.sha256 == current.sha256:
        found = current
    elif find is None:
        raise MissingLexicon(ref)
    else:
        found = find(ref)
    if found.sha256 != ref.sha256:
        raise MissingLexicon(ref)
    return found if found.name == ref.name else replace(found, name=ref.name)


def _read_cache(path: Path, name: str) -> Lexicon | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < _CACHE_HEADER.size:
        return None
    magic, words, count, digest = _CACHE_HEADER.unpack_from(data)
    if magic != _CACHE_MAGIC or len(data) != _CACHE_HEADER.size + 4 * count:
        return None
    edges = array("I")
    edges.frombytes(data[_CACHE_HEADER.size :])
    return Lexicon(name, edges, words, digest.hex())


def _write_cache(path: Path, lexicon: Lexicon) -> None:
    """Write atomically; a cache that cannot be written only costs the next load time."""
    header = _CACHE_HEADER.pack(_CACHE_MAGIC, lexicon.word_count, len(lexicon.edges), bytes.fromhex(lexicon.sha256))
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
