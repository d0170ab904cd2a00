"""GPU502 delayed-called-eagerly: the rule's first flagged example against gpulint's rewrite of it."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU502")
