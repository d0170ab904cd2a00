"""What GPU301, GPU307 and GPU308 share: a copy from the device to the host that runs on
every iteration of a hot loop, and the idiom it is part of.

One detector finds the copies (`HostCopyInLoop.check`); `idiom` sorts each into the one
rule whose advice fits it, so a copy is reported once, under the most specific code:

- `TOTAL` (GPU308 `running-total-on-host`): the copied value is added to a running total,
  `total += loss.item()`: add the tensor itself and read the total once after the loop;
- `SCALAR` (GPU307 `scalar-read-in-loop`): a Python number is read from the device,
  `.item()`, `float(t)`, `t.cpu().item()`: keep the values on the device, or read them
  every N steps;
- `COPY` (GPU301 `device-to-host-in-loop`): a tensor, array or frame is copied, `.cpu()`,
  `.numpy()`, `cupy.asnumpy`, `.to_pandas()`: collect on the device, copy once.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable
from typing import ClassVar

from gpulint.rule_api import (
    STATEMENT_LOOPS,
    FEW_RUNS,
    literal_iterations,
    NESTED_SCOPES,
    assigned_value,
    bound_names,
    FunctionFacts,
    reference,
    base_name,
    few_iterations,
    literal_int,
    mentions,
    Rule,
    RuleContext,
    Ty,
    walk_local,
)
from gpulint.accelerate_api import TRAINER_STEPS, tests_every_step
from gpulint.display_api import DISPLAY_CALLS, PLOTTING_MODULES, SUMMARY_WRITER_METHODS, TEACHING_PLOT_HELPERS
from gpulint.torch_api import PER_BATCH_METHODS

from ._common import (
    ROUND_TRIP_METHODS,
    bound_by_loop,
    SCALAR_BUILTINS,
    TO_HOST_METHODS,
    round_trip,
    run_by_importers,
    runs_another_loop,
    small_loop,
    trains,
    to_host,
    unconditional_body_expressions,
    unconditional_expressions,
    under_host_autocast,
    waits_anyway,
)

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)

#: The inputs of the rules' benchmarked examples: N one-dimensional batches on the host.
BATCHES_SETUP = """\
import torch
batches = [torch.from_numpy(rng.standard_normal(8)) for _ in range(N)]
"""


class Idiom(enum.Enum):
    """What a copy to the host in a loop is for; each has its own rule and advice."""

    COPY = "copy"
    SCALAR = "scalar"
    TOTAL = "total"


class HostCopyInLoop(Rule):
    """A copy from the device to the host on every iteration of a hot loop, of one `idiom`.
    Subclasses give the code, the docs and the message's advice."""

    idiom: ClassVar[Idiom]
    #: What the message says to do instead, after what the copy costs.
    advice: ClassVar[str]
    nodes = (ast.Call, ast.Attribute, ast.FormattedValue)
    calls = ROUND_TRIP_METHODS | TO_HOST_METHODS

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not ctx.loops and ctx.enclosing_function is None:
            return  # once, at a script's top level (a helper's copy may run in its callers' loops)
        # the three rules ask the same of every node: the file's index keeps the answer
        found = ctx.semantic.remember("host_copy_in_loop", node, lambda: _copy_in_loop(node, ctx))
        if found is None:
            return
        what, kind, loop, where = found  # type: ignore[misc]
        if kind is self.idiom and self.reports_in(loop, ctx):
            ctx.report(where, f"{what} {self.advice}")

    def reports_in(self, loop: ast.AST, ctx: RuleContext) -> bool:
        """Whether a copy of the rule's idiom in `loop` is reported (a rule may leave some
        loops to its preview behaviour)."""
        return True


def _copy_in_loop(node: ast.AST, ctx: RuleContext) -> tuple[str, Idiom, ast.AST, ast.AST] | None:
    """How `node` copies a device value to the host (`.item()`...), the idiom it is part
    of, the loop and where to report it, when it does so on every iteration of a hot loop
    and nothing makes the copy the point; None otherwise. A number read into a name that
    only feeds running totals (`loss_t = loss.item()`, then `running += loss_t`) is
    reported at the first total it feeds, where the rewrite goes. The copy inside a round trip is GPU303's: the round trip's
    outer call, visited first, marks its chain for the file."""
    covered: dict[ast.AST, bool] = ctx.semantic.remember("round-trip chains", ctx.tree, dict)
    trip = round_trip(node, ctx.env)
    if trip is not None:
        covered.update(dict.fromkeys(trip.chain, True))
        return None
    if node in covered:
        return None
    what = to_host(node, ctx.env)
    if what is None or under_host_autocast(ctx) or _copies_a_module(node, ctx) or _formatted_before(node, ctx):
        return None
    loop = _counting_loop(node, ctx) if ctx.loops else _loop_calling(ctx)
    if loop is None or waits_anyway(loop, ctx) or _decides_exit(node, loop, ctx):
        return None
    if _feeds(node, loop, ctx, _needs_on_the_host):
        return None
    if not ctx.loops:  # in a helper a loop calls
        where_called = "another module of the project" if loop is ctx.enclosing_function else "a loop"
        if trainer_step(ctx.enclosing_function, ctx):
            where_called = "the `Trainer`"
        what = f"{what} in `{ctx.enclosing_function.name}`, which {where_called} calls on every iteration,"  # type: ignore[union-attr]
    read = _read_value(node, ctx)
    through = _total_through_name(read, loop, ctx)
    if through is not None:
        name, feeding = through
        return f"`{name}` ({what} above)", Idiom.TOTAL, loop, feeding
    kind = idiom(read, ctx)
    if kind is Idiom.TOTAL and _earlier_copy_in(ctx.statement, node, ctx):
        return None  # `correct += (pred.cpu() == y.cpu()).sum()`: one total, reported once
    return what, kind, loop, node


def _formatted_before(node: ast.AST, ctx: RuleContext) -> bool:
    """`node` is a value formatted in an f-string after another that reads the device: the
    first read waits for the device, the rest find it idle (`f"{loss:.4f} {acc:.2f}"` is
    one wait, reported once)."""
    if not isinstance(node, ast.FormattedValue):
        return False
    string = ctx.parent(node)
    if not isinstance(string, ast.JoinedStr):
        return False
    for part in string.values:
        if part is node:
            return False
        if isinstance(part, ast.FormattedValue) and to_host(part, ctx.env) is not None:
            return True
    return False


def _earlier_copy_in(statement: ast.stmt, node: ast.AST, ctx: RuleContext) -> bool:
    """Another copy to the host that feeds the same total, not one around `node`, comes
    before it in `statement` (a copy passed to some call first is no part of the sum)."""
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    return any(
        isinstance(other, ast.Call)
        and (other.end_lineno, other.end_col_offset) <= start  # type: ignore[operator]
        and to_host(other, ctx.env) is not None
        and _total_fed(_read_value(other, ctx)[0], ctx, statement) is not None
        for other in walk_local([statement])
    )


