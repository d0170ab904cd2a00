"""The benchmark harness: each rule's first flagged example, before and after gpulint's
rewrite, executed on generated data of growing size and timed.

A rule's benchmark is one small module, `benchmarks/<family>/<stem>.py` (the rule's own
family and stem), that declares `benchmark = Benchmark("GPU102")`, optionally with its own
sizes, backends or example. Everything else comes from the rule: the "before" code is its
first flagged example that can be executed, the "after" code is what the rule's fixer makes
of it (`fix_text` with that rule alone, unsafe fixes included), or, for a rule whose fixer
only suggests, the example's documented `idiom`; the data comes from the example's `setup`
at size N, and the compared value from its `call`.

Before the first size, each version runs once untimed (a warm-up: first imports, worker
pools and kernel compilation are not measured). Then, for each backend and each size N:

1. both versions run once on fresh inputs and their results are compared (values equal;
   dtypes and index too for a safe fix; for a fix that changes behaviour on purpose, the
   rewrite's result against the example's `intended` one). A difference fails the sweep:
   nothing is timed.
2. each version is timed: setup and copying inputs to the device are not timed; running
   the code and evaluating `call` are (plus a device synchronisation on a GPU). A version
   whose check run took at least `min_time` counts that run (on a GPU the check run, which
   may compile kernels for the new size, is never counted); a faster one is run again until
   `min_time` has passed (at most `max_repeat` runs) and the best run counts.
3. a version whose run exceeded `budget` seconds is not run at larger N ("stopped"), and
   every run is interrupted after `timeout` seconds: the table then shows a lower bound.

The antipattern usually stops long before the rewrite does; the rewrite goes on alone to
the largest N, to show how it scales.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import gc
import importlib
import os
import pkgutil
import platform
import signal
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from types import CodeType
from typing import Any
from collections.abc import Callable, Iterator

from .backends import BACKENDS, Backend, apply_swap, default_backends
from .results import Point, Run, Sweep

DEFAULT_SIZES = (100, 1_000, 10_000, 100_000, 1_000_000)
QUICK_SIZES = (10, 100)
#: What N counts, by rule family, for the headline ("~1,600x faster at 10k rows").
UNITS = {
    "dataframe": "rows",
    "arrays": "elements",
    "transfers": "elements",
    "pipelines": "samples",
    "parallel": "items",
    "graphs": "nodes",
}
FAMILIES = tuple(UNITS)


class BenchmarkError(Exception):
    """A benchmark that cannot be set up (unknown rule, no executable example, no rewrite)."""


@dataclass(frozen=True)
class Case:
    """The code a sweep runs: everything taken from one of the rule's examples."""

    code: str
    name: str
    before: str
    after: str
    setup: str
    call: str
    strict: bool = False  # safe fix: dtypes and index must match too
    rewrite: str = "fix"  # "fix" or "idiom"
    requires: tuple[str, ...] = ()
    #: For a fix that changes behaviour on purpose: the expression (over `setup` alone)
    #: the rewrite's result is compared with, instead of the flagged code's.
    intended: str | None = None
    unit: str = "rows"
    sizes: tuple[int, ...] = DEFAULT_SIZES
    backends: tuple[str, ...] = ()


@dataclass(frozen=True)
class Benchmark:
    """What a rule's benchmark module declares."""

    code: str
    #: Which flagged example (index into `rule.flagged`); default: the first one that has
    #: `call` and a rewrite.
    example: int | None = None
    sizes: tuple[int, ...] = DEFAULT_SIZES
    #: Backend names; default: from the libraries the example imports (`default_backends`).
    backends: tuple[str, ...] | None = None
    #: What N counts, for the headline; default: by the rule's family.
    unit: str | None = None

    def case(self) -> Case:
        """The rule's example, and gpulint's rewrite of it."""
        from gpulint import Applicability, fix_text, lint_source, rule_by_key

        rule = rule_by_key(self.code)
        if rule is None:
            raise BenchmarkError(f"{self.code}: no such rule")
        candidates = list(enumerate(rule.flagged))
        if self.example is not None:
            candidates = candidates[self.example : self.example + 1]
        for _index, example in candidates:
            if not example.runnable:
                continue
            after = fix_text(example.source, rules=[rule], unsafe_fixes=True)  # this rule's own fix
            rewrite = "fix"
            if after == example.source:
                after, rewrite = example.idiom, "idiom"
            if after is None:
                continue
            diagnostics = lint_source(example.source, rules=[rule])
            strict = rewrite == "fix" and any(
                d.fix is not None and d.fix.applicability is Applicability.SAFE for d in diagnostics
            )
            backends = self.backends or default_backends([example.source, after], example.requires)
            return Case(
                code=rule.code,
                name=rule.name,
                before=example.source,
                after=after,
                setup=example.setup,
                call=example.call or "",
                strict=strict,
                rewrite=rewrite,
                requires=example.requires,
                intended=getattr(example, "intended", None),
                unit=self.unit or UNITS.get(rule.family(), "items"),
                sizes=self.sizes,
                backends=backends,
            )
        which = f"example {self.example}" if self.example is not None else "no flagged example"
        raise BenchmarkError(f"{rule.code}: {which} has `call` and a rewrite (a fix or an idiom) to time")


