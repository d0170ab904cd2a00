"""Benchmarks for the graph rules: one module per rule, same stem as the rule."""
