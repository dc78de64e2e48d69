"""GCG records: coordinates at the boundary, export, import, round trips, errors, checking.

Scores in the records below are worked out by hand (values and premiums as in
test_classic): H8 CASA 12; 10B CHoRIZOS 49; H8 CASAT 8; H8 CASADA 11.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import pytest

from rules_core.alphabet import BLANK, as_blank, full_bag, is_blank, tiles_from_text
from rules_core.classic import ClassicGame, parse_rack, rack_text, rack_value
from rules_core.gcg import (
    GCGError,
    check_gcg,
    decode_gcg,
    from_gcg,
    gcg_position,
    parse_gcg,
    parse_gcg_position,
    replay_gcg,
    to_gcg,
)
from rules_core.lexicon import Lexicon
from rules_core.movegen import generate_plays
from rules_core.notation import Play
from tests.conftest import FILE2017, SHARED
from webapp.cli.classic import add_classic_commands

ANA, BEA = 0, 1
G = ClassicGame

HEADER = "#player1 Ana Ana\n#player2 Bea Bea\n"
RECORD = """\
#character-encoding UTF-8
#player1 Ana Ana
#player2 Bea Bea
#lexicon FILE2017
#note LetterDistribution: spanish
>Ana: AACEIOS 8H CASA +12 12
>Bea: [CH]EIORZ? J2 [CH]oRIZOS +49 49
>Ana: AEIOUUU -UUU +0 12
>Bea: ADEENRT 8H CASAT +8 57
>Bea: ADEENRT -- -8 49
>Ana: - +0 12
>Bea: ADEENRT 8H CASADA +11 60
>Bea: ADEENRT (challenge) +0 60
#note Final C.45.5
>Bea: (time) -20 40
"""


def recorded_game(lexicon: Lexicon) -> ClassicGame:
    """The game of RECORD, built from events."""
    return ClassicGame.replay(
        [
            G.create_event(["Ana", "Bea"], lexicon="FILE2017"),
            G.play_event(ANA, "H8 CASA", rack="AACEIOS", score=12),
            G.play_event(BEA, "10B CHoRIZOS", rack="[CH]EIORZ?", score=49),
            G.exchange_event(ANA, tiles="UUU", rack="AEIOUUU"),
            G.play_event(BEA, "H8 CASAT", rack="ADEENRT"),
            G.challenge_event(ANA),
            G.pass_event(ANA),
            G.play_event(BEA, "H8 CASADA", rack="ADEENRT"),
            G.challenge_event(ANA),
            G.end_event(reason="45.5"),
            G.time_penalty_event(BEA, seconds_over=61),
        ],
        lexicon,
    )


def simulated_game(lexicon: Lexicon, seed: int) -> ClassicGame:
    """A whole game from a shuffled bag, each player placing their best play until one goes out."""
    rng = random.Random(seed)
    bag = full_bag()
    rng.shuffle(bag)
    racks: list[list[int]] = [[], []]
    played = ClassicGame(lexicon)
    played.apply(G.create_event(["Ana García", "Bea"], lexicon="FILE2017"))
    for player in (ANA, BEA, ANA):
        while len(racks[player]) < 7 and bag:
            racks[player].append(bag.pop())
    player = ANA
    while played.ending is None:
        rack, before = racks[player], played.board
        plays = generate_plays(before, rack, lexicon)
        if plays:
            played.apply(G.play_event(player, plays[0].notation, rack=rack, score=plays[0].score))
            for square, tile in zip(plays[0].play.squares(), plays[0].word):
                if not before[square]:
                    rack.remove(BLANK if is_blank(tile) else tile)
        else:
            played.apply(G.pass_event(player))
        while len(rack) < 7 and bag:
            rack.append(bag.pop())
        player = 1 - player
    played.apply(G.end_event([rack_text(r) for r in racks]))
    return played


@pytest.mark.parametrize(
    ("spanish", "gcg"),
    [
        ("H8 CASA", "8H"),
        ("8H CASA", "H8"),
        ("D3 CASA", "4C"),
        ("3D CASA", "C4"),
        ("A14 ES", "1N"),
        ("14A ES", "N1"),
    ],
)
def test_coordinates_are_converted_at_the_boundary(spanish: str, gcg: str) -> None:
    play = Play.from_notation(spanish)
    assert gcg_position(play) == gcg
    assert parse_gcg_position(gcg) == (play.row, play.col, play.down)


def test_export_writes_the_record_line_by_line(file2017: Lexicon) -> None:
    # CHORIZOS is vertical in column 10 (J) from row B (2); CASAT is withdrawn (--),
    # CASADA challenged and upheld with no bonus; time over; 61 s cost Bea 20.
    assert to_gcg(recorded_game(file2017)) == RECORD


def test_export_import_export_is_identical(file2017: Lexicon) -> None:
    imported = ClassicGame.replay(from_gcg(RECORD), file2017)
    assert to_gcg(imported) == RECORD
    assert imported.scoresheet() == recorded_game(file2017).scoresheet()
    assert ClassicGame.replay(imported.events, file2017).state == imported.state


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_whole_game_round_trips(file2017: Lexicon, seed: int) -> None:
    played = simulated_game(file2017, seed)
    assert played.ending == "45.4"
    text = to_gcg(played)
    again = ClassicGame.replay(from_gcg(text), file2017)
    assert to_gcg(again) == text
    assert again.scores == played.scores and again.board == played.board
    assert check_gcg(text, file2017).agrees


def test_import_reads_dots_and_plain_digraphs(file2017: Lexicon) -> None:
    dotted = RECORD.replace("J2 [CH]oRIZOS", "J2 CHoRIZO.").replace("8H CASAT", "8H ....T")
    assert [e.data for e in from_gcg(dotted)] == [e.data for e in from_gcg(RECORD)]


def test_an_l_before_the_ll_survives_the_round_trip(file2017: Lexicon) -> None:
    # an unchallenged phony E, L, LL, O stands (C.38); in plain letters ELLLO reads E LL L O.
    # H7 E 1, H8 L 1 (the star), H9 LL 8, H10 O 1: 11, doubled by the star = 22
    text = HEADER + ">Ana: AEL[LL]OST 8G EL[LL]O +22 22\n"
    played = ClassicGame.replay(from_gcg(text), file2017)
    assert played.turns[0].invalid_words == ("ELLLO",) and played.scores == (22, 0)
    assert ">Ana: AEL[LL]OST 8G EL[LL]O +22 22" in to_gcg(played)


def test_a_digraph_made_with_a_blank_is_bracketed_lowercase(file2017: Lexicon) -> None:
    # the blank CH on B10 scores 0: 0 + O 1 + R 1 + I 1 + Z 30 (F10, TL) + O 1 + S 1 = 35
    text = RECORD.replace(
        ">Bea: [CH]EIORZ? J2 [CH]oRIZOS +49 49", ">Bea: EIOORZ? J2 [ch]ORIZOS +35 35"
    )
    play = from_gcg(text)[2]
    assert play.data["notation"] == "10B chORIZOS"
    assert tiles_from_text("chORIZOS")[0] == as_blank(tiles_from_text("CH")[0])
    imported = ClassicGame.replay(from_gcg(text), file2017)
    assert imported.turns[1].points == 35
    assert ">Bea: EIOORZ? J2 [ch]ORIZOS +35 35" in to_gcg(imported)


def test_end_lines_for_the_racks(file2017: Lexicon) -> None:
    played = ClassicGame.replay(
        [
            G.create_event(["Ana", "Bea"]),
            G.play_event(ANA, "H8 CASA", rack="AACEIOS"),
            *[G.pass_event(p) for p in (BEA, ANA, BEA, ANA)],
            G.end_event(["ADEILNO", "BEGJRSU"]),  # C.45.2: Ana loses 8, Bea 17
        ],
        file2017,
    )
    text = to_gcg(played)
    assert text.endswith(
        ">Ana: ADEILNO (ADEILNO) -8 4\n>Bea: BEGJRSU (BEGJRSU) -17 -17\n#note Final C.45.2\n"
    )
    assert to_gcg(ClassicGame.replay(from_gcg(text), file2017)) == text


def test_going_out_adds_and_subtracts_the_opponents_rack(file2017: Lexicon) -> None:
    played = simulated_game(file2017, 1)
    out = played.turns[-1].player
    left = played.state.end_racks[1 - out] if played.state.end_racks else ""
    value = rack_value(parse_rack(left))  # C.45.4: +value to one, -value to the other
    lines = to_gcg(played).splitlines()
    nick = ("AnaGarcía", "Bea")
    assert lines[-3].startswith(f">{nick[out]}: ({left}) +{value} ")
    assert lines[-2].startswith(f">{nick[1 - out]}: {left} ({left}) -{value} ")


def test_the_lines_each_event_comes_from(file2017: Lexicon) -> None:
    record = parse_gcg(RECORD)
    assert record.nicknames == ("Ana", "Bea") and record.lexicon == "FILE2017"
    kinds = [(line.line, line.kind) for entry in record.entries for line in entry.lines]
    assert kinds == [
        (6, "play"), (7, "play"), (8, "exchange"), (9, "play"), (10, "withdrawn"), (11, "pass"),
        (12, "play"), (13, "challenge"), (14, "note"), (15, "time"),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("hola", "línea 3: 'hola' no es una línea GCG"),
        (">Eva: AACEIOS 8H CASA +12 12", "línea 3: 'Eva' no es 'Ana' ni 'Bea'"),
        (">Ana: AACEIOS 8Z CASA +12 12", "línea 3: '8Z' no es una coordenada GCG"),
        (">Ana: AACEIOS 8H CASA 12 12", "línea 3: .* '\\+puntos total'"),
        (">Ana: AACEIOS 8H C.SA +12 12", "línea 3: el '.' de la casilla 8I no tiene ficha"),
        (">Ana: AAKEIOS 8H CASA +12 12", "línea 3: atril 'AAKEIOS': 'K' no es una ficha"),
        (">Ana: AACEIOS -- -12 0", "línea 3: '--' va justo después de una jugada"),
        (">Ana: AACEIOS - +5 5", "línea 3: pase o cambio: los puntos deben ser \\+0"),
        ("#note LetterDistribution: english", "línea 3: .*distribución 'english'"),
    ],
)
def test_a_malformed_line_is_named(line: str, message: str) -> None:
    with pytest.raises(GCGError, match=message):
        parse_gcg(HEADER + line + "\n")


def test_players_come_first() -> None:
    with pytest.raises(GCGError, match="línea 1: #player2 va tras #player1"):
        parse_gcg("#player2 Bea Bea\n#player1 Ana Ana\n")
    with pytest.raises(GCGError, match="línea 1: faltan las líneas #player1 y #player2"):
        parse_gcg(">Ana: AACEIOS 8H CASA +12 12\n")


def test_a_german_record_is_not_spanish() -> None:
    path = SHARED / "data" / "boards_de" / "game01" / "nu19_stefan-hanns.gcg"
    text = decode_gcg(path.read_bytes())  # ISO-8859-1, the GCG default
    assert "Nürnberger" in text
    assert decode_gcg(RECORD.replace("Bea Bea", "Bea Beatriz Núñez").encode()).count("Núñez") == 1
    with pytest.raises(GCGError, match="línea 4: atril 'FINRSSW': 'W' no es una ficha"):
        parse_gcg(text)


def test_a_move_the_rules_forbid_names_its_line(file2017: Lexicon) -> None:
    text = HEADER + ">Ana: AACEIOS 8H CASA +12 12\n>Ana: DEIOSTU 8H CASADA +11 23\n"
    with pytest.raises(GCGError, match="línea 4: es el turno de Bea, no de Ana"):
        check_gcg(text, file2017)
    with pytest.raises(GCGError, match="línea 4: es el turno de Bea, no de Ana"):
        replay_gcg(parse_gcg(text), file2017)


def test_a_record_that_agrees(file2017: Lexicon) -> None:
    report = check_gcg(RECORD, file2017)
    assert report.agrees and report.recorded_totals == (12, 40) == report.game.scores


def test_miscounted_plays_and_sums_are_discrepancies(file2017: Lexicon) -> None:
    text = HEADER + ">Ana: AACEIOS 8H CASA +14 14\n>Bea: ADEENRT 8H CASADA +11 12\n"
    assert [str(d) for d in check_gcg(text, file2017).discrepancies] == [
        "línea 3: H8 CASA vale 12 puntos según las reglas, no 14 (C.12-C.19)",
        "línea 4: el total anotado es 12 y la suma da 11 (C.41)",
        "resultado anotado 14-12; según las reglas 12-11",
    ]


def test_withdrawing_a_valid_play_is_a_discrepancy(file2017: Lexicon) -> None:
    text = HEADER + (
        ">Ana: AACEIOS 8H CASA +12 12\n>Bea: ADEENRT 8H CASADA +11 11\n>Bea: ADEENRT -- -11 0\n"
    )
    found = [str(d) for d in check_gcg(text, file2017).discrepancies]
    assert found[0] == "línea 5: H8 CASADA es una jugada correcta y no se retira (C.39)"


def test_keeping_a_challenged_invalid_play_is_a_discrepancy(file2017: Lexicon) -> None:
    text = HEADER + (
        ">Ana: AACEIOS 8H CASA +12 12\n"
        ">Bea: ADEENRT 8H CASAT +8 8\n"
        ">Bea: ADEENRT (challenge) +0 8\n"
    )
    found = [str(d) for d in check_gcg(text, file2017).discrepancies]
    assert found[0] == "línea 5: H8 CASAT no es válida y debió retirarse (C.39)"


def test_file_gives_no_challenge_bonus(file2017: Lexicon) -> None:
    text = HEADER + (
        ">Ana: AACEIOS 8H CASA +12 12\n"
        ">Bea: ADEENRT 8H CASADA +11 11\n"
        ">Bea: ADEENRT (challenge) +5 16\n"
    )
    found = [str(d) for d in check_gcg(text, file2017).discrepancies]
    assert found[0] == (
        "línea 5: FILE no da puntos a la jugada impugnada que resulta correcta (C.39, C.40): +5"
    )


def test_the_naspa_way_of_going_out_is_a_discrepancy(file2017: Lexicon) -> None:
    played = simulated_game(file2017, 2)
    lines = to_gcg(played).splitlines()
    out_line, opponent_line = lines[-3], lines[-2]
    head, value, total = out_line.rsplit(" ", 2)
    doubled = f"{head} +{2 * int(value)} {int(total) + int(value)}"  # twice the rack, and no loss
    report = check_gcg("\n".join(lines[:-3] + [doubled, lines[-1]]) + "\n", file2017)
    assert opponent_line.split(" ")[2].startswith("(")
    messages = [d.message for d in report.discrepancies]
    assert any(f"no {2 * int(value):+d}" in m and f"{int(value):+d} puntos" in m for m in messages)
    assert any(m.startswith("falta la línea de fichas restantes") for m in messages)


def run_cli(*args: str) -> int:
    parser = argparse.ArgumentParser(prog="veedor")
    add_classic_commands(parser.add_subparsers(required=True))
    parsed = parser.parse_args(list(args))
    return int(parsed.run(parsed))


def test_classic_replay_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.gcg"
    good.write_text(RECORD, encoding="utf-8")
    assert run_cli("classic", "replay", str(good), "--lexicon", str(FILE2017)) == 0
    out = capsys.readouterr().out
    assert "El registro coincide con las reglas." in out
    assert "Resultado (final (C.45.5)): Ana 12 - Bea 40, gana Bea" in out
    assert "H8 CASAT: CASAT; jugada retirada tras impugnarla (C.39)" in out

    bad = tmp_path / "bad.gcg"
    bad.write_text(HEADER + ">Ana: AACEIOS 8H CASA +14 14\n", encoding="utf-8")
    assert run_cli("classic", "replay", str(bad), "--lexicon", str(FILE2017)) == 1
    assert "línea 3: H8 CASA vale 12 puntos" in capsys.readouterr().out

    broken = tmp_path / "broken.gcg"
    broken.write_text(HEADER + "hola\n", encoding="utf-8")
    with pytest.raises(GCGError, match="línea 3"):
        run_cli("classic", "replay", str(broken), "--lexicon", str(FILE2017))
