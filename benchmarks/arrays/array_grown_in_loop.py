"""GPU202 array-grown-in-loop: the rule's first flagged example against gpulint's rewrite of it."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU202")
