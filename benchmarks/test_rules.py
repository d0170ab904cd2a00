"""The rule benchmarks under pytest-benchmark: `pytest benchmarks/ --benchmark-only`.

One test per rule, backend and version (`before`: the flagged code, `after`: gpulint's
rewrite), at one size N (`--gpulint-n`). Each test first runs both versions and checks that
they agree, then times its own version; pytest-benchmark's table and its `--benchmark-*`
options (compare, save, histogram) do the rest. `gpulint bench` sweeps N instead.
"""

from __future__ import annotations

import gc

import pytest

from gpulint.benchmarks.backends import BACKENDS
from gpulint.benchmarks.execution import assert_same_result
from gpulint.benchmarks.harness import Runner, Settings, all_benchmarks

CASES = [(case, backend) for case in (bench.case() for bench in all_benchmarks().values()) for backend in case.backends]


@pytest.mark.parametrize("version", ["before", "after"])
@pytest.mark.parametrize("case, backend", CASES, ids=[f"{case.code}-{backend}" for case, backend in CASES])
def test_rule(benchmark, request, case, backend, version):
    problem = BACKENDS[backend].unavailable()
    if problem is not None:
        pytest.skip(f"{backend}: {problem}")
    for module in case.requires:
        pytest.importorskip(module)
    n = request.config.getoption("--gpulint-n")
    gc.collect()
    gc.freeze()  # the collection before each round (untimed) then skips the test session's objects
    request.addfinalizer(gc.unfreeze)
    with BACKENDS[backend].active():
        runner = Runner(case, BACKENDS[backend], Settings(timeout=0))
        before, _ = runner.once(runner.before, n)
        after, _ = runner.once(runner.after, n)
        assert_same_result(runner.expected(n, before), after, strict=case.strict)

        chosen = getattr(runner, version)
        benchmark.group = f"{case.code} {case.name} on {backend}, N={n:,}"
        benchmark.extra_info.update({"rule": case.code, "backend": backend, "version": version, "n": n})
        # fresh inputs for every round, made outside the timed part
        benchmark.pedantic(
            runner.execute,
            setup=lambda: ((chosen, runner.inputs(n)), {}),
            rounds=request.config.getoption("--gpulint-rounds"),
            iterations=1,
        )