def all_benchmarks() -> dict[str, Benchmark]:
    """Every rule benchmark, by rule code: the `benchmark` of each module under
    `gpulint.benchmarks.<family>`."""
    found: dict[str, Benchmark] = {}
    for family in FAMILIES:
        package = importlib.import_module(f"{__package__}.{family}")
        for info in pkgutil.iter_modules(package.__path__, prefix=package.__name__ + "."):
            module = importlib.import_module(info.name)
            bench = getattr(module, "benchmark", None)
            if isinstance(bench, Benchmark):
                found[bench.code] = bench
    return dict(sorted(found.items()))


# -- settings and timing ---------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    sizes: tuple[int, ...] | None = None  # None: each benchmark's own
    max_n: int | None = None
    quick: bool = False  # tiny N, one run each, no budget or timeout: a correctness check
    budget: float = 1.0  # seconds; a version whose run takes longer stops growing N
    timeout: float = 10.0  # seconds; a run is interrupted after this long
    min_time: float = 0.2
    max_repeat: int = 5
    seed: int = 0

    def sizes_for(self, case: Case) -> tuple[int, ...]:
        sizes = QUICK_SIZES if self.quick else (self.sizes or case.sizes)
        if self.max_n is not None:
            sizes = tuple(n for n in sizes if n <= self.max_n) or (min(sizes[0], self.max_n),)
        return tuple(sizes)

    def as_json(self) -> dict[str, Any]:
        return {
            "quick": self.quick,
            "budget_s": self.budget,
            "timeout_s": self.timeout,
            "min_time_s": self.min_time,
            "max_repeat": self.max_repeat,
            "max_n": self.max_n,
            "seed": self.seed,
            "timer": "time.perf_counter, best run",
        }


