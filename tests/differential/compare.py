"""Telling two program results apart by the kind of difference, not just "unequal".

`differences(before, after)` returns the set of difference classes between what the
original and the fixed program produced (empty when they are identical):

- ``dtype``: the same values held in another dtype or scalar type (`int` vs `np.int64`,
  `int64` vs `float64` columns, `None` vs `NaN` as the missing value);
- ``index``: the same values under another index (other labels or another index type);
- ``names``: the same values under another Series/index/columns name;
- ``rounding``: floats equal to a relative 1e-9 but not exactly (a sum added in another
  order);
- ``overflow``: integers that differ by a multiple of 2**8, 2**16, 2**32 or 2**64, or a
  Python integer that no longer fits in int64 (one side wrapped around);
- ``nan``: a missing value on one side where the other has a value;
- ``empty-shape``: two empty results of another shape or kind (an empty frame vs an empty
  Series, a column created on a frame with no rows);
- ``type``: another kind of container (a list vs an array, rows as lists vs arrays);
- ``value``: anything else.

Device values and tensors are compared on the host (`to_host`).
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any

import numpy as np
import pandas as pd

from tests.execution import to_host

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
INT64 = (-(2**63), 2**63 - 1)
_WRAPS = (2**8, 2**16, 2**32, 2**64)


def differences(before: Any, after: Any) -> set[str]:
    """The difference classes between two results (see the module docstring)."""
    found: set[str] = set()
    _diff(to_host(before), to_host(after), found)
    return found


def _is_missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    try:
        return isinstance(value, (float, np.floating)) and math.isnan(value)
    except TypeError:
        return False


def _empty(value: Any) -> bool:
    return isinstance(value, (pd.DataFrame, pd.Series, np.ndarray)) and value.size == 0


def _diff(before: Any, after: Any, found: set[str]) -> None:
    if isinstance(before, (pd.DataFrame, pd.Series)) or isinstance(after, (pd.DataFrame, pd.Series)):
        _diff_pandas(before, after, found)
    elif isinstance(before, np.ndarray) and isinstance(after, np.ndarray):
        _diff_arrays(before, after, found)
    elif isinstance(before, np.ndarray) or isinstance(after, np.ndarray):
        if _is_scalar(before) and _is_scalar(after):
            # a 0-d array against a scalar: the same value in another type
            found.add("dtype")
            _diff_scalars(before, after, found, typed=False)
        elif _is_sequence(before) and _is_sequence(after):
            found.add("type")
            _diff_sequences(_as_list(before), _as_list(after), found)
        else:
            found.add("value")
    elif isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)):
        if type(before) is not type(after):
            found.add("type")
        _diff_sequences(before, after, found)
    elif isinstance(before, dict) and isinstance(after, dict):
        if list(before) != list(after):
            found.add("value")
        for key in before.keys() & after.keys():
            _diff(before[key], after[key], found)
    elif _is_scalar(before) and _is_scalar(after):
        _diff_scalars(before, after, found, typed=True)
    elif type(before) is not type(after):
        found.add("type")
    else:
        _diff_opaque(before, after, found)


def _is_scalar(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, np.ndarray):
        return value.ndim == 0
    return isinstance(value, (numbers.Number, np.generic, str, bytes))


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or isinstance(value, np.ndarray) and value.ndim > 0


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else list(value)


def _diff_sequences(before: Any, after: Any, found: set[str]) -> None:
    if len(before) != len(after):
        found.add("value")
        return
    for left, right in zip(before, after, strict=False):
        _diff(left, right, found)


def _diff_scalars(before: Any, after: Any, found: set[str], typed: bool) -> None:
    if isinstance(before, np.ndarray):
        before = before.item()
        found.add("dtype")
    if isinstance(after, np.ndarray):
        after = after.item()
        found.add("dtype")
    if typed and type(before) is not type(after):
        if not (_is_missing(before) and _is_missing(after) and type(before) is type(after)):
            found.add("dtype")
    if _is_missing(before) or _is_missing(after):
        if not (_is_missing(before) and _is_missing(after)):
            found.add("nan")
        return
    if isinstance(before, (str, bytes)) or isinstance(after, (str, bytes)):
        if before != after:
            found.add("value")
        return
    if isinstance(before, (bool, np.bool_)) != isinstance(after, (bool, np.bool_)):
        # True against 1: the same number only if it is one; bool arithmetic differs
        if _number(before) != _number(after):
            found.add("value")
        else:
            found.add("dtype")
        return
    left, right = _number(before), _number(after)
    if left == right:
        return
    if isinstance(left, int) and isinstance(right, int):
        if any((left - right) % wrap == 0 for wrap in _WRAPS) or not _fits(left) or not _fits(right):
            found.add("overflow")
        else:
            found.add("value")
        return
    if (
        isinstance(left, int) != isinstance(right, int)
        and isinstance(left, (int, float))
        and isinstance(right, (int, float))
        and _as_float(left) == _as_float(right)
    ):
        found.add("dtype")  # an integer held as the nearest float: the float dtype's rounding
        return
    if isinstance(left, int) and not _fits(left) or isinstance(right, int) and not _fits(right):
        found.add("overflow")
        return
    try:
        lc, rc = complex(left), complex(right)
    except (TypeError, OverflowError):
        found.add("value")
        return
    if _identical(lc.real, rc.real) and _identical(lc.imag, rc.imag):
        return  # a complex number with a NaN part, on both sides
    if _close(lc.real, rc.real) and _close(lc.imag, rc.imag):
        found.add("rounding")
    elif any(math.isinf(part) for part in (lc.real, lc.imag, rc.real, rc.imag)) and _is_int_like(before, after):
        found.add("overflow")
    else:
        found.add("value")


def _is_int_like(before: Any, after: Any) -> bool:
    return isinstance(before, (int, np.integer)) or isinstance(after, (int, np.integer))


def _fits(value: int) -> bool:
    return INT64[0] <= value <= INT64[1]


def _identical(left: float, right: float) -> bool:
    return left == right or math.isnan(left) and math.isnan(right)


def _close(left: float, right: float) -> bool:
    if math.isnan(left) or math.isnan(right):
        return math.isnan(left) and math.isnan(right)
    return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-300)


def _number(value: Any) -> Any:
    """A NumPy scalar as the Python number it holds (exact for integers)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _diff_arrays(before: np.ndarray, after: np.ndarray, found: set[str]) -> None:
    if before.shape != after.shape:
        if before.size == 0 and after.size == 0:
            found.add("empty-shape")
        elif before.size == after.size:
            found.add("type")
        else:
            found.add("value")
            return
    if before.dtype != after.dtype:
        found.add("dtype")
    flat_before, flat_after = before.ravel().tolist(), after.ravel().tolist()
    if len(flat_before) != len(flat_after):
        return
    for left, right in zip(flat_before, flat_after, strict=False):
        _diff_scalars(left, right, found, typed=False)


