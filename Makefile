# Veedor. `make demo` and `make test` set themselves up on a fresh Debian machine
# (as root): missing system packages by apt-get, a virtual environment in .venv/,
# the package installed in it (the C move generator is compiled then).

VENV := .venv
PYTHON := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
# the tile fonts the board classifier trained on since issue 20's seventh revision
# (vision/board/synthetic/render_designs.py FONT_FAMILIES): training only (`make train-packages`);
# the renders of the tests and benchmarks draw the families of SYSTEM_PACKAGES
TILE_FONT_PACKAGES := fonts-noto-core fonts-noto-extra fonts-paratype fonts-linuxlibertine fonts-sil-charis \
	fonts-sil-gentium-basic fonts-roboto-slab fonts-cabin fonts-oxygen fonts-vollkorn fonts-adf-accanthis \
	fonts-adf-gillius fonts-adf-universalis fonts-clear-sans fonts-yanone-kaffeesatz fonts-dosis fonts-play \
	fonts-quicksand fonts-cardo fonts-stix fonts-cmu fonts-adf-berenis fonts-adf-romande fonts-adf-tribun \
	fonts-adf-verana fonts-adf-ikarius fonts-adf-baskervald fonts-adf-irianis fonts-adf-libris fonts-adf-switzera \
	fonts-adf-oldania fonts-century-catalogue fonts-fanwood fonts-tuffy fonts-b612 fonts-sil-andika fonts-jura \
	fonts-junicode fonts-gfs-didot fonts-bebas-neue fonts-linex
# the serif families candidate models are chosen on (FONT_FAMILIES' development part), never trained on
DEVELOPMENT_FONT_PACKAGES := fonts-oldstandard fonts-averia-serif-gwf fonts-quattrocento fonts-arapey
# more Latin families for the font catalogue (issue 69: models/board/fonts.py checks their glyphs and
# splits them whole into train, calibration and kept-out; the same list as fonts.PACKAGES)
MORE_TILE_FONT_PACKAGES := fonts-adf-mekanus fonts-allerta fonts-apropal fonts-arkpandora fonts-averia-sans-gwf \
	fonts-babelstone-modern fonts-bajaderka fonts-beteckna fonts-comfortaa fonts-compagnon fonts-courier-prime fonts-dustin \
	fonts-ebgaramond fonts-engadget fonts-eurofurence fonts-ferrite-core fonts-go fonts-goudybookletter fonts-junction \
	fonts-karla fonts-karmilla fonts-lindenhill fonts-lmodern fonts-manrope fonts-millimetre fonts-national-park fonts-ocr-b \
	fonts-okolaks fonts-opendin fonts-opendyslexic fonts-osifont fonts-prociono fonts-radisnoir fonts-roadgeek \
	fonts-routed-gothic fonts-sil-doulos fonts-sil-gentium fonts-sora fonts-stick fonts-tiresias fonts-georgewilliams \
	fonts-levien-museum fonts-johnsmith-induni fonts-essays1743 fonts-elstob fonts-texgyre fonts-jetbrains-mono \
	fonts-gfs-neohellenic fonts-gfs-bodoni-classic fonts-staypuft fonts-summersby fonts-lyx fonts-le-murmure \
	fonts-solide-mirage fonts-hack fonts-inconsolata fonts-wine fonts-cherrybomb
SYSTEM_PACKAGES := python3 python3-venv python3-dev gcc \
	fonts-dejavu-core fonts-urw-base35 fonts-freefont-ttf fonts-liberation \
	fonts-comic-neue fonts-dkg-handwriting fonts-breip fonts-sjfonts fonts-kristi fonts-tlwg-purisa-otf \
	fonts-humor-sans fonts-tomsontalks fonts-rufscript fonts-averia-gwf \
	fonts-open-sans fonts-roboto-unhinted fonts-lato fonts-cantarell fonts-croscore fonts-crosextra-carlito \
	fonts-crosextra-caladea fonts-inter fonts-league-spartan
BENCH_PACKAGES := tesseract-ocr tesseract-ocr-spa libreoffice-calc-nogui
TEST_PACKAGES := postgresql chromium
export OMP_THREAD_LIMIT := 1

.PHONY: demo test bench typecheck system-packages test-packages bench-packages train-packages default-lexicon translations clean

demo: $(INSTALLED)
	$(VENV)/bin/veedor serve --demo --data veedor-demo

test: $(INSTALLED) test-packages
	$(VENV)/bin/mypy
	$(PYTHON) -m pytest -q -n 2 --dist loadfile  # two workers, a test file each: the machine's two cores

bench: $(INSTALLED) bench-packages
	$(PYTHON) tests/benchmarks/bench_rules.py
	$(PYTHON) tests/benchmarks/bench_web.py
	$(PYTHON) tests/benchmarks/bench_attack.py
	$(PYTHON) tests/benchmarks/bench_durability.py
	$(PYTHON) tests/benchmarks/bench_summary.py
	$(PYTHON) tests/benchmarks/bench_clock.py
	$(PYTHON) tests/benchmarks/bench_consoles.py
	$(PYTHON) tests/benchmarks/bench_exports.py
	$(PYTHON) tests/benchmarks/bench_board.py
	$(PYTHON) tests/benchmarks/bench_board_words.py
	@# RapidOCR, only to compare with: --no-deps keeps its GUI OpenCV out of the venv
	$(PYTHON) -m pip install -q --no-deps rapidocr-onnxruntime==1.4.4
	$(PYTHON) -m pip install -q pyclipper shapely pyyaml six tqdm
	$(PYTHON) tests/benchmarks/bench_slips.py
	$(PYTHON) tests/benchmarks/bench_slip_players.py
	$(PYTHON) tests/benchmarks/bench_tournament_slips.py
	$(PYTHON) tests/benchmarks/bench_venue.py
	$(PYTHON) tests/benchmarks/bench_ingest.py

typecheck: $(INSTALLED)
	$(VENV)/bin/mypy

$(INSTALLED): pyproject.toml rules_core/_movegen.c | system-packages
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e '.[test]'
	touch $@

system-packages: PACKAGES = $(SYSTEM_PACKAGES)
test-packages: PACKAGES = $(TEST_PACKAGES)
bench-packages: PACKAGES = $(BENCH_PACKAGES)
train-packages: PACKAGES = $(TILE_FONT_PACKAGES) $(DEVELOPMENT_FONT_PACKAGES) $(MORE_TILE_FONT_PACKAGES)
system-packages test-packages bench-packages train-packages:
	@missing=""; \
	for package in $(PACKAGES); do \
		dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing system packages:$$missing"; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi

# Rebuilds rules_core/data/veedor-es-libre.txt.gz from Debian's aspell-es.
default-lexicon: $(INSTALLED)
	@command -v aspell >/dev/null && dpkg -s aspell-es >/dev/null 2>&1 || \
		(apt-get update -q && apt-get install -y -q aspell aspell-es)
	$(PYTHON) rules_core/data/build_default_lexicon.py

# Re-extracts the interface texts and compiles the Spanish and English catalogues.
translations: $(INSTALLED)
	$(VENV)/bin/pybabel extract -F webapp/translations/babel.cfg -k lazy_gettext --no-location \
		--sort-output --project Veedor --copyright-holder Veedor -o webapp/translations/messages.pot .
	$(VENV)/bin/pybabel update -i webapp/translations/messages.pot -d webapp/translations --no-fuzzy-matching
	$(VENV)/bin/pybabel compile -d webapp/translations

clean:
	rm -rf $(VENV) build *.egg-info rules_core/*.so