class RunTimeout(BaseException):
    """A timed run went past the timeout. A BaseException, like KeyboardInterrupt, so that
    library code catching `Exception` cannot swallow it."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise RunTimeout in the running code after `seconds` (SIGALRM; on platforms or
    threads without it, runs are not interrupted and only the budget stops a version)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable or seconds <= 0:
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise RunTimeout()

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class _Version:
    label: str  # "before" or "after"
    code: CodeType
    stopped: str | None = None  # why it no longer runs


class Runner:
    """Runs one case on one backend: fresh inputs per run, the code, the call."""

    def __init__(self, case: Case, backend: Backend, settings: Settings) -> None:
        from .execution import compiled

        self.case, self.backend, self.settings = case, backend, settings
        self.swap = backend.swapped_for([case.before, case.after])
        self.setup = compiled(case.setup, "<setup>")
        self.call = compiled(case.call, "<call>", "eval")
        self.before = _Version("before", compiled(case.before, "<before>"))
        self.after = _Version("after", compiled(case.after, "<after>"))
        self.intended = compiled(case.intended, "<intended>", "eval") if case.intended else None

    def inputs(self, n: int) -> dict[str, Any]:
        """Fresh inputs of size n, on the backend's device (the part that is not timed)."""
        from .execution import prepare

        namespace = prepare(self.setup, n, self.settings.seed)
        if self.backend.to_device is not None:
            self.backend.to_device(namespace)
        apply_swap(namespace, self.swap)
        self._sync()
        gc.collect()  # cheap: run_sweep froze everything that existed before the sweep
        return namespace

    def expected(self, n: int, before: Any) -> Any:
        """What the rewrite must return at size n: the flagged code's result, or, for a fix
        that changes behaviour on purpose, the intended result."""
        return before if self.intended is None else eval(self.intended, self.inputs(n))

    def execute(self, version: _Version, namespace: dict[str, Any]) -> Any:
        """Run a version on prepared inputs and evaluate the call (the part that is timed).
        Warnings the example's code triggers (pandas' chained-assignment warning, say) are
        silenced: they belong to the example, not to the measurement."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(version.code, namespace)
            value = eval(self.call, namespace)
            self._sync()
        return value

    def once(self, version: _Version, n: int, limit: bool = True) -> tuple[Any, float]:
        """One run of a version at size n: its result and the seconds it took (interrupted
        after the timeout, unless `limit` is false or this is a quick run)."""
        namespace = self.inputs(n)
        with deadline(self.settings.timeout if limit and not self.settings.quick else 0):
            start = time.perf_counter()
            value = self.execute(version, namespace)
            elapsed = time.perf_counter() - start
        return value, elapsed

    def _sync(self) -> None:
        if self.backend.sync is not None:
            self.backend.sync()

    def warm_up(self, n: int) -> None:
        """Run each version once, untimed and without a timeout, so that one-time costs
        (first imports, worker pools, compiled kernels) fall outside the measurements.
        A version that fails here fails again in its check run, which reports it."""
        for version in (self.before, self.after):
            try:
                self.once(version, n, limit=False)
            except Exception:
                pass

    def timed(self, version: _Version, n: int, first: float) -> list[float]:
        """The runs that count, given the check run's time."""
        settings = self.settings
        if settings.quick or first >= settings.budget or (first >= settings.min_time and not self.backend.gpu):
            return [first]
        runs: list[float] = []
        while len(runs) < settings.max_repeat and sum(runs) < settings.min_time:
            runs.append(self.once(version, n)[1])
        return runs


def run_sweep(case: Case, backend: Backend, settings: Settings, step: Callable[[int], None] | None = None) -> Sweep:
    """Measure a case on a backend at every size; `step(k)` reports k sizes done."""
    from .execution import assert_same_result

    sweep = Sweep(
        code=case.code,
        name=case.name,
        backend=backend.name,
        device=backend.device,
        unit=case.unit,
        rewrite=case.rewrite,
    )
    sizes = settings.sizes_for(case)
    done = 0

    def advance(k: int = 1) -> None:
        nonlocal done
        done += k
        if step is not None:
            step(k)

    problem = backend.unavailable() or _missing(case.requires)
    if problem is not None:
        sweep.status, sweep.message = "skipped", problem
        advance(len(sizes))
        return sweep

    # Everything alive now (the libraries, the test runner...) is left out of garbage
    # collection for the sweep, so that collecting before each run costs microseconds.
    gc.collect()
    gc.freeze()
    try:
        with backend.active():
            runner = Runner(case, backend, settings)
            if not settings.quick:
                runner.warm_up(sizes[0])
            for n in sizes:
                if runner.before.stopped and runner.after.stopped:
                    break
                point = Point(n=n)
                sweep.points.append(point)
                results: dict[str, Any] = {}
                firsts: dict[str, float] = {}
                for version in (runner.before, runner.after):
                    if version.stopped:
                        setattr(point, f"{version.label}_note", f"stopped: {version.stopped}")
                        continue
                    try:
                        results[version.label], firsts[version.label] = runner.once(version, n)
                    except RunTimeout:
                        setattr(point, f"{version.label}_over", settings.timeout)
                        version.stopped = f"a run at N={n:,} went past the {settings.timeout:g} s timeout"
                        setattr(point, f"{version.label}_note", f"stopped: {version.stopped}")
                    except Exception as error:
                        reason = f"{type(error).__name__}: {_first_line(error)}"
                        if not backend.gpu:
                            sweep.status = "failed"
                            sweep.message = f"the {version.label} code raised at N={n:,}: {reason}"
                            return sweep
                        version.stopped = f"does not run on {backend.name}: {reason}"
                        setattr(point, f"{version.label}_note", version.stopped)
                if "after" in results and ("before" in results or runner.intended is not None):
                    try:
                        assert_same_result(
                            runner.expected(n, results.get("before")), results["after"], strict=case.strict
                        )
                    except AssertionError as error:
                        sweep.status = "failed"
                        sweep.message = f"before and after differ at N={n:,}: {_first_line(error)}"
                        sweep.points.pop()
                        return sweep
                    point.compared = True
                del results  # the results of a large N can be large: free them before timing
                for version in (runner.before, runner.after):
                    if version.label not in firsts:
                        continue
                    try:
                        runs = runner.timed(version, n, firsts[version.label])
                    except RunTimeout:
                        runs = [firsts[version.label]]
                    setattr(point, f"{version.label}_runs", runs)
                    best = min(runs)
                    setattr(point, version.label, best)
                    if best > settings.budget and not settings.quick:
                        version.stopped = f"{best:.2g} s per run at N={n:,} is over the {settings.budget:g} s budget"
                advance()
    except Exception as error:  # anything else (memory, an intended result that fails...)
        sweep.status = "failed"
        sweep.message = f"the benchmark itself failed: {type(error).__name__}: {_first_line(error)}"
        return sweep
    finally:
        gc.unfreeze()
        advance(len(sizes) - done)
    notes = [f"{v.label} {v.stopped}" for v in (runner.before, runner.after) if v.stopped]
    sweep.message = "; ".join(notes)
    return sweep