def _diff_index(before: pd.Index, after: pd.Index, found: set[str]) -> None:
    if not before.equals(after) or type(before) is not type(after) or before.dtype != after.dtype:
        found.add("index")
    if list(before.names) != list(after.names):
        found.add("names")


def _diff_pandas(before: Any, after: Any, found: set[str]) -> None:
    if type(before) is not type(after):
        found.add("empty-shape" if _empty(before) and _empty(after) else "type")
        if (
            isinstance(before, pd.Series)
            and isinstance(after, np.ndarray)
            or isinstance(after, pd.Series)
            and isinstance(before, np.ndarray)
        ):
            _diff_sequences(
                _as_list(np.asarray(before, dtype=object)), _as_list(np.asarray(after, dtype=object)), found
            )
        return
    if isinstance(before, pd.DataFrame):
        if list(before.columns) != list(after.columns):
            found.add("empty-shape" if len(before) == 0 and len(after) == 0 else "value")
            common = [c for c in before.columns if c in set(after.columns)]
        else:
            common = list(before.columns)
            if before.columns.dtype != after.columns.dtype or type(before.columns) is not type(after.columns):
                found.add("index")
            if list(before.columns.names) != list(after.columns.names):
                found.add("names")
        _diff_index(before.index, after.index, found)
        if len(before) != len(after):
            found.add("value")
            return
        for column in common:
            left, right = before[column], after[column]
            if isinstance(left, pd.DataFrame) or isinstance(right, pd.DataFrame):
                _diff(left, right, found)
                continue
            _diff_series_values(left, right, found)
        return
    _diff_index(before.index, after.index, found)
    if before.name != after.name and not (_is_missing(before.name) and _is_missing(after.name)):
        found.add("names")
    if len(before) != len(after):
        found.add("value")
        return
    _diff_series_values(before, after, found)


def _diff_series_values(before: pd.Series, after: pd.Series, found: set[str]) -> None:
    if before.dtype != after.dtype:
        found.add("dtype")
    for left, right in zip(before.tolist(), after.tolist(), strict=False):
        _diff_scalars(left, right, found, typed=False)


def _diff_opaque(before: Any, after: Any, found: set[str]) -> None:
    """Objects of the same type that are not data: equal, or the same repr (addresses aside)."""
    try:
        same = bool(before == after)
    except Exception:
        same = False
    if not same and _ADDRESS.sub("", repr(before)) != _ADDRESS.sub("", repr(after)):
        found.add("value")


def _as_float(value: int | float) -> float | None:
    try:
        return float(value)
    except OverflowError:
        return None
