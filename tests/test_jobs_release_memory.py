"""Workers give the memory a file took back to the system once they are done with it."""

from __future__ import annotations

import os

import pytest

import gpulint.jobs
from gpulint.jobs import ordered_map, release_memory


def _resident_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(gpulint.jobs._malloc_trim() is None, reason="the C library has no malloc_trim")
def test_released_memory_leaves_the_process():
    blocks = [bytearray(100_000) for _ in range(640)]  # 64 MB in pieces the heap holds (not mmap)
    for block in blocks:
        block[::4096] = b"x" * len(block[::4096])
    kept = blocks[-1]  # the last piece pins the top of the heap: freeing the rest does not shrink it
    del blocks
    before = _resident_mib()
    release_memory()
    assert before - _resident_mib() > 32
    assert kept


def _count(item: int) -> int:
    return item


def test_each_batch_and_a_long_run_in_one_process_release_memory(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(gpulint.jobs, "release_memory", lambda: calls.append(os.getpid()))
    monkeypatch.setattr(gpulint.jobs, "TRIM_INTERVAL", -1.0)  # at every chance
    items = list(range(64))
    assert list(ordered_map(_count, items, 1, str)) == items
    assert len(calls) == len(items)
    calls.clear()
    assert gpulint.jobs._batch(_count, str, items[:8]) == items[:8]
    assert calls == [os.getpid()]
