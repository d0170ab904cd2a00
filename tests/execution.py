"""Running example code before and after a fix on the same generated data, and comparing.

Shared by the differential tests and the benchmark harness: `run_example` executes an
example's `setup` (with `pd`, `np`, `rng` and `N` in scope), then its source, then
evaluates its `call`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd


def run_example(setup: str, source: str, call: str, n: int = 50, seed: int = 0) -> Any:
    namespace: dict[str, Any] = {"pd": pd, "np": np, "rng": np.random.default_rng(seed), "N": n,
                                 "__name__": "gpulint_example"}
    exec(compile(setup, "<setup>", "exec"), namespace)
    exec(compile(source, "<example>", "exec"), namespace)
    return eval(compile(call, "<call>", "eval"), namespace)


def assert_same_result(before: Any, after: Any, strict: bool) -> None:
    """Equal results. `strict` (safe fixes): same values, dtypes, index and names.
    Otherwise (unsafe fixes): the same values, dtypes and names may differ."""
    if isinstance(before, pd.DataFrame):
        assert isinstance(after, pd.DataFrame), type(after)
        pd.testing.assert_frame_equal(before, after, check_dtype=strict, check_index_type=strict,
                                      check_column_type=strict, check_names=strict)
    elif isinstance(before, pd.Series):
        assert isinstance(after, pd.Series), type(after)
        pd.testing.assert_series_equal(before, after, check_dtype=strict, check_index_type=strict,
                                       check_names=strict)
    elif isinstance(before, np.ndarray):
        if strict:
            np.testing.assert_array_equal(before, after, strict=True)
        else:
            np.testing.assert_allclose(np.asarray(after, dtype=before.dtype), before)
    elif isinstance(before, (list, tuple)):
        assert isinstance(after, type(before)), (type(before), type(after))
        assert len(before) == len(after)
        for left, right in zip(before, after):
            if strict:
                assert type(left) is type(right), (type(left), type(right))
            if isinstance(left, (float, np.floating)):
                assert math.isclose(left, right, rel_tol=1e-9) or (math.isnan(left) and math.isnan(right))
            else:
                assert left == right, (left, right)
    else:
        assert before == after, (before, after)
