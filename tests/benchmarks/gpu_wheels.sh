#!/usr/bin/env bash
# Fetch, on this machine, the wheels that tests/benchmarks/gpu_check.sh needs on the GPU machine
# and its image lacks (that machine reaches no registry; its Python is 3.12). They land in .whl/,
# which .git/info/exclude keeps out of git; the device tool's run then names .whl in carry.
# The image has NumPy, CuPy, PyTorch, numba, h5py, scikit-learn, matplotlib, Pillow, networkx,
# tqdm, protobuf, onnx, onnxruntime and pytest (device/KINDS.md); these are the rest of
# pyproject's dependencies that the engine's training, evaluation and search import.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >>.git/info/exclude
mkdir -p .whl
platforms=()
for n in 28 27 17; do platforms+=(--platform "manylinux_2_${n}_x86_64"); done
platforms+=(--platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp "${platforms[@]}" -d .whl \
  python-pptx XlsxWriter optuna alembic SQLAlchemy Mako colorlog greenlet
ls -l .whl
