"""The tile font families of Debian's fonts-* packages, checked and split whole (issue 69).

``python -m models.board.fonts [--sheet PNG]`` reads the installed font files of ``PACKAGES``
(``make train-packages`` installs them), keeps the upright outline faces (no variable fonts, no
Type 1 duplicates) whose glyphs for the Spanish capitals (A-Z and Ñ) and the tile values' digits are
drawn and are not the font's missing-glyph box (``glyphs_ok``: the render, not the name, decides),
groups them into families and DESIGNS, and writes ``fonts.json`` beside this module.

Conventions:
- a FAMILY is fontconfig's shortest family name of a file; its faces are its upright files, the
  bold ones (weight >= semibold) kept, else its heaviest, marked ``embolden`` (the renderer makes its
  ink bolder, ``render_random.reshaped_letters``); a family with no narrow face is marked
  ``condense`` (drawn narrower in some scenes);
- a DESIGN is a set of families split together: families sharing their name's first word (Liberation
  Sans and Liberation Mono; ``name_root``), and families whose capitals render alike (``font_styles.same_design``:
  Arimo and Liberation Sans, TeX Gyre Heros and Nimbus Sans), so no design is in two parts;
- each design has a style cluster (``font_styles.cluster``) and a part: ``render_designs.FONT_FAMILIES``
  fixes the part of the families it lists (the strictest part of a design's families wins:
  heldout > development > calibration > train); the others are split per cluster by a seeded hash of
  the design's name (``SPLIT_SEED``): of every ten designs of a cluster in hash order, seven train,
  one calibration, two kept out (``heldout``; ``SPLIT_PATTERN``).
- ``EXCLUDED`` families pass the glyph check but are not tile lettering (outlines, stencils, pixel
  or decorative faces): the reason is given.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Final

import numpy as np
from numpy.typing import NDArray

from vision.board.synthetic.render_designs import FONT_FAMILIES

from .font_sheet import contact_sheet
from .font_styles import capitals, cluster, same_design, style_features

HERE: Final = Path(__file__).resolve().parent
CATALOGUE: Final = HERE / "fonts.json"
SPLIT_SEED: Final = "veedor-board-fonts-69"
PART_ORDER: Final = ("heldout", "development", "calibration", "train")  # strictest first
# Debian packages whose families are drawn (the Makefile's TILE_FONT_PACKAGES, DEVELOPMENT_FONT_PACKAGES
# and the tile fonts among SYSTEM_PACKAGES); the slips' handwriting fonts are not tile fonts
PACKAGES: Final = (
    # SYSTEM_PACKAGES' tile fonts (tests and benchmarks draw them)
    "fonts-dejavu-core", "fonts-urw-base35", "fonts-freefont-ttf", "fonts-liberation", "fonts-open-sans",
    "fonts-roboto-unhinted", "fonts-lato", "fonts-cantarell", "fonts-croscore", "fonts-crosextra-carlito",
    "fonts-crosextra-caladea", "fonts-inter", "fonts-league-spartan",
    # TILE_FONT_PACKAGES (issue 20)
    "fonts-noto-core", "fonts-noto-extra", "fonts-paratype", "fonts-linuxlibertine", "fonts-sil-charis",
    "fonts-sil-gentium-basic", "fonts-roboto-slab", "fonts-cabin", "fonts-oxygen", "fonts-vollkorn", "fonts-adf-accanthis",
    "fonts-adf-gillius", "fonts-adf-universalis", "fonts-clear-sans", "fonts-yanone-kaffeesatz", "fonts-dosis", "fonts-play",
    "fonts-quicksand", "fonts-cardo", "fonts-stix", "fonts-cmu", "fonts-adf-berenis", "fonts-adf-romande", "fonts-adf-tribun",
    "fonts-adf-verana", "fonts-adf-ikarius", "fonts-adf-baskervald", "fonts-adf-irianis", "fonts-adf-libris", "fonts-adf-switzera",
    "fonts-adf-oldania", "fonts-century-catalogue", "fonts-fanwood", "fonts-tuffy", "fonts-b612", "fonts-sil-andika", "fonts-jura",
    "fonts-junicode", "fonts-gfs-didot", "fonts-bebas-neue", "fonts-linex",
    # DEVELOPMENT_FONT_PACKAGES
    "fonts-oldstandard", "fonts-averia-serif-gwf", "fonts-quattrocento", "fonts-arapey",
    # MORE_TILE_FONT_PACKAGES (issue 69): Latin families of bold sans, serif, slab, rounded and geometric styles
    "fonts-adf-mekanus", "fonts-allerta", "fonts-apropal", "fonts-arkpandora", "fonts-averia-sans-gwf", "fonts-babelstone-modern",
    "fonts-bajaderka", "fonts-beteckna", "fonts-comfortaa", "fonts-compagnon", "fonts-courier-prime", "fonts-dustin",
    "fonts-ebgaramond", "fonts-engadget", "fonts-eurofurence", "fonts-ferrite-core", "fonts-go", "fonts-goudybookletter",
    "fonts-junction", "fonts-karla", "fonts-karmilla", "fonts-lindenhill", "fonts-lmodern", "fonts-manrope", "fonts-millimetre",
    "fonts-national-park", "fonts-ocr-b", "fonts-okolaks", "fonts-opendin", "fonts-opendyslexic", "fonts-osifont",
    "fonts-prociono", "fonts-radisnoir", "fonts-roadgeek", "fonts-routed-gothic", "fonts-sil-doulos", "fonts-sil-gentium",
    "fonts-sora", "fonts-stick", "fonts-tiresias", "fonts-georgewilliams", "fonts-levien-museum", "fonts-johnsmith-induni",
    "fonts-essays1743", "fonts-elstob", "fonts-texgyre", "fonts-jetbrains-mono", "fonts-gfs-neohellenic",
    "fonts-gfs-bodoni-classic", "fonts-staypuft", "fonts-summersby", "fonts-lyx", "fonts-le-murmure", "fonts-solide-mirage",
    "fonts-hack", "fonts-inconsolata", "fonts-wine", "fonts-cherrybomb",
)
# families that pass the glyph check but are no tile lettering (seen on the contact sheet, ``--sheet``)
EXCLUDED: Final[dict[str, str]] = {
    "Alfa-beta": "Greek letters at the Latin capitals' code points",
    "Abecedario": "school handwriting with guide lines or dots (every Abecedario family)",
    "El Abogado Loco": "handwriting",
    "Domestic Manners": "handwriting",
    "Penguin Attack": "decorative",
    "Compagnon": "script and typewriter display faces",
    "unifur": "lowercase shapes at the capitals",
    "Latin Modern Math": "a math font: no text faces",
}
SEMIBOLD: Final = 180  # fontconfig's weight scale: 80 regular, 100 medium, 180 demibold, 200 bold, 210 black
NARROW: Final = 100  # fontconfig's width: 100 normal, below it condensed
MAX_FACES: Final = 4
# of every ten new designs of a cluster in hash order: seven train, one calibration, two kept out (the
# second and the seventh, so that a cluster of two already has one kept out)
SPLIT_PATTERN: Final = ("train", "heldout", "train", "calibration", "train", "train", "heldout", "train", "train", "train")


@dataclass
class Family:
    """One family's drawn faces (paths of Debian's files), its package, marks and features."""

    name: str
    package: str
    faces: list[str]
    embolden: bool = False
    condense: bool = False
    design: str = ""
    cluster: str = ""
    part: str = ""
    features: dict[str, float] = field(default_factory=dict)


def load(path: Path = CATALOGUE) -> list[Family]:
    """The families of the committed catalogue (``fonts.json``)."""
    return [Family(**f) for f in json.loads(path.read_text(encoding="utf-8"))]


def designs_of(families: list[Family], part: str) -> dict[str, list[Family]]:
    """The families of a part by design (a scene draws a design, then a family of it, then a face)."""
    out: dict[str, list[Family]] = defaultdict(list)
    for f in families:
        if f.part == part:
            out[f.design].append(f)
    return dict(sorted(out.items()))


def uninstalled(families: list[Family]) -> list[str]:
    """The families none of whose faces is installed (``make train-packages`` installs them)."""
    return [f.name for f in families if not any(Path(face).is_file() for face in f.faces)]


def package_files(packages: tuple[str, ...]) -> dict[str, str]:
    """Installed font files (path: package) of those packages; absent packages are skipped."""
    out: dict[str, str] = {}
    for package in packages:
        listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=False)
        for line in listed.stdout.splitlines():
            if line.endswith((".ttf", ".otf", ".TTF", ".OTF")) and Path(line).is_file():
                out.setdefault(str(Path(line).resolve()), package)
    return out


def fontconfig_faces() -> dict[str, dict[str, str]]:
    """fontconfig's record of every installed file: family, weight, width, slant, variable."""
    fmt = "%{file}\t%{family}\t%{weight}\t%{width}\t%{slant}\t%{variable}\t%{index}\n"
    out: dict[str, dict[str, str]] = {}
    for line in subprocess.run(["fc-list", "--format", fmt], capture_output=True, text=True, check=True).stdout.splitlines():
        path, family, weight, width, slant, variable, index = (line.split("\t") + [""] * 7)[:7]
        if index not in ("", "0"):  # named instances of a variable font, faces of a collection
            continue
        out.setdefault(str(Path(path).resolve()), {"family": family, "weight": weight, "width": width, "slant": slant, "variable": variable})
    return out


