"""Running one program on a deep copy of its data, with a time limit.

A program is a module's source plus a `call` expression evaluated after it; its data
comes from a `setup` snippet run once (with `pd` and `np` in scope) and deep-copied for
every run, so the original and the fixed program see equal, unshared inputs. A run keeps
what the call returned, what the user's code recorded (`state`), what the program
printed, the exception it raised, whether the result is (or shares memory with) one of
the inputs, and the inputs as the program left them (a fix must change them the same way).
"""

from __future__ import annotations

import contextlib
import copy
import io
import signal
import types
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

#: Seconds one program may run before it counts as hanging (generous: a first pool of
#: worker processes can take ten seconds to start on a loaded machine).
TIMEOUT = 60.0


class ProgramTimeout(BaseException):
    """Raised inside a program that runs past its time limit (a BaseException so that the
    program's own `except Exception` cannot swallow it)."""


@dataclass
class Run:
    value: Any = None
    error: BaseException | None = None
    printed: str = ""
    aliased: bool = False
    state: Any = None
    inputs: dict[str, Any] = field(default_factory=dict)

    @property
    def raised(self) -> str | None:
        return None if self.error is None else type(self.error).__name__

    @property
    def timed_out(self) -> bool:
        return isinstance(self.error, ProgramTimeout)


def build_inputs(setup: str) -> dict[str, Any]:
    """The values `setup` binds (modules and private names left out)."""
    namespace: dict[str, Any] = {"pd": pd, "np": np, "__name__": "gpulint_fuzz_setup"}
    with _quiet():
        exec(compile(setup, "<setup>", "exec"), namespace)
    return {
        name: value
        for name, value in namespace.items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType) and name not in ("pd", "np")
    }


def run(source: str, call: str, inputs: dict[str, Any], timeout: float = TIMEOUT, state: str | None = None) -> Run:
    """Execute `source` then evaluate `call` (and `state`, what the user's code recorded),
    on a deep copy of `inputs`."""
    data = copy.deepcopy(inputs)
    namespace: dict[str, Any] = {"__name__": "gpulint_fuzz", **data}
    result = Run(inputs=data)
    out = io.StringIO()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with _quiet(), contextlib.redirect_stdout(out):
            exec(compile(source, "<program>", "exec"), namespace)
            result.value = eval(compile(call, "<call>", "eval"), namespace)
            if state is not None:
                result.state = eval(compile(state, "<state>", "eval"), namespace)
    except BaseException as error:  # noqa: BLE001 - any failure of the program is data here
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        result.error = error
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    result.printed = out.getvalue()
    if result.error is None:
        result.aliased = _aliases(result.value, data)
    return result


def _on_alarm(signum: int, frame: Any) -> None:
    raise ProgramTimeout("the program ran past its time limit")


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _aliases(value: Any, inputs: dict[str, Any]) -> bool:
    """Whether the result, or an item of a tuple/list result, is one of the inputs or shares
    memory with one (writing into the result would change the caller's data)."""
    values = list(value) if isinstance(value, (tuple, list)) and len(value) < 10 else [value]
    for item in values:
        for original in inputs.values():
            if item is original and not isinstance(item, (int, float, str, bool, type(None), tuple)):
                return True
            if (
                isinstance(item, np.ndarray)
                and isinstance(original, np.ndarray)
                and item.size
                and np.shares_memory(item, original)
            ):
                return True
            if _is_tensor(item) and _is_tensor(original) and _same_storage(item, original):
                return True
    return False


def _same_storage(one: Any, other: Any) -> bool:
    """Whether two tensors share their storage (sparse tensors have none to share)."""
    if one.is_sparse or other.is_sparse or not one.numel():
        return False
    return one.untyped_storage().data_ptr() == other.untyped_storage().data_ptr()


def _is_tensor(value: Any) -> bool:
    return type(value).__module__.split(".", 1)[0] == "torch" and hasattr(value, "untyped_storage")
