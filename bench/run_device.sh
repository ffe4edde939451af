#!/usr/bin/env bash
# Everything the GPU machine should run, in one call: GPU tests, then the benchmarks.
# The short table comes last. Usage (device tool): bash bench/run_device.sh
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONPATH="$PWD:${PYTHONPATH:-}"  # no install needed: the repo is importable as is
python3 -m pytest -q -m gpu tests -x -p no:cacheprovider 2>&1 | tee "$OUT/gpu_tests.log" | tail -25
python3 bench/bench_launch.py 2>&1 | tee "$OUT/bench_launch.log" | tail -15
python3 bench/bench_gpu.py --json "$OUT/bench_gpu.json" 2>&1 | tee "$OUT/bench_gpu.log"
