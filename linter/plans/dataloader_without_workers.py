"""What GPU305 dataloader-without-workers hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts

#: The worker processes the fix and the suggestion ask for.
WORKERS = 4


@dataclass(frozen=True)
class Loader:
    """How a `DataLoader` (or a subclass) takes `num_workers`: its position among the
    positional parameters (None: by keyword only), and whether adding `num_workers=` and
    `pin_memory=` keywords is known to reach torch's `DataLoader`."""

    position: int | None
    fixable: bool


@dataclass(frozen=True)
class LoaderCall(Facts):
    """`call` makes a loader (`loader` says how it takes `num_workers`) that feeds a device:
    unsafe to add the keywords where they are known to reach torch's `DataLoader` and
    `num_workers` is not given by position, display-only elsewhere (a subclass of the file's
    own: its `__init__` decides)."""

    applicability: Applicability = field(kw_only=True)
    call: ast.Call
    loader: Loader