#: Methods only a module has: what a copy is used with shows it moved a module.
_MODULE_ONLY = frozenset({"state_dict", "load_state_dict", "named_modules", "modules", "children", "eval", "train"})


def _copies_a_module(node: ast.AST, ctx: RuleContext) -> bool:
    """`node` moves a value of unknown kind (something placed: a tensor, a module or a batch)
    that is then used as only a module is: `net.cpu().state_dict()`, or `net = net.cpu()`
    with `net.state_dict()` in the same scope, or whose result is dropped (`pipe.to("cpu")` as
    a statement: a tensor's copy would be lost, a module moves in place). Moving a module
    back to save it or to free the device copies its weights, not a batch's result."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if node.func.attr in ("to", "cpu") and isinstance(ctx.statement, ast.Expr) and ctx.statement.value is node:
        return True  # what `.to` and `.cpu` move in place is a module
    receiver = ctx.type_of(node.func.value)
    if receiver is None or receiver.kind != "placed":
        return False
    parent = ctx.parent(node)
    if isinstance(parent, ast.Attribute) and parent.attr in _MODULE_ONLY:
        return True
    statement = ctx.statement
    if not (isinstance(statement, ast.Assign) and statement.value is node and len(statement.targets) == 1):
        return False
    target = statement.targets[0]
    facts = ctx.semantic.scope(ctx.scope) if isinstance(target, ast.Name) else None
    used = facts.attributes.get(target.id, set()) if facts is not None else set()  # type: ignore[union-attr]
    return not used.isdisjoint(_MODULE_ONLY)


def _counting_loop(node: ast.AST, ctx: RuleContext) -> ast.AST | None:
    """The hot loop the copy runs on every iteration of, or None: not under an `if` in the
    loop's body, and not in an outer loop around a batch loop (see `runs_another_loop`).
    A small loop over the parts of one item, or a loop known to run a few times
    (`few_iterations`: four test images to plot), is no loop of its own: the loop around
    it is the one the copy runs in. But a loop that steps back on every run (`trains`)
    inside another such loop is the step loop however few its runs (`for _ in
    range(TRAIN_ROUNDS)` in a loop over games): each run is a training step."""
    real: list[ast.AST] = []
    for loop in ctx.loops:
        if small_loop(loop, ctx.statement, ctx.env):
            continue
        if not few_iterations(loop, ctx) or real and trains(loop, ctx):
            real.append(loop)
    if not real:
        return None  # a few copies, one per part of one item: no hot loop around them
    loop = real[-1]
    if not isinstance(loop, STATEMENT_LOOPS):
        return loop  # a comprehension's element or condition
    try:
        index = next(i for i, s in enumerate(ctx.statements) if s is loop)
    except StopIteration:  # the test of a `while` loop
        return loop
    # the innermost statement holds the copy; an `if` further out runs it only sometimes,
    # unless it runs it on every iteration (`_runs_every_iteration`)
    inside = ctx.statements[index + 1 :]
    for position, statement in enumerate(inside[:-1]):
        if isinstance(statement, ast.Try):
            return None
        if isinstance(statement, ast.If) and not _runs_every_iteration(statement, inside[position + 1], loop, ctx):
            return None
    return None if runs_another_loop(loop, ctx) else loop


def _loop_calling(ctx: RuleContext) -> ast.AST | None:
    """For a copy outside any loop of its function: the hot loop that runs it on every
    iteration by calling that function, a module-level function of the file (a helper
    such as `compute_accuracy(y_pred, y)` called in the batch loop) or a method its class
    calls on the instance (`self.compute_td_loss(batch)`). The copy runs on every
    call (no `if`, `try` or loop around it in the function), and some call by name, also
    on every iteration of its innermost loop, sits in a loop of the file that is neither a
    small loop nor an outer one (see `_counting_loop`). Where no loop of the file calls
    it, a project file importing the module may (`run_by_importers`: `cal_weight(y, p)`
    in the `forward` of a loss another module runs per batch): the function itself then
    stands for the loop, its body for one iteration."""
    function = ctx.enclosing_function
    start = next((i for i, statement in enumerate(ctx.statements) if statement is function), None)
    if function is None or start is None:
        return None
    if any(isinstance(s, (ast.If, ast.Try, *STATEMENT_LOOPS)) for s in ctx.statements[start + 1 : -1]):
        return None
    facts = ctx.semantic.function(function)
    if facts is None or _returns_a_read(function, ctx):
        return None
    if facts.owner is not None:
        if function.name in PER_BATCH_METHODS:
            return None  # a module's `forward`: its copies are mostly what the model needs on the host
        if trainer_step(function, ctx):
            return function  # the trainer's loop calls it on every step: it stands for that loop
        calls = _calls_on_the_instance(function, facts.owner, ctx)
    elif facts.scope is ctx.tree:
        calls = [call for call, _ in ctx.semantic.call_sites(function.name) or ()]
    else:
        return None
    for call in calls:
        loop = _innermost_loop_running(call, ctx)
        if (
            loop is not None
            and not small_loop(loop, None, ctx.env)
            and (literal_iterations(loop, ctx.semantic) or FEW_RUNS + 1) > FEW_RUNS
            and not runs_another_loop(loop, ctx)  # type: ignore[arg-type]
        ):
            return loop
    return function if run_by_importers(facts, ctx, every_iteration=True) else None


def trainer_step(function: ast.AST | None, ctx: RuleContext) -> bool:
    """`function` runs once per step of a transformers `Trainer`: a step hook of a class
    derived from one (`compute_loss`, `training_step`, `prediction_step`), or a method of
    that class such a hook calls on the instance on every call (no `if` around the call;
    the body of a `try` runs on every call too), followed a few methods deep."""
    facts = ctx.semantic.function(function) if function is not None else None
    if facts is None or facts.owner is None or not ctx.derives_a_trainer(facts.owner):
        return False
    owner = facts.owner

    def steps(node: ast.AST) -> bool:
        pending, seen = [node], set()
        while pending:
            current = pending.pop()
            if current.name in TRAINER_STEPS:  # type: ignore[attr-defined]
                return True
            if current in seen or len(seen) > _TRAINER_HELPER_DEPTH:
                continue
            seen.add(current)
            for call in _calls_on_the_instance(current, owner, ctx):
                caller = _unguarded_in(call, ctx)
                if caller is not None:
                    pending.append(caller)
        return False

    return ctx.semantic.remember("trainer step", function, lambda: steps(function))  # type: ignore[arg-type]


#: How many methods deep a call on every step of a `Trainer` hook is followed.
_TRAINER_HELPER_DEPTH = 4


def _unguarded_in(node: ast.AST, ctx: RuleContext) -> ast.AST | None:
    """The def whose every call runs `node`: none of `if`, loop, conditional expression or
    exception handler in between (the body of a `try` runs)."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.Module, *_DEFS, ast.Lambda, ast.ClassDef)):
        if isinstance(parent, (ast.If, ast.IfExp, *STATEMENT_LOOPS, ast.comprehension, ast.ExceptHandler)):
            if child is not getattr(parent, "test", None) and child is not getattr(parent, "iter", None):
                return None
        if isinstance(parent, ast.Try) and not any(
            child is statement for statement in (*parent.body, *parent.finalbody)
        ):
            return None
        child, parent = parent, ctx.parent(parent)
    return parent if isinstance(parent, _DEFS) else None


