"""Board designs, tile makers and font families for renders (issue 20).

Spanish clubs play on whatever boards they own. ``DESIGNS`` names the board designs
drawn here: ``green`` (the tournament board the reader was first made for), ``beige``
(the classic board: cream squares, red / pink / light-blue / dark-blue premiums,
printed premium labels), ``blue`` (dark blue, light lines), ``black`` (grey lines) and
``wood`` (wood grain, dark lines). ``RANDOM_DESIGN`` is a board of any colours, for training
only (``random_palette``), whose squares keep away from the designs kept out
(``KEPT_OUT_PLAIN``). ``design_board_style(rng, design, split)`` draws one
``BoardStyle`` of a design: premium labels (``TRIPLE PALABRA``, ``TP``, ``3P`` or none),
margin coordinates or not, colours jittered; the ``heldout`` split draws from other
colour ranges than the training splits.

Font FAMILIES are split whole (``FONT_FAMILIES``): ``train`` families may be used to
train the classifier, ``calibration`` families only to tune a rule on (the lean to
``*``), ``development`` families (serif, issue 20's eighteenth revision) only to choose between
candidate models on, ``heldout`` families only to report on. A family is every weight and width
of one design (Arimo is Liberation Sans's design, Carlito Lato's, Tinos Liberation
Serif's: each kept in the same part). ``SEEN_BY_COMMITTED`` lists the families the
MAIN classifier's first training saw (issue 6). Since the seventeenth revision of issue 20 the
main and the font model (``board_cells_fonts.onnx``) are trained from scratch on the 58 train
families, the green, beige and black designs (``TRAIN_DESIGNS``) and random palettes
(``models/board/train_on_gpu.sh``, ``models/board/MODEL_CARD.md``, ``HISTORY.md``; ``make train-packages``
installs the fonts of the last 46, for training only); the benchmark's trained half draws the first twelve
(``BENCH_TRAIN_FAMILIES``), so that its scenes stay comparable across revisions and need no
training fonts.
``design_tile_style(rng, split)`` draws a tile maker: face colour (cream, ivory, white,
yellowish), ink, the value's corner and size, letter size, a family of the split.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from .render_scene import BoardStyle, TileStyle

DESIGNS: Final = ("green", "beige", "blue", "black", "wood")
TRAIN_DESIGNS: Final = ("green", "beige", "black")  # a retrained classifier may see these; blue and wood kept out
RANDOM_DESIGN: Final = "random"  # for training only: any colours (``random_palette``), never reported on
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
    # serif designs to choose between candidate models on: no model trained on them, no figure reported
    # on them (Debian's fonts-oldstandard, fonts-averia-serif-gwf, fonts-quattrocento, fonts-arapey)
    "Old Standard": ("development", ("OldStandard-Bold.ttf",)),
    "Averia Serif": ("development", ("AveriaSerifGWF-Bold.ttf",)),
    "Quattrocento": ("development", ("Quattrocento-Regular.otf",)),
    "Arapey": ("development", ("Arapey-Black.otf",)),
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
    """The font families of a part (``train``, ``calibration``, ``development``, ``heldout``)."""
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


def _hsv(hue: float, saturation: float, value: float) -> np.ndarray:
    """One BGR colour (float32, 0..255) from hue in degrees, saturation and value in 0..1."""
    pixel = np.array([[[hue / 2, saturation * 255, value * 255]]], np.float32).clip(0, [[[179, 255, 255]]])
    return cv2.cvtColor(pixel.astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


# plain squares of the designs kept out of training (``blue``, ``wood``, both splits) and of four
# more that the development scripts draw (red, white, grey, teal): a random palette keeps away from
# them (CIE Lab distance), so that they stay designs the classifier has never seen
_SCRIPTS_DESIGNS_PLAIN: Final = ((40, 30, 130), (232, 232, 230), (120, 120, 118), (120, 120, 20))
KEPT_OUT_PLAIN: Final = tuple(
    tuple(int(round(x)) for x in np.clip(np.array(_PALETTES[design][0], np.float32) * shift, 0, 255))
    for design in DESIGNS if design not in TRAIN_DESIGNS
    for shift in ((1.0, 1.0, 1.0), _HELDOUT_SHIFT[design])
) + _SCRIPTS_DESIGNS_PLAIN
KEPT_OUT_DISTANCE: Final = 30.0


def lab_colours(bgr: object) -> np.ndarray:
    """CIE Lab (L 0..100) of BGR colours (0..255, any sequence of triples): N x 3 float32."""
    return cv2.cvtColor(np.asarray(bgr, np.float32).reshape(1, -1, 3) / 255.0, cv2.COLOR_BGR2Lab)[0]


_KEPT_OUT_LAB: Final = lab_colours(KEPT_OUT_PLAIN)


def random_palette(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Colours of a board design no club need own (BGR float32, ``_PALETTES``' order): plain
    squares of any hue and lightness (a fifth of them grey, from black to white) but not near
    ``KEPT_OUT_PLAIN``, lines darker or lighter than them, premium squares in the usual reds and
    blues turned by up to 30 degrees of hue (a quarter of the boards: any four hues), the margin
    near the squares' colour or not."""
    while True:
        grey = rng.random() < 0.2
        hue = float(rng.uniform(0, 360))
        plain_value = float(rng.uniform(0.1, 0.95))
        plain = _hsv(hue, float(rng.uniform(0, 0.08) if grey else rng.uniform(0.15, 0.9)), plain_value)
        if np.linalg.norm(_KEPT_OUT_LAB - lab_colours(plain), axis=1).min() >= KEPT_OUT_DISTANCE:
            break
    line_value = plain_value * rng.uniform(0.2, 0.6) if plain_value > 0.5 or rng.random() < 0.3 else min(1.0, plain_value + rng.uniform(0.3, 0.7))
    line = _hsv(hue + float(rng.uniform(-30, 30)), float(rng.uniform(0, 0.5)), float(line_value))
    if rng.random() < 0.25:
        hues = rng.uniform(0, 360, 4)
    else:
        hues = np.array([0.0, 350.0, 215.0, 200.0]) + rng.uniform(-30, 30, 4)
    saturations, values = (0.85, 0.45, 0.85, 0.45), (0.8, 0.95, 0.6, 0.9)
    premiums = [_hsv(float(h), s * float(rng.uniform(0.7, 1.15)), v * float(rng.uniform(0.75, 1.05))) for h, s, v in zip(hues, saturations, values)]
    margin = plain * rng.uniform(0.75, 1.1, 3) if rng.random() < 0.7 else _hsv(float(rng.uniform(0, 360)), float(rng.uniform(0, 0.8)), float(rng.uniform(0.1, 0.9)))
    frame = _hsv(float(rng.uniform(0, 360)), float(rng.uniform(0, 0.8)), float(rng.uniform(0.05, 0.95)))
    ink = np.full(3, 240.0 if rng.random() < 0.7 else 30.0, np.float32)
    return (plain, line, *premiums, np.clip(margin, 0, 255), frame, ink)


