"""Benchmarks for the parallel rules: one module per rule, same stem as the rule."""
