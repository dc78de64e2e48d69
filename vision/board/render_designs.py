"""Board designs, tile makers and font families for renders (issue 20).

Spanish clubs play on whatever boards they own. ``DESIGNS`` names the board designs
drawn here: ``green`` (the tournament board the reader was first made for), ``beige``
(the classic board: cream squares, red / pink / light-blue / dark-blue premiums,
printed premium labels), ``blue`` (dark blue, light lines), ``black`` (grey lines) and
``wood`` (wood grain, dark lines). ``design_board_style(rng, design, split)`` draws one
``BoardStyle`` of a design: premium labels (``TRIPLE PALABRA``, ``TP``, ``3P`` or none),
margin coordinates or not, colours jittered; the ``heldout`` split draws from other
colour ranges than the training splits.

Font FAMILIES are split whole (``FONT_FAMILIES``): ``train`` families may be used to
train the classifier, ``calibration`` families only to tune a rule on (the lean to
``*``), ``heldout`` families only to report on. A family is every weight and width
of one design (Arimo is Liberation Sans's design, Carlito Lato's, Tinos Liberation
Serif's: each kept in the same part). ``SEEN_BY_COMMITTED`` lists the families the
committed MAIN classifier's earlier training saw before it was fine-tuned on every ``train``
family (issue 20); the font model (``board_cells_fonts.onnx``) and that fine-tuning used the
green, beige and black designs (``TRAIN_DESIGNS``; ``models/board/MODEL_CARD.md``). Since
the seventh revision of issue 20 both learnt 58 train families (the font model was trained
anew on them, 1.5 times as wide, in the eighth; ``make train-packages`` installs the fonts of
the last 46, for training only); the benchmark's trained half draws the first twelve
(``BENCH_TRAIN_FAMILIES``), so that its scenes stay comparable across revisions and need no
training fonts.
``design_tile_style(rng, split)`` draws a tile maker: face colour (cream, ivory, white,
yellowish), ink, the value's corner and size, letter size, a family of the split.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from .render_scene import BoardStyle, TileStyle

DESIGNS: Final = ("green", "beige", "blue", "black", "wood")
TRAIN_DESIGNS: Final = ("green", "beige", "black")  # a retrained classifier may see these; blue and wood kept out
LABEL_KINDS: Final = ("", "long", "short", "digits")

FONT_FAMILIES: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    # family: (part, font files)
    "URW Gothic": ("train", ("URWGothic-Book.otf", "URWGothic-Demi.otf")),
    "Nimbus Sans": ("train", ("NimbusSans-Regular.otf", "NimbusSans-Bold.otf", "NimbusSansNarrow-Regular.otf", "NimbusSansNarrow-Bold.otf")),
    "FreeSans": ("train", ("FreeSans.ttf", "FreeSansBold.ttf")),
    "DejaVu Sans": ("train", ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf")),
    "URW Bookman": ("train", ("URWBookman-Demi.otf",)),
    "Nimbus Roman": ("train", ("NimbusRoman-Bold.otf",)),
    "P052": ("train", ("P052-Bold.otf",)),
    "C059": ("train", ("C059-Roman.otf", "C059-Bold.otf")),
    "FreeSerif": ("train", ("FreeSerifBold.ttf",)),
    "Roboto": ("train", ("Roboto-Medium.ttf", "Roboto-Bold.ttf", "RobotoCondensed-Bold.ttf")),
    "Open Sans": ("train", ("OpenSans-Semibold.ttf", "OpenSans-Bold.ttf", "OpenSans-CondBold.ttf")),
    "DejaVu Serif": ("train", ("DejaVuSerif-Bold.ttf", "DejaVuSerifCondensed-Bold.ttf")),
    # more letter shapes for training (issue 20, seventh revision): every bold or semibold Latin
    # family of Debian's font packages that has the Spanish and the foreign letters
    "PT Sans": ("train", ("PTS75F.ttf", "PTN77F.ttf", "PTC75F.ttf")),
    "PT Serif": ("train", ("PTF75F.ttf", "PTZ55F.ttf")),
    "Linux Libertine": ("train", ("LinLibertine_RB.otf", "LinLibertine_RZ.otf")),
    "Linux Biolinum": ("train", ("LinBiolinum_RB.otf",)),
    "Charis SIL": ("train", ("CharisSIL-Bold.ttf",)),
    "Gentium Basic": ("train", ("GenBasB.ttf", "GenBkBasB.ttf")),
    "Roboto Slab": ("train", ("RobotoSlab-Regular.otf", "RobotoSlab-Bold.otf")),
    "Cabin": ("train", ("Cabin-SemiBold.otf", "Cabin-Bold.otf")),
    "Oxygen": ("train", ("Oxygen-Sans-Bold.ttf",)),
    "Vollkorn": ("train", ("Vollkorn-SemiBold.ttf", "Vollkorn-Bold.ttf")),
    "Accanthis": ("train", ("AccanthisADFStd-Bold.otf",)),
    "Gillius": ("train", ("GilliusADF-Bold.otf", "GilliusADF-BoldCond.otf")),
    "Universalis": ("train", ("UniversalisADFStd-Bold.otf", "UniversalisADFStd-BoldCond.otf")),
    "Clear Sans": ("train", ("ClearSans-Medium.ttf", "ClearSans-Bold.ttf")),
    "Yanone Kaffeesatz": ("train", ("YanoneKaffeesatz-SemiBold.otf", "YanoneKaffeesatz-Bold.otf")),
    "Dosis": ("train", ("Dosis-SemiBold.otf", "Dosis-Bold.otf")),
    "Play": ("train", ("Play-Bold.ttf",)),
    "Quicksand": ("train", ("Quicksand-Bold.ttf",)),
    "Cardo": ("train", ("Cardob101.ttf",)),
    "STIX": ("train", ("STIX-Bold.otf",)),
    "Noto Sans": ("train", ("NotoSans-Bold.ttf", "NotoSansDisplay-Bold.ttf", "NotoSans-SemiBold.ttf", "NotoSans-CondensedBold.ttf", "NotoSans-SemiCondensedBold.ttf")),
    "Noto Serif": ("train", ("NotoSerif-Bold.ttf", "NotoSerifDisplay-Bold.ttf", "NotoSerif-SemiBold.ttf", "NotoSerif-CondensedBold.ttf")),
    "CMU Serif": ("train", ("cmunbx.ttf",)),
    "CMU Sans": ("train", ("cmunsx.ttf",)),
    "CMU Bright": ("train", ("cmunbsr.ttf",)),
    "Berenis": ("train", ("BerenisADFPro-Bold.otf",)),
    "Romande": ("train", ("RomandeADFStd-DemiBold.otf",)),
    "Tribun": ("train", ("TribunADFStd-Bold.otf", "TribunADFStd-BoldCond.otf")),
    "Verana": ("train", ("VeranaSans-Bold.otf", "VeranaSansDemi-Regular.otf")),
    "Ikarius": ("train", ("IkariusADFStd-Bold.otf",)),
    "Baskervald": ("train", ("BaskervaldADFStd-Bold.otf",)),
    "Irianis": ("train", ("IrianisADFStd-Bold.otf",)),
    "Libris": ("train", ("LibrisADFStd-Bold.otf",)),
    "Switzera": ("train", ("SwitzeraADF-Bold.otf", "SwitzeraADF-BoldCond.otf", "SwitzeraADF-DemiBold.otf")),
    "Oldania": ("train", ("OldaniaADFStd-Bold.otf",)),
    "Century Catalogue": ("train", ("Century-Catalogue.ttf",)),
    "Fanwood": ("train", ("FanwoodText.otf",)),
    "Tuffy": ("train", ("Tuffy_Bold.ttf",)),
    "B612": ("train", ("B612-Bold.otf",)),
    "Andika": ("train", ("Andika-Bold.ttf",)),
    "Jura": ("train", ("Jura-SemiBold.otf", "Jura-Bold.otf")),
    "Junicode": ("train", ("JunicodeTwoBeta-Bold.otf",)),
    "GFS Didot": ("train", ("GFSDidotBold.otf",)),
    "Bebas Neue": ("train", ("BebasNeue-Bold.otf",)),
    "Jara": ("train", ("Jara_Bold.ttf",)),
    "Quercus": ("train", ("Quercus_Bold.ttf",)),
    "Lato": ("calibration", ("Lato-Semibold.ttf", "Lato-Bold.ttf", "Lato-Heavy.ttf", "Carlito-Bold.ttf")),
    "Cantarell": ("calibration", ("Cantarell-Bold.otf", "Cantarell-ExtraBold.otf")),
    "Liberation Sans": ("heldout", ("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf", "LiberationSansNarrow-Bold.ttf", "Arimo-Bold.ttf")),
    "Liberation Serif": ("heldout", ("LiberationSerif-Bold.ttf", "Tinos-Bold.ttf")),
    "Inter": ("heldout", ("Inter-SemiBold.otf", "Inter-Bold.otf")),
    "League Spartan": ("heldout", ("LeagueSpartan-SemiBold.otf", "LeagueSpartan-Bold.otf")),
    "Caladea": ("heldout", ("Caladea-Bold.ttf",)),
}
SEEN_BY_COMMITTED: Final = ("URW Gothic", "Nimbus Sans", "FreeSans", "DejaVu Sans", "URW Bookman", "Nimbus Roman", "P052", "C059", "FreeSerif")
# the train families of issue 20's first revision: the benchmark's trained half draws from these alone,
# so that its scenes stay those of the earlier revisions (figures compared board by board)
BENCH_TRAIN_FAMILIES: Final = SEEN_BY_COMMITTED + ("Roboto", "Open Sans", "DejaVu Serif")

TILE_FACES: Final = {  # BGR
    "cream": (200, 228, 238),
    "ivory": (215, 235, 242),
    "white": (240, 242, 242),
    "yellowish": (160, 215, 235),
}


def families(part: str) -> tuple[str, ...]:
    """The font families of a part (``train``, ``calibration``, ``heldout``)."""
    return tuple(name for name, (p, _) in FONT_FAMILIES.items() if p == part)


def family_of(path: str) -> str:
    """The family of a font file path (``""`` when not one of ``FONT_FAMILIES``)."""
    name = path.rsplit("/", 1)[-1]
    return next((family for family, (_, files) in FONT_FAMILIES.items() if name in files), "")


def _jitter(rng: np.random.Generator, colour: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    c = np.array(colour, np.float32) * rng.uniform(1 - amount, 1 + amount, 3)
    return tuple(int(x) for x in np.clip(c, 0, 255))  # type: ignore[return-value]


# per design: plain squares, lines, TW, DW, TL, DL, margin, frame, label ink (BGR)
_PALETTES: Final = {
    "green": ((70, 130, 20), (25, 40, 15), (40, 40, 200), (110, 120, 235), (170, 90, 30), (225, 160, 80), (70, 130, 20), (225, 230, 232), (240, 240, 240)),
    "beige": ((165, 205, 222), (235, 240, 242), (45, 45, 190), (150, 150, 235), (140, 80, 30), (225, 195, 140), (120, 160, 190), (40, 40, 120), (245, 245, 245)),
    "blue": ((110, 55, 20), (190, 150, 110), (50, 50, 200), (140, 140, 240), (80, 150, 40), (225, 190, 120), (90, 45, 15), (60, 30, 10), (245, 245, 245)),
    "black": ((32, 32, 32), (120, 120, 120), (50, 50, 200), (150, 130, 230), (200, 110, 40), (210, 200, 90), (25, 25, 25), (15, 15, 15), (235, 235, 235)),
    "wood": ((70, 125, 175), (30, 50, 80), (40, 45, 160), (100, 115, 205), (140, 95, 55), (195, 170, 120), (55, 100, 150), (40, 70, 110), (235, 235, 235)),
}
_HELDOUT_SHIFT: Final = {  # the held-out split's colours differ from the training splits'
    "green": (1.1, 0.95, 1.6), "beige": (0.95, 1.0, 1.02), "blue": (1.2, 1.15, 1.0), "black": (1.3, 1.3, 1.3), "wood": (0.9, 0.95, 1.05),
}


def design_board_style(rng: np.random.Generator, design: str, split: str = "train") -> BoardStyle:
    """A board of ``design`` (one of ``DESIGNS``), its colours jittered, with or without premium
    labels and margin coordinates."""
    if design not in _PALETTES:
        raise ValueError(f"diseño de tablero desconocido: {design!r}")
    palette = [np.array(c, np.float32) for c in _PALETTES[design]]
    if split == "heldout":
        shift = np.array(_HELDOUT_SHIFT[design], np.float32)
        palette[0] = np.clip(palette[0] * shift, 0, 255)
        palette[6] = np.clip(palette[6] * shift, 0, 255)
    plain, line, tw, dw, tl, dl, margin, frame, ink = (tuple(int(x) for x in c) for c in palette)
    labels = str(rng.choice(LABEL_KINDS, p=(0.3, 0.3, 0.2, 0.2)))
    coordinates = bool(rng.random() < 0.5)
    return BoardStyle(
        green=_jitter(rng, plain, 0.12),  # type: ignore[arg-type]
        line=_jitter(rng, line, 0.2),  # type: ignore[arg-type]
        triple_word=_jitter(rng, tw, 0.12),  # type: ignore[arg-type]
        double_word=_jitter(rng, dw, 0.1),  # type: ignore[arg-type]
        triple_letter=_jitter(rng, tl, 0.15),  # type: ignore[arg-type]
        double_letter=_jitter(rng, dl, 0.1),  # type: ignore[arg-type]
        frame=_jitter(rng, frame, 0.15),  # type: ignore[arg-type]
        margin=float(rng.uniform(0.7, 1.1) if coordinates else rng.uniform(0.15, 0.6)),
        frame_width=float(rng.uniform(0.2, 0.8)),
        teeth=bool(design == "green" and rng.random() < 0.7),
        surround=_jitter(rng, margin, 0.1),  # type: ignore[arg-type]
        labels=labels,
        label_ink=ink,  # type: ignore[arg-type]
        coordinates=coordinates,
        wood=design == "wood",
        line_width=float(rng.uniform(0.03, 0.08)),
    )


def design_tile_style(rng: np.random.Generator, fonts: tuple[str, ...]) -> TileStyle:
    """A tile maker: face colour, ink, letter and value sizes, the value's corner, one of ``fonts``."""
    kind = str(rng.choice(tuple(TILE_FACES)))
    face = np.array(TILE_FACES[kind], np.float32) * rng.uniform(0.92, 1.04, 3)
    ink = tuple(int(x) for x in rng.integers(10, 45, 3))
    return TileStyle(
        face=tuple(int(x) for x in np.clip(face, 0, 255)),  # type: ignore[arg-type]
        font=str(fonts[int(rng.integers(len(fonts)))]),
        letter_size=float(rng.uniform(0.42, 0.62)),
        value_size=float(rng.uniform(0.12, 0.24)),
        side_shade=float(rng.uniform(0.55, 0.85)),
        size=float(rng.uniform(0.85, 0.95)),
        height=float(rng.uniform(0.1, 0.3)),
        ink=ink,  # type: ignore[arg-type]
        value_corner=str(rng.choice(("br", "br", "bl", "tr"))),
    )
