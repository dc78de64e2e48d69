"""The word lists a server replays its games with, and the copies it keeps of them.

A game records in its first event the lexicon it is played with (``word_list``: the
name and the SHA-256 of the canonical word list, ``rules_core.lexicon.LexiconRef``) and
is always replayed with that list, whatever list the server was started with.
``LexiconShelf.find`` looks a list up by its hash: the server's own list, the lists
already loaded, then the copies in its folders (``lexicon_folders``: the data folder's
``lexicons/``, and the one beside a SQLite database file).

A copy is ``<folder>/<sha256>.txt.gz``: the canonical word list, gzipped, so that
``zcat <sha256>.txt.gz | sha256sum`` gives its own name; ``<sha256>.json`` beside it
holds the list's name and word count. ``keep`` writes one before a game is created
with a list or changes to it, and when a game is opened with the server's own list; a
copy is never overwritten. The canonical text is also cached in ``rules_core``'s
cache folder, so that the next data folder gets it by a file copy.

Games stored before games recorded their list have no ``word_list``: they are replayed
with the server's own list (``WordListUse.recorded`` is False, and the pages say so).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from sqlalchemy.engine import make_url

from rules_core.duplicate import DuplicateGame
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon, LexiconError, LexiconRef, MissingLexicon, cache_dir

LEXICON_FOLDER: Final = "lexicons"


def lexicon_folders(database_url: str, data: Path | None = None) -> list[Path]:
    """Where a database's lists are kept: ``<data>/lexicons`` (where copies are written), then
    ``lexicons/`` beside a SQLite database file (as ``veedor duplicate simulate --db`` keeps them)."""
    folders = [data / LEXICON_FOLDER] if data is not None else []
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        beside = Path(url.database).resolve().parent / LEXICON_FOLDER
        if all(beside.resolve() != f.resolve() for f in folders):
            folders.append(beside)
    return folders


def with_word_list(first: Event, lexicon: Lexicon) -> Event:
    """A game's first event recording ``lexicon`` as its word list (unless it names one already)."""
    if first.data.get("word_list") is not None:
        return first
    return Event(first.kind, {**first.data, "word_list": lexicon.ref.to_json()}, first.actor, first.at)


class LexiconShelf:
    """The lists a server can replay games with: its own, and copies in ``folders`` (the first
    is where copies are written; none: the own list only)."""

    def __init__(self, own: Lexicon, folders: Sequence[Path] = ()) -> None:
        self.own = own
        self.folders = [Path(f) for f in folders]
        self._loaded: dict[str, Lexicon] = {own.sha256: own}
        self._kept: set[str] = set()
        self._lock = threading.RLock()

    def find(self, ref: LexiconRef) -> Lexicon:
        """The list ``ref`` names; MissingLexicon naming it and where it was looked for."""
        with self._lock:
            found = self._loaded.get(ref.sha256)
            if found is None:
                found = self._load_copy(ref)
                self._loaded[ref.sha256] = found
            return found

    def _load_copy(self, ref: LexiconRef) -> Lexicon:
        for folder in self.folders:
            path = folder / f"{ref.sha256}.txt.gz"
            if not path.is_file():
                continue
            try:
                lexicon = Lexicon.load(path, name=ref.name)
            except LexiconError:
                continue  # a damaged copy: look further, else say the list is missing
            if lexicon.sha256 == ref.sha256:
                return lexicon
        raise MissingLexicon(ref, [str(folder) for folder in self.folders])

    def keep(self, lexicon: Lexicon) -> None:
        """Write ``lexicon``'s copy in the first folder unless one is there; GameError when it cannot."""
        with self._lock:
            if not self.folders or lexicon.sha256 in self._kept:
                return
            folder = self.folders[0]
            try:
                folder.mkdir(parents=True, exist_ok=True)
                if not (folder / f"{lexicon.sha256}.txt.gz").exists():
                    about = {"name": lexicon.name, "words": lexicon.word_count}
                    _write_new(folder / f"{lexicon.sha256}.json", json.dumps(about, ensure_ascii=False).encode())
                    _write_new(folder / f"{lexicon.sha256}.txt.gz", canonical_gzip(lexicon))
            except OSError as error:
                raise GameError(
                    f"no se puede guardar la copia del léxico {lexicon.name} en {folder}: {error.strerror or error}"
                ) from None
            self._kept.add(lexicon.sha256)
            self._loaded.setdefault(lexicon.sha256, lexicon)

    def keep_quietly(self, lexicon: Lexicon) -> None:
        """``keep``, a failure left for the next time (a game is opened, not created)."""
        try:
            self.keep(lexicon)
        except GameError:
            pass

    def known(self) -> list[LexiconRef]:
        """The server's own list, then every kept copy (by name), each once."""
        found = {self.own.sha256: self.own.ref}
        copies: list[LexiconRef] = []
        for folder in self.folders:
            for path in sorted(folder.glob("*.txt.gz")) if folder.is_dir() else []:
                sha = path.name.split(".")[0]
                if sha not in found and (ref := _copy_ref(path.with_name(f"{sha}.json"), sha)) is not None:
                    found[sha] = ref
                    copies.append(ref)
        return [self.own.ref, *sorted(copies, key=lambda r: (r.name, r.sha256))]

    def ref(self, sha256: str) -> LexiconRef:
        """The known list of hash ``sha256``; GameError when the server has no such list."""
        for ref in self.known():
            if ref.sha256 == sha256.strip().lower():
                return ref
        raise GameError(f"este servidor no tiene ningún léxico con SHA-256 {sha256[:64]!r}")