def _number(text: str, default: float) -> float:
    try:
        return float(text.strip("[]").split()[0])
    except (ValueError, IndexError):
        return default


def family_name(fc_family: str) -> str:
    """The shortest of fontconfig's names of a file's family (``Open Sans`` of ``Open Sans,Open Sans Semibold``)."""
    return min((n.strip() for n in fc_family.split(",") if n.strip()), key=len, default="")


def gather(files: dict[str, str], records: dict[str, dict[str, str]]) -> dict[str, list[tuple[str, float, float]]]:
    """Upright static faces by family: (path, weight, width)."""
    by_family: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
    for path, package in files.items():
        record = records.get(path)
        if record is None or record["variable"] == "True" or _number(record["slant"], 0) != 0:
            continue
        name = family_name(record["family"])
        if name:
            by_family[f"{name}\t{package}"].append((path, _number(record["weight"], 80), _number(record["width"], 100)))
    return by_family


def pick_faces(faces: list[tuple[str, float, float]]) -> tuple[list[str], bool, bool]:
    """The faces drawn (bold ones, at most ``MAX_FACES``, a narrow one among them when there is one),
    and the marks: ``embolden`` (none is semibold or bolder), ``condense`` (none is narrow)."""
    bold = [f for f in faces if f[1] >= SEMIBOLD]
    embolden = not bold
    chosen = bold or [max(faces, key=lambda f: (f[1] <= 100, f[1]))]  # heaviest regular or medium face
    chosen.sort(key=lambda f: (f[2] < NARROW, abs(f[1] - 200), f[0]))  # normal width first, nearest bold
    narrow = [f for f in chosen if f[2] < NARROW]
    picked = [f for f in chosen if f[2] >= NARROW][: MAX_FACES - (1 if narrow else 0)] + narrow[:1]
    return [p for p, _, _ in picked], embolden, not any(f[2] < NARROW for f in faces)


