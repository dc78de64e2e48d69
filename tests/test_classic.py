"""Classic games (C.25-C.45): turns, challenges, the bag, the five endings, time, replay.

Positions are CGP strings, plays canonical notation, and every score is worked out
by hand from C.12-C.19 in the comment beside it. Values used: A1 C3 CH5 D2 E1 I1 O1
R1 S1 T1 U1 Z10, blank 0. Premiums met: H8 the star (x2 word), B10 and F10 triple
letter, H12 double letter; H9, H10, H11, C10, D10, E10, G10 plain.
"""

from __future__ import annotations

import pytest

from rules_core.cgp import Position
from rules_core.classic import INVALID, VALID, ClassicGame, ScoreRow, overtime_penalty
from rules_core.events import Event, GameError
from rules_core.lexicon import Lexicon

ANA, BEA = 0, 1
G = ClassicGame

EMPTY = "/".join(["15"] * 15)
# CASA across H8-H11, as after the first play of these games
AFTER_CASA = Position.from_cgp("15/15/15/15/15/15/15/7CASA4/15/15/15/15/15/15/15 / 0/0 0").board

# Rows A-F(G) hold every tile of the set (C.3) that is not in CASA (H5-H8) nor on a
# rack, so the bag is empty. Ana (to move) holds one tile; Bea [CH]EIOUZ? (worth
# CH5 E1 I1 O1 U1 Z10 ?0 = 19).
BAG_EMPTY_ANA_S = (
    "aAAAAAAAAAABBCC/CDDDDDEEEEEEEEE/EEFGGHHIIIIIJLL/LL[LL]MMNNNNNÑOOOO/OOOOPPQRRRRR[RR]SS/"
    "SSTTTTUUUUVXY2/15/4CASA7/15/15/15/15/15/15/15 S/[CH]EIOUZ? 300/280 0"
)
BAG_EMPTY_ANA_X = (
    "aAAAAAAAAAABBCC/CDDDDDEEEEEEEEE/EEFGGHHIIIIIJLL/LL[LL]MMNNNNNÑOOOO/OOOOPPQRRRRR[RR]SS/"
    "SSSTTTTUUUUVY2/15/4CASA7/15/15/15/15/15/15/15 X/[CH]EIOUZ? 300/280 0"
)
# The same with both racks full and one tile (an N) left in the bag.
ONE_IN_BAG = (
    "aaAAAAAAAAABCCC/[CH]DDDDEEEEEEEEEE/FGHHIIIIILLLL[LL]M/MNNNNÑOOOOOOOOP/PQRRRR[RR]SSSTTTUU/"
    "UUVXYZ9/15/4CASA7/15/15/15/15/15/15/15 ADEIOST/BEGJRSU 100/90 0"
)
# Every tile on the board but a Q (Ana's) and the LL (Bea's): neither can be placed.
ONLY_Q_AND_LL = (
    "aaAAAAAAAAAAAAB/BCCCC[CH]DDDDDEEEE/EEEEEEEEFGGHHII/IIIIJLLLLMMNNNN/NÑOOOOOOOOOPPRR/"
    "RRR[RR]SSSSSSTTTTU/UUUUVXYZ7/15/15/15/15/15/15/15/15 Q/[LL] 300/280 0"
)


def game(lexicon: Lexicon, *events: Event, cgp: str | None = None) -> ClassicGame:
    played = ClassicGame(lexicon)
    played.apply(G.create_event(["Ana", "Bea"], lexicon="FILE2017", cgp=cgp))
    for event in events:
        played.apply(event)
    return played


def casa(lexicon: Lexicon, *events: Event) -> ClassicGame:
    """Ana opens H8 CASA: (C3 + A1 + S1 + A1) x2 on the star = 12."""
    return game(lexicon, G.play_event(ANA, "H8 CASA", rack="AACEIOS"), *events)


def refused(played: ClassicGame, event: Event, words: str) -> None:
    """The event raises a GameError saying ``words`` and leaves the game as it was."""
    before = played.state.copy()
    with pytest.raises(GameError, match=words):
        played.apply(event)
    assert played.state == before


def passes(first: int, count: int) -> list[Event]:
    return [G.pass_event((first + i) % 2) for i in range(count)]


@pytest.mark.parametrize(
    ("seconds", "points"), [(0, 0), (1, 10), (59, 10), (60, 10), (61, 20), (120, 20), (121, 30)]
)
def test_overtime_costs_10_points_per_minute_or_fraction(seconds: int, points: int) -> None:
    assert overtime_penalty(seconds) == points  # C.35


