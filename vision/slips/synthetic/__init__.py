"""Synthetic slips: handwriting drawn, real pen strokes replayed, slips filled in and scanned.

Training data, test slips, the benchmarks and the demo's scanner; nothing on the reading path
imports this package (``tests/test_architecture.py`` checks it): ``vision.slips`` reads slips,
this package only makes them. ``handwriting`` draws a slip line by a writer (handwriting fonts,
Hershey stroke fonts, real character crops); ``unipen`` replays UNIPEN writers' pen strokes as
writers, split by writer and collection; ``drawn`` fills printed slips in with them, spoils and
corrects boxes, and scans the result. The networks' training samples are made from them by
``models.slips``.
"""
