"""GPU603 python-loop-over-graph: the rule's first flagged example, degrees by
`len(list(G.neighbors(n)))` (degrees by hand are 7 of the 11 labelled instances in
`benchmarks/realcode/graphs/`, 4 of them in this form), against `dict(G.degree())`."""

from gpulint.benchmarks.harness import Benchmark

#: Graphs of a million nodes take minutes to generate: the sweep stops at 100k.
benchmark = Benchmark("GPU603", sizes=(100, 1_000, 10_000, 100_000))
