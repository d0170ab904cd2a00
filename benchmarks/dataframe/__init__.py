"""Benchmarks for the dataframe rules: one module per rule, same stem as the rule."""
