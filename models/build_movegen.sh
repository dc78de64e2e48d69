#!/bin/sh
# Builds the C move generator in place where it is missing (``rules_core`` imports it), with the flags
# of pyproject.toml's ext-modules, for a training machine that runs from the checkout without
# installing it (the device scripts ``models/*/train_on_gpu.sh``; run from the repository root).
#
#   sh models/build_movegen.sh [PYTHON]
set -eu
python=${1:-python3}
$python -c "import rules_core" 2>/dev/null && exit 0
$python -c "import subprocess, sysconfig as s; subprocess.run(['cc', '-O2', '-std=c99', '-shared', '-fPIC', \
    '-I' + s.get_paths()['include'], 'rules_core/_movegen.c', '-o', \
    'rules_core/_movegen' + s.get_config_var('EXT_SUFFIX')], check=True)"
