"""Work on many files at once: a pool of worker processes, results in the files' order.

Each task is whole files (read, lint or fix, write back), so workers share nothing but
their start. Results come back in the order the items were given whatever order they
finish in; only finished results waiting for an earlier one are held, and at most
`WINDOW` tasks per worker are in flight, so memory does not grow with the number of files.

Workers are forked from the running process where the system allows it, so the rules it
already imported, and what checking its first files loaded, are theirs without importing
anything again; elsewhere each worker imports them once when it starts. A worker that dies
(a crash in an extension, the operating system killing it) costs only the file it was
working on: the files that were in flight are tried again one at a time, and the one that
kills its worker again gets an error of its own. (The files a run checks in its own
process before workers start are checked as in a run with one job.)

Memory: Python hands the memory a large file took back to the C allocator, which keeps
most of it (the heap is left fragmented by the few objects that outlive a file), so a
process that has linted many files holds more than one that has linted a few. Where the C
library has `malloc_trim` (glibc), each worker gives that memory back to the system after
each batch, and the main process (or a run in one process) every `TRIM_INTERVAL` seconds:
a process then holds what its current file needs, not what all files before it left behind.
What even that cannot give back (memory pages pinned by a few small objects) could still
grow with the files a process has checked, so a worker whose resident memory has grown
more than `WORKER_GROWTH` past what it held when it started is replaced by a fresh one;
where the system does not tell a process its resident memory (no /proc), workers are
replaced after `WORKER_FILES` files each instead. Either way a run's memory has a bound
that does not depend on the number of files, and a run whose workers keep little (the
usual case) never pays for replacing them.

Small runs: starting workers costs more than checking a little work in this process, and a
file's cost follows its size and whether the cache has it, not the number of files. So a
run checks its first files here, and workers take over the rest once the time those took
says the rest would take more than `POOL_WORK` seconds, and each file takes more than
`POOL_PACE` on average: a run of a few files, of many tiny ones (where passing each file
and its result between processes costs about what checking it does) or of files mostly
served from the cache stays in one process.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections import deque
from typing import TYPE_CHECKING, TypeVar
from collections.abc import Callable, Generator, Iterator, Sequence

if TYPE_CHECKING:  # imported when a pool starts: a run served from the cache starts none
    from concurrent.futures import Future, ProcessPoolExecutor

Item = TypeVar("Item")
Result = TypeVar("Result")

#: Seconds of work left, at the pace of the items checked so far, above which the rest of a
#: run goes to workers. Starting two costs about 0.06 s of wall time (forking, passing
#: items and results over, stopping them), and they take the rest in a little over half its
#: time: from about a tenth of a second of work left they break even, beyond it they gain.
POOL_WORK = 0.1
#: Seconds of work per file, on average, below which workers cannot gain: each file and its
#: result cross between processes at about 0.1-0.2 ms, so 3,000 five-line files (0.3 ms
#: each) took longer with two jobs than with one; at a millisecond a file two gain again.
POOL_PACE = 0.001
#: Files in flight per worker: enough to keep the others busy while one works through a
#: large file that holds up the output, few enough that the results waiting hold little.
WINDOW = 32


def available_cores() -> int:
    """The cores this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def ordered_map(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    jobs: int,
    on_failure: Callable[[Item, str], Result],
    warm_up: Callable[[], object] | None = None,
    quick: Callable[[Item], Result | None] | None = None,
) -> Iterator[Result]:
    """`function` applied to each item, in the items' order, on up to `jobs` processes.

    `function` and `on_failure` must be picklable (module-level functions or instances of
    module-level classes), and `function` must not raise for a bad file; should it raise
    anyway in a worker, or its worker die, `on_failure(item, why)` stands for its result
    (checked in this process, as in a run with one job, it raises). The first items are
    checked here, and workers take the rest when it is worth them (`POOL_WORK`).
    `warm_up` runs once before workers start (what they should inherit). Large runs send
    the items in batches of a few, so that little time goes to passing them between processes.

    `quick(item)`, tried in this process first (with more than one job), is the item's
    result when it has one at little cost (a result served from the cache), else None: such
    results are not work that counts towards `POOL_WORK`, only the other items go to
    workers, and these start when the first such item comes (a run where every item is
    quick starts none)."""
    jobs = min(jobs, len(items))
    start = yield from _in_this_process(function, items, jobs, quick)
    if start < len(items):
        yield from _pooled(function, items[start:], jobs, on_failure, warm_up, quick)


