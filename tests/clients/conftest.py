"""What the client tests share: the client runs in a fresh interpreter (compat must be
installed before torch or Liger import triton) and prints one JSON line per case."""
import json
import os
import random
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(scope="module")
def seed():
    # One run covers every case of a module: one seed for it (TRITIUM_TEST_SEED replays it).
    return int(os.environ.get("TRITIUM_TEST_SEED", random.randrange(2 ** 31)))


def run_client(script, args, key, tmp_path, **env):
    """{row[key]: row} of the JSON lines `script args` prints, run with this checkout's
    tritium and the caches under tmp_path."""
    env = dict(os.environ, PYTHONPATH=ROOT, TRITON_CACHE_DIR=str(tmp_path / "triton"), **env)
    proc = subprocess.run([sys.executable, os.path.join(HERE, script), *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=600)
    rows = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            rows[row[key]] = row
    assert rows, f"{script}: no results (rc {proc.returncode}):\n{proc.stderr[-4000:]}"
    return rows


@pytest.fixture(scope="session")
def client():
    return run_client


def check_row(row, name, seed):
    """One case's row: present, no error, as many results as the reference, within its
    tolerance."""
    assert row is not None, f"{name}: no result (the run stopped before it), seed {seed}"
    assert "error" not in row, f"{name} (seed {seed}): {row['error']}\n{row.get('where', '')}"
    assert row["same_count"]
    assert row["err"] <= row["tol"], f"{name} (seed {seed}): error {row['err']} > {row['tol']}"


@pytest.fixture(scope="session")
def check():
    return check_row
