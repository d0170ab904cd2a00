"""Running example code before and after a fix on the same generated data, and comparing.

The one copy lives in the benchmark harness (`gpulint.benchmarks.execution`), which times
the same examples; the differential tests use it from here: `run_example` executes an
example's `setup` (with `pd`, `np`, `rng` and `N` in scope), then its source, then
evaluates its `call`; `assert_same_result` compares two results.
"""

from gpulint.benchmarks.execution import assert_same_result, run_example, to_host

__all__ = ["assert_same_result", "run_example", "to_host"]
