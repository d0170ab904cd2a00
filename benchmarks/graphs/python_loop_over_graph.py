"""GPU603 python-loop-over-graph: the rule's first flagged example against gpulint's rewrite of it."""

from gpulint.benchmarks.harness import Benchmark

#: Graphs of a million nodes take minutes to generate: the sweep stops at 100k.
benchmark = Benchmark("GPU603", sizes=(100, 1_000, 10_000, 100_000))