def _in_this_process(
    function: Callable[[Item], Result], items: Sequence[Item], jobs: int, quick: Callable[[Item], Result | None] | None
) -> Generator[Result, None, int]:
    """The results of the first items, checked here until the pace so far says the rest
    would take more than `POOL_WORK` seconds at more than `POOL_PACE` an item (never with
    one job). Returns the index of the
    first item left to workers, `len(items)` when none is.

    The pace is CPU time, which a busy machine does not stretch. A check that imported
    modules (what the rules load on first use) does not count: that is a cost each process
    pays once, and workers forked afterwards inherit the modules. Results `quick` gives
    count as no work: they are made here either way."""
    spent, paced = 0.0, 0  # the time of the items that count, and how many they are
    last_release = time.monotonic()
    for index, item in enumerate(items):
        if jobs > 1 and spent * (len(items) - index) > POOL_WORK * max(paced, 1) and spent >= POOL_PACE * paced:
            return index
        result = _quick(quick, item) if jobs > 1 else None
        if result is None:
            modules, began = len(sys.modules), time.process_time()
            result = function(item)
            if len(sys.modules) == modules:
                spent, paced = spent + time.process_time() - began, paced + 1
        else:
            paced += 1
        yield result
        if time.monotonic() - last_release > TRIM_INTERVAL:
            release_memory()
            last_release = time.monotonic()
    return len(items)


