#!/usr/bin/env bash
# Everything the GPU machine should run, in one call: GPU tests, then the benchmarks.
# The short table comes last. Usage (device tool): bash bench/run_device.sh
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONPATH="$PWD:${PYTHONPATH:-}"  # no install needed: the repo is importable as is
# Test-only packages the GPU image may lack travel as wheels: make .whl with pip download
# (python 3.12, manylinux) for hypothesis sortedcontainers attrs filecheck, and carry it.
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl \
    && export PYTHONPATH="$PYTHONPATH:/tmp/site"
fi
# pip leaves bytecode beside an installed package (upstream's triton has it); this copy of
# the tree has none and the image sets PYTHONDONTWRITEBYTECODE, so without this every
# tritium process (and each compile worker) would compile its modules from source.
python3 -m compileall -q -j 8 tritium >/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
# pytest-xdist (carried in .whl) runs the ~1830 GPU tests in about 5 minutes instead of 12;
# loadfile keeps each file's compiled kernels in one worker.
XDIST=""
python3 -c "import xdist" 2>/dev/null && XDIST="-n ${GPU_TEST_WORKERS:-12} --dist loadfile"
timeout ${GPU_TEST_TIMEOUT:-480} python3 -m pytest -q -m gpu $XDIST tests \
  -p no:cacheprovider \
  2>&1 | tee "$OUT/gpu_tests.log" | tail -30
python3 bench/bench_launch.py 2>&1 | tee "$OUT/bench_launch.log" | tail -15
for t in memcheck racecheck synccheck; do
  for s in sanitize_dot sanitize_reduce sanitize_nodot sanitize_gluon; do
    compute-sanitizer --tool $t --report-api-errors no python3 bench/$s.py 2>&1 \
      | tail -2 | tee -a "$OUT/sanitizer.log"
  done
done
python3 bench/bench_matmul.py --json "$OUT/bench_matmul.json" 2>&1 | tee "$OUT/bench_matmul.log" | tail -7
python3 bench/bench_inductor_mm.py --json "$OUT/bench_inductor_mm.json" 2>&1 \
  | tee "$OUT/bench_inductor_mm.log" | tail -8
python3 bench/bench_gpu.py --json "$OUT/bench_gpu.json" 2>&1 | tee "$OUT/bench_gpu.log"
