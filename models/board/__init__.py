"""Training and export of the board cell classifier (never imported at run time)."""