def _calls_on_the_instance(method: ast.AST, owner: ast.ClassDef, ctx: RuleContext) -> list[ast.Call]:
    """`_self_calls` of `method`, worked out once per method of the file."""
    return ctx.semantic.remember(
        "calls on the instance",
        method,
        lambda: _self_calls(method.name, owner, ctx),  # type: ignore[attr-defined]
    )


def _self_calls(name: str, owner: ast.ClassDef, ctx: RuleContext) -> list[ast.Call]:
    """The calls of method `name` on the instance in the methods of its class
    (`self.compute_td_loss(batch)` in `self.train`)."""
    found = []
    for call in ctx.semantic.method_calls(name):
        receiver = call.func.value  # type: ignore[attr-defined]
        if not isinstance(receiver, ast.Name):
            continue
        caller = ctx.semantic.function(_enclosing_def(call, ctx))
        if caller is not None and caller.owner is owner and receiver.id == caller.self_name:
            found.append(call)
    return found


def _enclosing_def(node: ast.AST, ctx: RuleContext) -> ast.AST | None:
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        parent = ctx.parent(parent)
    return parent


def _returns_a_read(function: ast.AST, ctx: RuleContext) -> bool:
    """`function` returns what it read from the device (`return loss.item()`, `return
    float(loss), acc` or a name bound to such a read): its caller needs the value on every
    call (to stop early, to log it), so every call waits."""
    nodes = list(walk_local(function.body))  # type: ignore[attr-defined]
    read = {
        target.id
        for node in nodes
        if isinstance(node, ast.Assign) and _has_host_read(node.value, ctx)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in nodes:
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        parts = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        if any(_has_host_read(part, ctx) or isinstance(part, ast.Name) and part.id in read for part in parts):
            return True
    return False


def _has_host_read(value: ast.expr, ctx: RuleContext) -> bool:
    """`value` is a copy to the host (`loss.item()`, `float(acc)`), through attributes and
    method calls on it (`loss.data.item()`)."""
    return any(to_host(node, ctx.env) is not None for node in ast.walk(value))


def _innermost_loop_running(node: ast.AST, ctx: RuleContext) -> ast.AST | None:
    """The innermost `for`/`while` statement whose body runs `node` on every iteration (no
    `if` or `try` in between, but for the body of an `if` that holds after a warm-up:
    `after_warm_up`), in `node`'s own function; None when there is none."""
    guards: list[ast.If] = []
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.Module, *NESTED_SCOPES)):
        if isinstance(parent, ast.If) and child is not parent.test and any(child is s for s in parent.body):
            guards.append(parent)
        elif isinstance(parent, (ast.If, ast.Try, ast.IfExp)) and child is not getattr(parent, "test", None):
            return None
        if isinstance(parent, STATEMENT_LOOPS) and child is not getattr(parent, "iter", None):
            if child in getattr(parent, "orelse", ()):
                return None
            loop = parent
            return loop if all(after_warm_up(guard.test, guard, loop, ctx) for guard in guards) else None
        child, parent = parent, ctx.parent(parent)
    return None


def _runs_every_iteration(branch: ast.If, held: ast.stmt, loop: ast.stmt, ctx: RuleContext) -> bool:
    """The `if` runs its statement `held` on every iteration of `loop`: its test holds on
    every optimizer step (`if accelerator.sync_gradients:`) or every step
    (`_every_first_step`), or it asks whether a device is there and the copy is on the
    device's side (`if torch.cuda.is_available():`), or it is a flag the loop never changes (`_loop_invariant_flag`)
    that either switches the device on (`_device_switch`: `if use_cuda: x = x.cuda()`
    elsewhere in the file, and the copy is on its `use_cuda` side) or guards a copy to the
    host on both sides (`if use_amp: ... loss.item() ... else: ... loss.item()`). Whatever
    the test, an `if` whose other side copies to the host too, whenever that side runs,
    copies on every iteration (`if p.size(1) == 1: correct += ...item() else: correct +=
    ...item()`). An opt-in flag guarding a copy on one side only (`if verbose:
    print(loss.item())`) may be off."""
    test = branch.test
    if tests_every_step(test, _receiver_type(test, ctx)) or _every_first_step(test, ctx):
        return True
    in_body = any(statement is held for statement in branch.body)
    if in_body and after_warm_up(test, branch, loop, ctx):
        return True
    available = _availability_test(test, ctx)
    if available is not None:
        return available is in_body
    counters = _iteration_counters(loop)
    once = _one_iteration_test(test, counters)
    if once is not None and once is not in_body:
        return True  # the `else` of `if i == 0:`: every iteration but one
    other = branch.orelse if in_body else branch.body
    if _asks_this_iteration_only(branch, loop, counters) and ctx.semantic.remember(
        "copies on the other side whenever it runs",
        (branch, in_body),
        lambda: any(to_host(node, ctx.env) is not None for node in walk_local(unconditional_body_expressions(other))),
    ):
        return True  # `if p.size(1) == 1: correct += ...item() else: correct += ...item()`
    if _mode_switch(test, loop, ctx):
        return True
    if not _loop_invariant_flag(test, loop, ctx):
        return False
    if _device_switch(test, ctx) is in_body:
        return True
    # asked once per side, at the branch's first copy: later statements of this side may
    # rebind what the other side copies (`outputs = outputs.cpu().numpy()` before it)
    return ctx.semantic.remember(
        "copies on the other side",
        (branch, in_body),
        lambda: any(to_host(node, ctx.env) is not None for node in walk_local(other)),
    )


