"""The rules' judgements behind every decision on a slip: a coordinate in the wrong order is void
however the slip arrives (D.III.20.4), a play typed without its separator is read, a replaced slip
needs a reason, a struck play is proposed void, an annulled master is annulled for every way of
writing it and its effect is known before it is stored (D.III.29)."""

from __future__ import annotations

import pytest

from rules_core.alphabet import tiles_from_text
from rules_core.board import Board
from rules_core.duplicate import DuplicateGame, Round, _same_placement
from rules_core.events import Event
from rules_core.lexicon import Lexicon
from rules_core.movegen import ScoredPlay
from rules_core.notation import Play, misordered_forms, separated, typed_notation
from rules_core.slip_entry import ReplacementNeedsReason, slip_event, stored_slip
from rules_core.slips import COORDINATE_ORDER, Slip, meant_play, score_slip
from vision.slips.decoder import CandidateSet
from vision.slips.review import VOID_REASONS, proposal_for, void_reason

from .test_duplicate import close_round, new_game, rack

RACK = tiles_from_text("AEMNNOQ")  # on the empty board: H3 AMONEN and 8C AMONEN score 22


@pytest.mark.parametrize(("written", "meant"), [
    ("3H AMONEN", "H3 AMONEN"),  # the coordinate reversed, no arrow
    ("H3 AMONEN ↓", "H3 AMONEN"),  # the wrong arrow
    ("C8 AMONEN", "8C AMONEN"),
])  # fmt: skip
def test_a_coordinate_in_the_wrong_order_voids_the_slip(file2017: Lexicon, written: str, meant: str) -> None:
    result = score_slip(Board(), RACK, file2017, Slip(written))
    assert result.score == 0 and COORDINATE_ORDER in result.reason and "D.III.20.4" in result.reason
    found = meant_play(Board(), RACK, file2017, written)
    assert found is not None and found.notation() == meant


@pytest.mark.parametrize("written", ["3H AMONEN →", "H3 AMONEN →", "8C AMONEN"])
def test_a_play_written_right_is_not_misordered(file2017: Lexicon, written: str) -> None:
    """With an arrow the coordinate may be written in either order (D.III.20.1.b)."""
    assert score_slip(Board(), RACK, file2017, Slip(written)).score == 22
    assert meant_play(Board(), RACK, file2017, written) is None


def test_the_scanner_and_the_rules_judge_the_same_writings_misordered(file2017: Lexicon) -> None:
    """Every writing the slip reader takes for a coordinate in the wrong order is void for the rules, for the
    play the reader meant: one judgement, typed or scanned (``notation.misordered_forms``)."""
    candidates = [c for c in CandidateSet.build(Board(), RACK, file2017).candidates if c.kind == "coordinate_order"]
    assert len(candidates) > 10
    for candidate in candidates:
        written = separated(candidate.text)
        assert written is not None, candidate.text
        assert COORDINATE_ORDER in score_slip(Board(), RACK, file2017, Slip(written)).reason
        found = meant_play(Board(), RACK, file2017, written)
        assert found is not None and found.notation() == candidate.play
    play = Play.from_notation("H3 AMONEN")
    assert misordered_forms(play) == (("3H", ""), ("H3", "↓"))


def test_a_play_typed_without_its_separator_is_read_when_only_one_reading_exists() -> None:
    assert typed_notation("H3AMONEN") == "H3 AMONEN"
    assert typed_notation("10HCASA") == "10H CASA" and typed_notation("H10CASA") == "H10 CASA"
    assert typed_notation("8CAMONEN→") == "8C AMONEN→"
    assert typed_notation("H3 AMONEN") == "H3 AMONEN"  # already read
    for unreadable in ("H3AMONENH8CASA", "AMONEN", "-"):  # two plays, none, no play: left as typed
        assert typed_notation(unreadable) == unreadable


