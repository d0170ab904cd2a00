"""GPU104 apply-axis-1: `apply(axis=1)` against one column expression (N rows)."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU104")
