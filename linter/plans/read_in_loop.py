"""What GPU108 read-in-loop hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
from ..diagnostic import Applicability, Facts


class ReadGrowth(Facts):
    """A frame grown with files read in a loop: the suggestion is worded for its library. A
    slots class rather than a frozen dataclass (start-up: a default rule's facts)."""

    __slots__ = ("lib",)

    lib: str  # frame library family of the growth ("" when only the type says pandas-like)

    def __init__(self, *, applicability: Applicability, lib: str) -> None:
        super().__init__(applicability=applicability)
        object.__setattr__(self, "lib", lib)
