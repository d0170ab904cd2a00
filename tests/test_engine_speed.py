"""The engine speed benchmark's real-code suite: which files, which tools, how a process is
measured, and the table the README shows. No timing is asserted."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from gpulint.benchmarks import engine_speed
from gpulint.docs import SPEED_RESULTS, marked_block, speed_block

ROOT = Path(__file__).resolve().parent.parent


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def notebook(*cells: str) -> str:
    return json.dumps(
        {
            "nbformat": 4,
            "metadata": {},
            "cells": [
                {"cell_type": "code", "source": cell.splitlines(keepends=True), "outputs": [], "metadata": {}}
                for cell in cells
            ]
            + [{"cell_type": "markdown", "source": ["# not code"], "metadata": {}}],
        }
    )


def test_the_first_n_files_are_a_stable_prefix_of_one_fixed_order(tmp_path):
    for repo in ("a", "b", "c"):
        for index in range(4):
            write(tmp_path / repo / f"m{index}.py", "x = 1\n")
        write(tmp_path / repo / "n.ipynb", notebook("x = 1"))
        write(tmp_path / repo / "notes.txt", "not code")
    everything = engine_speed.realcode_files(tmp_path)
    assert len(everything) == 15 and all(path.suffix in (".py", ".ipynb") for path in everything)
    assert engine_speed.realcode_files(tmp_path) == everything
    assert engine_speed.realcode_files(tmp_path, 5) == everything[:5]
    assert everything != sorted(everything)  # a shuffle: the first N reach every repository
    groups = engine_speed.by_kind(everything)
    assert len(groups["py"]) == 12 and len(groups["ipynb"]) == 3


def test_the_notebook_floor_parses_the_joined_code_cells():
    joined = engine_speed.notebook_programs(
        notebook("import os\n%matplotlib inline", "for f in x:\n    !ls $f", "os.sep?").encode()
    )
    assert len(joined) == 1 and "pass" in joined[0] and "import os" in joined[0]
    compile(joined[0], "<nb>", "exec")
    alone = engine_speed.notebook_programs(notebook("x = 1", "print x", "y = 2").encode())
    assert alone == ["x = 1", "print x", "y = 2"]  # the program does not parse: cell by cell
    assert engine_speed.notebook_programs(b"not json") == []


def test_the_floor_counts_files_nodes_and_syntax_errors(tmp_path):
    good = write(tmp_path / "good.py", "x = 1\n")
    bad = write(tmp_path / "bad.py", "def (:\n")
    book = write(tmp_path / "book.ipynb", notebook("y = 2", "print z"))
    found = engine_speed.floor_of([good, bad, book])
    assert found["files"] == 3 and found["syntax_errors"] == 2 and found["nodes"] > 0


def test_a_process_reports_its_exit_status_output_and_memory(tmp_path):
    code = "import sys; block = bytearray(96 * 2**20); block[::4096] = b'x' * len(block[::4096]); print('done'); sys.exit(3)"
    run = engine_speed.run_process([sys.executable, "-c", code], tmp_path)
    assert run.returncode == 3 and run.stdout.strip() == b"done"
    assert run.rss_mib >= 96  # the child's own peak, not the benchmark's
    small = engine_speed.run_process([sys.executable, "-S", "-c", "pass"], tmp_path)
    assert small.rss_mib < run.rss_mib - 64 and small.cpu >= 0


def test_peers_that_are_not_installed_are_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(engine_speed.shutil, "which", lambda name: "/usr/bin/gpulint" if name == "gpulint" else None)
    monkeypatch.setattr(engine_speed, "cli_options", lambda executable: "--jobs INTEGER\n--no-cache\n")
    tools, skipped = engine_speed.realcode_tools(tmp_path, jobs=2)
    labels = [tool.label for tool in tools]
    assert labels == ["floor: read+parse+walk", "gpulint cold, 1 job", "gpulint cold, 2 jobs", "gpulint warm (cache)"]
    assert [line.split(":")[0] for line in skipped] == ["ruff", "flake8 + pandas-vet", "pylint + perflint"]
    cold = tools[1].argv
    assert cold[cold.index("--jobs") + 1] == "1" and "--no-cache" in cold and "--no-cache" not in tools[3].argv
    assert tools[3].warm_up and tools[3].env["GPULINT_CACHE_DIR"].startswith(str(tmp_path))


def test_a_gpulint_without_jobs_or_cache_is_timed_with_what_it_has(tmp_path, monkeypatch):
    monkeypatch.setattr(engine_speed.shutil, "which", lambda name: "/usr/bin/gpulint" if name == "gpulint" else None)
    monkeypatch.setattr(engine_speed, "cli_options", lambda executable: "--quiet\n--exit-zero\n")
    tools, skipped = engine_speed.realcode_tools(tmp_path, jobs=2, peers=False)
    assert [tool.label for tool in tools] == ["floor: read+parse+walk", "gpulint cold, 1 job"]
    assert "--jobs" not in tools[1].argv and "--no-cache" not in tools[1].argv
    assert any("--jobs" in line for line in skipped) and any("cache" in line for line in skipped)


def payload(results: list[dict], memory: list[dict] | None = None) -> dict:
    return {
        "machine": {
            "cpu_model": "Test CPU",
            "machine": "x86_64",
            "usable_cpus": 2,
            "python": "3.11.7",
            "date": "2026-01-02T03:04:05+00:00",
            "versions": {"gpulint": "0.1.0", "ruff": None},
            "gpulint_commit": "abc1234",
        },
        "corpus": {"repos": [{"name": "o/r", "commit": "0" * 40}], "files": {"py": 10, "ipynb": 4}},
        "repeat": 1,
        "jobs": 2,
        "results": results,
        "in_process_py": {"ratio": 1.5},
        "peak_rss_by_files": memory or [],
    }


def result(tool: str, kind: str, wall: float, files: int, rss: float = 50.0) -> dict:
    return {"tool": tool, "kind": kind, "wall_s": wall, "cpu_s": wall * 2, "peak_rss_mib": rss, "files": files}


def test_the_table_shows_each_tool_per_kind_against_the_floor_per_file():
    table = engine_speed.speed_markdown(
        payload(
            [
                result("floor: read+parse+walk", "py", 2.0, 10),
                result("floor: read+parse+walk", "ipynb", 1.0, 4),
                result("gpulint cold, 1 job", "py", 6.0, 10),
                result("gpulint cold, 1 job", "ipynb", 1.5, 4),
                result("pylint + perflint", "py", 4.0, 2),
            ],
            memory=[
                {"files": 250, "tool": "gpulint cold, 1 job", "peak_rss_mib": 60.4},
                {"files": 1000, "tool": "gpulint cold, 1 job", "peak_rss_mib": 61.0},
            ],
        )
    )
    speed, memory = table.split("| Peak RSS MiB by files linted |")
    rows = {line.split(" | ")[0].lstrip("| "): line for line in speed.splitlines() if line.startswith("| ")}
    assert rows["gpulint cold, 1 job"].endswith("| 6.00 | 12.00 | 50 | 3.00x | 1.50 | 3.00 | 50 | 1.50x |")
    assert rows["pylint + perflint"].endswith("| 10.00x | n/a | n/a | n/a | n/a |")  # 2 s a file against 0.2
    assert "10 `.py` files and 4 notebooks from 1 pinned repositories" in table
    assert "Test CPU, 2 CPUs, python 3.11.7, gpulint 0.1.0;" in table and "abc1234" in table
    assert "1.50x the floor's time" in table
    assert memory.startswith(" 250 | 1,000 |")
    assert "| gpulint cold, 1 job | 60 | 61 |" in memory


def test_the_floor_runs_as_a_process_of_its_own(tmp_path, capsys):
    listing = write(tmp_path / "files.txt", str(write(tmp_path / "a.py", "x = [1, 2]\n")) + "\n")
    assert engine_speed.main(["--floor-of", str(listing)]) == 0
    nodes = sum(1 for _ in ast.walk(ast.parse("x = [1, 2]\n")))
    assert json.loads(capsys.readouterr().out) == {"files": 1, "nodes": nodes, "syntax_errors": 0}


@pytest.mark.parametrize("option", ["--files", "--jobs", "--pylint-files"])
def test_counts_below_one_are_refused(option):
    with pytest.raises(SystemExit) as exit_info:
        engine_speed.main(["--realcode", option, "0"])
    assert exit_info.value.code == 2


def test_readme_shows_the_committed_speed_table():
    if not (ROOT / SPEED_RESULTS).is_file():
        pytest.skip("no committed real-code speed results")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert marked_block(readme, "speed").strip() == speed_block(str(ROOT)), (
        "README speed table is stale: run `python -m gpulint.docs README.md`"
    )
    assert (ROOT / SPEED_RESULTS).with_suffix(".md").read_text(encoding="utf-8").strip() == speed_block(str(ROOT))