def after_warm_up(test: ast.expr, branch: ast.If, loop: ast.AST, ctx: RuleContext) -> bool:
    """`test` holds on every iteration of `loop` once it has run a few times: a training
    step that waits for a replay buffer to fill (`if len(memory) > batch_size:`, the
    buffer not emptied in the branch) or for a step count (`if frame_idx > replay_initial:`,
    a counter the loop counts with: its `range`/`enumerate` variable or a name it adds one
    to), alone or joined by `and`. After the warm-up, what it guards runs on every
    iteration; `if step % 100 == 0:` (every N steps) is no such test."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return all(_warm_up_part(part, branch, loop, ctx) for part in parts)


def _warm_up_part(test: ast.expr, branch: ast.If, loop: ast.AST, ctx: RuleContext) -> bool:
    """One comparison of a warm-up test: a buffer the loop grows (a method of it called,
    `memory.push(...)`) and the branch does not empty, or a counter the branch does not
    reset, against a threshold the loop never changes and that is no call of its own
    (`len(loader) - 1` is the last batch, not a warm-up)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, (ast.Lt, ast.LtE)):
        left, right = right, left  # `batch_size < len(memory)`
    elif not isinstance(op, (ast.Gt, ast.GtE)):
        return False
    if not _fixed_threshold(right, loop, ctx):
        return False
    if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" and len(left.args) == 1:
        held = reference(left.args[0])
        if held is None or not ctx.env.is_builtin("len") or _emptied(held, branch, ctx):
            return False
        return not _bound_in(held, bound_by_loop(loop, ctx)) and _grown(held, loop, ctx)
    counter = reference(left)
    return (
        counter is not None
        and _counts_iterations(counter, loop, ctx)
        and counter not in _names(right)
        and not _assigns(branch, counter)
    )


def _fixed_threshold(node: ast.expr, loop: ast.AST, ctx: RuleContext) -> bool:
    """Names, attributes and constants, in arithmetic, none of them bound in the loop."""
    for part in ast.walk(node):
        if not isinstance(
            part, (ast.Name, ast.Attribute, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Load)
        ):
            return False
    bound = bound_by_loop(loop, ctx)
    return not any(_bound_in(spelled, bound) for spelled in _names(node))


def _bound_in(spelled: str, bound: set[str]) -> bool:
    """`spelled` (`memory`, `self.memory`) or what it is an attribute of is bound by the loop
    (`for self.memory in ...` binds `self.memory`, not `self`)."""
    parts = spelled.split(".")
    return any(".".join(parts[: i + 1]) in bound for i in range(len(parts)))


def _grown(held: str, loop: ast.AST, ctx: RuleContext) -> bool:
    """The loop's body calls a method of `held` (`memory.append(t)`, `buffer.push(...)`) or
    adds to it: a buffer that fills as the loop runs. An attribute of the instance
    (`self.memory`) may be filled by a method of its class the loop calls on it
    (`self.step(action)`, whose body runs `self.memory.store(...)`)."""
    body = getattr(loop, "body", [])
    if _fills(held, body):
        return True
    instance, _, attribute = held.partition(".")
    facts = _enclosing_method(ctx)
    if not attribute or facts is None or instance != facts.self_name:
        return False
    for method in _instance_methods_called(body, ctx):
        spelled = f"{method.self_name}.{attribute}"
        if _fills(spelled, method.node.body) and not _empties(spelled, method.node.body):
            return True
    return False


def _instance_methods_called(body: list[ast.stmt], ctx: RuleContext) -> list[FunctionFacts]:
    """The methods of the enclosing function's class that `body` calls on the instance
    (`self.step(action)`), with an instance name of their own."""
    facts = _enclosing_method(ctx)
    if facts is None or facts.self_name is None:
        return []
    found = []
    for node in walk_local(body):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == facts.self_name):
            continue
        method = ctx.semantic.method(facts.owner, node.func.attr)
        if method is not None and method.self_name:
            found.append(method)
    return found


def _enclosing_method(ctx: RuleContext) -> FunctionFacts | None:
    """The facts of the function around the current node, when it is a method of a class."""
    function = ctx.enclosing_function
    facts = ctx.semantic.function(function) if function is not None else None
    return facts if facts is not None and facts.owner is not None else None


def _fills(held: str, body: list[ast.stmt]) -> bool:
    """`body` calls a method of `held` that is not one that takes items out, or adds to it."""
    for node in walk_local(body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr not in _EMPTYING
            and reference(node.func.value) == held
        ):
            return True
        if isinstance(node, ast.AugAssign) and reference(node.target) == held:
            return True
    return False


def _assigns(where: ast.AST, spelled: str) -> bool:
    """`where` (a branch, a method) binds `spelled` again, or a slice of it."""
    for node in ast.walk(where):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(
                reference(target.value if isinstance(target, ast.Subscript) else target) == spelled
                for target in targets
            ):
                return True
    return False


#: Methods that take items out of a buffer: a branch calling one empties it.
_EMPTYING = frozenset({"clear", "pop", "popleft", "popitem", "remove"})


def _emptied(held: str, branch: ast.If, ctx: RuleContext) -> bool:
    """The branch binds `held` again, or a slice of it (`buf[:] = []`), or takes items out
    of it, itself or in a method of the class it calls on the instance (`self.update()`
    ending in `self.buffer.clear()`): a batch gathered and flushed, not a buffer that fills
    once."""
    if _assigns(branch, held) or _empties(held, [branch]):
        return True
    instance, _, attribute = held.partition(".")
    for method in _instance_methods_called(branch.body, ctx) if attribute else ():
        spelled = f"{method.self_name}.{attribute}"
        if _assigns(method.node, spelled) or _empties(spelled, method.node.body):
            return True
    return False


def _empties(held: str, body: list[ast.stmt]) -> bool:
    """`body` takes items out of `held` (`clear()`, `pop()`, `del held[k]`)."""
    for node in walk_local(body):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _EMPTYING:
            if reference(node.func.value) == held:
                return True
        if isinstance(node, ast.Delete) and any(
            reference(t.value if isinstance(t, ast.Subscript) else t) == held for t in node.targets
        ):
            return True
    return False


