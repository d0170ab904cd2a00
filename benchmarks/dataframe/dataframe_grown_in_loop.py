"""GPU101 dataframe-grown-in-loop: a frame grown with `concat` per step, against the pieces
collected in a list and concatenated once (N pieces)."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU101")
