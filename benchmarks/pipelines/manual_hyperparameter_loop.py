"""GPU404 manual-hyperparameter-loop: the rule's first flagged example against gpulint's rewrite of it."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU404")