def _counts_iterations(counter: str, loop: ast.AST, ctx: RuleContext) -> bool:
    """`counter` goes up by one on each iteration of `loop`: the variable of a `for` over
    `range(...)` counting up or `enumerate(...)`'s index, or a name (`self.total_step`) the
    loop's body adds one to."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        iterable, target = loop.iter, loop.target
        if (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name)
            and ctx.env.is_builtin(iterable.func.id)
        ):
            if iterable.func.id == "range" and isinstance(target, (ast.Name, ast.Attribute)):
                # `for step in range(n)`, or `for self.total_step in range(1, n + 1)`
                counting_up = len(iterable.args) < 3 or (literal_int(iterable.args[2]) or 0) > 0
                return reference(target) == counter and counting_up
            if iterable.func.id == "enumerate" and isinstance(target, ast.Tuple) and target.elts:
                first = target.elts[0]
                if isinstance(first, ast.Name) and first.id == counter:
                    return True
    body = loop.body if isinstance(loop, STATEMENT_LOOPS) else []
    return any(
        isinstance(node, ast.AugAssign)
        and isinstance(node.op, ast.Add)
        and reference(node.target) == counter
        and literal_int(node.value) == 1
        for node in walk_local(body)
    )


def _iteration_counters(loop: ast.stmt) -> set[str]:
    """The names that say which iteration this is: the loop's targets and the names its body
    counts up (`i += 1`, `i = i + 1`). A test of them picks iterations (`if i == 0:`), so a
    side it picks may run once, whatever the other side does."""
    counters = (
        {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        if isinstance(loop, (ast.For, ast.AsyncFor))
        else set()
    )
    for node in walk_local(loop.body):  # type: ignore[attr-defined]
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            counters.add(node.target.id)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.BinOp)
            and mentions(node.value, node.targets[0].id)
        ):
            counters.add(node.targets[0].id)
    return counters


def _asks_this_iteration_only(branch: ast.If, loop: ast.stmt, counters: set[str]) -> bool:
    """The `if`'s test is about what this iteration computed, or what no iteration changes, so
    either side may run on any iteration: no name it reads is bound in the loop after the `if`
    starts (`p = model(x)`, then `if p.size(1) == 1:`; `if len(self.names) == 1:`), and none
    counts iterations. Not a test of history (`if prev is None:` with `prev = out` after it, `if first:`,
    `if self.step == 0:`), and not an `if` one of whose sides leaves the loop (`raise`,
    `break`, `return`, `continue`): that side runs once at most."""
    read = {node.id for node in ast.walk(branch.test) if isinstance(node, ast.Name)}
    if not read or read & counters:
        return False
    if any(isinstance(node, _EXITS) for node in walk_local(branch.body + branch.orelse)):
        return False
    start = branch.lineno
    for node in walk_local(loop.body):  # type: ignore[attr-defined]
        if (
            isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            and node.lineno >= start
            and _stored_names(node) & read
        ):
            return False  # bound by the sides or after them: carried to the next iteration
    return True  # each name this iteration binds before the `if`, or the loop never binds


#: Statements that leave the loop (or the function) from inside it.
_EXITS = (ast.Raise, ast.Break, ast.Return, ast.Continue)


def _one_iteration_test(test: ast.expr, counters: set[str]) -> bool | None:
    """Which side of the `if` runs on one iteration only, for a test of an iteration
    counter against a number: the body for `i == 0` (True), the `else` for `i != 0`
    (False); None for any other test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = test.left, test.comparators[0]
    counter = left if literal_int(right) is not None else right if literal_int(left) is not None else None
    if not (isinstance(counter, ast.Name) and counter.id in counters):
        return None
    return isinstance(test.ops[0], ast.Eq)


def _names(node: ast.expr) -> set[str]:
    return {spelled for part in ast.walk(node) if (spelled := reference(part)) is not None}


#: Calls that say whether the program runs on an accelerator: the same on every iteration.
_AVAILABILITY_CALLS = frozenset({"torch.cuda.is_available", "torch.backends.mps.is_available"})


def _availability_test(test: ast.expr, ctx: RuleContext) -> bool | None:
    """Whether `test` holds on the device's side when it asks whether a device is there
    (`if torch.cuda.is_available():`, `if not torch.cuda.is_available():`): the program's
    GPU run takes that side on every iteration; None when it asks something else."""
    call, positive = _unnegated(test)
    if isinstance(call, ast.Call) and not call.args and ctx.env.qualname(call.func) in _AVAILABILITY_CALLS:
        return positive
    return None


def _device_switch(test: ast.expr, ctx: RuleContext) -> bool | None:
    """Whether `test` is true on the device's side when it is a device switch of the
    file, a flag (`use_cuda`, `not args.cuda`) whose truthy side of some `if` moves a value
    with `.cuda()` (`if train_on_gpu: model.cuda()`); None when it is not one."""
    flag, positive = _unnegated(test)
    spelled = reference(flag)
    switches: frozenset[str] = ctx.semantic.remember("device switches", ctx.tree, lambda: _device_switches(ctx))
    if spelled is None or spelled not in switches:
        return None
    return positive


def _device_switches(ctx: RuleContext) -> frozenset[str]:
    """The flags (`train_on_gpu`, `args.cuda`) an `if` of the file tests before moving
    something with `.cuda()` on their truthy side (its body, or its `else` under `not`),
    in the same function."""
    found: set[str] = set()
    for call in ctx.semantic.method_calls("cuda"):
        child, parent = call, ctx.semantic.parent(call)
        while parent is not None and not isinstance(parent, NESTED_SCOPES):
            if isinstance(parent, ast.If) and child is not parent.test:
                flag, positive = _unnegated(parent.test)
                spelled = reference(flag)
                if spelled is not None and any(child is s for s in parent.body) == positive:
                    found.add(spelled)
            child, parent = parent, ctx.semantic.parent(parent)
    return frozenset(found)


def _unnegated(test: ast.expr) -> tuple[ast.expr, bool]:
    """`test` without its `not`s, and whether it holds when that does (an even count)."""
    positive = True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, positive = test.operand, not positive
    return test, positive


def _every_first_step(test: ast.expr, ctx: RuleContext) -> bool:
    """`if step % log_interval == 0:` with an interval of 1, written out or through a name
    bound to it once (`log_interval = 1` at the top of a script): the test holds on every
    iteration, so what it guards runs on every one."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and literal_int(test.comparators[0]) == 0
        and isinstance(test.left, ast.BinOp)
        and isinstance(test.left.op, ast.Mod)
    ):
        return False
    interval = test.left.right
    if not isinstance(interval, ast.Name):
        return literal_int(interval) == 1
    statement = ctx.reaching_assignment(interval.id)
    if statement is None and ctx.scope is not ctx.tree and not ctx.semantic.bindings(ctx.scope, interval.id):
        bound = ctx.semantic.bindings(ctx.tree, interval.id)  # a script's setting, bound once
        node = bound[0] if len(bound) == 1 else None
        statement = ctx.semantic.parent(node) if isinstance(node, ast.Name) else node  # type: ignore[assignment]
    return statement is not None and literal_int(assigned_value(statement, interval.id)) == 1  # type: ignore[arg-type]


def _loop_invariant_flag(test: ast.expr, loop: ast.stmt, ctx: RuleContext) -> bool:
    """`test` is a flag the loop never changes (`if use_cuda:`, `if not self.args.use_amp:`,
    `if args.cuda and verbose:`): names and attribute chains only, none bound by the loop
    (its target, what its body binds) nor assigned to in it. It comes out the same on
    every iteration, so what it guards runs on every iteration of the loop (or on none)."""
    test = _unnegated(test)[0]
    if isinstance(test, ast.BoolOp):
        return all(_loop_invariant_flag(value, loop, ctx) for value in test.values)
    spelled = reference(test)
    if spelled is None:
        return False
    bound = bound_by_loop(loop, ctx)
    if spelled.split(".", 1)[0] in bound:
        return False
    for node in walk_local(loop.body):  # type: ignore[attr-defined]
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                assigned = reference(target)
                if assigned is not None and _related(assigned, spelled):
                    return False
    return True


#: Comparisons that pick one of a run's modes.
_MODE_OPERATORS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def _mode_switch(test: ast.expr, loop: ast.stmt, ctx: RuleContext) -> bool:
    """`if args.grad_sample_mode == "no_op":`, `if self.mode in ("train", "val"):`: a
    setting of the run compared with literals, which no loop around the copy changes. Each
    side is a mode the program runs in, on every iteration, not an opt-in that may be off
    (`if verbose:`): its copies are per iteration."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], _MODE_OPERATORS)
        and _literals(test.comparators[0])
    ):
        return False
    setting = test.left
    spelled = reference(setting)
    if spelled is None or not _loop_invariant_flag(setting, loop, ctx):
        return False
    root = spelled.split(".", 1)[0]
    return not any(root in bound_by_loop(outer, ctx) for outer in ctx.loops if isinstance(outer, STATEMENT_LOOPS))


