"""GPU301 device-to-host-in-loop: the rule's first flagged example against its documented idiom."""

from gpulint.benchmarks.harness import Benchmark

benchmark = Benchmark("GPU301")
