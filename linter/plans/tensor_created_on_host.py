"""What GPU304 tensor-created-on-host hands its fixer: the plan it decided for one finding."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts
from ..torch_api import LEGACY_TENSOR_TYPES, MOVING_METHODS, SCATTERING_METHODS
from .transfers import FactoryMove


@dataclass(frozen=True)
class HostFactory(Facts):
    """A tensor made on the host and moved (`move`)."""

    applicability: Applicability = field(kw_only=True)
    move: FactoryMove

    @property
    def legacy(self) -> bool:
        """Made by a legacy tensor class given a shape (`torch.FloatTensor(4, 256)`), which
        takes no accelerator's `device=`."""
        return self.move.name in LEGACY_TENSOR_TYPES

    @property
    def draw(self) -> bool:
        """A draw from a `torch.distributions` distribution whose parameters are numbers
        (`Normal(0, 1).sample(shape).cuda()`): no factory takes the device there."""
        return self.move.name.startswith("distributions.")

    @property
    def helper(self) -> bool:
        """Moved by a helper of the project (`to_cuda(torch.randn(n))`) rather than by the
        tensor's own `.to(...)`, `.cuda()` or `.type(...)`."""
        func = self.move.move.func
        return not (isinstance(func, ast.Attribute) and func.attr in MOVING_METHODS)

    @property
    def moved_where_read(self) -> bool:
        """Bound to a name that is moved wherever it is read (`z = torch.randn(n)`, then
        `mean + std * z.to(device)`), rather than rebound to its move."""
        return self.move.made is not None and self.move.moving is None

    @property
    def converted(self) -> bool:
        """Moved by a conversion to a legacy device class (`.type(torch.cuda.FloatTensor)`)."""
        func = self.move.move.func
        return isinstance(func, ast.Attribute) and func.attr == "type"

    @property
    def scattered(self) -> bool:
        """Values are written at places of the tensor on its way (`.scatter_(1, labels, 1)`),
        with an index or mask made on the host too."""
        statements = [self.move.move] + ([self.move.made] if self.move.made is not None else [])
        return any(
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SCATTERING_METHODS
            for statement in statements
            for node in ast.walk(statement)
        )