def test_replacing_a_stored_slip_needs_a_reason_and_says_what_is_stored(file2017: Lexicon) -> None:
    game = new_game(file2017)
    rack(game, 1, "AEMNNOQ")
    assert slip_event(game, 1, "ana", Slip("H3 AMONEN"), "escáner").kind == "slip"
    game.apply(Event("slip", {"round": 1, "player": "ana", "slip": Slip("H3 AMONEN", source="escáner").to_json()},
                     "escáner"))  # fmt: skip
    with pytest.raises(ReplacementNeedsReason) as refused:
        slip_event(game, 1, "ana", Slip("H4 MANEN"), "arbitro")
    stored = refused.value.stored
    assert (stored.play, stored.score, stored.actor, stored.table, stored.corrected) == ("H3 AMONEN", 22, "escáner", 1, False)
    assert "H3 AMONEN, 22 puntos" in str(refused.value) and "motivo" in str(refused.value)
    for removal in (Slip(None), Slip("H3 AMONEN", void="caligrafía ininteligible")):  # voiding or emptying it too
        with pytest.raises(ReplacementNeedsReason):
            slip_event(game, 1, "ana", removal, "arbitro", reason="  ")
    event = slip_event(game, 1, "ana", Slip("H4 MANEN"), "arbitro", "mal leída", review="correct")
    assert event.kind == "slip_corrected" and event.data["reason"] == "mal leída" and event.data["review"] == "correct"
    game.apply(event)
    after = stored_slip(game, 1, "ana")
    assert after is not None and (after.play, after.score, after.actor, after.corrected) == ("H4 MANEN", 20, "arbitro", True)


def test_a_struck_play_is_proposed_void_never_scored() -> None:
    """D.III.20.4: a play struck out or scrawled over was given up; one key never scores it."""
    flags = ("spoilt", "illegible")
    proposal = proposal_for(flags, "H3 AMONEN", "H3 AMONEN")
    assert proposal is not None and proposal.void == VOID_REASONS["spoilt"] == void_reason(flags)
    assert void_reason(("player_unknown", "spoilt")) == VOID_REASONS["spoilt"]
    unsure = proposal_for(("illegible",), "H3 AMONEN", "H3 AMONEN")  # merely hard to read: the play is proposed
    assert unsure is not None and unsure.void is None and unsure.notation == "H3 AMONEN"


def test_an_annulled_master_is_annulled_however_it_was_written(small_lexicon: Lexicon) -> None:
    """A one-tile master has two notations (``H5 CASAS``, ``9G OS``): both lay the same tile."""
    board = Board()
    for col, letter in zip(range(4, 8), tiles_from_text("CASA")):
        board[7, col] = letter
    board[6, 8] = tiles_from_text("O")[0]
    master = Play.from_notation("H5 CASAS")
    r = Round(2, board, tuple(tiles_from_text("SAEIOUL")), small_lexicon)
    r.master = ScoredPlay("H5 CASAS", 7, master.row, master.col, master.down, bytes(master.word))
    assert _same_placement(r, "9G OS") and _same_placement(r, "H5 CASAS")
    assert not _same_placement(r, "G9 OS") and not _same_placement(r, "not a play")


def test_the_changes_of_an_annulment_are_known_before_it_is_stored(file2017: Lexicon) -> None:
    game: DuplicateGame = new_game(file2017, bonuses=True)
    close_round(game, {"ana": "H3 AMONEN", "bea": "8D MONEAN", "ciro": "H4 MANEN"})
    before = {s.player: s.total for s in game.standings()}
    changes = game.annulment_changes(1, "palabra mal comprobada")
    # Ana played the master: 0. Bea matched its score with another play: she keeps it, now alone (D.III.24)
    assert changes == {"ana": (22, 0), "bea": (22, 32)}
    assert {s.player: s.total for s in game.standings()} == before and game.round(1).annulled is None
    game.apply(Event("master_annulled", {"round": 1, "reason": "palabra mal comprobada"}))
    assert {s.player: s.total for s in game.standings()} == {**before, "ana": 0, "bea": 32}
    assert game.round(1).annulled_players() == ["ana"]
