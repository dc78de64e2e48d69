"""Learning the room (issue 68): what a slip teaches of its player's hand, how it is used, kept, reset and unlearned,
and ``read-move --batch --learn``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from rules_core.cgp import Position
from rules_core.lexicon import Lexicon
from vision.slips.decoder import CandidateSet, Scored
from vision.slips.glyphs import GLYPH_INDEX
from vision.slips.learning import JOURNAL, FeatureGlyphs, GlyphMemory, LearningError, PlayerGlyphs, misread_pairs
from vision.slips.lineimage import prepare_line
from vision.slips.reader import SlipReader
from vision.slips.room import RoomReader, unseen_tail
from vision.slips.synthetic import drawn
from vision.slips.synthetic import handwriting as hw
from webapp.cli.slips import add_slip_commands

CHORIZO = "15/15/15/15/15/15/15/5[CH]ORIZO4/15/15/15/15/15/15/15 AACSEIO 0/0 0"
WORDS = "CASA CASAS CASO AS ES OS SE LA AL EL LE ASA OSA CHORIZO CHORIZOS"
WRITER = hw.HersheyWriter(hw.TRAIN_HERSHEY[0])


@pytest.fixture(scope="module")
def lexicon_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lex") / "mini.txt"
    path.write_text("\n".join(WORDS.split()) + "\n")
    return path


@pytest.fixture(scope="module")
def reader(lexicon_file: Path) -> SlipReader:
    return SlipReader(Lexicon.load(lexicon_file))


@pytest.fixture(scope="module")
def features() -> FeatureGlyphs:
    return FeatureGlyphs()


def move_image(text: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    line = np.full((110, 700), 240, np.uint8)
    drawn.write_in_box(line, (5, 5, 695, 105), text, WRITER, rng)
    return line


def position() -> Position:
    return Position.from_cgp(CHORIZO)


def window(char: str, seed: int) -> np.ndarray:
    """A 32 x 32 window of one character by the test's writer, as the glyph classifier reads it."""
    prepared = prepare_line(move_image(char, seed))
    out = np.zeros((32, 32), np.float32)
    width = min(32, prepared.shape[1])
    out[:, (32 - width) // 2 : (32 - width) // 2 + width] = prepared[:, :width]
    return out


def test_an_accepted_slip_changes_how_that_players_next_ambiguous_glyph_is_read(reader: SlipReader,
                                                                               features: FeatureGlyphs) -> None:  # fmt: skip
    memory = GlyphMemory()
    room = RoomReader(reader, memory, features)
    decision = room.read_move(move_image("12F CASA", 1), position().board, position().rack, "ana", "r1/ana")
    assert decision.verdict == "accepted" and decision.confidence >= 0.99
    assert memory.players() == {"ana": 7}  # 1, 2, F, C, A, S, A
    ambiguous = (window("C", 7) + window("O", 8)) / 2  # halfway between a C and an O of the same hand
    c, o = GLYPH_INDEX["C"], GLYPH_INDEX["O"]
    before = PlayerGlyphs(features, memory, "bruno").log_probs(ambiguous[None])[0]  # nothing learned of Bruno
    after = PlayerGlyphs(features, memory, "ana").log_probs(ambiguous[None])[0]
    assert after[c] - after[o] > before[c] - before[o] + 1.0  # Ana's C was learned, her O was not


def test_a_flagged_slip_teaches_nothing_until_the_arbiter_settles_it(reader: SlipReader, features: FeatureGlyphs) -> None:
    memory = GlyphMemory()
    room = RoomReader(reader, memory, features)
    decision = room.read_move(move_image("F12 CASA", 2), position().board, position().rack, "ana", "r1/ana")
    assert decision.verdict == "flagged"
    assert memory.players() == {}
    assert room.settle("r1/ana", None) is False and memory.players() == {}  # the arbiter voided it: nothing to learn
    assert room.settle("r1/ana", "F12 CASA") is True  # the arbiter's decision: 0 as written (D.III.20.4)
    lesson = memory.taught("r1/ana")
    assert lesson is not None and "".join("ABCDEFGHIJKLMNÑOPQRSTUVWXYZ0123456789"[c] for c in lesson.classes) == "F12CASA"


def test_a_slip_scored_wrong_and_corrected_is_unlearned(reader: SlipReader, features: FeatureGlyphs) -> None:
    memory = GlyphMemory()
    room = RoomReader(reader, memory, features)
    room.read_move(move_image("12F CASA", 1), position().board, position().rack, "ana", "r1/ana")
    assert memory.taught("r1/ana") is not None
    assert room.correct("r1/ana", None) is False  # corrected to no play: forgotten, nothing learned instead
    assert memory.taught("r1/ana") is None and memory.players() == {}


def test_what_is_learned_survives_a_restart_and_is_reset_per_player(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    memory = GlyphMemory(tmp_path)
    memory.learn("r1/ana", "ana", [0, 1], rng.random((2, 4), dtype=np.float32), misread=[("M", "N")])
    memory.learn("r1/bruno", "bruno", [2], rng.random((1, 4), dtype=np.float32))
    memory.learn("r2/ana", "ana", [3], rng.random((1, 4), dtype=np.float32))
    memory.forget("r2/ana")
    again = GlyphMemory(tmp_path)
    assert again.players() == {"ana": 2, "bruno": 1}
    learned = again.of_player("ana")
    assert learned is not None and np.allclose(learned[0], memory.of_player("ana")[0], atol=1e-3)  # type: ignore[index]
    assert again.misreadings("ana") == {("M", "N"): 1}
    assert again.reset("ana") == 1 and again.of_player("ana") is None
    assert GlyphMemory(tmp_path).players() == {"bruno": 1}  # the reset is kept too
    with open(tmp_path / JOURNAL, "a", encoding="utf-8") as handle:
        handle.write('{"learn": "r3/bruno", "pla')  # a stop while writing: the last record, never applied
    assert GlyphMemory(tmp_path).players() == {"bruno": 1}
    (tmp_path / JOURNAL).write_text('{"nothing": 1}\n{"forget": "x"}\n')
    with pytest.raises(LearningError, match=f"{JOURNAL}:1"):
        GlyphMemory(tmp_path)


def test_a_play_shorter_than_the_reading_is_not_accepted_on_its_characters(reader: SlipReader) -> None:
    cands = reader.cache.get(position().board, position().rack, reader.lexicon)
    scored = Scored("12F CASAS", (), glyphs={"12F CASA": 0.9, "12FCASAS": 0.8, "11E CASO": 0.7})
    # the reading shows an S after CASA: CASA's characters read as written say nothing of it; the reading's own do
    assert unseen_tail(scored, cands).glyphs == {"12F CASA": 0.0, "12FCASAS": 0.8, "11E CASO": 0.0}
    assert unseen_tail(Scored("12F CASA→", (), glyphs={"12F CASA": 0.9}), cands).glyphs == {"12F CASA": 0.9}


def test_a_players_known_misreading_counts_as_written(reader: SlipReader, features: FeatureGlyphs) -> None:
    cands: CandidateSet = reader.cache.get(position().board, position().rack, reader.lexicon)
    memory = GlyphMemory()
    room = RoomReader(reader, memory, features)
    scored = Scored("12FCAZA", (("play", "12F CASA", 28, -1.0), ("reading", "12FCAZA", None, -3.0)))
    assert room._confirmed(scored, cands, "ana").confirmed == frozenset()
    memory.learn("r1/ana", "ana", [], np.zeros((0, 0), np.float32), misread=misread_pairs("8HZUMO", "8HSUMO"))
    assert room._confirmed(scored, cands, "ana").confirmed == {"12F CASA"}  # Ana's S was read as Z before
    assert room._confirmed(scored, cands, "bruno").confirmed == frozenset()


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="veedor")
    add_slip_commands(parser.add_subparsers(required=True))
    args = parser.parse_args(argv)
    return int(args.run(args))


def test_read_move_learn_decides_each_line_before_its_truth(tmp_path: Path, lexicon_file: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    images = []
    for i, text in enumerate(["F12 CASA", "12F CASA"]):
        images.append(tmp_path / f"{i}.png")
        cv2.imwrite(str(images[-1]), move_image(text, i + 2))

    def batch(truth: str) -> Path:
        path = tmp_path / f"lote-{truth}.jsonl"
        lines = [{"image": str(images[0]), "cgp": CHORIZO, "player": "ana", "slip": "r1/ana",
                  "truth": {"play": truth, "score": 0}},
                 {"image": str(images[1]), "cgp": CHORIZO, "player": "ana", "slip": "r2/ana"}]  # fmt: skip
        path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
        return path

    outputs = []
    for truth in ("F12 CASA", "F12 CASO"):
        learned = tmp_path / f"aprendido-{truth}"
        assert run(["read-move", "--batch", str(batch(truth)), "--json", "--learn", "--learned", str(learned),
                    "--lexicon", str(lexicon_file)]) == 0  # fmt: skip
        outputs.append([json.loads(line) for line in capsys.readouterr().out.splitlines()])
        taught = [json.loads(line) for line in (learned / JOURNAL).read_text().splitlines()]
        assert taught[0]["learn"] == "r1/ana" and taught[0]["glyphs"] == truth.replace(" ", "")  # the arbiter's
    first = [lines[0] for lines in outputs]
    assert first[0] == first[1] and first[0]["verdict"] == "flagged"  # decided before its truth was looked at
    assert run(["read-move", "--batch", str(batch("F12 CASA")), "--lexicon", str(lexicon_file)]) == 0
    plain = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["verdict"] for line in plain] == [line["verdict"] for line in outputs[0]]  # without --learn: as today


def test_read_move_learn_refuses_a_bad_truth(tmp_path: Path, lexicon_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "0.png"
    cv2.imwrite(str(image), move_image("12F CASA", 1))
    batch = tmp_path / "lote.jsonl"
    batch.write_text(json.dumps({"image": str(image), "cgp": CHORIZO, "truth": "12F CASA"}) + "\n")
    assert run(["read-move", "--batch", str(batch), "--learn", "--lexicon", str(lexicon_file)]) == 2
    assert f"{batch}:1" in capsys.readouterr().err
    assert run(["read-move", str(image), "--cgp", CHORIZO, "--learn", "--lexicon", str(lexicon_file)]) == 2
