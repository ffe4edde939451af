"""bench/run_upstream_tests.py and its pytest plugin, on stand-in test files written here
(upstream's copies live outside the repository): counts from junit xml, the first failure's
reason, `import triton` resolving to tritium, the device fixture, the per-file time limit."""
import importlib.util
import os
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

spec = importlib.util.spec_from_file_location(
    "run_upstream_tests", os.path.join(REPO, "bench", "run_upstream_tests.py"))
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)


def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def test_runner_counts_reasons_and_limit(tmp_path):
    _write(tmp_path, "language/test_mixed.py", """
        import pytest
        import triton

        def test_is_tritium(device):
            assert getattr(triton, "__tritium__", False) and device == "cpu"

        @pytest.mark.parametrize("n", [1, 2, 3])
        def test_param(n):
            assert n != 2, "two is wrong"

        def test_skipped():
            pytest.skip("not here")

        @pytest.fixture
        def broken():
            raise RuntimeError("fixture broke")

        def test_error(broken):
            pass
    """)
    _write(tmp_path, "test_slow.py", """
        import time

        def test_a():
            time.sleep(2.5)

        def test_b():
            pass
    """)
    assert runner.find_test_files(str(tmp_path), None) == ["language/test_mixed.py", "test_slow.py"]
    assert runner.find_test_files(str(tmp_path), "slow") == ["test_slow.py"]

    mixed = runner.run_file(str(tmp_path), "language/test_mixed.py", "cpu", 60, [])
    assert (mixed["passed"], mixed["failed"], mixed["skipped"], mixed["errors"]) == (3, 1, 1, 1)
    assert mixed["reason"].startswith("test_param[2]") and "two is wrong" in mixed["reason"]

    slow = runner.run_file(str(tmp_path), "test_slow.py", "cpu", 1.0, [])
    assert (slow["passed"], slow["limit"]) == (1, 1)

    table = runner.format_table([mixed, slow]).splitlines()
    assert table[0].startswith("| file | passed | failed")
    assert table[-1].startswith("| **total** | 4 | 1 | 1 | 1 | 1 |")
