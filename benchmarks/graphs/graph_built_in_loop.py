"""GPU601 graph-built-in-loop: the rule's first flagged example, an edge table read with
`iterrows()` (the most frequent single shape of the labelled edge loops in
`benchmarks/realcode/graphs/`: 4 of 10), against the documented `nx.from_pandas_edgelist`."""

from gpulint.benchmarks.harness import Benchmark

#: Graphs of a million nodes take minutes to generate: the sweep stops at 100k.
benchmark = Benchmark("GPU601", sizes=(100, 1_000, 10_000, 100_000))