def _literals(node: ast.expr) -> bool:
    """A string literal, or a tuple, list or set of them."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_literals(element) for element in node.elts)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _related(a: str, b: str) -> bool:
    """One reference is the other or a part of it (`self` and `self.use_amp`)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _receiver_type(test: ast.expr, ctx: RuleContext) -> Ty | None:
    return ctx.type_of(test.value) if isinstance(test, ast.Attribute) else None


def _decides_exit(node: ast.AST, loop: ast.AST, ctx: RuleContext) -> bool:
    """The copy is read by the test of an `if` one of whose branches leaves `loop`
    (`break` out of it, `return`, `raise`), or bound to a name that the next `if` of the same
    block testing it leaves the loop on with `break` or `return` (`kl = ....item()`, then `if
    kl > limit: break`, with no statement between them binding the name): the loop needs the
    value on every iteration to know whether to go on (a stop-token test in token-by-token
    generation, an early stop on a divergence), so neither reading it once after the loop
    nor every N steps keeps its meaning. A named value only checked to `raise` (`if
    np.isnan(loss_value): raise ...`) is a sanity check beside the value's other uses (a
    log line), which can wait for every N steps."""
    statement = ctx.statement
    leaves = (ast.Return, ast.Raise) + ((ast.Break,) if ctx.loops and loop is ctx.loops[-1] else ())
    if isinstance(statement, ast.If) and any(sub is node for sub in ast.walk(statement.test)):
        return _leaves(statement, leaves)
    position = ctx.position()
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and position is not None
    ):
        return False
    name = statement.targets[0].id
    block, index = position
    stops = tuple(kind for kind in leaves if kind is not ast.Raise)
    for later in block[index + 1 :]:
        if isinstance(later, ast.If) and mentions(later.test, name):
            return _leaves(later, stops)
        if name in bound_names([later]):
            return False
    return False


def _leaves(statement: ast.If, leaves: tuple[type[ast.stmt], ...]) -> bool:
    return any(isinstance(s, leaves) for s in (*statement.body, *statement.orelse))


# -- the copy is the point: it feeds a plot or an image logged in the same iteration ---------

#: Methods that store their argument in their receiver.
_STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})
#: How many assignments a plotting object is followed through (`ax = axes[i]` after `fig, axes = plt.subplots()`).
_DEPTH = 4


