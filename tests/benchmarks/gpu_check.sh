#!/usr/bin/env bash
# The GPU check, for the day a session is lent a GPU machine (issue 33). Run from the repository
# root on that machine, as one command well inside the device tool's 10-minute limit:
#
#   bash tests/benchmarks/gpu_check.sh            # under 8 minutes, every step bounded
#
# The step limits add up to 455 s (+2 s kill grace per step, 475 s at worst): keep them under
# 480 s when adding a step (they once added up to 665 s, past the device tool's 600 s limit).
#
# It runs, each step under its own time limit and continuing past failures:
#   1. the machine: nvidia-smi, Python, CuPy, PyTorch; `neurocanvas doctor --device gpu`
#   2. the engine's op harness on the GPU (engine.testing.check_function runs every kernel's
#      forward, backward and float32 check on CuPy when CuPy sees a GPU)
#   3. the default project (2 epochs) and two samples (1 epoch) trained with --device gpu, then
#      evaluated
#   4. the training-step benchmark against PyTorch CUDA and the inference benchmark
# and writes everything to one file, $OUT/gpu_check.txt (OUT is the device tool's folder that
# comes back; elsewhere /tmp/gpu_check).
#
# That machine reaches no package registry. What the engine needs and its image lacks travels as
# wheels in .whl/ (ignored by git): fetch them here first with tests/benchmarks/gpu_wheels.sh and
# name .whl (and nothing else) in the run's carry list. CuPy, PyTorch, NumPy, numba, onnx and
# onnxruntime come with the image.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
RESULT=$OUT/gpu_check.txt
: >"$RESULT"
# DEVICE=cpu runs the same steps here as a smoke test of the script itself.
DEVICE=${DEVICE:-gpu}
export PYTHONUNBUFFERED=1 NEUROCANVAS_DEVICE=$DEVICE
PY=${PYTHON:-python3}
SITE=/tmp/gpu_check_site
if compgen -G ".whl/*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$SITE" .whl/*.whl >>"$RESULT" 2>&1
  export PYTHONPATH=$PWD:$SITE
else
  export PYTHONPATH=$PWD
fi
JOBS=$(mktemp -d)

# step SECONDS TITLE COMMAND...: run COMMAND with a time limit, its output and status in RESULT.
step() {
  local limit=$1 title=$2 start status
  shift 2
  start=$(date +%s%N)
  echo "=== $title" | tee -a "$RESULT"
  timeout --kill-after=2 "$limit" "$@" >>"$RESULT" 2>&1
  status=$?
  printf '=== %s: exit %s after %s ms%s\n' "$title" "$status" \
    "$((($(date +%s%N) - start) / 1000000))" "$([ "$status" = 124 ] && echo ' (time limit)')" \
    | tee -a "$RESULT"
}

step 20 "machine" bash -c 'nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv;
  lscpu | grep "Model name"; '"$PY"' -c "import sys, numpy, cupy; print(sys.version);
print(\"numpy\", numpy.__version__, \"cupy\", cupy.__version__,
      \"cuda runtime\", cupy.cuda.runtime.runtimeGetVersion())
try:
    import torch; print(\"torch\", torch.__version__, torch.cuda.get_device_name(0))
except Exception as e: print(\"torch:\", e)"'
step 30 "doctor" "$PY" -m engine.cli doctor --device "$DEVICE"
step "${HARNESS_SECONDS:-110}" "op harness on the GPU" "$PY" -m pytest -q -p no:cacheprovider --maxfail=25 \
  tests/engine/core/ops tests/engine/nn -k "not mpi"
for spec in lenet_digits:2 residual_digits:1 mobilenet_digits:1; do
  name=${spec%%:*}
  epochs=${spec##*:}
  step 40 "train $name ($epochs epochs, $DEVICE)" "$PY" -m engine.cli train "projects/$name.ncproj" \
    -o "$JOBS/$name" --epochs "$epochs" --device "$DEVICE" --seed 0
  step 20 "evaluate $name ($DEVICE)" "$PY" -m engine.cli evaluate "$JOBS/$name"
done
step 75 "training step against PyTorch CUDA" "$PY" tests/benchmarks/bench_train_step.py \
  --device "$DEVICE" --steps 10 --rounds 3
step 40 "inference against onnxruntime" "$PY" tests/benchmarks/bench_inference.py \
  --device "$DEVICE" --rounds 3 --iters 20
echo "results in $RESULT"
