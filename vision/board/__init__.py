"""The board camera: find the board, read every cell, follow the game (issue 6).

Modules, one concept each: ``geometry`` (homography conventions), ``find`` (the
grid without markers: ``outline`` from the colours, ``grid_lines`` fitted,
``premium_layout`` checked), ``markers`` (optional ArUco markers), ``cells`` (warp and
cut), ``labels`` (classes), ``classify`` (ONNX inference), ``orientation`` (row A),
``reading`` (one frame read), ``blanks`` (a blank's letter from the lexicon),
``tracker`` (a camera through a game: ``label_grids`` compared, ``reports`` told),
``desk`` (camera plays into classic games, the arbiter's review queue). Rendered boards
and games, which make training data, test frames and the demo, are ``synthetic``'s; nothing
here imports them. Frames come as ``vision.frames.Frame``; the demo table that runs a
rendered game through this pipeline is ``webapp.services.demo.table``.
"""
