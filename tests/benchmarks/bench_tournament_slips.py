"""Benchmark: a tournament's play fields read round after round, with and without learning the room (issue 68).

    .venv/bin/python tests/benchmarks/bench_tournament_slips.py [--players 100] [--rounds 15] [--seed 6801] [--json FILE]

The tournament (``models.slips.tournament``): every UNIPEN writer the networks never saw (the collection kept out and
the writers of the calibration and test parts none of whose files was trained on; each player one writer, as many as
there are, up to ``--players``) writes a play of each of ``--rounds`` positions, later rounds with ink not shown
before them. Each play field, cut from the player's scanned slip as the reader cuts it, is read in the order a
tournament feeds them, twice:

* without learning: ``SlipReader.read_move``, as today;
* with learning: ``vision.slips.room.RoomReader``, each slip decided before its truth is looked at, then the
  arbiter settles it if it was flagged (``settle``), learning from it, and an accepted slip sure enough teaches at
  once (``learning.LEARN_CONFIDENCE``).

An arbiter settles every flagged slip with the truth. Per round and for rounds 1-5 and 6 on: correct slips (written
as the rules ask) right without a flag, all slips right without a flag, flagged, silent errors (a wrong play or score
accepted without a flag; of them, how many with a wrong score), the arbiter's proposal right on flagged slips, and the
arbiter's seconds: ``KEY_SECONDS`` to confirm a flagged slip whose proposal (the reader's likeliest outcome) is what
the arbiter decides, ``CHOOSE_SECONDS`` to find the play among the likely plays the panel lists and press its number
(``Decision.options``, keys 1-5), ``TYPE_SECONDS`` to read the slip and type the play otherwise; an accepted slip
costs none (also given without the number keys, as the panel was before them). Seconds are also given per 100 slips.
Speed: CPU seconds per slip of each reading. Hash seeds are fixed (the process restarts itself with
``PYTHONHASHSEED=0``): the reader's ties between a play's written forms are broken in set order.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

if os.environ.get("PYTHONHASHSEED") != "0":  # reproducible figures: see the docstring
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

from models.slips.tournament import LATE_ROUND, TournamentSlip, tournament  # noqa: E402
from rules_core.cgp import Position  # noqa: E402
from rules_core.lexicon import Lexicon  # noqa: E402
from vision.slips.decoder import Decision, unseparated  # noqa: E402
from vision.slips.learning import GlyphMemory  # noqa: E402
from vision.slips.reader import SlipReader  # noqa: E402
from vision.slips.room import RoomReader  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_slips import LEXICON  # noqa: E402

KEY_SECONDS: Final = 3.0  # look at the crop and the proposal, confirm it with one key
CHOOSE_SECONDS: Final = 5.0  # read the crop and the listed plays, press the number of the one written
TYPE_SECONDS: Final = 12.0  # read the crop and type the play (about nine characters) or the score


@dataclass(frozen=True)
class Outcome:
    round: int
    source: str
    correct: bool
    flagged: bool
    right: bool
    silent: bool
    proposal_right: bool
    listed: bool  # the play written is among the likely plays the panel lists (a number key enters it)
    wrong_score: bool  # a silent error whose score is wrong too (not only the play's letters, as a blank's)
    seconds: float  # CPU seconds the reading took
    detail: str = ""  # a silent error: what was written and what was accepted

    def arbiter_seconds(self, number_keys: bool = True) -> float:
        """The arbiter's time on this slip; without ``number_keys``, as the panel was before them (the proposal
        confirmed, or the play typed)."""
        if not self.flagged:
            return 0.0
        if self.proposal_right:
            return KEY_SECONDS
        return CHOOSE_SECONDS if number_keys and self.listed else TYPE_SECONDS


def judge(slip: TournamentSlip, decision: Decision, seconds: float) -> Outcome:
    """What the reading of ``slip`` was worth against the arbiter's decision."""
    flagged = decision.verdict == "flagged"
    right = not flagged and decision.score == slip.truth_score and (slip.truth_score == 0 or decision.play == slip.truth_play)
    top = decision.options[0] if decision.options else None
    if top is None:
        proposal = False
    elif slip.truth_score:
        proposal = top.kind == "play" and top.text == slip.truth_play
    else:  # a mistake, scored 0: the arbiter confirms the flag's reason or the reading as written
        proposal = top.kind in ("unmarked_blank", "coordinate_order") or unseparated(top.text) == unseparated(slip.truth_play)
    listed = bool(slip.truth_score) and any(o.kind == "play" and o.text == slip.truth_play for o in decision.options)
    silent = not flagged and not right
    wrong_score = silent and decision.score != slip.truth_score
    detail = (f"round {slip.round} {slip.source}: written {slip.truth_play or '-'} ({slip.truth_score}), "
              f"accepted {decision.play or '-'} ({decision.score})") if silent else ""
    return Outcome(slip.round, slip.source, slip.correct, flagged, right, silent, proposal, listed, wrong_score,
                   seconds, detail)  # fmt: skip


Read = Callable[[TournamentSlip], Decision]


