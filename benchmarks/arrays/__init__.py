"""Benchmarks for the arrays rules: one module per rule, same stem as the rule."""
