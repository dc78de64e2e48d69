"""What a tournament leaves behind: exports people open, tournaments over several games,
EloDI ratings, the evidence file of each game, and a game's players' list and slips to print.

A layer beside ``webapp.services``: may import ``rules_core``, ``vision``, ``hardware``,
``models`` and ``webapp.services``; the views and the command line use it.
"""
