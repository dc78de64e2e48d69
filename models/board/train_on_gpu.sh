#!/bin/sh
# The crops rendered on 16 cores, then three cell classifiers trained at once on one GPU (issue 20,
# seventeenth revision): the font model (width 1.5) twice, seeds 2051 and 2053, and the main model
# (width 1), seed 2052, each from scratch.
#
#   sh models/board/train_on_gpu.sh OUT REAL.npz
#
# REAL.npz: the training games' photos, every tile and 23 % of the empty squares
# (``python -m models.board.make_data REAL.npz --scenes 0 --seed 44 --photo-empty 0.23``).
# Writes OUT/fonts_a/, OUT/fonts_b/, OUT/main/ (each an .onnx and labels.json) and the logs.
# The renders need the training font families installed (``make train-packages``); on a machine
# without apt, FONTS_TAR names a tarball of their files, unpacked into Debian's font folder:
#   tar -cJf fonts.tar.xz -P --transform 's|.*/||' -T LIST   # LIST: render_random.font_path of each train font
# The C move generator is built in place if it is missing (``models/build_movegen.sh``).
set -eu
out=$1 real=$2 crops=${CROPS:-/tmp/veedor_crops}
mkdir -p "$crops" "$out/fonts_a" "$out/fonts_b" "$out/main"
export OMP_NUM_THREADS=1 PYTHONPATH=.
scenes=${SCENES:-450} epochs=${EPOCHS:-12} epoch_size=${EPOCH_SIZE:-700000} device=${DEVICE:-cuda}  # smaller to try it out
python=${PYTHON:-python3}
if [ -n "${FONTS_TAR:-}" ]; then
    mkdir -p /usr/share/fonts/truetype/veedor && tar -xJf "$FONTS_TAR" -C /usr/share/fonts/truetype/veedor
fi
sh models/build_movegen.sh "$python"
render() {  # seed, then make_data's options
    seed=$1; shift
    $python -m models.board.make_data "$crops/d$seed.npz" --scenes "$scenes" --seed "$seed" --no-photos "$@" >"$crops/d$seed.log" 2>&1 &
}
for seed in 801 802 803 804 805 806; do render $seed --designs green,beige,black; done
for seed in 807 808; do render $seed; done                                          # the green board alone
for seed in 809 810 811; do render $seed --designs green,beige,black,random --keep-empty 0.5; done
for seed in 812 813; do render $seed --designs green,beige,black --blanks 0.1 --keep-empty 0.3; done
for seed in 814 815; do render $seed --designs green,beige,black --foreign 0.1; done
render 816 --designs random --keep-empty 0.3
wait
tail -n 1 "$crops"/d*.log
if [ "$(ls "$crops"/d*.npz | wc -l)" -ne 16 ]; then echo "a render job failed: see its log above" >&2; exit 1; fi
train() {  # name, then train's options
    name=$1; shift
    $python -m models.board.train "$real" "$crops"/d*.npz --device "$device" --batch 1024 --lr 4e-3 --epochs "$epochs" \
        --epoch-size "$epoch_size" --real-weight 16 --out "$out/$name/model.onnx" "$@" >"$out/$name.log" 2>&1 &
}
train fonts_a --width 1.5 --seed 2051
train fonts_b --width 1.5 --seed 2053
train main --width 1 --seed 2052
wait
tail -n 3 "$out"/*.log
