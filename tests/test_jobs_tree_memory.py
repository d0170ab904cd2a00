"""The speed benchmark's process-tree memory: the resident sets of a command and of the
workers it starts, added up while they run."""

from __future__ import annotations

import sys

import pytest

from gpulint.benchmarks import engine_speed

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

#: A process holding 64 MiB that starts two children holding 64 MiB each, all at once.
_TREE = """
import subprocess, sys, time
hold = "block = bytearray(64 * 2**20); block[::4096] = b'x' * len(block[::4096]); import time; time.sleep(1.5)"
children = [subprocess.Popen([sys.executable, "-S", "-c", hold]) for _ in range(2)]
block = bytearray(64 * 2**20); block[::4096] = b'x' * len(block[::4096])
for child in children:
    child.wait()
"""


@pytest.mark.slow
def test_the_tree_peak_adds_up_the_processes_that_run_at_once(tmp_path):
    run = engine_speed.run_process([sys.executable, "-S", "-c", _TREE], tmp_path, sample_tree=True)
    assert run.returncode == 0
    assert run.tree_rss_mib is not None and run.tree_rss_mib >= 3 * 64
    assert run.rss_mib < 2 * 64  # the largest process alone: what `os.wait4` reports
    plain = engine_speed.run_process([sys.executable, "-S", "-c", "pass"], tmp_path)
    assert plain.tree_rss_mib is None  # not sampled unless asked


def test_the_memory_table_shows_the_tree_where_it_was_measured():
    payload = {
        "machine": {
            "cpu_model": "Test CPU",
            "machine": "x86_64",
            "usable_cpus": 2,
            "python": "3.11.7",
            "date": "2026-01-02T03:04:05+00:00",
            "versions": {"gpulint": "0.1.0"},
            "gpulint_commit": "abc",
        },
        "corpus": {"repos": [{"name": "o/r", "commit": "0" * 40}], "files": {"py": 10, "ipynb": 4}},
        "repeat": 1,
        "jobs": 2,
        "results": [],
        "peak_rss_by_files": [
            {"files": 250, "tool": "gpulint cold, 2 jobs", "peak_rss_mib": 50.0, "peak_tree_rss_mib": 120.0},
            {"files": 3000, "tool": "gpulint cold, 2 jobs", "peak_rss_mib": 60.0, "peak_tree_rss_mib": 130.4},
            {"files": 250, "tool": "ruff", "peak_rss_mib": 30.0},
        ],
    }
    table = engine_speed.speed_markdown(payload)
    _, tree = table.split("| Peak RSS MiB of the process tree (all processes at once) by files linted |")
    assert tree.startswith(" 250 | 3,000 |")
    assert "| gpulint cold, 2 jobs | 120 | 130 |" in tree and "| ruff |" not in tree


def test_repeated_runs_report_their_median_and_say_so():
    assert engine_speed._median_of([120.0, 140.0, 125.0]) == 125.0
    assert engine_speed._median_of([120.0, None]) is None  # a run with no /proc to sample
    runs = [{"peak_rss_mib": 50.0, "peak_tree_rss_mib": value} for value in (118.0, 121.0, 140.0)]
    payload = {
        "machine": {
            "cpu_model": "Test CPU",
            "machine": "x86_64",
            "usable_cpus": 2,
            "python": "3.11.7",
            "date": "2026-01-02T03:04:05+00:00",
            "versions": {"gpulint": "0.1.0"},
            "gpulint_commit": "abc",
        },
        "corpus": {"repos": [{"name": "o/r", "commit": "0" * 40}], "files": {"py": 10, "ipynb": 4}},
        "repeat": 3,
        "jobs": 2,
        "results": [],
        "peak_rss_by_files": [
            {
                "files": 250,
                "tool": "gpulint cold, 2 jobs",
                "peak_rss_mib": 50.0,
                "peak_tree_rss_mib": 121.0,
                "runs": runs,
            }
        ],
    }
    table = engine_speed.speed_markdown(payload)
    assert "| Peak RSS MiB of the process tree (all processes at once) by files linted (median of 3 runs) |" in table
    assert "| gpulint cold, 2 jobs | 121 |" in table