def test_a_game_reads_like_a_score_sheet(file2017: Lexicon) -> None:
    # Bea: CH B10 (TL) 15 + blank o 0 + R 1 + I 1 + Z F10 (TL) 30 + O 1 + S (board) 1 = 49
    played = casa(file2017, G.play_event(BEA, "10B CHoRIZOS", rack="[CH]EIORZ?"))
    assert played.scoresheet() == [
        ScoreRow(ANA, "play", "H8 CASA", 12, 12),
        ScoreRow(BEA, "play", "10B CHoRIZOS", 49, 49),
    ]
    assert played.scores == (12, 49) and played.to_move == ANA
    # 100 tiles, 7 on each rack; CASA took 4 more from the bag, CHORIZOS 6
    assert played.bag == 100 - 14 - 4 - 6 and played.rack_counts == (7, 7)


def test_the_rules_score_replaces_a_miscounted_claim(file2017: Lexicon) -> None:
    played = game(file2017, G.play_event(ANA, "H8 CASA", score=14))
    assert played.scores == (12, 0)  # C.41: counting errors are corrected
    assert played.scoresheet()[0].note == "anotados 14"


def test_a_recorded_invalid_word_stays_and_is_kept_for_the_arbiter(file2017: Lexicon) -> None:
    # CASAT: C3 A1 S1 A1 + T on H12 (DL) 2 = 8; recording it accepts it (C.38)
    played = casa(file2017, G.play_event(BEA, "H8 CASAT"))
    assert played.scores == (12, 8)
    assert played.turns[-1].invalid_words == ("CASAT",)
    assert played.board[7, 11] != 0


@pytest.mark.parametrize(
    ("notation", "words"),
    [
        ("A1 CASA", "no conecta"),  # C.2, C.9
        ("H8 COSA", "en H9 hay una A, no una O"),
        ("H8 CASA", "no coloca ninguna ficha"),
        ("H13 CASAS", "no cabe en el tablero"),
        ("H11 AS", "sigue en H10"),  # C.8: the main word is CASAS
    ],
)
def test_a_structurally_illegal_play_is_refused(
    file2017: Lexicon, notation: str, words: str
) -> None:
    refused(casa(file2017), G.play_event(BEA, notation), words)


def test_a_play_out_of_turn_is_refused(file2017: Lexicon) -> None:
    refused(casa(file2017), G.play_event(ANA, "H8 CASAS"), "es el turno de Bea, no de Ana")


def test_the_recorded_rack_must_hold_the_tiles_placed(file2017: Lexicon) -> None:
    refused(casa(file2017), G.play_event(BEA, "H8 CASADA", rack="EEIORST"), "el atril no tiene")


def test_a_tile_the_set_does_not_have_is_refused(file2017: Lexicon) -> None:
    played = casa(file2017, G.play_event(BEA, "10B CHoRIZOS"))
    # the set has one Z (C.3), already in CHORIZOS
    refused(played, G.play_event(ANA, "H8 CASAZ"), "2 fichas Z y el juego tiene 1")


def test_a_challenged_invalid_play_is_withdrawn(file2017: Lexicon) -> None:
    played = casa(file2017, G.play_event(BEA, "H8 CASAT"), G.challenge_event(ANA))
    withdrawn = played.turns[-1]
    assert withdrawn.verdict == INVALID == "jugada no válida"  # C.40: no word named
    assert played.board == AFTER_CASA  # C.39: the tiles go back to the rack
    assert played.scores == (12, 0) and played.to_move == ANA  # Bea lost her turn
    assert played.bag == 100 - 14 - 4 and played.rack_counts == (7, 7)
    assert played.scoresheet()[-1] == ScoreRow(BEA, "withdrawn", "H8 CASAT", 0, 0, INVALID)


def test_a_challenged_valid_play_stays_without_penalty(file2017: Lexicon) -> None:
    # CASADA: C3 A1 S1 A1 + D on H12 (DL) 4 + A 1 = 11
    played = casa(file2017, G.play_event(BEA, "H8 CASADA"), G.challenge_event(ANA))
    assert played.turns[-1].verdict == VALID == "jugada correcta"
    assert played.scores == (12, 11) and played.to_move == ANA  # nothing lost (C.38-C.43)


def test_only_the_opponent_challenges(file2017: Lexicon) -> None:
    refused(casa(file2017, G.play_event(BEA, "H8 CASAT")), G.challenge_event(BEA), "C.43")


def test_only_the_last_play_can_be_challenged(file2017: Lexicon) -> None:
    played = casa(file2017, G.play_event(BEA, "H8 CASAT"), G.pass_event(ANA))
    refused(played, G.challenge_event(ANA), "C.39")
    refused(casa(file2017, G.play_event(BEA, "H8 CASAT"), G.challenge_event(ANA)),
            G.challenge_event(ANA), "C.39")


