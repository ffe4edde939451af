"""bench/run_upstream_tests.py and its pytest plugin, on stand-in test files written here
(upstream's copies live outside the repository): counts from junit xml, the first failure's
reason, `import triton` resolving to tritium, the device fixture, the per-file time limit."""
import importlib.util
import json
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


def test_sample_shards_deadline_and_out(tmp_path):
    """What the GPU run relies on: at most K cases of each test function (first and last
    kept), split over shards that together run each chosen case once, a shared deadline, and
    the junit/logs/summary written to --out."""
    _write(tmp_path / "t", "language/test_core.py", """
        import pytest

        @pytest.mark.parametrize("n", range(10))
        def test_many(n):
            print("RAN", n)

        @pytest.mark.parametrize("n", [0, 1])
        def test_two(n):
            pass

        def test_one():
            pass
    """)
    root = str(tmp_path / "t")
    assert runner.find_test_files(root, None) == ["language/test_core.py"]
    out = str(tmp_path / "out")
    shards = [runner.run_file(root, "language/test_core.py", "cpu", 60, ["-s"], sample=3,
                              shard=f"{i}/2", out=out) for i in range(2)]
    assert [r["sampled"]["collected"] for r in shards] == [13, 13]
    assert sorted(r["passed"] for r in shards) == [3, 3]      # 3 + 2 + 1 chosen, 3 each
    logs = "".join(open(os.path.join(out, "logs", f"language__test_core.py.shard{i}of2.txt")).read()
                   for i in range(2))
    ran = sorted(int(x.split()[1]) for x in logs.replace("RAN", "\nRAN").splitlines()
                 if x.startswith("RAN"))
    assert ran == [0, 4, 9] or ran == [0, 5, 9]  # spread evenly, first and last kept
    assert sorted(os.listdir(os.path.join(out, "junit"))) == [
        "language__test_core.py.shard0of2.xml", "language__test_core.py.shard1of2.xml"]
    merged = runner.merge_rows(shards)
    assert (merged["passed"], merged["sampled"]) == (6, {"collected": 13, "kept": 6})

    import time
    late = runner.run_file(root, "language/test_core.py", "cpu", 60, [],
                           deadline=time.time() - 1)
    assert late["passed"] == 0 and late["limit"] == 13


def test_main_writes_summary_and_ends_with_the_table(tmp_path, capsys):
    _write(tmp_path / "t", "test_x.py", """
        def test_ok():
            pass
    """)
    out = tmp_path / "out"
    assert runner.main(["--dir", str(tmp_path / "t"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.rstrip().splitlines()
    assert printed[-1].startswith("| **total** | 1 | 0 | 0 | 0 | 0 |")
    assert printed[-2].startswith("| test_x.py | 1 | 0 |")
    summary = (out / "summary.md").read_text()
    assert "run_upstream_tests.py --dir" in summary and "| test_x.py | 1 |" in summary
    assert json.loads((out / "summary.json").read_text())["rows"][0]["passed"] == 1


def test_deadline_spellings():
    import sys
    sys.path.insert(0, os.path.join(REPO, "bench"))
    try:
        import upstream_tests_shim as shim
    finally:
        sys.path.remove(os.path.join(REPO, "bench"))
    assert shim._parse_deadline("", 100.0) is None
    assert shim._parse_deadline(None, 100.0) is None
    assert shim._parse_deadline("now+150", 100.0) == 250.0
    assert shim._parse_deadline("1234.5", 100.0) == 1234.5