def _copy_ref(about: Path, sha: str) -> LexiconRef | None:
    try:
        name = json.loads(about.read_text(encoding="utf-8"))["name"]
        return LexiconRef(str(name), sha)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def canonical_gzip(lexicon: Lexicon) -> bytes:
    """The canonical word list, gzipped (no time in the header: the same list, the same bytes);
    from the cache when it holds it, checked against the hash."""
    cached = cache_dir() / LEXICON_FOLDER / f"{lexicon.sha256}.txt.gz"
    try:
        data = cached.read_bytes()
        if hashlib.sha256(gzip.decompress(data)).hexdigest() == lexicon.sha256:
            return data
    except (OSError, EOFError, gzip.BadGzipFile):
        pass
    data = gzip.compress("".join(lexicon.canonical_lines()).encode(), mtime=0)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=cached.parent, delete=False) as handle:
            handle.write(data)
        os.replace(handle.name, cached)
    except OSError:
        pass  # a cache that cannot be written only costs the next copy's time
    return data


def _write_new(path: Path, data: bytes) -> None:
    """Write ``path`` whole (through a temporary file, flushed to disk) unless it exists: never overwritten."""
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".", delete=False) as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(handle.name, path)
    except FileExistsError:
        pass
    finally:
        os.unlink(handle.name)


@dataclass(frozen=True)
class WordListPeriod:
    """A list a game is judged with, from round ``from_round`` (None: from the start, or a classic game)."""

    ref: LexiconRef
    from_round: int | None


@dataclass(frozen=True)
class WordListUse:
    """Which lists a game uses, oldest first (the last is in force); ``recorded`` False: a game
    stored before games recorded their list, replayed with the server's own."""

    periods: tuple[WordListPeriod, ...]
    recorded: bool

    @property
    def current(self) -> LexiconRef:
        return self.periods[-1].ref


def word_list_use(game: Any, own: LexiconRef) -> WordListUse:
    """The lists ``game`` (duplicate or classic, read under its lock) is judged with."""
    first = game.events[0].data.get("word_list") if game.events else None
    if isinstance(game, DuplicateGame):
        periods: list[WordListPeriod] = []
        for r in game.rounds:
            if not periods or periods[-1].ref.sha256 != r.lexicon.sha256:
                periods.append(WordListPeriod(r.lexicon.ref, r.number if periods else None))
        if not periods or periods[-1].ref.sha256 != game.lexicon.sha256:
            periods.append(WordListPeriod(game.lexicon.ref, len(game.rounds) + 1 if periods else None))
    else:
        refs = [LexiconRef.from_json(first) if first is not None else own]
        refs += [LexiconRef.from_json(e.data["word_list"]) for e in game.events if e.kind == "lexicon_changed"]
        periods = [WordListPeriod(ref, None) for ref in refs]
    return WordListUse(tuple(periods), first is not None)
