"""GPU203 np-vectorize: the rule's first flagged example against gpulint's rewrite of it."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU203")
