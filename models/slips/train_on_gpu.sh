#!/bin/sh
# The line recogniser trained on one GPU with most lines written by UNIPEN writers (issue 21,
# thirteenth revision): three networks on one stream of lines drawn by 15 processes, two continuing
# the committed weights at two rates and one wide network from scratch.
#
#   sh models/slips/train_on_gpu.sh OUT COMMITTED.pt HW.tar.xz FONTS.tar.xz
#
# COMMITTED.pt: the committed recogniser as PyTorch weights (``python -m models.slips.from_onnx``).
# HW.tar.xz: ``unipen`` and ``caps_digits`` of ../shared/data/handwriting
#   (``tar -cJf HW.tar.xz -C ../shared/data/handwriting unipen caps_digits``).
# FONTS.tar.xz: the training and calibration handwriting fonts, named as under /usr/share/fonts
#   (``opentype/comic-neue/ComicNeue-Regular.otf``, ...), for a machine without apt.
# WHEELS: a folder of wheels to install first (``pip download --no-deps segno``), where pip has no index.
# Writes OUT/<name>.pt for each network and OUT/log.jsonl; then, here, ``python -m
# models.slips.export --weights OUT/<name>.pt`` and ``python -m models.slips.calibrate``.
set -eu
out=$1 committed=$2 hw=$3 fonts=$4
workers=${WORKERS:-15} python=${PYTHON:-python3}
# the committed run: --minutes 6.4 set 2,883 steps from the warm-up's pace (0.133 s a step), but the
# run went at 0.168 s a step and the machine's limit stopped it after the checkpoint of step 2,500:
# STEPS=2883 STOP_AT=2500 gives the same schedule and stop; MINUTES sizes a new run instead.
if [ -n "${STEPS:-}" ]; then
    length="--steps $STEPS --warm-up 600 --stop-at ${STOP_AT:-$STEPS}"
else
    length="--minutes ${MINUTES:-5.5}"
fi
mkdir -p "$out" /tmp/veedor-hw /usr/share/fonts
tar -xJf "$fonts" -C /usr/share/fonts
tar -xJf "$hw" -C /tmp/veedor-hw
export VEEDOR_UNIPEN=/tmp/veedor-hw/unipen VEEDOR_CAPS_DIGITS=/tmp/veedor-hw/caps_digits PYTHONPATH=. OMP_NUM_THREADS=1
if [ -n "${WHEELS:-}" ]; then  # pure-Python packages the machine lacks (segno), as wheels
    $python -m pip install -q --no-index --no-deps --no-compile --target /tmp/veedor-site "$WHEELS"/*.whl
    export PYTHONPATH=.:/tmp/veedor-site
fi
sh models/build_movegen.sh "$python"
$python -c "from vision.slips.synthetic import handwriting as hw, unipen; n = len(hw.writers('train')); \
    print('training hands', n, 'UNIPEN train writers', len(list(unipen.writers('train')))); \
    assert n == len(hw.TRAIN_FONTS) + 2 * len(hw.TRAIN_HERSHEY), 'training fonts missing'"
$python -m models.slips.train --device cuda --workers "$workers" --threads 2 --batch 128 --seed 61 \
    $length --slip-share 0.5 --confusable 0.25 --circled 0.4 --mixed-writers 0.15 --warped 0.25 \
    --unipen-share 0.55 --out "$out" \
    --model "fu5:base:5e-4:$committed" --model "fu15:base:1.5e-3:$committed" --model "wu:wide:2e-3"
