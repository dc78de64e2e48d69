"""The arbiter console (``/arbiter``): run a duplicate game and the classic top tables.

Every action becomes one event through ``LiveGames.append`` (actor: the arbiter's
login), so the rules check it and the screens follow within a second. One module per
concern, each adding its routes to the one blueprint (``common.bp``):

* ``games``: the console's home; create a duplicate game and its players, a classic table;
* ``console``: the duplicate console and its live state, the rack drawn or entered
  (D.III.12, D.III.19), the clock (D.III.13), the history;
* ``slips``: slips entered by table with the score shown as one types (D.III.20, D.III.25);
  replacing a stored slip shows it and needs a reason;
* ``rounds``: the master published among the top plays (D.III.15-17), a wrong master
  annulled after confirming whose scores change (D.III.29), the game ended (D.III.22);
* ``classic``: plays, challenges, passes, exchanges (C.25-C.45);
* ``notices``: the director's notices to the room's screens and the stream.

Every view needs an arbiter session; every POST the CSRF token (``auth``).
"""

from . import classic, console, games, notices, rounds, slips  # noqa: F401  (each adds its routes to ``bp``)
from .common import bp

__all__ = ["bp"]
