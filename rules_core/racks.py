"""Duplicate racks: validity (D.III.12), the seeded draw with redraws (D.III.19).

Vowels are A E I O U; Y is a consonant (D.III.12); blanks are neither and are not
counted. Two rules:

* ``EARLY`` (up to round 15): fewer than 6 vowels and fewer than 6 consonants;
* ``LATE`` (from round 16, or as soon as only one vowel or one consonant is left off
  the board, to the end of the game): at least one vowel and one consonant.

When no valid rack can be made from the tiles left the game ends (D.III.22).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from .alphabet import BLANK, Tile, is_vowel, label
from .scoring import RACK_SIZE

LAST_EARLY_ROUND: Final = 15
EARLY_LIMIT: Final = 6  # "menos de seis vocales y menos de seis consonantes"
MAX_REDRAWS: Final = 10_000


class RackRule(Enum):
    EARLY = "menos de 6 vocales y menos de 6 consonantes"
    LATE = "al menos una vocal y una consonante, sin contar los comodines"


def vowels_and_consonants(tiles: Sequence[Tile]) -> tuple[int, int]:
    """Counts of vowels and of consonants, blanks left out."""
    vowels = sum(1 for t in tiles if is_vowel(t))
    consonants = sum(1 for t in tiles if t != BLANK and not is_vowel(t))
    return vowels, consonants


def rule_for(round_number: int, tiles_left: Sequence[Tile]) -> RackRule:
    """The rule for a round, given every tile not yet on the board (bag and rack)."""
    vowels, consonants = vowels_and_consonants(tiles_left)
    if round_number > LAST_EARLY_ROUND or vowels <= 1 or consonants <= 1:
        return RackRule.LATE
    return RackRule.EARLY


def rack_problem(rack: Sequence[Tile], rule: RackRule) -> str | None:
    """Why ``rack`` breaks ``rule`` (a sentence citing D.III.12), or None if it is valid."""
    vowels, consonants = vowels_and_consonants(rack)
    if rule is RackRule.EARLY:
        if vowels >= EARLY_LIMIT:
            return f"el atril tiene {vowels} vocales; hasta la ronda 15 deben ser menos de 6 (D.III.12)"
        if consonants >= EARLY_LIMIT:
            return f"el atril tiene {consonants} consonantes; hasta la ronda 15 deben ser menos de 6 (D.III.12)"
        return None
    if vowels == 0:
        return "el atril no tiene ninguna vocal; debe tener al menos una (D.III.12)"
    if consonants == 0:
        return "el atril no tiene ninguna consonante; debe tener al menos una (D.III.12)"
    return None


def valid_rack_possible(pool: Sequence[Tile], rule: RackRule) -> bool:
    """True if some rack of min(7, len(pool)) tiles from ``pool`` satisfies ``rule``."""
    size = min(RACK_SIZE, len(pool))
    vowels, consonants = vowels_and_consonants(pool)
    blanks = len(pool) - vowels - consonants
    if rule is RackRule.LATE:
        return vowels >= 1 and consonants >= 1 and size >= 2
    return min(vowels, EARLY_LIMIT - 1) + min(consonants, EARLY_LIMIT - 1) + blanks >= size


@dataclass(frozen=True)
class Draw:
    """A drawn rack and how many times it was redrawn whole ("cambio de fichas", D.III.19)."""

    rack: tuple[Tile, ...]
    redraws: int


def draw_rack(
    leave: Sequence[Tile], bag: Sequence[Tile], round_number: int, rng: random.Random
) -> Draw | None:
    """Refill ``leave`` from ``bag``; redraw all seven while invalid; None if no rack can be valid."""
    pool = list(leave) + list(bag)
    rule = rule_for(round_number, pool)
    if not pool or not valid_rack_possible(pool, rule):
        return None
    shuffled = list(bag)
    rng.shuffle(shuffled)
    rack = list(leave) + shuffled[: RACK_SIZE - len(leave)]
    redraws = 0
    while rack_problem(rack, rule) is not None:
        redraws += 1
        if redraws > MAX_REDRAWS:
            raise RuntimeError("no valid rack after 10,000 redraws")
        rack = rng.sample(pool, min(RACK_SIZE, len(pool)))
    return Draw(tuple(rack), redraws)


def missing_from(tiles: Sequence[Tile], available: Sequence[Tile]) -> list[Tile]:
    """The tiles of ``tiles`` that ``available`` cannot supply (with multiplicity)."""
    return sorted((Counter(tiles) - Counter(available)).elements())


def manual_rack_problem(
    rack: Sequence[Tile], leave: Sequence[Tile], bag: Sequence[Tile], round_number: int
) -> str | None:
    """Why a rack the arbiter drew by hand cannot be this round's rack, or None.

    Its tiles must come from the last round's leave and the bag (a redraw of all
    seven, D.III.19, may return the leave to the bag), it has seven tiles while they
    last, and it follows D.III.12.
    """
    pool = list(leave) + list(bag)
    absent = missing_from(rack, pool)
    if absent:
        names = ", ".join("?" if t == BLANK else label(t) for t in absent)
        return f"esas fichas no están en la bolsa: {names}"
    expected = min(RACK_SIZE, len(pool))
    if len(rack) != expected:
        return f"el atril debe tener {expected} fichas, no {len(rack)}"
    return rack_problem(rack, rule_for(round_number, pool))