def design_board_style(rng: np.random.Generator, design: str, split: str = "train") -> BoardStyle:
    """A board of ``design`` (one of ``DESIGNS``, or ``RANDOM_DESIGN``), its colours jittered, with
    or without premium labels and margin coordinates."""
    if design == RANDOM_DESIGN:
        return _board_style(rng, list(random_palette(rng)), wood=False, teeth_odds=0.3)  # no grain: wood is kept out
    if design not in _PALETTES:
        raise ValueError(f"diseño de tablero desconocido: {design!r}")
    palette = [np.array(c, np.float32) for c in _PALETTES[design]]
    if split == "heldout":
        shift = np.array(_HELDOUT_SHIFT[design], np.float32)
        palette[0] = np.clip(palette[0] * shift, 0, 255)
        palette[6] = np.clip(palette[6] * shift, 0, 255)
    return _board_style(rng, palette, wood=design == "wood", teeth_odds=0.7 if design == "green" else 0.0)


def _board_style(rng: np.random.Generator, palette: list[np.ndarray], wood: bool, teeth_odds: float) -> BoardStyle:
    """A board of these colours (``_PALETTES``' order) with its labels, margin and frame drawn."""
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
        teeth=bool(teeth_odds > 0 and rng.random() < teeth_odds),
        surround=_jitter(rng, margin, 0.1),  # type: ignore[arg-type]
        labels=labels,
        label_ink=ink,  # type: ignore[arg-type]
        coordinates=coordinates,
        wood=wood,
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
