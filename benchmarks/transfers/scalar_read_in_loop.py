"""GPU307 scalar-read-in-loop: the rule's first flagged example against its documented idiom."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU307")