def test_an_exchange_keeps_the_bag_and_passes_the_turn(file2017: Lexicon) -> None:
    played = casa(file2017, G.exchange_event(BEA, tiles="UUU", rack="AEIOUUU"))
    assert played.bag == 82 and played.rack_counts == (7, 7) and played.to_move == ANA
    assert played.scoresheet()[-1] == ScoreRow(BEA, "exchange", "-UUU", 0, 0)
    refused(played, G.exchange_event(ANA, 8), "de 1 a 7 fichas")  # C.25


def test_the_last_tiles_of_the_bag_and_no_exchange_below_seven(file2017: Lexicon) -> None:
    played = game(file2017, cgp=ONE_IN_BAG)
    assert played.bag == 1 and played.scores == (100, 90)
    # H5 CASADA places D on H9 and A on H10, both plain: 3+1+1+1+2+1 = 9; one tile to draw
    played.apply(G.play_event(ANA, "H5 CASADA", rack="ADEIOST"))
    assert played.scores == (109, 90) and played.bag == 0 and played.rack_counts == (6, 7)
    refused(played, G.exchange_event(BEA, 1), "al menos 7")


def test_both_players_passing_twice_ends_the_game_and_a_withdrawn_play_is_a_pass(
    file2017: Lexicon,
) -> None:
    played = casa(file2017, G.play_event(BEA, "H8 CASAT"), G.challenge_event(ANA), *passes(ANA, 2))
    assert played.ending is None  # Bea withdrawn, Ana pass, Bea pass: three
    played.apply(G.pass_event(ANA))
    assert played.ending == "45.2"
    refused(played, G.pass_event(BEA), "C.45.2")
    # each subtracts their own rack: Ana A1 D2 E1 I1 L1 N1 O1 = 8; Bea B3 E1 G2 J8 R1 S1 U1 = 17
    played.apply(G.end_event(["ADEILNO", "BEGJRSU"]))
    assert played.finished and played.scores == (12 - 8, 0 - 17)
    assert played.scoresheet()[-2:] == [
        ScoreRow(ANA, "rack", "ADEILNO", -8, 4),
        ScoreRow(BEA, "rack", "BEGJRSU", -17, -17),
    ]


def test_an_exchange_is_not_a_pass(file2017: Lexicon) -> None:
    played = casa(file2017, G.exchange_event(BEA, 2), *passes(ANA, 3))
    assert played.ending is None  # exchange, pass, pass, pass
    played.apply(G.pass_event(BEA))
    assert played.ending == "45.2"


def scoreless_turns(first: int, count: int) -> list[Event]:
    """Exchange, exchange, pass, pass, ...: scoreless, never four passes in a row."""
    return [
        G.exchange_event((first + i) % 2, 1) if i % 4 < 2 else G.pass_event((first + i) % 2)
        for i in range(count)
    ]


def test_twelve_scoreless_turns_end_the_game(file2017: Lexicon) -> None:
    played = casa(file2017, *scoreless_turns(BEA, 11))
    assert played.ending is None
    played.apply(scoreless_turns(BEA, 12)[-1])
    assert played.ending == "45.3"
    # Ana A1 B3 D2 E1 I1 L1 N1 = 10; Bea RR8 E1 I1 M3 N1 O1 T1 = 16
    played.apply(G.end_event(["ABDEILN", "[RR]EIMNOT"]))
    assert played.scores == (12 - 10, 0 - 16)


def test_twelve_scoreless_turns_at_nil_nil_do_not_end_the_game(file2017: Lexicon) -> None:
    played = game(file2017, *scoreless_turns(ANA, 12))
    assert played.ending is None and played.scores == (0, 0)  # C.45.3, last sentence
    played.apply(G.play_event(ANA, "H8 CASA"))
    assert played.scores == (12, 0)


def test_going_out_with_the_bag_empty(file2017: Lexicon) -> None:
    played = game(file2017, cgp=BAG_EMPTY_ANA_S)
    assert played.bag == 0 and played.rack_counts == (1, 7)
    played.apply(G.play_event(ANA, "H5 CASAS"))  # C3 A1 S1 A1 + S on H9 1 = 7
    assert played.ending == "45.4" and played.scores == (307, 280)
    played.apply(G.end_event(["", "[CH]EIOUZ?"]))
    # Bea's rack is worth 19: taken from Bea, given to Ana (C.45.4)
    assert played.scores == (307 + 19, 280 - 19) and played.winner() == ANA
    assert played.scoresheet()[-2:] == [
        ScoreRow(ANA, "rack", "[CH]EIOUZ?", 19, 326),
        ScoreRow(BEA, "rack", "[CH]EIOUZ?", -19, 261),
    ]


