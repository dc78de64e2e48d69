"""Build ``veedor-es-libre.txt.gz``, the free default word list, from Debian's aspell-es.

Run from the repository root::

    apt-get install aspell aspell-es     # the only requirements (plus Python 3.10+)
    python3 rules_core/data/build_default_lexicon.py [--keep-enclitics]

Source: ``aspell -d es dump master | aspell -l es expand`` (each expanded line is a
root and its inflected forms) from aspell-es, the "espa~nol" dictionary of Santiago
Rodríguez and Jesús Carretero (GPL-2+). hunspell-es (LibreOffice) was compared and not
used: its list can only be expanded with ``unmunch``, and hunspell itself rejects about
a third of what unmunch prints; the rest adds mainly more enclitic combinations and
voseo forms (``luchás``), and it lacks plain words such as ``pingüino``.

Kept: lowercase entries made only of a-z, á é í ó ú ü ñ, of two letters or more, that
``normalise_word`` accepts (no K or W). Verb forms with enclitic pronouns (``amarlo``,
``ábrelo``; not playable, FISE art. 39) are mostly dropped by leaving out the aspell-es
affix flags that only generate them and the roots that already are such a form
(``--keep-enclitics`` keeps them); a few stay (``hazlo``, ``dalos``). Words are
written in FILE spelling (``[CH]ORIZO``), sorted in tile order, and gzipped with mtime 0
so that the same input always gives the same bytes. Licence: veedor-es-libre.NOTICE.
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rules_core.alphabet import word_bracketed  # noqa: E402
from rules_core.lexicon import normalise_word  # noqa: E402

OUTPUT = Path(__file__).with_name("veedor-es-libre.txt.gz")
PACKAGE = "aspell-es"
# aspell-es affix flags (/usr/lib/aspell/es_affix.dat) whose every suffix ends in an
# enclitic pronoun: amar/T -> amarlo, ábreme/A -> ábrete, ábrenos. Flags B and D are kept
# although mostly enclitic: they also give words such as elle (ello/BD) and cuádruple.
ENCLITIC_FLAGS = frozenset("ACEFOQRTUZoqrtuz")
# Roots that are themselves a verb form with enclitics: those with flag A, C, E or F
# (abúrreme/AC, dame/AC) unless they take a plural, P or S (pésame/ACS, desmame/CPS);
# those with flag B or D and a written accent (ábrelo/BDPS) except the nouns below.
# Unaccented B/D roots are kept: mostly nouns (pueblo/BDPS), a few imperatives (hazlo).
IMPERATIVE_ME_FLAGS = frozenset("ACEF")
PLURAL_FLAGS = frozenset("PS")
IMPERATIVE_LO_FLAGS = frozenset("BD")
ACCENTED_LO_NOUNS = frozenset({"cuádruplo", "múltiplo", "óctuplo", "róbalo"})
ACCENT = re.compile(r"[áéíóú]")
PLAIN_WORD = re.compile(r"[a-záéíóúüñ]+")


def aspell(*args: str, text: str | None = None) -> str:
    """Run aspell in UTF-8 and return its output."""
    command = ["aspell", "--encoding=utf-8", *args]
    return subprocess.run(command, input=text, capture_output=True, text=True, check=True).stdout


def expand(roots: list[str]) -> set[str]:
    """Every form aspell generates from ``word/FLAGS`` dump lines."""
    return set(aspell("-l", "es", "expand", text="\n".join(roots) + "\n").split())


def is_enclitic_root(word: str, flags: str) -> bool:
    """True for a dump root that is itself a verb form with enclitics (see above)."""
    if IMPERATIVE_ME_FLAGS & set(flags):
        return not PLURAL_FLAGS & set(flags)
    if IMPERATIVE_LO_FLAGS & set(flags):
        return bool(ACCENT.search(word)) and word not in ACCENTED_LO_NOUNS
    return False


def without_enclitics(roots: list[str]) -> list[str]:
    """Dump lines without enclitic roots and without the flags that add enclitics."""
    kept = []
    for root in roots:
        word, _, flags = root.partition("/")
        if is_enclitic_root(word, flags):
            continue
        flags = "".join(flag for flag in flags if flag not in ENCLITIC_FLAGS)
        kept.append(f"{word}/{flags}" if flags else word)
    return kept


def package_version(package: str) -> str:
    """The installed version of a Debian package."""
    return subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, check=True
    ).stdout


def header(version: str, keep_enclitics: bool) -> list[str]:
    """The ``#`` comment lines that open the word list."""
    return [
        "# Veedor: free Spanish word list. This is NOT the official FILE lexicon",
        "# (Fichero Internacional de Léxico Español) and does not match it.",
        f"# Source: Debian package {PACKAGE} {version} (the espa~nol dictionary by",
        "# Santiago Rodríguez and Jesús Carretero, https://www.datsi.fi.upm.es/~coes/).",
        "# Licence: GNU GPL version 2 or later; see veedor-es-libre.NOTICE.",
        "# Made by rules_core/data/build_default_lexicon.py"
        + (" --keep-enclitics." if keep_enclitics else " (enclitic verb forms left out)."),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description="Build the free default Spanish word list.")
    parser.add_argument("--keep-enclitics", action="store_true", help="keep amarlo, dámelo...")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    options = parser.parse_args()

    roots = aspell("-d", "es", "dump", "master").splitlines()
    forms = expand(roots)
    playable = forms if options.keep_enclitics else expand(without_enclitics(roots))

    dropped: Counter[str] = Counter()
    codes: set[bytes] = set()
    for form in forms:
        if form[0].isupper():
            dropped["starts with an uppercase letter"] += 1
        elif not PLAIN_WORD.fullmatch(form):
            dropped["other characters than a-z áéíóúüñ"] += 1
        elif len(form) < 2:
            dropped["one letter"] += 1
        elif form not in playable:
            dropped["enclitic verb form"] += 1
        elif (code := normalise_word(form)) is None:
            dropped["refused by normalise_word (K, W)"] += 1
        else:
            codes.add(code)
    merged = len(forms) - sum(dropped.values()) - len(codes)

    lines = header(package_version(PACKAGE), options.keep_enclitics)
    lines += (word_bracketed(tuple(code)) for code in sorted(codes))
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as gz:
        gz.write(("\n".join(lines) + "\n").encode("utf-8"))
    options.output.write_bytes(buffer.getvalue())

    print(f"aspell-es roots: {len(roots)}, distinct expanded forms read: {len(forms)}")
    for reason, count in dropped.most_common():
        print(f"  dropped, {reason}: {count}")
    print(f"  merged with another form once accents are removed: {merged}")
    print(f"words written: {len(codes)} to {options.output} ({len(buffer.getvalue())} bytes)")


if __name__ == "__main__":
    main()