def _missing(modules: tuple[str, ...]) -> str | None:
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            return f"the example needs {module}, which is not installed"
    return None


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else type(error).__name__


# -- a whole run -------------------------------------------------------------------------------


LIBRARIES = (
    ("pandas", "pandas"),
    ("numpy", "numpy"),
    ("scikit-learn", "sklearn"),
    ("torch", "torch"),
    ("dask", "dask"),
    ("networkx", "networkx"),
    ("cupy", "cupy"),
    ("cudf", "cudf"),
)


def library_versions(backends: list[Backend]) -> dict[str, str]:
    """Versions of the data libraries the run used (only those that are installed)."""
    used = {b.library for b in backends} | {"numpy"}
    versions = {"python": platform.python_version()}
    for label, module in LIBRARIES:
        if module in used or module in sys.modules:
            loaded = sys.modules.get(module)
            version = getattr(loaded, "__version__", None) if loaded is not None else None
            if version:
                versions[label] = str(version)
    return versions


def machine_info(backends: list[Backend]) -> dict[str, Any]:
    info: dict[str, Any] = {
        "system": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
    }
    if any(b.gpu for b in backends):
        info["gpu"] = _gpu_name()
    return info


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _gpu_name() -> str | None:
    for probe in (_torch_gpu, _cupy_gpu):
        try:
            name = probe()
        except Exception:
            continue
        if name:
            return name
    return None


def _torch_gpu() -> str | None:
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


def _cupy_gpu() -> str | None:
    import cupy

    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def plan(benchmarks: list[Benchmark], backend_names: tuple[str, ...] | None) -> list[tuple[Case, Backend]]:
    """The (case, backend) pairs to measure: each benchmark on its backends, limited to
    `backend_names` when given."""
    pairs = []
    for bench in benchmarks:
        case = bench.case()
        for name in case.backends:
            if backend_names is None or name in backend_names:
                pairs.append((case, BACKENDS[name]))
    return pairs


def run_all(
    pairs: list[tuple[Case, Backend]],
    settings: Settings,
    step: Callable[[int], None] | None = None,
    started: Callable[[Case, Backend], None] | None = None,
) -> Run:
    sweeps = []
    for case, backend in pairs:
        if started is not None:
            started(case, backend)
        sweeps.append(run_sweep(case, backend, settings, step))
    from gpulint import __version__

    used = [backend for (_, backend), sweep in zip(pairs, sweeps, strict=False) if sweep.status != "skipped"]
    return Run(
        date=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        gpulint=__version__,
        machine=machine_info(used),
        libraries=library_versions(used),
        settings=settings.as_json(),
        sweeps=sweeps,
    )


__all__ = [
    "Benchmark",
    "BenchmarkError",
    "Case",
    "DEFAULT_SIZES",
    "QUICK_SIZES",
    "RunTimeout",
    "Settings",
    "all_benchmarks",
    "deadline",
    "plan",
    "run_all",
    "run_sweep",
]