def fixed_parts() -> dict[str, str]:
    """The part of each font file that ``render_designs.FONT_FAMILIES`` lists (issue 20's splits)."""
    return {name: part for part, files in FONT_FAMILIES.values() for name in files}


def split_of(design: str, rank: int) -> str:
    """The part of a new design that is the ``rank``-th of its cluster in hash order."""
    return SPLIT_PATTERN[rank % len(SPLIT_PATTERN)]


def design_hash(design: str) -> str:
    return hashlib.sha256(f"{SPLIT_SEED}:{design}".encode()).hexdigest()


def build(packages: tuple[str, ...] = PACKAGES) -> list[Family]:
    """The checked families of those packages, each with its design, cluster and part."""
    files = package_files(packages)
    families: list[Family] = []
    renders: dict[str, NDArray[np.float32]] = {}
    for key, faces in sorted(gather(files, fontconfig_faces()).items()):
        name, package = key.split("\t")
        ok = [f for f in faces if capitals(f[0]) is not None]
        if not ok or name in EXCLUDED or name.split("_")[0] in EXCLUDED or name.split()[0] in EXCLUDED:
            continue
        picked, embolden, condense = pick_faces(ok)
        family = Family(name, package, picked, embolden, condense)
        glyphs = capitals(picked[0])
        assert glyphs is not None
        renders[family.name] = glyphs
        family.features = style_features(picked[0])
        family.cluster = cluster(family.features)
        families.append(family)
    _designs(families, renders)
    _parts(families)
    return families


