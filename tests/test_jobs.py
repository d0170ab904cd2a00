"""Running on several cores: the same output, in the same order, as one process; a worker
that dies costs only its file; small runs stay in one process."""

from __future__ import annotations

import ast
import gc
import json
import os
import threading

import pytest

from gpulint.cache import LineMap
from gpulint.config import ConfigError, parse_table
import gpulint.jobs
from gpulint.jobs import available_cores, ordered_map
from gpulint.runner import lint_paths

from .conftest import fill_project, invoke, write

#: A handful of items: a run of them, each checked at once, stays in one process.
MIN_FILES = 16


@pytest.fixture
def workers_at_once(monkeypatch):
    """Workers take every item, however little work the run has."""
    monkeypatch.setattr(gpulint.jobs, "POOL_WORK", -1.0)
    monkeypatch.setattr(gpulint.jobs, "POOL_PACE", -1.0)


def _outputs(cli, *options: str) -> dict[str, tuple[int, str]]:
    """The run's exit code and output in each format."""
    found = {}
    for fmt in ("json", "sarif", "concise", "full", "github"):
        run = cli("check", ".", "--output-format", fmt, "--no-cache", *options)
        found[fmt] = (run.code, run.stdout)
    return found


@pytest.mark.slow
def test_two_jobs_report_what_one_job_reports(project, cli, workers_at_once):
    files = fill_project(project)
    assert len(files) > 2 * MIN_FILES
    one, two = _outputs(cli, "--jobs", "1"), _outputs(cli, "--jobs", "2")
    assert one == two
    code, output = one["json"]
    assert code == 2  # the file that cannot be decoded
    findings = json.loads(output)
    # Sanity: the run found things in many files, a notebook among them, in path order.
    names = [item["filename"] for item in findings]
    assert len(set(names)) > MIN_FILES and any(name.endswith(".ipynb") for name in names)
    assert names == sorted(names, key=lambda name: [part for part in name.split("/")])


@pytest.mark.slow
def test_two_jobs_print_the_diff_one_job_prints(project, cli, workers_at_once):
    fill_project(project)
    one, two = (cli("check", ".", "--diff", "--unsafe-fixes", "--jobs", jobs, "--no-cache") for jobs in "12")
    assert (one.code, one.stdout, one.stderr) == (two.code, two.stdout, two.stderr)
    assert one.stdout.count("+++ b/") > 5 and "+++ b/examples/store_sales.ipynb" in one.stdout


@pytest.mark.slow
def test_fixing_with_two_jobs_writes_what_one_job_writes(tmp_path, cli, monkeypatch, workers_at_once):
    contents = {}
    for jobs in ("1", "2"):
        root = tmp_path / jobs
        root.mkdir()
        files = fill_project(root)
        monkeypatch.chdir(root)
        run = cli("check", ".", "--fix", "--unsafe-fixes", "--jobs", jobs, "--output-format", "concise", "--no-cache")
        contents[jobs] = ({p.relative_to(root): p.read_bytes() for p in files}, run.code, run.stdout)
    assert contents["1"] == contents["2"]
    assert "Fixed" in contents["1"][2]


def _pid(item: int) -> int:
    return os.getpid()


def _square_or_die(item: int) -> int:
    if item == 7:
        os._exit(3)  # a worker killed in the middle of a file
    if item == 11:
        raise ValueError("bad item")
    return item * item


def _failure(item: int, why: str) -> str:
    return f"{item} failed: {why}"


def test_results_come_in_the_order_of_the_items(workers_at_once):
    items = list(range(3 * MIN_FILES))
    assert list(ordered_map(abs, [-i for i in items], 2, _failure)) == items


def test_small_runs_stay_in_this_process():
    assert set(ordered_map(_pid, list(range(MIN_FILES - 1)), 4, _failure)) == {os.getpid()}
    assert set(ordered_map(_pid, list(range(4 * MIN_FILES)), 1, _failure)) == {os.getpid()}


def test_runs_with_enough_work_use_worker_processes(workers_at_once):
    assert os.getpid() not in set(ordered_map(_pid, list(range(4 * MIN_FILES)), 2, _failure))