def test_going_out_with_a_play_found_invalid_does_not_end_the_game(file2017: Lexicon) -> None:
    played = game(file2017, G.play_event(ANA, "H5 CASAX"), cgp=BAG_EMPTY_ANA_X)
    assert played.ending == "45.4"
    played.apply(G.challenge_event(BEA))
    assert played.ending is None and played.rack_counts == (1, 7) and played.to_move == BEA


def test_the_end_needs_each_rack_it_counts(file2017: Lexicon) -> None:
    played = game(file2017, G.play_event(ANA, "H5 CASAS"), cgp=BAG_EMPTY_ANA_S)
    refused(played, G.end_event(["", None]), "falta el atril final de Bea")
    refused(played, G.end_event(["", "[CH]EIOUZ"]), "tiene 7 fichas y se anotan 6")


def test_nobody_can_play(file2017: Lexicon) -> None:
    played = game(file2017, cgp=ONLY_Q_AND_LL)
    played.apply(G.end_event(["Q", "[LL]"], "45.1"))  # Q 5, LL 8, each from their own
    assert played.scores == (295, 272) and played.ending == "45.1"


def test_nobody_can_play_is_refused_when_someone_can(file2017: Lexicon) -> None:
    refused(game(file2017), G.end_event(["AACEIOS", "BDEILNO"], "45.1"), "Ana todavía puede jugar")


def test_an_ending_not_reached_is_refused(file2017: Lexicon) -> None:
    played = casa(file2017, G.pass_event(BEA))
    refused(played, G.end_event(["ABDEILN", "[RR]EIMNOT"], "45.2"), "no se da C.45.2")
    refused(played, G.end_event(["ABDEILN", "[RR]EIMNOT"]), "indique el motivo")


def test_time_over_after_equal_turns_counts_no_rack(file2017: Lexicon) -> None:
    played = casa(file2017)
    refused(played, G.end_event(reason="45.5"), "Bea debe jugar su turno")  # C.30
    played.apply(G.play_event(BEA, "H8 CASADA"))
    played.apply(G.end_event(reason="45.5"))
    assert played.finished and played.scores == (12, 11)  # C.45.5: racks not counted
    played.apply(G.time_penalty_event(BEA, seconds_over=61))  # two started minutes
    assert played.scores == (12, 11 - 20)
    assert played.scoresheet()[-1] == ScoreRow(BEA, "time", "", -20, -9)


def test_overtime_is_taken_from_the_final_score_once(file2017: Lexicon) -> None:
    played = casa(file2017)
    refused(played, G.time_penalty_event(ANA, seconds_over=30), "C.35")
    played.apply(G.pass_event(BEA))
    played.apply(G.end_event(reason="45.5"))
    played.apply(G.time_penalty_event(ANA, points=10))
    refused(played, G.time_penalty_event(ANA, points=10), "ya se ha restado")
    refused(played, G.time_penalty_event(BEA, points=15), "10 por minuto")


def test_replaying_the_events_rebuilds_the_same_game(file2017: Lexicon) -> None:
    played = casa(
        file2017,
        G.play_event(BEA, "10B CHoRIZOS", rack="[CH]EIORZ?"),
        G.exchange_event(ANA, tiles="UUU"),
        G.play_event(BEA, "H8 CASAT"),
        G.challenge_event(ANA),
        G.pass_event(ANA),
        G.play_event(BEA, "H8 CASADA"),
        G.challenge_event(ANA),
        G.end_event(reason="45.5"),
        G.time_penalty_event(BEA, seconds_over=61),
    )
    again = ClassicGame.replay(played.events, file2017)
    assert again.state == played.state and again.scoresheet() == played.scoresheet()
    stored = [Event.from_json(event.to_json()) for event in played.events]
    assert ClassicGame.replay(stored, file2017).state == played.state


def test_replay_stops_at_the_first_forbidden_event(file2017: Lexicon) -> None:
    events = casa(file2017).events + [G.play_event(ANA, "H8 CASAS")]
    with pytest.raises(GameError, match="es el turno de Bea"):
        ClassicGame.replay(events, file2017)


def test_the_game_starts_with_its_creation(file2017: Lexicon) -> None:
    with pytest.raises(GameError, match="game_created"):
        ClassicGame(file2017).apply(G.pass_event(ANA))
    refused(casa(file2017), Event("resign", {}), "evento desconocido")
    refused(casa(file2017), G.create_event(["Ana", "Bea"]), "ya está creada")


def test_a_starting_position_with_tiles_in_the_bag_has_full_racks(file2017: Lexicon) -> None:
    with pytest.raises(GameError, match="cada atril tiene 7"):
        game(file2017, cgp=f"{EMPTY} AEI/OU 0/0 0")
