"""What GPU303 device-round-trip hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts
from .transfers import RoundTrip


@dataclass(frozen=True)
class Trip(Facts):
    """A value copied to the host and straight back (`trip`)."""

    applicability: Applicability = field(kw_only=True)
    trip: RoundTrip
