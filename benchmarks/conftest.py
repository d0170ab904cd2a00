"""Options for `pytest benchmarks/ --benchmark-only` (pytest-benchmark)."""

from __future__ import annotations


def pytest_addoption(parser) -> None:
    group = parser.getgroup("gpulint bench")
    group.addoption("--gpulint-n", type=int, default=1_000, help="size N the rule benchmarks run at (default: 1000)")
    group.addoption(
        "--gpulint-rounds", type=int, default=3, help="timed rounds per rule, backend and version (default: 3)"
    )
