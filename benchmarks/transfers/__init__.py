"""Benchmarks for the transfers rules: one module per rule, same stem as the rule."""