def _pooled(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    jobs: int,
    on_failure: Callable[[Item, str], Result],
    warm_up: Callable[[], object] | None,
    quick: Callable[[Item], Result | None] | None,
) -> Iterator[Result]:
    """`ordered_map`'s results from a pool of `jobs` workers, replaced when one is worn."""
    size = max(1, min(MAX_BATCH, len(items) // (jobs * WINDOW)))
    in_flight = max(2 * jobs, jobs * WINDOW // size)  # batches: about WINDOW files a worker
    entries = _grouped(items, quick, size, jobs)
    pool: ProcessPoolExecutor | None = None
    worn = False  # a worker of the pool holds too much: the pool is replaced
    by_count = _resident() is None  # no memory to read: replaced after `WORKER_FILES` each
    sent = 0  # items sent to the current pool's workers
    last_release = time.monotonic()
    try:
        # Each entry: a batch sent to a worker and its future, or a result at hand (no batch).
        pending: deque[tuple[list[Item] | None, Future[tuple[list[Result], bool]] | None, Result | None]] = deque()
        while True:
            while len(pending) < in_flight:
                if pool is not None and (worn or by_count and sent >= jobs * WORKER_FILES):
                    if any(future is not None for _, future, _ in pending):
                        break  # the pool's workers are replaced once their last batches are in
                    pool.shutdown(wait=True)
                    pool, worn, sent = None, False, 0
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
                pending.append((batch, pool.submit(_worker_batch, function, on_failure, batch), None))
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
                results, tired = future.result()
            except BrokenProcessPool:
                assert pool is not None
                pool.shutdown(wait=True, cancel_futures=True)
                for batch, future, ready in pending:  # those that finished keep their results
                    if future is None:
                        yield ready  # type: ignore[misc]
                    elif future.done() and not future.cancelled() and future.exception() is None:
                        yield from future.result()[0]
                    else:
                        yield from _one_at_a_time(function, batch, on_failure, warm_up)  # type: ignore[arg-type]
                pending.clear()
                pool, worn, sent = _pool(jobs, warm_up), False, 0
                continue
            pending.popleft()
            worn = worn or tired
            yield from results
            if time.monotonic() - last_release > TRIM_INTERVAL:
                release_memory()  # what passing the results over took
                last_release = time.monotonic()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _grouped(
    items: Sequence[Item], quick: Callable[[Item], Result | None] | None, size: int, jobs: int = 1
) -> Iterator[tuple[list[Item] | None, Result | None]]:
    """The items in order as batches of up to `size` for workers, `(batch, None)`, and the
    results `quick` gave, `(None, result)`. Towards the end batches get smaller (none holds
    more than a `2 * jobs`-th of what is left), so that no worker is left alone with a
    large last batch while the others have nothing to do."""
    batch: list[Item] = []
    for index, item in enumerate(items):
        size = min(size, max(1, (len(items) - index) // (2 * jobs)))
        result = _quick(quick, item)
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


def _quick(quick: Callable[[Item], Result | None] | None, item: Item) -> Result | None:
    if quick is None:
        return None
    try:
        return quick(item)
    except Exception:  # checking the item tries it again, and reports what goes wrong
        return None


#: The most items sent to a worker at once.
MAX_BATCH = 8

#: Bytes a worker's resident memory may grow past what it held when it started before it
#: is replaced (see the module's docstring). What a worker keeps after each batch's trim
#: levels off: about 15 MiB after a few hundred ordinary files, about 50 MiB after a
#: 20,000-line module, neither growing with more files. The bound sits well above both, so
#: such runs never pay for a new worker, and low enough that a worker that goes on keeping
#: memory (a leak) or has checked a file several times that size gives it back.
WORKER_GROWTH = 128 * 2**20
#: Where a process cannot read its resident memory: items a worker checks before it is
#: replaced, few enough that what files leave in its heap stays bounded.
WORKER_FILES = 250


def _batch(
    function: Callable[[Item], Result], on_failure: Callable[[Item, str], Result], items: list[Item]
) -> list[Result]:
    """In a worker: the results of a batch, each item's failure its own."""
    results = [_one(function, on_failure, item) for item in items]
    release_memory()
    return results


def _worker_batch(
    function: Callable[[Item], Result], on_failure: Callable[[Item, str], Result], items: list[Item]
) -> tuple[list[Result], bool]:
    """In a worker: a batch's results, and whether the worker's memory has grown past the
    bound (the pool is then replaced)."""
    results = _batch(function, on_failure, items)
    now = _resident()
    return results, now is not None and _started is not None and now - _started > WORKER_GROWTH


#: In a worker: its resident bytes when it started (None where unknown).
_started: int | None = None


def _resident() -> int | None:
    """This process's resident memory in bytes, where the system tells it (/proc)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


#: Seconds between two `release_memory` calls of a run in one process.
TRIM_INTERVAL = 0.1


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library has none (macOS, musl, Windows);
    looked up at the first release, so a short run never loads ctypes."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def release_memory() -> None:
    """Give the memory the C allocator holds free back to the system (where it can)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _one(function: Callable[[Item], Result], on_failure: Callable[[Item, str], Result], item: Item) -> Result:
    try:
        return function(item)
    except Exception as error:  # the file's own failure, not the run's
        return on_failure(item, f"{type(error).__name__}: {error}")


def _one_at_a_time(
    function: Callable[[Item], Result],
    items: list[Item],
    on_failure: Callable[[Item, str], Result],
    warm_up: Callable[[], object] | None,
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
    import threading
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    # Forking copies the imported rules; it is safe only while this process has no other thread.
    if "fork" in methods and threading.active_count() == 1:
        return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_start)
    return ProcessPoolExecutor(jobs, initializer=_worker_start, initargs=(warm_up,))


def _worker_start(warm_up: Callable[[], object] | None = None) -> None:
    """Leave Ctrl-C to the main process (it stops the pool), import what is needed, and
    note what the worker holds then (what its growth is measured from)."""
    import signal

    global _started
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm_up is not None:
        warm_up()
    _started = _resident()
