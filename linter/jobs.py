"""Work on many files at once: a pool of worker processes, results in the files' order.

Each task is whole files (read, lint or fix, write back), so workers share nothing but
their start. Results come back in the order the items were given whatever order they
finish in; only finished results waiting for an earlier one are held, and at most
`WINDOW` tasks per worker are in flight, so memory does not grow with the number of files.

Workers are forked from the running process where the system allows it, so the rules it
already imported are theirs without importing anything again; elsewhere each worker
imports them once when it starts. A worker that dies (a crash in an extension, the
operating system killing it) costs only the file it was working on: the files that were
in flight are tried again one at a time, and the one that kills its worker again gets an
error of its own.

Memory: Python hands the memory a large file took back to the C allocator, which keeps
most of it (the heap is left fragmented by the few objects that outlive a file), so a
process that has linted many files holds more than one that has linted a few. Where the C
library has `malloc_trim` (glibc), each worker gives that memory back to the system after
each batch, and the main process (or a run in one process) every `TRIM_INTERVAL` seconds:
a process then holds what its current file needs, not what all files before it left behind.
What even that cannot give back (memory pages pinned by a few small objects) still grows
with the files a process has checked, so workers are replaced by fresh ones after
`WORKER_FILES` files each: a run's memory is the same for 250 files or for 3,000.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Callable, Iterator, Sequence, TypeVar

if TYPE_CHECKING:  # imported when a pool starts: a run served from the cache starts none
    from concurrent.futures import Future, ProcessPoolExecutor

Item = TypeVar("Item")
Result = TypeVar("Result")

#: Below this many files a run stays in one process: starting workers would cost more than it saves.
MIN_FILES = 16
#: Files in flight per worker: enough to keep the others busy while one works through a
#: large file that holds up the output, few enough that the results waiting hold little.
WINDOW = 32


def available_cores() -> int:
    """The cores this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def ordered_map(function: Callable[[Item], Result], items: Sequence[Item], jobs: int,
                on_failure: Callable[[Item, str], Result], warm_up: Callable[[], object] | None = None,
                quick: Callable[[Item], Result | None] | None = None) -> Iterator[Result]:
    """`function` applied to each item, in the items' order, on up to `jobs` processes.

    `function` and `on_failure` must be picklable (module-level functions or instances of
    module-level classes), and `function` must not raise for a bad file; should it raise
    anyway, or its worker die, `on_failure(item, why)` stands for its result. `warm_up`
    runs once before workers start (what they should inherit). Large runs send the items
    in batches of a few, so that little time goes to passing them between processes.

    `quick(item)`, tried in this process first, is the item's result when it has one at
    little cost (a result served from the cache), else None: only the other items go to
    workers, which start when the first such item comes (a run where every item is quick
    starts none)."""
    jobs = min(jobs, len(items))
    if jobs <= 1 or len(items) < MIN_FILES:
        last = time.monotonic()
        for item in items:
            yield function(item)
            if time.monotonic() - last > TRIM_INTERVAL:
                release_memory()
                last = time.monotonic()
        return
    size = max(1, min(MAX_BATCH, len(items) // (jobs * WINDOW)))
    in_flight = max(2 * jobs, jobs * WINDOW // size)  # batches: about WINDOW files a worker
    entries = _grouped(items, quick, size, jobs)
    pool: ProcessPoolExecutor | None = None
    sent = 0  # items sent to the current pool's workers
    last_release = time.monotonic()
    try:
        # Each entry: a batch sent to a worker and its future, or a result at hand (no batch).
        pending: deque[tuple[list[Item] | None, Future[list[Result]] | None, Result | None]] = deque()
        while True:
            while len(pending) < in_flight:
                if pool is not None and sent >= jobs * WORKER_FILES:
                    if any(future is not None for _, future, _ in pending):
                        break  # the pool's workers are replaced once their last batches are in
                    pool.shutdown(wait=True)
                    pool, sent = None, 0
                batch, ready = next(entries, (None, None))
                if batch is None and ready is None:
                    break
                if batch is None:
                    pending.append((None, None, ready))
                    continue
                if pool is None:
                    if warm_up is not None:
                        warm_up()
                    release_memory()  # what finding the files took: not copied into every worker
                    pool = _pool(jobs, warm_up)
                pending.append((batch, pool.submit(_batch, function, on_failure, batch), None))
                sent += len(batch)
            if not pending:
                return
            batch, future, ready = pending[0]
            if future is None:
                pending.popleft()
                yield ready  # type: ignore[misc]
                continue
            from concurrent.futures.process import BrokenProcessPool  # imported with the pool

            try:
                results = future.result()
            except BrokenProcessPool:
                assert pool is not None
                pool.shutdown(wait=True, cancel_futures=True)
                for batch, future, ready in pending:  # those that finished keep their results
                    if future is None:
                        yield ready  # type: ignore[misc]
                    elif future.done() and not future.cancelled() and future.exception() is None:
                        yield from future.result()
                    else:
                        yield from _one_at_a_time(function, batch, on_failure, warm_up)  # type: ignore[arg-type]
                pending.clear()
                pool, sent = _pool(jobs, warm_up), 0
                continue
            pending.popleft()
            yield from results
            if time.monotonic() - last_release > TRIM_INTERVAL:
                release_memory()  # what passing the results over took
                last_release = time.monotonic()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _grouped(items: Sequence[Item], quick: Callable[[Item], Result | None] | None,
             size: int, jobs: int = 1) -> Iterator[tuple[list[Item] | None, Result | None]]:
    """The items in order as batches of up to `size` for workers, `(batch, None)`, and the
    results `quick` gave, `(None, result)`. Towards the end batches get smaller (none holds
    more than a `2 * jobs`-th of what is left), so that no worker is left alone with a
    large last batch while the others have nothing to do."""
    batch: list[Item] = []
    for index, item in enumerate(items):
        size = min(size, max(1, (len(items) - index) // (2 * jobs)))
        result = None
        if quick is not None:
            try:
                result = quick(item)
            except Exception:  # a worker tries it again, and reports what goes wrong
                result = None
        if result is None:
            batch.append(item)
            if len(batch) < size:
                continue
        if batch:
            yield batch, None
            batch = []
        if result is not None:
            yield None, result
    if batch:
        yield batch, None


#: The most items sent to a worker at once.
MAX_BATCH = 8

#: Items a worker checks before it is replaced by a fresh one: what a file leaves behind
#: in the C allocator's heap (see the module's docstring) then stays bounded however many
#: files a run has, at the cost of a fork every few hundred files.
WORKER_FILES = 250


def _batch(function: Callable[[Item], Result], on_failure: Callable[[Item, str], Result],
           items: list[Item]) -> list[Result]:
    """In a worker: the results of a batch, each item's failure its own."""
    results = [_one(function, on_failure, item) for item in items]
    release_memory()
    return results


#: Seconds between two `release_memory` calls of a run in one process.
TRIM_INTERVAL = 0.1


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library has none (macOS, musl, Windows)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def release_memory() -> None:
    """Give the memory the C allocator holds free back to the system (where it can)."""
    if _TRIM is not None:
        _TRIM(0)


def _one(function: Callable[[Item], Result], on_failure: Callable[[Item, str], Result], item: Item) -> Result:
    try:
        return function(item)
    except Exception as error:  # the file's own failure, not the run's
        return on_failure(item, f"{type(error).__name__}: {error}")


def _one_at_a_time(function: Callable[[Item], Result], items: list[Item],
                   on_failure: Callable[[Item, str], Result], warm_up: Callable[[], object] | None,
                   ) -> Iterator[Result]:
    """Each item in a worker of its own, so a crash is pinned on the item that causes it."""
    from concurrent.futures.process import BrokenProcessPool

    for item in items:
        pool = _pool(1, warm_up)
        try:
            yield pool.submit(_one, function, on_failure, item).result()
        except BrokenProcessPool:
            yield on_failure(item, "the worker process checking it stopped unexpectedly")
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _pool(jobs: int, warm_up: Callable[[], object] | None) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    # Forking copies the imported rules; it is safe only while this process has no other thread.
    if "fork" in methods and threading.active_count() == 1:
        return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_start)
    return ProcessPoolExecutor(jobs, initializer=_worker_start, initargs=(warm_up,))


def _worker_start(warm_up: Callable[[], object] | None = None) -> None:
    """Leave Ctrl-C to the main process (it stops the pool), and import what is needed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm_up is not None:
        warm_up()
