"""Type stub of the C move generation kernel (see _movegen.c)."""

from array import array

def generate(
    edges: array[int],
    board: bytes,
    rack: bytes,
    letter_mult: bytes,
    word_mult: bytes,
    values: bytes,
    upper: tuple[bytes, ...],
    lower: tuple[bytes, ...],
    bingo_tiles: int,
    bingo_bonus: int,
    /,
) -> list[tuple[str, int, int, int, bool, bytes]]: ...
