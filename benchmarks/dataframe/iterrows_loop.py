"""GPU102 iterrows-loop: a loop over `iterrows()` against one column expression (N rows)."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU102")