def test_without_their_resident_memory_workers_are_replaced_after_their_share(monkeypatch, workers_at_once):
    """Where a process cannot read its resident memory, what a worker's heap keeps of the
    files it checked stays bounded another way: after `WORKER_FILES` items each, fresh
    workers take over, and the results keep their order."""
    monkeypatch.setattr(gpulint.jobs, "_resident", lambda: None)  # inherited by forked workers
    monkeypatch.setattr(gpulint.jobs, "WORKER_FILES", MIN_FILES)
    started = []
    real = gpulint.jobs._pool
    monkeypatch.setattr(gpulint.jobs, "_pool", lambda *args: started.append(args) or real(*args))
    items = list(range(10 * MIN_FILES))
    results = list(ordered_map(_pid_of, items, 2, _failure))
    assert [item for item, _ in results] == items
    pids = [pid for _, pid in results]
    assert os.getpid() not in pids
    assert len(started) >= 4 and len(set(pids)) > 2 * 2
    # a process checks at most its share before it is replaced (two workers share a pool's)
    assert max(pids.count(pid) for pid in set(pids)) <= 2 * MIN_FILES


def test_workers_that_keep_little_memory_are_never_replaced(monkeypatch, workers_at_once):
    """More items than `WORKER_FILES` each: replacing workers by count would cost a fork
    and a pause every few hundred files for nothing."""
    started = []
    real = gpulint.jobs._pool
    monkeypatch.setattr(gpulint.jobs, "_pool", lambda *args: started.append(args) or real(*args))
    items = list(range(3 * gpulint.jobs.WORKER_FILES))
    results = list(ordered_map(_pid_of, items, 2, _failure))
    assert [item for item, _ in results] == items
    assert len(started) == 1 and len({pid for _, pid in results}) <= 2


def test_a_dead_worker_costs_only_its_item(workers_at_once):
    items = list(range(3 * MIN_FILES))
    results = list(ordered_map(_square_or_die, items, 2, _failure))
    assert results[7] == "7 failed: the worker process checking it stopped unexpectedly"
    assert results[11] == "11 failed: ValueError: bad item"
    assert [r for i, r in enumerate(results) if i not in (7, 11)] == [i * i for i in items if i not in (7, 11)]


@pytest.mark.slow
def test_a_file_whose_worker_dies_is_that_files_error(project, monkeypatch, workers_at_once):
    fill_project(project)
    import gpulint.runner

    real = gpulint.runner.process_file

    def dies_on_one(target, *args, **kwargs):
        if target.path.name == "GPU201.py":
            os._exit(9)
        return real(target, *args, **kwargs)

    monkeypatch.setattr(gpulint.runner, "process_file", dies_on_one)  # inherited by forked workers
    run = invoke("check", ".", "--jobs", "2", "--output-format", "concise", "--no-cache")
    assert run.code == 2 and "Traceback" not in run.stderr
    assert (
        "error: rules/GPU201.py: internal error: the worker process checking it stopped unexpectedly"
        in run.stderr.splitlines()
    )
    assert any(line.startswith("rules/GPU101.py:") for line in run.stdout.splitlines())


def _even_here(item: int) -> int | None:
    return (item, os.getpid()) if item % 2 == 0 else None


def test_quick_results_are_made_here_and_the_rest_in_workers(workers_at_once):
    items = list(range(4 * MIN_FILES))
    results = list(ordered_map(_pid_of, items, 2, _failure, quick=_even_here))
    assert [item for item, _ in results] == items
    assert {pid for item, pid in results if item % 2 == 0} == {os.getpid()}
    assert os.getpid() not in {pid for item, pid in results if item % 2}


def _pid_of(item: int) -> tuple[int, int]:
    return item, os.getpid()


def test_a_run_where_every_item_is_quick_starts_no_worker(monkeypatch, workers_at_once):
    import gpulint.jobs

    def no_pool(*args, **kwargs):
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(gpulint.jobs, "_pool", no_pool)
    items = list(range(4 * MIN_FILES))
    assert list(ordered_map(abs, items, 2, _failure, quick=lambda item: -item)) == [-i for i in items]


