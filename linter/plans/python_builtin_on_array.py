"""What GPU204 python-builtin-on-array hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts


@dataclass(frozen=True)
class BuiltinCall(Facts):
    """`call` applies the builtin to an array, Series or tensor; `template`: the method call
    that gives the same values (`{a}` the argument as a receiver), None where none does
    (display-only)."""

    applicability: Applicability = field(kw_only=True)
    call: ast.Call
    template: str | None

    @property
    def builtin(self) -> str:
        return self.call.func.id  # type: ignore[attr-defined]
