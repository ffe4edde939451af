"""First calls (and steady state) of bench_clients.py's models on the GPU, one tritium tree
against another — this one after a change, `--base` before it — in fresh processes,
alternating, so that a change to what a first call does is measured against tritium
itself rather than against upstream's noise.

    git archive REV tritium bench | (mkdir -p .upstream/ab && tar -x -C .upstream/ab)
    python bench/first_calls_ab.py --base .upstream/ab [--rounds 3] [--models pointwise,conv_bn]

On the device, carry the base tree: `carry: [".upstream/ab", ".whl"]`. The models run in
bench_clients.py's order in one process per tree and round, as there (a model's first call
depends on what ran before it: Inductor's compile pool becomes ready part way through).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench_clients import MODELS  # noqa: E402


def run_tree(tree: str, models, iters: int) -> dict:
    """One fresh process of `tree`'s bench_clients.py worker: {model: row}."""
    with tempfile.TemporaryDirectory(prefix="first-ab-") as tmp:
        path = [tree] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                   TRITON_CACHE_DIR=os.path.join(tmp, "triton"), PYTHONPATH=os.pathsep.join(path))
        proc = subprocess.run([sys.executable, os.path.join(tree, "bench", "bench_clients.py"),
                               "--worker", "tritium", "--models", ",".join(models),
                               "--iters", str(iters)], env=env, capture_output=True, text=True)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode:
        sys.stderr.write(proc.stderr[-2000:])
    return {r["model"]: r for r in rows[1:]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the other tree (holding tritium/ and bench/)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--iters", type=int, default=50)
    args = ap.parse_args()
    models = [m for m in args.models.split(",") if m]
    trees = {"base": os.path.abspath(args.base), "this": ROOT}
    runs = {"base": [], "this": []}
    for i in range(args.rounds):
        # Each round swaps which tree runs first: a process after another one may find the
        # machine in another state (the last one's compile workers still exiting).
        for side, tree in list(trees.items())[::1 if i % 2 == 0 else -1]:
            runs[side].append(run_tree(tree, models, args.iters))
            # Each process as it ends (a run cut short by a time limit keeps what it had).
            row = runs[side][-1]
            print(f"round {i + 1} {side} (first s/compile here s/Inductor's kernel compiles s/"
                  "kernels/pool ready at start): " + " ".join(
                f"{m}={row[m]['first_s']:.2f}/{row[m].get('compile_s', 0):.2f}/"
                f"{row[m].get('inductor_compile_s', float('nan')):.2f}"
                f"/{row[m].get('kernels', '-')}/{'pool' if row[m].get('pool_ready') else 'here'}"
                for m in models if m in row), file=sys.stderr, flush=True)

    def vals(side, model, key):
        return [r[model][key] for r in runs[side] if model in r and key in r[model]]

    print(f"first call s (and steady ms), base = {trees['base']}, medians of {args.rounds} "
          "alternating processes per tree; x = base / this, above 1: this tree is faster")
    print(f"{'model':<15} {'base':>6} {'this':>6} {'x':>5} {'steady x':>8} {'kernels x':>9}  "
          "runs base | this   (kernels: Inductor's per-kernel compile times, summed)")
    for m in models:
        b, t = vals("base", m, "first_s"), vals("this", m, "first_s")
        if not b or not t:
            print(f"{m:<15} missing (an error: see stderr)")
            continue
        sb, st = vals("base", m, "steady_ms"), vals("this", m, "steady_ms")
        sx = f"{min(sb) / min(st):.2f}" if sb and st else "-"
        kb, kt = vals("base", m, "inductor_compile_s"), vals("this", m, "inductor_compile_s")
        kx = f"{statistics.median(kb) / statistics.median(kt):.2f}" if kb and kt else "-"
        print(f"{m:<15} {statistics.median(b):6.2f} {statistics.median(t):6.2f} "
              f"{statistics.median(b) / statistics.median(t):5.2f} {sx:>8} {kx:>9}  "
              f"{' '.join(f'{v:.2f}' for v in b)} | {' '.join(f'{v:.2f}' for v in t)}")


if __name__ == "__main__":
    main()
