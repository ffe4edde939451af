"""Every GPU test of Gluon kernels (tests/gluon) and of Triton kernels translated to Gluon
(tests/tools/test_triton_to_gluon_tool.py) in one process: layouts, conversions, shared
memory, mbarriers, TMA and wgmma/mma.sync as the tests launch them, each checked against
torch; run under compute-sanitizer (memcheck, racecheck, synccheck) by run_device.sh."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
code = pytest.main(["-q", "-m", "gpu", "-p", "no:cacheprovider", "-x",
                    "tests/gluon", "tests/tools/test_triton_to_gluon_tool.py"])
if code != 0:
    sys.exit(f"sanitize_gluon: pytest exited with {code}")
print("sanitize_gluon: all cases correct")