@pytest.mark.slow
def test_a_warm_run_lints_only_what_changed_in_workers(project, cli, tmp_path, monkeypatch, workers_at_once):
    import gpulint.jobs

    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    files = fill_project(project)
    next(path for path in files if path.name == "latin.py").unlink()  # cannot be decoded: never cached
    cold = _outputs(cli, "--jobs", "2")
    for fmt in cold:  # fills the cache, for each format's listing
        cli("check", ".", "--output-format", fmt, "--jobs", "2")
    started = []
    real = gpulint.jobs._pool
    monkeypatch.setattr(gpulint.jobs, "_pool", lambda *args: started.append(args) or real(*args))
    for fmt, (code, output) in cold.items():
        run = cli("check", ".", "--output-format", fmt, "--jobs", "2")
        assert (run.code, run.stdout) == (code, output), fmt
    assert started == []  # every file served here, from the cache
    changed = next(path for path in files if path.suffix == ".py" and "GPU" in path.name)
    changed.write_text(changed.read_text(encoding="utf-8") + "\nimport pandas as pd\n", encoding="utf-8")
    fresh = _outputs(cli, "--jobs", "1")
    for fmt, (code, output) in fresh.items():
        run = cli("check", ".", "--output-format", fmt, "--jobs", "2")
        assert (run.code, run.stdout) == (code, output), fmt
    assert started  # the changed file went to a worker


def test_jobs_in_the_configuration(project, cli):
    assert parse_table({"jobs": 3}, project, "pyproject.toml").jobs == 3
    for bad in (0, "2", True, 1.5):
        with pytest.raises(ConfigError, match="`jobs` must be a whole number"):
            parse_table({"jobs": bad}, project, "pyproject.toml")
    write(project / "pyproject.toml", "[tool.gpulint]\njobs = 0\n")
    write(project / "a.py", "x = 1\n")
    run = cli("check", ".")
    assert run.code == 2 and "`jobs` must be a whole number of at least 1" in run.stderr


def test_jobs_on_the_command_line_must_be_positive(project, cli):
    write(project / "a.py", "x = 1\n")
    assert cli("check", ".", "--jobs", "0").code == 2


def test_the_default_is_the_cores_this_process_may_use():
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert available_cores() == expected


# -- memory: what a run keeps of a file once it is done ---------------------------------------


def _live_syntax_trees() -> int:
    gc.collect()
    return sum(1 for item in gc.get_objects() if isinstance(item, ast.AST))


@pytest.mark.slow
def test_no_syntax_tree_outlives_its_file(project):
    fill_project(project)
    list(lint_paths(["."], keep_sources=False))  # whatever a first run leaves for good (imports)
    before = _live_syntax_trees()
    results = list(lint_paths(["."], keep_sources=False))
    assert results and _live_syntax_trees() <= before


def test_results_without_sources_keep_only_what_reports_print(project):
    fill_project(project)
    results = list(lint_paths(["."], keep_sources=False))
    notebook = next(r for r in results if r.display.endswith(".ipynb"))
    assert isinstance(notebook.notebook, LineMap) and notebook.diagnostics
    assert all(r.original is None and r.fixed is None for r in results)
    assert all(d.context is None for r in results for d in r.diagnostics)
    full = {r.display: r for r in lint_paths(["."])}
    for result in results:  # the same findings, and the same file lines for a notebook's
        assert result.diagnostics == full[result.display].diagnostics
        for d in result.diagnostics:
            if d.cell is not None:
                expected = full[result.display].notebook.file_line(d.cell, d.start.line)
                assert result.notebook.file_line(d.cell, d.start.line) == expected


@pytest.mark.slow
def test_workers_are_started_afresh_where_forking_is_unsafe(project, workers_at_once):
    """With another thread running, workers are not forked (a fork copies no thread but
    whatever locks they hold); started afresh, they import the rules and find the same."""
    fill_project(project)
    alone = [(r.display, r.diagnostics, r.error) for r in lint_paths(["."], jobs=1, keep_sources=False)]
    waiting = threading.Event()
    thread = threading.Thread(target=waiting.wait)
    thread.start()
    try:
        pooled = [(r.display, r.diagnostics, r.error) for r in lint_paths(["."], jobs=2, keep_sources=False)]
    finally:
        waiting.set()
        thread.join()
    assert pooled == alone
