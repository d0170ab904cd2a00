"""Fixer for GPU304 tensor-created-on-host: `torch.zeros(n).to(d)` -> `torch.zeros(n, device=d)`."""

from __future__ import annotations

from gpulint.astutil import mentions
from gpulint.diagnostic import Applicability, Diagnostic, Edit, Position
from gpulint.fixing import Decline, FixContext, Plan, ready, suggestion
from gpulint.plans.transfers import FactoryMove
from gpulint.plans.tensor_created_on_host import HostFactory

from ._arguments import add_keywords

MESSAGE = "create the tensor on the device: pass `device=` to the factory"
LEGACY_SUGGESTION = (
    "create the tensor on the device with `torch.empty(shape, dtype=..., device=...)`: the legacy tensor "
    "classes refuse an accelerator's device"
)

DRAW_SUGGESTION = (
    "build the distribution from tensors on the device (`Normal(torch.zeros((), device=d), torch.ones((), "
    "device=d))`), or draw with a factory given `device=` (`torch.randn(shape, device=d)`)"
)


HELPER_SUGGESTION = (
    "create the tensor on the device: pass `device=` to the factory (`torch.randn(n, device=d)`) instead of "
    "handing the host tensor to the helper that moves it"
)


SCATTER_SUGGESTION = (
    "create the tensor on the device and move its index there first: `torch.zeros(n, k, device=d)"
    ".scatter_(1, labels.to(d), 1)` (for a one-hot block, `F.one_hot(labels.to(d), k)`); a host index "
    "cannot write into a device tensor"
)

MOVED_WHERE_READ_SUGGESTION = (
    "create the tensor on the device: pass `device=` to the factory (`torch.randn(n, device=d)`); every read "
    "of it moves it there, and those moves then do nothing"
)

CONVERSION_SUGGESTION = (
    "create the tensor on the device: pass `device=` (and `dtype=`) to the factory (`torch.zeros(n, device=d)`) "
    "instead of converting the host tensor to a device class with `.type(...)`"
)


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: HostFactory = diagnostic.context  # type: ignore[assignment]
    if found.applicability is Applicability.DISPLAY:
        if found.legacy:
            return suggestion(LEGACY_SUGGESTION)
        if found.draw:
            return suggestion(DRAW_SUGGESTION)
        if found.helper:
            return suggestion(HELPER_SUGGESTION)
        if found.scattered:
            return suggestion(SCATTER_SUGGESTION)
        if found.converted:
            return suggestion(CONVERSION_SUGGESTION)
        if found.moved_where_read:
            return suggestion(MOVED_WHERE_READ_SUGGESTION)
        return Decline(
            "the factory's tensor is changed on its way to the device, the move takes more than a device, or "
            "the factory takes arguments that mean something else there: pass `device=` to the factory by hand"
        )
    move = found.move
    destination = '"cuda"' if move.move.func.attr == "cuda" else ctx.segment(move.destination)  # type: ignore[attr-defined,arg-type]
    if move.made is not None:
        removed = _move_statement(ctx, move)
        if isinstance(removed, Decline):
            return removed
    else:
        start, end = ctx.end(move.factory), ctx.end(move.move)
        moved = ctx.source.text[ctx.source.offset(start.line, start.col) : ctx.source.offset(end.line, end.col)]
        if "#" in moved:
            return Decline("a comment inside the move (or a `#` in a string) would be lost")
        removed = Edit(start, end, "")
    added = add_keywords(ctx, move.factory, [("device", destination)])
    if isinstance(added, Decline):
        return added
    return ready(found.applicability, MESSAGE, (*added, removed))


def _move_statement(ctx: FixContext, move: FactoryMove) -> Edit | Decline:
    """The edit deleting the lines of `t = t.to(d)` when it directly follows `t = torch.zeros(n)`
    and owns its lines without a comment. Nothing else runs between the two statements, so
    the host tensor was only ever seen by the move and the name ends up bound to the same
    values, dtype and device. None otherwise (a comment would be lost, or code in between
    might read the tensor): declined otherwise."""
    made, statement = move.made, move.moving
    if made is None or statement is None or not move.adjacent:
        return Decline("the move is not the statement right after the factory's")
    name = statement.targets[0].id  # type: ignore[attr-defined]
    if move.destination is not None and mentions(move.destination, name):
        return Decline("the device is computed from the tensor itself")
    first, last = statement.lineno, statement.end_lineno
    if made.end_lineno is None or last is None or made.end_lineno >= first or not ctx.owns_lines(statement, statement):
        return Decline("the move shares its lines with other code")
    if any("#" in ctx.source.line(n) for n in range(first, last + 1)):
        return Decline("the move's lines hold a comment (or a `#` in a string)")
    if last < len(ctx.source.line_starts):
        end = Position(last + 1, 0)
    else:
        end = Position(last, len(ctx.source.line(last)))
    return Edit(Position(first, 0), end, "")
