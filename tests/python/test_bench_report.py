"""BENCHMARKS.md, docs/benchmarks.md and the charts in docs/img/ are what tools/bench_report.py
makes of bench/results.toml: a row added to the data without `make bench-report` fails here."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_benchmark_pages_and_charts_are_generated_from_the_data():
    r = subprocess.run([sys.executable, "tools/bench_report.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_changed_figure_makes_them_stale(tmp_path):
    # The check is not vacuous: the same generator on data with one ratio changed disagrees.
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "tools" / "bench_report.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    data = tmp_path / "results.toml"
    text = (ROOT / "bench" / "results.toml").read_text()
    data.write_text(text.replace("ratio = 9.7", "ratio = 9.8", 1))
    mod.DATA = data
    fresh = mod.outputs()
    assert fresh[ROOT / "BENCHMARKS.md"] != (ROOT / "BENCHMARKS.md").read_text()
    assert "**9.8x**" in fresh[ROOT / "BENCHMARKS.md"]
