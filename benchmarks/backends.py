"""Where a benchmark runs: the library and device each version of an example is timed on.

A CPU backend runs the example as written. A GPU backend runs *the same code with a
module swapped*: `import pandas as pd` gives cuDF on the `cudf` backend, `import numpy as
np` gives CuPy on the `cupy` backend (imports inside functions too, and `from pandas
import DataFrame`). The inputs are generated on the host by the example's `setup`, as on
the CPU, and copied to the device before the clock starts; results come back to the host
to be compared. torch examples pick their device themselves
(`"cuda" if torch.cuda.is_available() else "cpu"`): the `torch` backend hides CUDA from
them, `torch-cuda` needs it.

A backend whose library or device is missing is skipped with the reason, never an error.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dis
import importlib
import sys
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterator, Mapping


@dataclass(frozen=True)
class Backend:
    name: str
    device: str  # "CPU" or "GPU"
    #: The module the backend needs, and how to install it when it is missing.
    library: str
    install: str
    #: Example imports replaced on this backend: {"pandas": "cudf"}.
    swap: Mapping[str, str] = field(default_factory=dict)
    #: Turns the host inputs built by `setup` into this backend's objects (in place).
    to_device: Callable[[dict[str, Any]], None] | None = None
    #: Waits for the device to finish, so that a timed run includes all of its work.
    sync: Callable[[], None] | None = None
    #: Why the device itself is unusable (None: usable); called once the library imports.
    device_problem: Callable[[], str | None] | None = None
    #: Entered around every run on this backend.
    session: Callable[[], contextlib.AbstractContextManager] | None = None

    @property
    def gpu(self) -> bool:
        return self.device == "GPU"

    def unavailable(self) -> str | None:
        """Why this backend cannot run here, or None when it can."""
        try:
            importlib.import_module(self.library)
        except Exception as error:  # ImportError, or a GPU library failing to find a driver
            if isinstance(error, ModuleNotFoundError) and error.name == self.library:
                return f"{self.library} is not installed ({self.install})"
            return f"{self.library} does not import: {type(error).__name__}: {error}"
        if self.device_problem is not None:
            return self.device_problem()
        return None

    def active(self) -> contextlib.AbstractContextManager:
        """The context every run on this backend happens in."""
        return self.session() if self.session is not None else contextlib.nullcontext()

    def swapped_for(self, sources: list[str]) -> dict[str, str]:
        """The swaps that apply to an example: none for code that already imports the
        replacement (native CuPy/cuDF code keeps its NumPy/pandas host side)."""
        imported = set().union(*(imported_modules(source) for source in sources)) if sources else set()
        return {old: new for old, new in self.swap.items() if new not in imported}


def imported_modules(source: str) -> set[str]:
    """The top-level modules a piece of code imports."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".", 1)[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".", 1)[0])
    return modules


_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def _called_by_import_statement() -> bool:
    """Whether the running `__import__` was called by an `import` statement, rather than by
    a library's compiled code that imports while the example's frame is the current one
    (NumPy importing `numpy._core._methods` inside `x.sum()`, pickle importing `numpy`):
    those must get the real module."""
    frame = sys._getframe(2)  # 0: this function, 1: the swapped __import__, 2: its caller
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] == _IMPORT_NAME


def swapping_builtins(swap: Mapping[str, str]) -> dict[str, Any]:
    """A copy of the builtins whose `__import__` maps each module in `swap` (and its
    submodules) to its replacement, for the example's own `import` statements: the
    `__builtins__` of a namespace that runs an example with, say, cuDF wherever it imports
    pandas."""
    original = builtins.__import__

    def swapped_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        top, dot, rest = name.partition(".")
        if level == 0 and top in swap and _called_by_import_statement():
            replacement = swap[top] + dot + rest
            module = importlib.import_module(replacement)
            return module if fromlist else importlib.import_module(swap[top])
        return original(name, globals, locals, fromlist, level)

    table = dict(vars(builtins))
    table["__import__"] = swapped_import
    return table


def apply_swap(namespace: dict[str, Any], swap: Mapping[str, str]) -> None:
    """Make a namespace built by `setup` run the example with swapped modules: its
    imports go through the swap, and the `pd`/`np` it was given become the replacements."""
    if not swap:
        return
    namespace["__builtins__"] = swapping_builtins(swap)
    for alias, module in (("pd", "pandas"), ("np", "numpy")):
        if module in swap:
            namespace[alias] = importlib.import_module(swap[module])


