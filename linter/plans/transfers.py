"""The host-device copies the transfer rules find, carried by their plans."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RoundTrip:
    """`torch.tensor(t.cpu().numpy()).to(d)` and the like: `value` goes to the host through
    `inner` (the host copy) and comes back in `outer`."""

    library: str  # "torch", "cupy" or "cudf"
    outer: ast.Call
    value: ast.expr
    inner: ast.expr
    #: torch: the constructor (`tensor`, `as_tensor`, `from_numpy`); how the result goes
    #: back ("to": `.to(d)`, "cuda": `.cuda()`, "device": `device=d`) and the device `d`;
    #: `plain` when nothing else is passed (only such shapes are rewritten).
    constructor: str = ""
    move: str = ""
    destination: ast.expr | None = None
    plain: bool = False
    #: The host copy passes through `.tolist()` (Python numbers: dtypes are re-inferred).
    via_list: bool = False
    #: Every node of the host-copy chain (none of them is a host copy in a loop of its own).
    chain: tuple[ast.AST, ...] = field(default=())


@dataclass(frozen=True)
class FactoryMove:
    """`torch.zeros(n).to(d)`: `factory` (a call of torch.`name`) is made on the host and
    moved by `move` (`.to(d)` or `.cuda()`)."""

    move: ast.Call
    factory: ast.Call
    name: str
    #: The device expression of `.to(d)` (None for `.cuda()`), when the move is plain.
    destination: ast.expr | None
    plain: bool
    #: Made and moved in two statements (`t = torch.zeros(n)`, later `t = t.to(d)`): the
    #: statement that makes it, the one that moves it, and whether that is the very next.
    made: ast.Assign | None = None
    moving: ast.Assign | None = None
    adjacent: bool = False


@dataclass(frozen=True)
class HostToDevice:
    """A copy to the device: `moved` is the host value that is copied."""

    call: ast.Call
    moved: ast.expr
    library: str  # "torch", "cupy", "cudf"
