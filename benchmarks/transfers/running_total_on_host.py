"""GPU308 running-total-on-host: the rule's first flagged example against its documented idiom."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU308")