def _feeds(node: ast.AST, loop: ast.AST, ctx: RuleContext, consumes: Callable[[ast.Call, RuleContext], bool]) -> bool:
    """The copied value goes, in the same iteration, to a call that needs it on the host
    (`consumes`: `_needs_on_the_host`): the copy is an argument of such a
    call, or the statement stores it in names (`forecast = out.cpu().numpy()`,
    `losses.append(loss.item())`) that such a call reads later in every run of the
    iteration, also through names computed from them (`action = np.clip(action, -1, 1)`).
    A copy stored in a name the call does not read (a running total next to a plot of
    something else) is not what the call needs."""
    statement = ctx.statement
    current: ast.AST | None = node
    while current is not None and current is not statement:
        parent = ctx.parent(current)
        if isinstance(parent, ast.Call) and current is not parent.func and consumes(parent, ctx):
            return True
        current = parent
    if statement is None or not isinstance(loop, (*STATEMENT_LOOPS, *_DEFS)):
        return False
    flowing = _stored_in(node, statement, ctx)
    if not flowing:
        return False
    end = (statement.end_lineno, statement.end_col_offset)
    run = (
        unconditional_expressions(loop)
        if isinstance(loop, STATEMENT_LOOPS)
        else unconditional_body_expressions(loop.body)
    )  # type: ignore[attr-defined]
    for expression in run:
        if (expression.lineno, expression.col_offset) < end:  # type: ignore[attr-defined]
            continue
        for sub in walk_local([expression]):
            if isinstance(sub, ast.Call) and consumes(sub, ctx) and _reads(sub, flowing, skip_func=True):
                return True
        if isinstance(expression, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and _reads(expression, flowing):
            flowing |= _stored_names(expression)
    return False


def _stored_in(node: ast.AST, statement: ast.stmt, ctx: RuleContext) -> set[str]:
    """The names the current statement stores the copy's value in: the targets of an
    assignment, or the receiver of `name.append(...)`-like calls the copy is passed to."""
    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return _stored_names(statement)
    names: set[str] = set()
    current: ast.AST | None = node
    while current is not None and current is not statement:
        parent = ctx.parent(current)
        if (
            isinstance(parent, ast.Call)
            and current is not parent.func
            and isinstance(parent.func, ast.Attribute)
            and parent.func.attr in _STORING_METHODS
        ):
            name = base_name(parent.func.value)
            if name is not None:
                names.add(name)
        current = parent
    return names


def _stored_names(statement: ast.stmt) -> set[str]:
    """The names an assignment stores into: its targets (`a, b = ...`, `total += ...`), and
    the containers of item targets (`weights` in `weights[key] = value`)."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[attr-defined]
    names: set[str] = set()
    for target in targets:
        for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
            name = element.id if isinstance(element, ast.Name) else base_name(element)
            if name is not None:
                names.add(name)
    return names


def _reads(node: ast.AST, names: set[str], skip_func: bool = False) -> bool:
    """`node` reads one of `names` (a call's arguments only, with `skip_func`)."""
    parts: list[ast.AST] = [node]
    if skip_func and isinstance(node, ast.Call):
        parts = [*node.args, *node.keywords]
    elif isinstance(node, (ast.Assign, ast.AnnAssign)):
        parts = [node.value] if node.value is not None else []
    return any(isinstance(sub, ast.Name) and sub.id in names for sub in walk_local(parts))


def _needs_on_the_host(call: ast.Call, ctx: RuleContext) -> bool:
    """`call` draws its arguments (`_displays`) or steps an environment with them
    (`_steps_an_environment`): either way the copy is the point."""
    return _displays(call, ctx) or _steps_an_environment(call, ctx)


def _steps_an_environment(call: ast.Call, ctx: RuleContext) -> bool:
    """`obs, reward, done, info = env.step(action)`: a step of a reinforcement-learning
    environment (the Gym API: `.step` given the action, four or five results unpacked),
    which runs on the host and needs the action there: copying it is the loop's point."""
    statement = ctx.parent(call)
    return (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "step"
        and len(call.args) == 1
        and isinstance(statement, ast.Assign)
        and statement.value is call
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Tuple)
        and len(statement.targets[0].elts) in (4, 5)
    )


def _displays(call: ast.Call, ctx: RuleContext) -> bool:
    """`call` draws or makes an image, a plot or a histogram of its arguments: a plotting
    call (matplotlib, seaborn, a matplotlib `Axes` or `Figure` made by one:
    `ax.imshow(x.cpu())`), an image or histogram maker (`PIL.Image.fromarray`,
    `wandb.Image`, a TensorBoard writer's `add_image`/`add_histogram`), or a teaching
    library's plotting helper (`d2l.show_images`)."""
    name = ctx.qualname(call.func) or ""
    if name.startswith(PLOTTING_MODULES) or name in DISPLAY_CALLS:
        return True
    prefix, helpers = TEACHING_PLOT_HELPERS
    if name.startswith(prefix) and name.rsplit(".", 1)[-1] in helpers:
        return True
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    return func.attr in SUMMARY_WRITER_METHODS or _plotting_object(func.value, ctx, _DEPTH, set())


def _plotting_object(node: ast.expr, ctx: RuleContext, depth: int, visiting: set[str]) -> bool:
    """`node` is a matplotlib (or seaborn) object: the result of one of their calls, of a
    method of such an object (`fig.add_subplot(...)`, `axes.flatten()`), a part of one
    (`axes[i]`, `ax.title`), or a name every binding of which in the current scope is one
    (`fig, axes = plt.subplots(...)`, `for ax in axes.flat`)."""
    if depth <= 0:
        return False
    if isinstance(node, (ast.Subscript, ast.Attribute)):
        return _plotting_object(node.value, ctx, depth, visiting)
    if isinstance(node, ast.Call):
        if (ctx.qualname(node.func) or "").startswith(PLOTTING_MODULES):
            return True
        return isinstance(node.func, ast.Attribute) and _plotting_object(node.func.value, ctx, depth - 1, visiting)
    if not isinstance(node, ast.Name) or ctx.qualname(node) is not None:
        return False
    if node.id in visiting:
        return True  # `axes = axes.flatten()`: what the other bindings say
    bindings = ctx.bindings(node.id)
    if not bindings:
        return False
    visiting = visiting | {node.id}
    for binding in bindings:
        if isinstance(binding, ast.Assign):
            value: ast.expr | None = binding.value
        elif isinstance(binding, (ast.For, ast.AsyncFor)):
            value = _iterated(binding.target, binding.iter, node.id, ctx)
        else:
            return False
        if value is None or not _plotting_object(value, ctx, depth - 1, visiting):
            return False
    return True


def _iterated(target: ast.expr, iterable: ast.expr, name: str, ctx: RuleContext) -> ast.expr | None:
    """What the loop variable `name` takes its items from: `axes.flat` in `for ax in axes.flat`,
    `for i, ax in enumerate(axes.flat)` and `for ax, image in zip(axes.flat, images)`."""
    if isinstance(target, ast.Name):
        return iterable if target.id == name else None
    if not (
        isinstance(target, ast.Tuple)
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and ctx.env.is_builtin(iterable.func.id)
        and not iterable.keywords
    ):
        return None
    if iterable.func.id == "enumerate" and len(iterable.args) == 1 and len(target.elts) == 2:
        return _iterated(target.elts[1], iterable.args[0], name, ctx)
    if iterable.func.id == "zip" and len(iterable.args) == len(target.elts):
        found = [_iterated(t, a, name, ctx) for t, a in zip(target.elts, iterable.args, strict=False)]
        return next((f for f in found if f is not None), None)
    return None


# -- which idiom a copy is part of -------------------------------------------------------


def idiom(read: tuple[ast.AST, bool, bool], ctx: RuleContext) -> Idiom:
    """Whether a copy, read as `_read_value` says, feeds a running total, reads a Python
    number, or copies a tensor, array or frame (see the module docstring). A total the loop
    itself reads on every iteration (`print(total / (step + 1))`, `if total > limit:
    break`) is a number read each step: kept on the device, it would be read there instead."""
    top, scalar, listed = read
    total = None if listed else _total_fed(top, ctx)
    if total is not None and not _read_every_iteration(total, ctx):
        return Idiom.TOTAL
    return Idiom.SCALAR if scalar else Idiom.COPY


def _read_value(node: ast.AST, ctx: RuleContext) -> tuple[ast.AST, bool, bool]:
    """The whole expression that reads the copy (`loss.detach().cpu().item()` from its
    `.cpu()`), whether it ends in a Python number (`.item()` or a scalar builtin,
    `float(t.cpu())`, somewhere along the chain) and whether in a list (`.tolist()`,
    `list(t.cpu())`)."""
    scalar, listed, current = _scalar_read(node, ctx), _listed(node, ctx), node
    while True:
        parent = ctx.parent(current)
        if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is current:
            current = parent  # `.cpu().data`, `.numpy()[0]`, a method about to be called
        elif isinstance(parent, ast.Call) and (parent.func is current or parent.args == [current]):
            if parent.func is not current and not (_scalar_read(parent, ctx) or _listed(parent, ctx)):
                return current, scalar, listed  # passed to some other call
            scalar, listed = scalar or _scalar_read(parent, ctx), listed or _listed(parent, ctx)
            current = parent
        else:
            return current, scalar, listed


def _scalar_read(node: ast.AST, ctx: RuleContext) -> bool:
    """`x.item()`, or `float(x)` (`int`, `bool`, `complex`) with one argument, or `{x:.4f}`
    in an f-string (what it formats is a number)."""
    if isinstance(node, ast.FormattedValue):
        return True
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        if func.attr == "add_scalar":  # a TensorBoard writer's (`to_host`): it reads a number
            return True
        return func.attr == "item" and not node.args and not node.keywords
    return (
        isinstance(func, ast.Name)
        and func.id in SCALAR_BUILTINS
        and ctx.env.is_builtin(func.id)
        and len(node.args) == 1
        and not node.keywords
    )


def _listed(node: ast.AST, ctx: RuleContext) -> bool:
    """`x.tolist()`, or `list(x)` with one argument: the values in a Python list."""
    if not isinstance(node, ast.Call) or node.keywords:
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr == "tolist" and not node.args
    return isinstance(func, ast.Name) and func.id == "list" and ctx.env.is_builtin("list") and len(node.args) == 1


def _total_fed(value: ast.AST, ctx: RuleContext, statement: ast.stmt | None = None) -> ast.expr | None:
    """The running total the current statement (or `statement`) adds `value` to, through
    arithmetic, comparisons and reductions only: `total += loss.item() * len(batch)`,
    `total = total + loss.item()`, `meter.sum = meter.sum + x.item()`, `correct += (pred.cpu()
    == y).sum()`. Put in a list first (`preds += [out.cpu()]`) or passed to a call, it is not
    a sum."""
    statement = ctx.statement if statement is None else statement
    current = value
    parent = ctx.parent(current)
    while True:
        reduction = _reduced(current, parent, ctx)
        if _arithmetic(parent) or isinstance(parent, ast.Compare) or _number_function_of(current, parent, ctx):
            current = parent
        elif reduction is not None:
            current = reduction
        else:
            break
        parent = ctx.parent(current)
    if isinstance(statement, ast.AugAssign):
        summed = current is statement.value and isinstance(statement.op, _SUMS)
        return statement.target if summed else None
    if not (isinstance(statement, ast.Assign) and current is statement.value and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    return target if _sum_of(current, ast.unparse(target)) else None


def _arithmetic(node: ast.AST | None) -> bool:
    """An operator on numbers: not a string formatted (`"loss %.4f" % x`) or joined
    (`"loss " + str(x)`), which makes text, not a sum."""
    if isinstance(node, ast.UnaryOp):
        return True
    if not isinstance(node, ast.BinOp):
        return False
    return not any(
        isinstance(side, ast.JoinedStr) or isinstance(side, ast.Constant) and isinstance(side.value, (str, bytes))
        for side in (node.left, node.right)
    )


#: Builtins that compute a number from a number (`round(loss.item(), 4)`), as `math`'s
#: functions do (`10 * log10(1 / mse.item())`).
_NUMBER_BUILTINS = frozenset({"abs", "round"})


def _number_function_of(current: ast.AST, parent: ast.AST | None, ctx: RuleContext) -> bool:
    """`parent` computes a number from `current` with one of `math`'s functions or a number
    builtin: arithmetic on the way to a total, as an operator is."""
    if not (isinstance(parent, ast.Call) and any(argument is current for argument in parent.args)):
        return False
    func = parent.func
    if isinstance(func, ast.Name) and func.id in _NUMBER_BUILTINS and ctx.env.is_builtin(func.id):
        return True
    return (ctx.env.qualname(func) or "").startswith("math.")


#: Methods that reduce a copied tensor or convert its elements on the way to a total
#: (`(pred.cpu() == y).sum()`, `.float().mean()`).
_REDUCING_METHODS = frozenset({"sum", "mean", "float", "double", "long", "int", "numpy", "item"})


#: torch functions that reduce a tensor to a number on the way to a total
#: (`torch.mean(equal.type(torch.FloatTensor))`).
_REDUCING_FUNCTIONS = frozenset({"torch.sum", "torch.mean"})


def _reduced(current: ast.AST, parent: ast.AST | None, ctx: RuleContext) -> ast.AST | None:
    """The call that reduces or converts `current`: a method called on it (`(...).sum()`),
    or a torch reduction given it (`torch.mean(...)`); None otherwise."""
    if isinstance(parent, ast.Attribute):
        call = ctx.parent(parent)
        reduces = parent.value is current and parent.attr in _REDUCING_METHODS
        return call if reduces and isinstance(call, ast.Call) and call.func is parent else None
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is current:
        return parent if ctx.env.qualname(parent.func) in _REDUCING_FUNCTIONS else None
    return None


#: The operators of a running total (`total += x`, `remaining -= x`).
_SUMS = (ast.Add, ast.Sub)


def _sum_of(expression: ast.AST, total: str) -> bool:
    """`expression` adds to `total` (its source): a sum or difference whose first operand,
    or any added one, is the total itself (`total + x`, `x + total - y`; not `x - total`)."""
    if ast.unparse(expression) == total:
        return True
    if not (isinstance(expression, ast.BinOp) and isinstance(expression.op, _SUMS)):
        return False
    return _sum_of(expression.left, total) or (isinstance(expression.op, ast.Add) and _sum_of(expression.right, total))


def _read_every_iteration(total: ast.expr, ctx: RuleContext, statement: ast.stmt | None = None) -> bool:
    """The innermost loop reads `total` on every iteration, outside the statement that adds
    to it (the current one, or `statement`): a progress bar showing the mean so far, an
    early stop on the sum. Not known in a helper the loop calls (no loop of its own)."""
    if not ctx.loops:
        return False
    loop, spelled = ctx.loops[-1], ast.unparse(total)
    statement = ctx.statement if statement is None else statement
    if not isinstance(loop, STATEMENT_LOOPS):
        return False
    for expression in unconditional_expressions(loop):  # type: ignore[arg-type]
        if expression is statement:
            continue
        for sub in walk_local([expression]):
            if (
                isinstance(sub, (ast.Name, ast.Attribute, ast.Subscript))
                and isinstance(sub.ctx, ast.Load)
                and ast.unparse(sub) == spelled
            ):
                return True
    return False


def _total_through_name(
    read: tuple[ast.AST, bool, bool], loop: ast.AST, ctx: RuleContext
) -> tuple[str, ast.stmt] | None:
    """A number read into a name (`loss_t = loss.item()`, `acc = float(correct)`) whose
    every use in `loop` feeds a running total, in statements after it in the same block
    (`running += (loss_t - running) / (step + 1)`) that the loop does not read on every
    iteration: the name and the first such statement. A name also shown, compared,
    stored or passed on is a number read each step (GPU307)."""
    statement = ctx.statement
    top, scalar, listed = read
    while _number_function_of(top, ctx.parent(top), ctx) or _arithmetic(ctx.parent(top)):
        top = ctx.parent(top)  # type: ignore[assignment]  # `psnr = 10 * log10(1 / mse.item())`
    if not scalar or listed or not isinstance(statement, ast.Assign) or top is not statement.value:
        return None
    if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
        return None
    name = statement.targets[0].id
    block = _block_of(statement, ctx)
    if block is None or not isinstance(loop, STATEMENT_LOOPS):
        return None
    feeding: list[ast.stmt] = []
    for later in block[block.index(statement) + 1 :]:
        if name in bound_names([later]):
            break
        loads = [sub for sub in walk_local([later]) if isinstance(sub, ast.Name) and sub.id == name]
        if not loads:
            continue
        totals = {_total_fed(load, ctx, later) for load in loads}
        if None in totals or len(totals) != 1:
            return None
        (total,) = totals
        if _read_every_iteration(total, ctx, later):  # type: ignore[arg-type]
            return None
        feeding.append(later)
    if not feeding:
        return None
    uses = [
        sub
        for sub in walk_local(loop.body)  # type: ignore[attr-defined]
        if isinstance(sub, ast.Name) and sub.id == name and sub is not statement.targets[0]
    ]
    fed = {id(sub) for later in feeding for sub in walk_local([later]) if isinstance(sub, ast.Name)}
    if any(id(use) not in fed for use in uses):
        return None  # used elsewhere in the loop too, or bound there again
    return name, feeding[0]


def _block_of(statement: ast.stmt, ctx: RuleContext) -> list[ast.stmt] | None:
    """The statement list that holds `statement`."""
    parent = ctx.parent(statement)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is statement for s in block):
            return block
    return None
