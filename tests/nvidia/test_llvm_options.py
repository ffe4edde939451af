"""TRITIUM_LLVM_OPTIONS: LLVM command-line options for tritium's LLVM, read once per process
and part of the NVIDIA backend hash (so the disk cache never mixes code made with and
without them). Each case in a fresh interpreter: LLVM's options are process-wide."""
import json
import os
import subprocess
import sys

import pytest

from tritium.backends.nvidia import toolchain

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r"""
import hashlib, json, sys, tempfile, os
sys.path.insert(0, sys.argv[1])
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
import tritium, tritium.language as tl
from tritium.language.extra import libdevice
from tritium.backends.compiler import GPUTarget
from tritium.backends.nvidia.backend import CUDABackend
from tritium.compiler import ASTSource, compile

@tritium.jit
def softcap(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, 7.0 * libdevice.tanh(tl.load(X + offs) / 7.0))

target = GPUTarget("cuda", 90, 32)
k = compile(ASTSource(softcap, {"X": "*fp32", "Y": "*fp32", "N": "constexpr"}, {"N": 1024}),
            target=target)
os.environ["TRITIUM_LLVM_OPTIONS"] = "-max-speculation-depth=3"  # too late: read once
print(json.dumps({"hash": CUDABackend(target).hash(), "branches": k.asm["ptx"].count("bra"),
                  "ptx": hashlib.sha256(k.asm["ptx"].encode()).hexdigest()}))
"""


def _run(tmp_path, options):
    script = tmp_path / "child.py"  # (@jit reads its kernel's source from a file)
    script.write_text(CHILD)
    env = dict(os.environ)
    env.pop("TRITIUM_LLVM_OPTIONS", None)
    if options is not None:
        env["TRITIUM_LLVM_OPTIONS"] = options
    p = subprocess.run([sys.executable, str(script), ROOT], env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(toolchain.find_ptxas() is None, reason="ptxas not found")
def test_llvm_options_change_the_code_and_the_hash(tmp_path):
    default, unset = _run(tmp_path, None), _run(tmp_path, "")
    assert default == unset
    # LLVM 22 speculates libdevice tanhf's two paths into selects; without speculation the
    # branches stay (upstream's LLVM keeps them)
    kept = _run(tmp_path, "-max-speculation-depth=0")
    assert kept["branches"] > default["branches"]
    assert kept["ptx"] != default["ptx"]
    assert kept["hash"] != default["hash"] and "max-speculation-depth=0" in kept["hash"]
    assert "-llvm[" not in default["hash"]  # (the set after the first compile was ignored)

