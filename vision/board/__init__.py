"""The board camera: find the board, read every cell, follow the game (issue 6).

Modules, one concept each: ``geometry`` (homography conventions), ``find`` (the
grid without markers), ``markers`` (optional ArUco markers), ``cells`` (warp and
cut), ``labels`` (classes), ``classify`` (ONNX inference), ``orientation`` (row A),
``reading`` (one frame read), ``blanks`` (a blank's letter from the lexicon),
``tracker`` (a camera through a game), ``desk`` (camera plays into classic games,
the arbiter's review queue), ``render`` and ``scenes`` (rendered boards and games
with hands), ``demo`` (a rendered table through the real pipeline).
"""
