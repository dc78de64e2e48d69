"""Synthetic boards: rendered frames of Spanish boards, for training, tests, benchmarks and the demo.

Nothing on the reading path imports this package (``tests/test_architecture.py`` checks it): the
camera's pipeline (``vision.board``: find, cells, classify, reading, tracker, desk) reads frames; this
package only makes them. ``render`` draws one frame with its truth (``render_scene``: scenes as data;
``render_board``, ``render_tiles``, ``render_hands``, ``render_light``: the parts; ``render_random``:
random scenes, splits and fonts; ``render_designs``: board designs, tile makers and the font families
split whole), and ``scenes`` plays rendered games with hands. The classifier's training crops are cut
from them by ``models.board.data``.
"""