# -- the backends --------------------------------------------------------------------------


def _cuda_devices() -> str | None:
    import cupy

    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # no driver, no device
        return f"no CUDA device ({type(error).__name__}: {error})"
    return None if count > 0 else "no CUDA device"


def _cupy_sync() -> None:
    import cupy

    cupy.cuda.runtime.deviceSynchronize()


def _converted(value: Any, wanted: tuple[type, ...], convert: Callable[[Any], Any]) -> Any:
    """`value` with every `wanted` object converted, inside lists, tuples and dicts too."""
    if isinstance(value, wanted):
        return convert(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_converted(item, wanted, convert) for item in value)
    if isinstance(value, dict):
        return {key: _converted(item, wanted, convert) for key, item in value.items()}
    return value


def _inputs(namespace: dict[str, Any]) -> list[str]:
    """The names `setup` defined (not the modules and helpers it was given)."""
    return [key for key in namespace if key not in ("pd", "np", "rng", "N", "__builtins__", "__name__")]


def _numpy_to_cupy(namespace: dict[str, Any]) -> None:
    import cupy
    import numpy

    for key in _inputs(namespace):
        namespace[key] = _converted(namespace[key], (numpy.ndarray,), cupy.asarray)


def _pandas_to_cudf(namespace: dict[str, Any]) -> None:
    import cudf
    import pandas

    for key in _inputs(namespace):
        namespace[key] = _converted(namespace[key], (pandas.DataFrame, pandas.Series, pandas.Index), cudf.from_pandas)


def _torch_cuda_problem() -> str | None:
    import torch

    return None if torch.cuda.is_available() else "torch has no CUDA device here"


def _torch_sync() -> None:
    import torch

    torch.cuda.synchronize()


@contextlib.contextmanager
def _cuda_hidden_from_torch() -> Iterator[None]:
    """torch on the CPU even where CUDA is present: examples that choose their device with
    `torch.cuda.is_available()` see False."""
    import torch

    original = torch.cuda.is_available
    torch.cuda.is_available = lambda: False  # type: ignore[assignment]
    try:
        yield
    finally:
        torch.cuda.is_available = original  # type: ignore[assignment]


BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("pandas", "CPU", "pandas", "pip install pandas"),
        Backend("numpy", "CPU", "numpy", "pip install numpy"),
        Backend("torch", "CPU", "torch", "pip install torch", session=_cuda_hidden_from_torch),
        Backend("sklearn", "CPU", "sklearn", "pip install scikit-learn"),
        Backend("dask", "CPU", "dask", "pip install 'dask[dataframe]'"),
        Backend("networkx", "CPU", "networkx", "pip install networkx"),
        Backend(
            "cudf",
            "GPU",
            "cudf",
            "pip install cudf-cu12",
            swap={"pandas": "cudf"},
            to_device=_pandas_to_cudf,
            sync=_cupy_sync,
            device_problem=_cuda_devices,
        ),
        Backend(
            "cupy",
            "GPU",
            "cupy",
            "pip install cupy-cuda12x",
            swap={"numpy": "cupy"},
            to_device=_numpy_to_cupy,
            sync=_cupy_sync,
            device_problem=_cuda_devices,
        ),
        Backend(
            "torch-cuda",
            "GPU",
            "torch",
            "pip install torch (a CUDA build)",
            sync=_torch_sync,
            device_problem=_torch_cuda_problem,
        ),
    )
}

#: Names that select several backends at once on the command line.
GROUPS = {
    "cpu": tuple(n for n, b in BACKENDS.items() if not b.gpu),
    "gpu": tuple(n for n, b in BACKENDS.items() if b.gpu),
}


def default_backends(sources: list[str], requires: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The backends an example is measured on, from the libraries it uses: its CPU
    library and, where there is one, the GPU library that runs the same code."""
    modules = set(requires).union(*(imported_modules(source) for source in sources))
    if "torch" in modules:
        return ("torch", "torch-cuda")
    if "cudf" in modules:  # written for the GPU: only runs there
        return ("cudf",)
    if "cupy" in modules:
        return ("cupy",)
    if "dask" in modules:
        return ("dask",)
    if "networkx" in modules:
        return ("networkx",)
    if "sklearn" in modules:
        return ("sklearn",)
    if "pandas" in modules:
        return ("pandas", "cudf")
    return ("numpy", "cupy")