def run(slips: Sequence[TournamentSlip], read: Read, settle: Callable[[TournamentSlip, Decision], None]) -> list[Outcome]:
    """Each slip read in order (CPU seconds of this process), judged, then settled."""
    outcomes = []
    for slip in slips:
        start = time.process_time()
        decision = read(slip)
        seconds = time.process_time() - start
        outcomes.append(judge(slip, decision, seconds))
        settle(slip, decision)
    return outcomes


def figures(outcomes: Sequence[Outcome], players: int) -> dict[str, Any]:
    n = len(outcomes)
    correct = [o for o in outcomes if o.correct]
    flagged = [o for o in outcomes if o.flagged]
    seconds = sum(o.arbiter_seconds() for o in outcomes)
    without_keys = sum(o.arbiter_seconds(number_keys=False) for o in outcomes)
    rounds = len({o.round for o in outcomes})
    return {
        "slips": n,
        "right_without_flag_correct": round(sum(o.right for o in correct) / max(1, len(correct)), 4),
        "right_without_flag": round(sum(o.right for o in outcomes) / max(1, n), 4),
        "flagged": round(len(flagged) / max(1, n), 4),
        "silent_errors": sum(o.silent for o in outcomes),
        "silent_error_rate": round(sum(o.silent for o in outcomes) / max(1, n), 4),
        "silent_errors_wrong_score": sum(o.wrong_score for o in outcomes),
        "proposal_right_of_flagged": round(sum(o.proposal_right for o in flagged) / max(1, len(flagged)), 4),
        "listed_of_flagged": round(sum(o.proposal_right or o.listed for o in flagged) / max(1, len(flagged)), 4),
        "arbiter_seconds_per_round": round(seconds / max(1, rounds), 1),
        "arbiter_seconds_per_100_slips": round(100 * seconds / max(1, n), 1),
        "arbiter_seconds_per_100_slips_without_number_keys": round(100 * without_keys / max(1, n), 1),
        "cpu_seconds_per_slip": round(sum(o.seconds for o in outcomes) / max(1, n), 4),
    }


def report(outcomes: Sequence[Outcome], players: int) -> dict[str, Any]:
    by_round = {r: figures([o for o in outcomes if o.round == r], players) for r in sorted({o.round for o in outcomes})}
    late = [o for o in outcomes if o.round >= LATE_ROUND]
    return {
        "by_round": by_round,
        f"rounds_1_{LATE_ROUND - 1}": figures([o for o in outcomes if o.round < LATE_ROUND], players),
        f"rounds_{LATE_ROUND}_on": figures(late, players),
        f"rounds_{LATE_ROUND}_on_by_source": {source: figures([o for o in late if o.source == source], players)
                                              for source in sorted({o.source for o in late})},  # fmt: skip
        "all": figures(outcomes, players),
        "silent": [o.detail for o in outcomes if o.silent],
    }


def table(name: str, result: dict[str, Any]) -> str:
    lines = [f"{name}: round | correct right, no flag | flagged | silent | proposal right (flagged) | arbiter s (per 100)"]
    for r, f in result["by_round"].items():
        lines.append(f"  {r:>2} | {f['right_without_flag_correct']:.1%} | {f['flagged']:.1%} | {f['silent_errors']} | "
                     f"{f['proposal_right_of_flagged']:.0%} | {f['arbiter_seconds_per_round']:.0f} "
                     f"({f['arbiter_seconds_per_100_slips']:.0f})")  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100, help="players (at most the writers never seen)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=6801)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    lexicon = Lexicon.load(LEXICON)
    started = time.perf_counter()
    slips = list(tournament(lexicon, args.players, args.rounds, args.seed))
    players = len({s.player for s in slips})
    made = time.perf_counter() - started
    positions = {s.cgp: Position.from_cgp(s.cgp) for s in slips}
    reader = SlipReader(lexicon)
    for position in positions.values():  # candidate sets built before timing (once per round)
        reader.cache.get(position.board, position.rack, lexicon)

    def plain(slip: TournamentSlip) -> Decision:
        position = positions[slip.cgp]
        return reader.read_move(slip.image, position.board, position.rack)

    room = RoomReader(reader, GlyphMemory())

    def learning(slip: TournamentSlip) -> Decision:
        position = positions[slip.cgp]
        return room.read_move(slip.image, position.board, position.rack, slip.player, f"{slip.round}/{slip.player}")

    def arbiter(slip: TournamentSlip, decision: Decision) -> None:
        if decision.verdict == "flagged":
            room.settle(f"{slip.round}/{slip.player}", slip.truth_play)

    out = {
        "players": players,
        "slips": len(slips),
        "players_by_source": {source: len({s.player for s in slips if s.source == source})
                              for source in sorted({s.source for s in slips})},  # fmt: skip
        "seed": args.seed,
        "seconds_model": {"confirm_proposal": KEY_SECONDS, "choose_listed": CHOOSE_SECONDS, "type_play": TYPE_SECONDS},
        "tournament_made_in_seconds": round(made, 1),
        "without_learning": report(run(slips, plain, lambda s, d: None), players),
        "with_learning": report(run(slips, learning, arbiter), players),
    }
    for name in ("without_learning", "with_learning"):
        print(table(name, out[name]), flush=True)
        summary = {k: v for k, v in out[name].items() if k != "by_round"}  # the silent errors listed too
        print(json.dumps(summary, ensure_ascii=False, indent=1), flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
