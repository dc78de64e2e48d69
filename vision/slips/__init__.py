"""Veedor's slip reader: duplicate slips (D.II.8) printed, scanned, read and decided.

Modules, one concept each: ``layout`` (the printed slip's geometry), ``printing``
(the PDF), ``register`` (finding and straightening slips), ``qr``, ``lineimage``
(the recogniser's input), ``tokens`` (its alphabet), ``recognizer`` (the ONNX
model), ``ctc`` (decoding and scoring, pure NumPy), ``decoder`` (the round's
legal plays against the handwriting: the verdict), ``reader`` (the pipeline),
``ingest`` (the watched folder), ``review`` (the arbiter's queue), ``feed`` (into
a duplicate game), ``absolute`` (slips with a printed board, absolute-board notation
D.III.20.1.c), ``strikes`` and ``boxes`` (plays crossed out, corrections), ``spoilt``
(the network that judges a box crossed out). The slips drawn for training, tests, the
benchmarks and the demo are made apart, in ``synthetic``, which no reading module imports.
"""
