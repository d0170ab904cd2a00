"""When a run starts workers and when it replaces them: once the files checked here say
the rest is worth it (not after a number of files), and when a worker's memory has grown
(not after a number of files)."""

from __future__ import annotations

import gc
import os
import sys
import time
import types

import pytest

import gpulint.jobs
from gpulint.jobs import ordered_map

from .conftest import fill_project


def _failure(item: int, why: str) -> str:
    return f"{item} failed: {why}"


def _pid_of(item: int) -> tuple[int, int]:
    return item, os.getpid()


def _busy(seconds: float) -> None:
    """Work for `seconds` of CPU time (the pace a run measures)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def _slow_pid_of(item: int) -> tuple[int, int]:
    _busy(0.01)
    return item, os.getpid()


def test_many_items_of_little_work_stay_in_this_process():
    gc.disable()  # a full collection of the test process is no item's work
    try:
        results = list(ordered_map(_pid_of, list(range(2000)), 2, _failure))
    finally:
        gc.enable()
    assert {pid for _, pid in results} == {os.getpid()}


@pytest.mark.slow
def test_workers_take_the_rest_once_the_pace_here_says_it_is_worth_them(monkeypatch):
    monkeypatch.setattr(gpulint.jobs, "POOL_WORK", 0.1)
    items = list(range(60))  # 0.01 s each: the rest takes about 0.6 s
    results = list(ordered_map(_slow_pid_of, items, 2, _failure))
    assert [item for item, _ in results] == items
    here = [item for item, pid in results if pid == os.getpid()]
    assert here == items[: len(here)] and 1 <= len(here) <= 5
    assert os.getpid() not in {pid for item, pid in results if item >= len(here)}


def _tiny_pid_of(item: int) -> tuple[int, int]:
    _busy(0.0004)
    return item, os.getpid()


def test_items_quicker_than_passing_them_to_a_worker_stay_here(monkeypatch):
    """800 items of 0.4 ms: the rest is worth more than `POOL_WORK`, but each item costs
    about what sending it to a worker and its result back does."""
    monkeypatch.setattr(gpulint.jobs, "POOL_WORK", 0.1)
    results = list(ordered_map(_tiny_pid_of, list(range(800)), 2, _failure))
    assert {pid for _, pid in results} == {os.getpid()}


def _imports_first(item: int) -> tuple[int, int]:
    """The first item imports a module and takes long (what the rules load on first use)."""
    if item == 0:
        sys.modules["_gpulint_test_lazy_module"] = types.ModuleType("_gpulint_test_lazy_module")
        _busy(0.1)
    return item, os.getpid()


def test_a_check_that_imports_modules_does_not_count_as_work(monkeypatch):
    monkeypatch.setattr(gpulint.jobs, "POOL_WORK", 0.05)
    try:
        results = list(ordered_map(_imports_first, list(range(200)), 2, _failure))
    finally:
        sys.modules.pop("_gpulint_test_lazy_module", None)
    assert {pid for _, pid in results} == {os.getpid()}


def test_a_run_whose_rest_would_take_little_stays_here(monkeypatch):
    """Eight items of 0.01 s: the rest never looks worth the cost of starting workers."""
    monkeypatch.setattr(gpulint.jobs, "POOL_WORK", 1.0)
    results = list(ordered_map(_slow_pid_of, list(range(8)), 2, _failure))
    assert {pid for _, pid in results} == {os.getpid()}


def _slow_when_even(item: int) -> tuple[int, int] | None:
    """A quick result for even items that still takes a while (a large cache entry)."""
    if item % 2:
        return None
    _busy(0.01)
    return item, os.getpid()


def test_results_served_quick_are_not_work_for_workers(monkeypatch):
    monkeypatch.setattr(gpulint.jobs, "POOL_WORK", 0.05)
    results = list(ordered_map(_pid_of, list(range(60)), 2, _failure, quick=_slow_when_even))
    assert {pid for _, pid in results} == {os.getpid()}


def test_a_warm_run_with_one_changed_file_checks_it_here(project, cli, tmp_path, monkeypatch):
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    files = fill_project(project)
    cli("check", ".", "--jobs", "2")  # fills the cache
    # Late in the run: the few files after it would not be worth workers whatever it takes.
    changed = [path for path in files if path.suffix == ".py" and "GPU" in path.name][-1]
    changed.write_text(changed.read_text(encoding="utf-8") + "\nimport pandas as pd\n", encoding="utf-8")

    def no_pool(*args, **kwargs):
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(gpulint.jobs, "_pool", no_pool)
    run = cli("check", ".", "--jobs", "2", "--output-format", "concise")
    assert run.code in (1, 2) and run.stdout


# -- replacing workers --------------------------------------------------------------------------

_kept: list[bytearray] = []


def _leaky_pid_of(item: int) -> tuple[int, int]:
    """Keeps a MiB of its own for good: a worker's memory grows with its items."""
    block = bytearray(2**20)
    block[::4096] = b"x" * len(block[::4096])
    _kept.append(block)
    return item, os.getpid()


@pytest.mark.slow
@pytest.mark.skipif(gpulint.jobs._resident() is None, reason="no resident memory to read (/proc)")
def test_a_worker_whose_memory_grew_past_the_bound_is_replaced(monkeypatch):
    monkeypatch.setattr(gpulint.jobs, "POOL_WORK", -1.0)
    monkeypatch.setattr(gpulint.jobs, "POOL_PACE", -1.0)
    monkeypatch.setattr(gpulint.jobs, "WORKER_GROWTH", 8 * 2**20)
    started = []
    real = gpulint.jobs._pool
    monkeypatch.setattr(gpulint.jobs, "_pool", lambda *args: started.append(args) or real(*args))
    items = list(range(400))
    results = list(ordered_map(_leaky_pid_of, items, 2, _failure))
    assert [item for item, _ in results] == items
    pids = [pid for _, pid in results]
    assert os.getpid() not in pids and len(started) >= 3
    # replaced once the batches sent before it said so are in: well before it takes its half
    assert max(pids.count(pid) for pid in set(pids)) < len(items) // 4


def test_resident_memory_is_read_where_the_system_tells_it():
    resident = gpulint.jobs._resident()
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc")
    assert resident is not None and resident > 2**20
    block = bytearray(64 * 2**20)
    block[::4096] = b"x" * len(block[::4096])
    grown = gpulint.jobs._resident()
    assert grown is not None and grown - resident > 32 * 2**20
