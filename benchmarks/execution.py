"""Running example code on generated data, and comparing what two versions of it return.

One copy serves the differential tests (`tests/execution.py` re-exports it) and the
benchmark harness. An example's `setup` runs with `pd`, `np`, `rng` (a seeded NumPy
generator) and the size `N` in scope; then its source runs in the same namespace, and its
`call` expression gives the value that is compared before and after a rewrite.

NumPy is needed; pandas is put in scope when it is installed. Nothing here imports CuPy,
cuDF or torch: values from those libraries are recognised by their type's module and
copied to the host (`to_host`) before they are compared.
"""

from __future__ import annotations

import math
import numbers
from types import CodeType
from typing import Any


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def compiled(code: str | CodeType, filename: str, mode: str = "exec") -> CodeType:
    """`code` compiled once (so that a timed run does not pay for compiling it)."""
    return code if isinstance(code, CodeType) else compile(code, filename, mode)


def prepare(setup: str | CodeType, n: int, seed: int = 0) -> dict[str, Any]:
    """A fresh namespace holding the example's inputs: `setup` run with `pd`, `np`, `rng`, `N`."""
    import numpy as np

    namespace: dict[str, Any] = {
        "pd": _pandas(),
        "np": np,
        "rng": np.random.default_rng(seed),
        "N": n,
        "__name__": "gpulint_example",
    }
    exec(compiled(setup, "<setup>"), namespace)
    return namespace


def execute(namespace: dict[str, Any], source: str | CodeType, call: str | CodeType) -> Any:
    """Run the example's source in `namespace`, then evaluate its `call` there."""
    exec(compiled(source, "<example>"), namespace)
    return eval(compiled(call, "<call>", "eval"), namespace)


def run_example(setup: str, source: str, call: str, n: int = 50, seed: int = 0) -> Any:
    """Build the inputs for size `n`, run `source`, and return the value of `call`."""
    return execute(prepare(setup, n, seed), source, call)


def to_host(value: Any) -> Any:
    """`value` with device data (CuPy arrays, cuDF objects) and torch tensors turned into
    their NumPy/pandas equivalents, inside lists, tuples and dicts too."""
    top = type(value).__module__.split(".", 1)[0]
    if top == "cupy" and hasattr(value, "get"):
        return value.get()
    if top == "cudf" and hasattr(value, "to_pandas"):
        return value.to_pandas()
    if top == "torch" and hasattr(value, "detach"):
        return _tensor_on_host(value)
    if isinstance(value, (list, tuple)):
        return type(value)(to_host(item) for item in value)
    if isinstance(value, dict):
        return {key: to_host(item) for key, item in value.items()}
    return value


def _tensor_on_host(tensor: Any) -> Any:
    """A tensor's values as a NumPy array: dense, with its conjugate and negative bits
    resolved; a dtype NumPy lacks (`bfloat16`) as its name beside the values in float32."""
    tensor = tensor.detach().cpu()
    if tensor.is_sparse:
        tensor = tensor.to_dense()
    tensor = tensor.resolve_conj().resolve_neg()
    try:
        return tensor.numpy()
    except TypeError:
        return (str(tensor.dtype), tensor.float().numpy())


def _is_scalar_number(value: Any) -> bool:
    import numpy as np

    if isinstance(value, np.ndarray):
        return value.ndim == 0 and value.dtype.kind in "biufc"
    return isinstance(value, (numbers.Number, np.number)) and not isinstance(value, bool)


def assert_same_result(before: Any, after: Any, strict: bool) -> None:
    """Equal results. `strict` (safe fixes): same values, dtypes, index and names.
    Otherwise (unsafe fixes, idioms): the same values (floats to a relative 1e-9), while
    dtypes and names may differ. Device data and tensors are compared on the host."""
    import numpy as np

    before, after = to_host(before), to_host(after)
    pd = _pandas()
    if pd is not None and isinstance(before, pd.DataFrame):
        assert isinstance(after, pd.DataFrame), type(after)
        pd.testing.assert_frame_equal(
            before, after, check_dtype=strict, check_index_type=strict, check_column_type=strict, check_names=strict
        )
    elif pd is not None and isinstance(before, pd.Series):
        assert isinstance(after, pd.Series), type(after)
        pd.testing.assert_series_equal(before, after, check_dtype=strict, check_index_type=strict, check_names=strict)
    elif isinstance(before, np.ndarray) and (strict or before.ndim > 0):
        if strict:
            np.testing.assert_array_equal(before, after, strict=True)
        else:
            np.testing.assert_allclose(np.asarray(after, dtype=before.dtype), before)
    elif isinstance(before, (list, tuple)):
        assert isinstance(after, type(before)), (type(before), type(after))
        assert len(before) == len(after)
        for left, right in zip(before, after, strict=False):
            if strict:
                assert type(left) is type(right), (type(left), type(right))
            if isinstance(left, (float, np.floating)):
                assert math.isclose(left, right, rel_tol=1e-9) or (math.isnan(left) and math.isnan(right))
            else:
                assert left == right, (left, right)
    elif isinstance(before, dict):
        assert isinstance(after, dict), type(after)
        assert list(before) == list(after), (list(before), list(after))
        for key in before:
            assert_same_result(before[key], after[key], strict)
    elif not strict and _is_scalar_number(before) and _is_scalar_number(after):
        left, right = complex(before), complex(after)
        assert math.isclose(left.real, right.real, rel_tol=1e-9, abs_tol=0.0) or (
            math.isnan(left.real) and math.isnan(right.real)
        ), (before, after)
        assert math.isclose(left.imag, right.imag, rel_tol=1e-9), (before, after)
    else:
        assert before == after, (before, after)
