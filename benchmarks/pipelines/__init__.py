"""Benchmarks for the pipelines rules: one module per rule, same stem as the rule."""
