"""The Spanish tile set (C.3, C.10-C.12, D.III.12)."""

import re

import pytest

from rules_core.alphabet import (
    ALPHABET_SIZE,
    BLANK,
    LETTERS,
    as_blank,
    full_bag,
    is_vowel,
    label,
    tile_from_label,
    tile_value,
    tiles_from_text,
    word_bracketed,
    word_text,
)


def test_a_set_has_100_tiles_with_two_blanks() -> None:
    bag = full_bag()
    assert len(bag) == 100
    assert bag.count(BLANK) == 2


def test_values_and_counts_of_the_rules() -> None:
    table = {letter.label: (letter.count, letter.value) for letter in LETTERS}
    assert table["A"] == (12, 1)
    assert table["CH"] == (1, 5)
    assert table["LL"] == (1, 8)
    assert table["RR"] == (1, 8)
    assert table["Ñ"] == (1, 8)
    assert table["Z"] == (1, 10)
    assert table["Q"] == (1, 5)
    assert sum(count for count, _ in table.values()) == 98


def test_no_k_no_w_and_digraphs_are_single_tiles() -> None:
    labels = [letter.label for letter in LETTERS]
    assert ALPHABET_SIZE == 28
    assert "K" not in labels and "W" not in labels
    assert {"CH", "LL", "RR", "Ñ"} <= set(labels)


def test_alphabetical_order_puts_digraphs_after_their_first_letter() -> None:
    order = [letter.label for letter in LETTERS]
    assert order.index("C") + 1 == order.index("CH")
    assert order.index("L") + 1 == order.index("LL")
    assert order.index("N") + 1 == order.index("Ñ")
    assert order.index("R") + 1 == order.index("RR")


def test_vowels_are_aeiou_and_y_is_a_consonant() -> None:
    vowels = {letter.label for letter in LETTERS if is_vowel(letter.tile)}
    assert vowels == {"A", "E", "I", "O", "U"}
    assert not is_vowel(BLANK)


def test_blanks_are_worth_nothing() -> None:
    z = tile_from_label("Z")
    assert tile_value(z) == 10
    assert tile_value(as_blank(z)) == 0
    assert tile_value(BLANK) == 0


def test_labels_parse_and_format() -> None:
    ch = tile_from_label("CH")
    assert tile_from_label("[CH]") == ch
    assert tile_from_label("ch") == as_blank(ch)
    assert label(as_blank(ch)) == "ch"
    assert tiles_from_text("CHORIZO") == tiles_from_text("[CH]ORIZO")
    assert word_text(tiles_from_text("[CH]ORIZO")) == "CHORIZO"
    assert word_bracketed(tiles_from_text("carro")) == "ca[rr]o"


@pytest.mark.parametrize("text", ["K", "W", "1", "Ch"])
def test_unknown_labels_are_refused_by_name(text: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(text))):
        tile_from_label(text)