def name_root(name: str) -> str:
    """The first word of a family's name less a trailing Mono/Sans/Serif (``OpenDyslexicMono`` ->
    ``OpenDyslexic``, ``Oxygen-Sans`` -> ``Oxygen``): families sharing it are one design."""
    first = re.split(r"[\s_-]", name)[0]
    return re.sub(r"(?i)(?<=.)(mono|sans|serif)$", "", first) or first


def _designs(families: list[Family], renders: dict[str, NDArray[np.float32]]) -> None:
    """Each family's design: the first word of the name, joined with the families drawn alike."""
    parent = {f.name: name_root(f.name) for f in families}

    def root(name: str) -> str:
        while parent.get(name, name) != name:
            name = parent[name]
        return name

    for f in families:
        parent.setdefault(name_root(f.name), name_root(f.name))
    names = [f.name for f in families]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if root(a) != root(b) and same_design(renders[a], renders[b]):
                ra, rb = sorted((root(a), root(b)))
                parent[rb] = ra
    for f in families:
        f.design = root(f.name)


def _parts(families: list[Family]) -> None:
    """Fixed parts first (the strictest of a design's families), then new designs by hash per cluster."""
    fixed = fixed_parts()
    design_part: dict[str, str] = {}
    for f in families:
        part = next((fixed[Path(face).name] for face in f.faces if Path(face).name in fixed), "")
        if part and (f.design not in design_part or PART_ORDER.index(part) < PART_ORDER.index(design_part[f.design])):
            design_part[f.design] = part
    clusters: dict[str, set[str]] = defaultdict(set)
    first_cluster: dict[str, str] = {}
    for f in families:
        first_cluster.setdefault(f.design, f.cluster)
    for design, c in first_cluster.items():
        if design not in design_part:
            clusters[c].add(design)
    for members in clusters.values():
        for rank, design in enumerate(sorted(members, key=design_hash)):
            design_part[design] = split_of(design, rank)
    for f in families:
        f.part = design_part[f.design]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(CATALOGUE))
    parser.add_argument("--sheet", default="", help="a contact sheet (PNG) of every family's capitals, by part and cluster")
    args = parser.parse_args()
    families = build()
    Path(args.out).write_text(json.dumps([asdict(f) for f in families], ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for f in families:
        counts[f.part, f.cluster] += 1
    designs = {part: len({f.design for f in families if f.part == part}) for part in PART_ORDER}
    print(f"{len(families)} families, {len({f.design for f in families})} designs: {designs}")
    for (part, c), n in sorted(counts.items()):
        print(f"  {part:12} {c:10} {n}")
    if args.sheet:
        contact_sheet(families, Path(args.sheet))


if __name__ == "__main__":
    main()
