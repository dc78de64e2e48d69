"""Lexicon loading: both spellings, normalisation, the graph, the cache, the default list, the canonical hash."""

import gzip
import hashlib
from pathlib import Path

import pytest

from rules_core.alphabet import tiles_from_text, word_bracketed
from rules_core.events import GameError
from rules_core.lexicon import (
    DEFAULT_LEXICON_PATH,
    Lexicon,
    LexiconError,
    LexiconRef,
    MissingLexicon,
    lexicon_for,
    load_lexicon,
    normalise_word,
)


def codes(text: str) -> bytes:
    return bytes(tiles_from_text(text))


@pytest.mark.parametrize(
    ("entry", "word"),
    [
        ("chorizo", "[CH]ORIZO"),
        ("[CH]ORIZO", "[CH]ORIZO"),
        ("CHORIZO", "[CH]ORIZO"),
        ("camión", "CAMION"),
        ("Árbol", "ARBOL"),
        ("pingüino", "PINGUINO"),
        ("niño", "NIÑO"),
        ("NIÑO", "NIÑO"),
        ("llamarra", "[LL]AMA[RR]A"),
        ("  casa \n", "CASA"),
    ],
)
def test_normalisation_to_scrabble_spelling(entry: str, word: str) -> None:
    assert normalise_word(entry) == codes(word)


@pytest.mark.parametrize("entry", ["kilo", "whisky", "a", "y", "anti-", "o'clock", "3d", "ça"])
def test_words_scrabble_cannot_spell_are_dropped(entry: str) -> None:
    assert normalise_word(entry) is None


def test_from_words_mixed_spellings() -> None:
    lexicon = Lexicon.from_words(["casa", "CASAS", "[CH]ORIZO", "kiwi", "niño", "casa"])
    assert lexicon.word_count == 4
    assert tiles_from_text("CHORIZO") in lexicon
    assert tiles_from_text("NIÑO") in lexicon
    assert tiles_from_text("CAS") not in lexicon
    assert tiles_from_text("caSA") in lexicon  # a blank stands for its letter
    assert [w for w in lexicon.words()] == sorted(
        tiles_from_text(w) for w in ["CASA", "CASAS", "CHORIZO", "NIÑO"]
    )


def test_file2017_has_all_its_words(file2017: Lexicon) -> None:
    assert file2017.word_count == 639_293
    assert tiles_from_text("CHORIZO") in file2017
    assert tiles_from_text("CASAZ") not in file2017


def test_every_word_of_a_list_comes_back_from_its_graph() -> None:
    words = ["CASA", "CASAS", "CASO", "COSA", "COSAS", "OSA", "OSO", "ÑU", "ÑUS", "AS", "[CH]E"]
    lexicon = Lexicon.from_words(words)
    assert [word_bracketed(w) for w in lexicon.words()] == sorted(
        words, key=lambda w: tiles_from_text(w)
    )


def test_second_load_comes_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEEDOR_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "mini.txt"
    source.write_text("casa\ncasas\nchorizo\n", encoding="utf-8")
    first = Lexicon.load(source)
    assert len(list((tmp_path / "cache").iterdir())) == 1
    second = Lexicon.load(source)
    assert second.edges == first.edges and second.word_count == 3 and second.name == "mini"
    source.write_text("casa\n", encoding="utf-8")  # a changed list is rebuilt
    assert Lexicon.load(source).word_count == 1


def test_a_corrupt_cache_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEEDOR_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "mini.txt"
    source.write_text("casa\n", encoding="utf-8")
    Lexicon.load(source)
    for cached in (tmp_path / "cache").iterdir():
        cached.write_bytes(b"garbage")
    assert Lexicon.load(source).word_count == 1


def test_bad_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(LexiconError, match="no existe"):
        Lexicon.load(tmp_path / "missing.txt")
    empty = tmp_path / "empty.txt"
    empty.write_text("kiwi\n# comment\n", encoding="utf-8")
    with pytest.raises(LexiconError, match="ninguna palabra"):
        Lexicon.load(empty, use_cache=False)
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(LexiconError, match="no se puede leer"):
        Lexicon.load(binary, use_cache=False)


def test_the_default_lexicon_is_shipped_and_chosen_when_none_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("VEEDOR_LEXICON", raising=False)
    lexicon = load_lexicon()
    assert lexicon.name == DEFAULT_LEXICON_PATH.name.split(".")[0]
    assert lexicon.word_count > 200_000
    for word in ("CASA", "PERRO", "CHORIZO", "NIÑO", "CAMION"):
        assert tiles_from_text(word) in lexicon


def test_the_environment_variable_chooses_the_lexicon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "TORNEO.txt"
    source.write_text("casa\n", encoding="utf-8")
    monkeypatch.setenv("VEEDOR_LEXICON", str(source))
    assert load_lexicon().name == "TORNEO"
    assert load_lexicon(DEFAULT_LEXICON_PATH).name != "TORNEO"  # an explicit path wins


# -- the canonical word list and its hash ----------------------------------------------------------


def test_the_hash_is_of_the_words_not_of_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEEDOR_CACHE_DIR", str(tmp_path / "cache"))
    canonical = "CASA\n[CH]ORIZO\nNIÑO\n"  # FILE spelling, tile order (CH after C), one word a line
    plain = tmp_path / "mini.txt"
    plain.write_text("niño\nchorizo\ncasa\ncasa\nkiwi\n", encoding="utf-8")
    packed = tmp_path / "otra.txt.gz"
    packed.write_bytes(gzip.compress("# comentario\n[CH]ORIZO\nCASA\nNIÑO\n".encode()))
    first, second = Lexicon.load(plain), Lexicon.load(packed)
    assert first.sha256 == second.sha256 == hashlib.sha256(canonical.encode()).hexdigest()
    assert "".join(first.canonical_lines()) == canonical
    assert Lexicon.load(plain).sha256 == first.sha256  # from the cache, the same hash
    assert Lexicon.from_words(["casa", "chorizo"]).sha256 != first.sha256


def test_a_ref_names_a_list_by_name_and_hash(small_lexicon: Lexicon) -> None:
    ref = small_lexicon.ref
    assert (ref.name, ref.short) == ("mini", small_lexicon.sha256[:8])
    assert LexiconRef.from_json(ref.to_json()) == ref
    for bad in ({"name": "X", "sha256": "../../secret_key"}, {"name": "", "sha256": ref.sha256}, "FILE2017", None):
        with pytest.raises(GameError):
            LexiconRef.from_json(bad)


def test_lexicon_for_gives_the_named_list_or_says_it_is_missing(small_lexicon: Lexicon, file2017: Lexicon) -> None:
    renamed = LexiconRef("MINI-2024", small_lexicon.sha256)
    assert lexicon_for(renamed, small_lexicon, None).name == "MINI-2024"  # the same words, the recorded name
    assert lexicon_for(file2017.ref, small_lexicon, {file2017.ref: file2017}.__getitem__) is file2017
    with pytest.raises(MissingLexicon, match=f"falta el léxico FILE2017 \\(SHA-256 {file2017.sha256[:8]}"):
        lexicon_for(file2017.ref, small_lexicon, None)
    with pytest.raises(MissingLexicon):  # a finder that gives another list is not believed
        lexicon_for(file2017.ref, small_lexicon, lambda ref: small_lexicon)
