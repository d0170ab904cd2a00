"""What GPU302 host-to-device-in-loop hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts
from .transfers import HostToDevice


@dataclass(frozen=True)
class Hoist:
    """How the fixer may move the copy above `loop`: the whole `statement` (`name = copy`,
    shape "statement"), or the copy alone into a new name (shape "expression")."""

    loop: ast.stmt
    shape: str
    statement: ast.stmt | None = None


@dataclass(frozen=True)
class LoopCopy(Facts):
    """A copy (`move`) of loop-invariant data to the device inside a loop; `hoist`: how the
    fixer may move it above the loop, where the rule found that to be the same computation
    (safe), None where not (display-only)."""

    applicability: Applicability = field(kw_only=True)
    move: HostToDevice
    hoist: Hoist | None
