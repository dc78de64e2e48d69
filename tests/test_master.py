"""The master play (D.III.15): highest score, then each tie-break criterion in order.

Each position is a real one (golden file) or built so that one criterion decides.
"""

import pytest

from rules_core.alphabet import BLANK, tiles_from_text
from rules_core.board import Board
from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from rules_core.master import choose_master, leave_imbalance, top_plays
from rules_core.movegen import generate_plays


def master_of(lexicon: Lexicon, cgp: str) -> list[str]:
    position = Position.from_cgp(cgp)
    plays = generate_plays(position.board, position.rack, lexicon)
    return [p.notation for p in top_plays(position.board, position.rack, plays)]


def test_leave_imbalance_definition() -> None:
    assert leave_imbalance(tiles_from_text("HV")) == 2  # two consonants
    assert leave_imbalance(tiles_from_text("AEB")) == 1
    assert leave_imbalance(tiles_from_text("AEY")) == 1  # Y is a consonant
    assert leave_imbalance(tiles_from_text("AE") + (BLANK,)) == 1  # the blank makes up one
    assert leave_imbalance(()) == 0


def test_1_no_blank(file2017: Lexicon) -> None:
    # A X ?: AX scores (1+8) x 2 = 18, and so does fAX with the blank: AX wins (criterion 1),
    # then horizontal nearest column 1 (criterion 5): H7
    ranked = master_of(file2017, "/".join(["15"] * 15) + " AX? 0/0 0")
    assert "H6 fAX" in ranked
    assert ranked[0] == "H7 AX"


def test_2_most_balanced_leave(file2017: Lexicon) -> None:
    # LECHEN and NEVE both score 34; LECHEN leaves H V (imbalance 2), NEVE leaves
    # CH H L (3): LECHEN, although NEVE plays fewer tiles (criterion 3 comes later)
    cgp = ("13FA/13ES/8ÑO1TAZO/2RODE1H1JUEY1M/3CONCU[RR]O4A/7N6I/7DE5S/7OX6/8I6/8G6/8I6/"
           "7MaTUTEE1/15/15/15 [CH]EEHLNV 0/0 0")  # fmt: skip
    assert master_of(file2017, cgp) == ["M5 LECHEN", "15L NEVE"]


def test_3_fewest_tiles(file2017: Lexicon) -> None:
    # YE, YURE, YUTE: 28 each, every leave has imbalance 3; YE plays two tiles
    cgp = ("14P/14O/7DESGOMAN/14T/14E/14A/14B/7U3MOGA/7S2D1C2/7A2U1C2/7NI1D1I2/3VA1AZOLEOS2/"
           "2RETAJAN3A2/4OXE5S2/6ARLOS4 DEQRTUY 0/0 0")  # fmt: skip
    assert master_of(file2017, cgp)[0] == "N10 YE"


def test_4_alphabetical_order(file2017: Lexicon) -> None:
    # AY and UY at 14E: 28 each, one tile each, leaves of imbalance 1: AY before UY
    cgp = ("CANJES9/1[RR]13/1ENLERDA4I2/1B4EMPOCEN2/1O5O4T2/1L3ZEN4U2/1EXTRA1E4B2/7N4A2/"
           "15/15/15/15/15/15/15 ADLQUUY 0/0 0")  # fmt: skip
    assert master_of(file2017, cgp) == ["14E AY", "14E UY"]


def test_5_horizontal_nearest_column_1_then_row_a(file2017: Lexicon) -> None:
    # VALIA across from H4 or down from D8, same score: horizontal first
    ranked = master_of(file2017, "/".join(["15"] * 15) + " AAEEILV 0/0 0")
    assert ranked[:2] == ["H4 VALIA", "8D VALIA"]


def test_alphabetical_order_is_spanish() -> None:
    # criterion 4 compares words tile by tile: CH after every C-word, LL after L, Ñ after N
    assert tiles_from_text("CZAR") < tiles_from_text("CHAL")
    assert tiles_from_text("LUZ") < tiles_from_text("LLAMA")
    assert tiles_from_text("NUEZ") < tiles_from_text("ÑU")


def test_no_play_no_master(file2017: Lexicon) -> None:
    assert choose_master(Board(), (), []) is None


@pytest.mark.parametrize("rack", ["LLAMA", "CARRO"])
def test_the_master_is_a_top_scoring_play(small_lexicon: Lexicon, rack: str) -> None:
    board = Board()
    plays = generate_plays(board, tiles_from_text(rack), small_lexicon)
    master = choose_master(board, tiles_from_text(rack), plays)
    assert master is not None and master.score == max(p.score for p in plays)
