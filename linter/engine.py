"""The engine: parse once, walk once, let every selected rule look at the nodes it wants.

The walk follows source order and keeps the type evidence (`TypeEnv`) up to date as it
goes, so a rule called on a node sees the bindings in force at that point: branches are
merged where control flow rejoins, loops are merged with the path that skips them, and
functions, lambdas, classes and comprehensions get their own scopes.
"""

from __future__ import annotations

import ast
import bisect
import gc
import os
import re
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from .astutil import STATEMENT_LOOPS, TRY_STATEMENTS, all_args, walk_local
from .dataset_items import moves_to_a_device
from .estimators import fitted_and_predicted
from .diagnostic import DEBUG_VARIABLE, SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, Diagnostic, Position, Record
from .evidence import (
    DEVICE,
    HOST,
    LIBRARY_TRIGGERS,
    LIST,
    PROGRESS_BARS,
    Kind,
    OTHER,
    Scope,
    Ty,
    TypeEnv,
    join,
    move_target,
    same,
    sequence_of,
    unpacked,
)
from .registry import Rule, all_rules
from .rule_base import RuleContext
from . import accelerate_api, pandas_api, torch_api
from .semantic import FunctionFacts, SemanticIndex
from . import callers, newer_syntax, project
from .source import Source, SourceError, refusal
from .values import SUMMED


#: How many of a project function's first positional parameters are probed for a placed
#: argument (`to_cuda(x)`, `to_device(batch, device)`), and what each is probed with.
_PROBED_PARAMETERS = 3
#: Words a project module that names no library must hold to be analysed for the files
#: importing it: a helper may place its argument without importing torch (`x.cuda()`), or
#: fit an estimator it is handed without importing scikit-learn (`clf.fit(X, y)`).
_FOLLOWED_WORDS = (b".cuda(", b".to(", b".fit(")
#: A class of the module that is neither a torch module nor an estimator: its instances are
#: left unknown in the files importing it, as a class those files do not show would be.
_PLAIN_CLASS = Ty(Kind.CLASS)
#: How deep return types are inferred: a function of the file, the functions it calls, and
#: theirs (a trainer's loop calling its forward method, which builds its inputs with another
#: method and a helper nested there). Defs nested in a body being inferred are followed too.
MAX_INFERRING = 3
_DEVICE = Ty(Kind.DEVICE, "torch", DEVICE)


def _follows(returned: Ty | None, kind: Kind) -> bool:
    return returned is not None and returned.kind == kind and returned.lib == "torch" and returned.place == DEVICE


def _moved_to(function: ast.AST) -> set[str]:
    """Names the function's body hands to `.to(...)` as its first argument."""
    return {
        node.args[0].id
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "to"
        and node.args
        and isinstance(node.args[0], ast.Name)
    }


#: Fields that never hold anything a rule inspects (expression contexts, operators):
#: skipping them halves the number of nodes visited.
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "type_comment", "kind"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {ast.Name: (), ast.Constant: ()}
#: Expression node types (and keyword arguments), the ones a walk may pass through plainly.
_EXPRESSION_TYPES = (*ast.expr.__subclasses__(), ast.keyword)


class Analysis:
    """What linting one source produced. A slots class rather than a dataclass (start-up)."""

    __slots__ = ("diagnostics", "warnings", "tree", "error", "semantic", "records", "imported")

    def __init__(
        self,
        diagnostics: list[Diagnostic],
        warnings: list[str] | None = None,
        tree: ast.Module | None = None,
        error: str | None = None,
        semantic: SemanticIndex | None = None,
        records: list[Record] | None = None,
        imported: tuple[project.ImportedFile, ...] = (),
    ) -> None:
        self.diagnostics = diagnostics
        self.warnings: list[str] = [] if warnings is None else warnings
        self.tree = tree
        #: An internal error (a rule that raised): the file's result is incomplete.
        self.error = error
        #: The semantic index the walk built (None when the file was not walked).
        self.semantic = semantic
        #: What collectors noted (`RuleContext.record`), in source order.
        self.records: list[Record] = [] if records is None else records
        #: The project modules whose facts the walk used (`project.Imports.sources`).
        self.imported = imported


class _Deferred(NamedTuple):
    """A def whose body waits for the end of its scope, and what the walk knew at the def.
    A NamedTuple (start-up)."""

    facts: FunctionFacts
    scope: Scope  # the evidence scope the def is in
    scopes: list[ast.AST]
    statements: list[ast.stmt]
    blocks: list[list[ast.stmt]]


class _Walker:
    """One traversal of the tree that maintains `RuleContext` and calls the rules.

    It is also the file-wide `Resolver` `TypeEnv` consults: calls of the file's own
    functions, attributes of `self`.
    """

    def __init__(self, ctx: RuleContext, rules: Sequence[type[Rule]]) -> None:
        self.ctx = ctx
        self.env = ctx.env
        self.index = ctx.semantic
        #: Per function or module scope being walked: the defs whose bodies wait for the
        #: end of that scope, with what the walk knew where they were defined.
        self.deferred: list[list[_Deferred]] = []
        #: Return types gathered while a function body is walked to learn what it returns.
        self.returns: list[Ty | None] | None = None
        #: How many function bodies are being walked for their return types, one inside
        #: another (a helper's helper: `self.train_step(x)` calling `self.noise(n)`).
        self.inferring = 0
        #: A call was left unfollowed at that depth while a return type was being inferred.
        self.cut_off = False
        #: Return types of the file's functions already inferred, per def.
        self.inferred: dict[ast.AST, Ty | None] = {}
        #: While a module's facts are probed (`exports`), its defs by their facts: each
        #: probe finds its def at once, not by a scan of the waiting defs.
        self.waiting: dict[FunctionFacts, _Deferred] | None = None
        #: Defs met while a body is walked for its return types (a helper nested in the
        #: function inferred): their own returns may be asked before that walk ends.
        self.nested_inferred: list[_Deferred] = []
        self.handlers: dict[type, list[tuple[type[Rule], Callable]]] = {}
        #: Rules that look back over the whole file once the walk is done.
        self.finishers: list[tuple[type[Rule], Callable]] = []
        #: Per method name, the handlers of calls of that method (`Rule.calls`).
        self.method_handlers: dict[str, list[tuple[type[Rule], Callable]]] = {}
        for rule_class in rules:
            instance = rule_class()
            if rule_class.finish is not Rule.finish:
                self.finishers.append((rule_class, instance.finish))
            for node_type in rule_class.nodes:
                self.handlers.setdefault(node_type, []).append((rule_class, instance.check))
        #: True while a loop body is walked only to learn what one iteration leaves bound.
        self.muted = False
        #: (scope, name) of lists and dicts filled with values of different or unknown types.
        self.mixed_fills: set[tuple[ast.AST, str]] = set()
        #: The places of the calls whose arguments' types are wanted (`call_types`; none
        #: in a file's own lint), and what the walk found them to be.
        self.wanted_calls: frozenset[callers.Place] = frozenset()
        self.call_sites: dict[callers.Place, callers.Site] = {}
        self.special: dict[type, Callable[[Any], None]] = {  # each takes its own node type
            ast.FunctionDef: self._function,
            ast.AsyncFunctionDef: self._function,
            ast.Lambda: self._lambda,
            ast.ClassDef: self._class,
            ast.Assign: self._assign,
            ast.AugAssign: self._augassign,
            ast.AnnAssign: self._annassign,
            ast.For: self._for,
            ast.AsyncFor: self._for,
            ast.While: self._while,
            ast.If: self._if,
            ast.Try: self._try,
            ast.With: self._with,
            ast.AsyncWith: self._with,
            ast.Import: self._import,
            ast.Return: self._return,
            ast.Call: self._call,
            ast.Expr: self._expr,
            ast.ImportFrom: self._import,
            ast.Global: self._global,
            ast.Nonlocal: self._global,
            ast.Delete: self._delete,
            ast.NamedExpr: self._namedexpr,
            ast.ListComp: self._comprehension,
            ast.SetComp: self._comprehension,
            ast.GeneratorExp: self._comprehension,
            ast.DictComp: self._comprehension,
        }
        if hasattr(ast, "TryStar"):
            self.special[ast.TryStar] = self._try
        if hasattr(ast, "Match"):
            self.special[ast.Match] = self._match
        #: Leaves (names, constants) no rule and no handler of the walk looks at: about
        #: half the nodes of a module, skipped without a call.
        self.inert = frozenset(
            kind for kind in (ast.Name, ast.Constant) if kind not in self.handlers and kind not in self.special
        )
        #: Expression types no rule and no handler looks at (`a.b`, `x[i]`, `a + b`, ...):
        #: the walk goes straight on to their children.
        self.plain = frozenset(
            kind
            for kind in _EXPRESSION_TYPES
            if kind not in self.handlers and kind not in self.special and kind not in self.inert
        )

    # -- generic traversal ---------------------------------------------------------
    def visit(self, node: ast.AST) -> None:
        kind = type(node)
        if kind is ast.Call and type(node.func) is ast.Attribute:  # type: ignore[attr-defined]
            attr = node.func.attr  # type: ignore[attr-defined]
            handlers = self.method_handlers.get(attr)
            if handlers is None:
                handlers = self.method_handlers[attr] = [
                    (rule_class, check)
                    for rule_class, check in self.handlers.get(ast.Call, ())
                    if rule_class.calls is None or attr in rule_class.calls
                ]
        else:
            handlers = self.handlers.get(kind)
        if handlers and not self.muted:
            ctx = self.ctx
            ctx._answers = {}
            for rule_class, check in handlers:
                ctx._rule = rule_class
                check(node, ctx)
            ctx._rule = ctx._answers = None
        special = self.special.get(kind)
        if special is not None:
            special(node)
        else:
            self.children(node)

    def children(self, node: Any) -> None:  # an `ast` node, or a node-like part of one
        fields = _CHILD_FIELDS.get(type(node))
        if fields is None:
            fields = _CHILD_FIELDS[type(node)] = tuple(f for f in node._fields if f not in _LEAF_FIELDS)
        inert, plain = self.inert, self.plain
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                if value and isinstance(value[0], ast.stmt):
                    self.body(value)
                else:
                    for item in value:
                        kind = type(item)
                        if kind in plain:
                            self.children(item)
                        elif kind not in inert and isinstance(item, ast.AST):
                            self.visit(item)
            else:
                kind = type(value)
                if kind in plain:
                    self.children(value)
                elif kind not in inert and isinstance(value, ast.AST):
                    self.visit(value)

    def body(self, statements: list[ast.stmt]) -> None:
        ctx = self.ctx
        ctx.blocks.append(statements)
        for statement in statements:
            ctx.statements.append(statement)
            self.visit(statement)
            ctx.statements.pop()
        ctx.blocks.pop()

    def module(self, tree: ast.Module) -> None:
        self.deferred.append([])
        self.body(tree.body)
        self._run_deferred()
        ctx = self.ctx
        for rule_class, finish in self.finishers:
            ctx._rule = rule_class
            finish(ctx)
        ctx._rule = None

    def exports(self, tree: ast.Module) -> dict[str, project.Exported]:
        """What the module's top-level names are to a file importing them (`project`): its
        values' types, and what each function returns, probed with nothing known of its
        arguments and then with a host tensor in each of its first positional parameters
        (a function whose result then is on the device places that argument)."""
        self.deferred.append([])
        try:
            self.body(tree.body)
            names = {
                name: project.Exported(ty)
                for name, ty in self.env.scope.names.items()
                if ty is not None and ty != OTHER and not name.startswith("__") and ty != _PLAIN_CLASS
            }
            self.waiting = {item.facts: item for item in self.deferred[-1]}
            for item in self.deferred[-1]:
                if item.facts.owner is None and item.scope is self.env.scope:
                    names[item.facts.node.name] = self._exported(item.facts)
        finally:
            self.deferred.pop()
        return names

    def _exported(self, facts: FunctionFacts) -> project.Exported:
        """A function places an argument when what it returns follows that argument onto
        the device: given a host tensor there it returns a tensor on the device, and given
        a host module a module on the device (`to_cuda(x)`; not `pick(x, y)` returning
        `y.cuda()`). Its other parameters are probed unknown, then as a device, each that the
        body hands to `.to(...)` (the destination of `to_device(x, device)`). Only a function
        whose body moves something to a device is probed (`moves_to_a_device`)."""
        returned = self._probe(facts, None)
        fits = fitted_and_predicted(facts.node)
        if not moves_to_a_device(facts.node):  # nor can a loop of it feed a device
            return project.Exported(returned, True, fits=fits)
        feeds = self._fed_parameters(facts)
        names = facts.positional()[:_PROBED_PARAMETERS]
        destinations = _moved_to(facts.node)
        for destination in (None, *(i for i, name in enumerate(names) if name in destinations)):
            for position, name in enumerate(names):
                if position == destination:
                    continue
                site: dict[str, Ty | None] = {} if destination is None else {names[destination]: _DEVICE}
                if all(
                    _follows(self._probe(facts, {**site, name: Ty(kind, "torch", HOST)}), kind)
                    for kind in (Kind.TENSOR, Kind.MODEL)
                ):
                    return project.Exported(returned, True, position, destination, feeds, fits)
        return project.Exported(returned, True, feeds=feeds, fits=fits)

    def _fed_parameters(self, facts: FunctionFacts) -> tuple[int, ...]:
        """The positions of the function's parameters that a loop of its body iterates (as
        they are, or through `enumerate` or a progress bar) putting something on a device
        (`moves_to_a_device`): a project's `train(net, loader)`."""
        positions = {name: index for index, name in enumerate(facts.positional())}
        fed = set()
        for node in walk_local(facts.node.body):
            if not isinstance(node, (ast.For, ast.AsyncFor)):
                continue
            iterated = node.iter
            while (inner := self._items_of(iterated)) is not None:
                iterated = inner
            if isinstance(iterated, ast.Name) and iterated.id in positions and moves_to_a_device(node):
                fed.add(positions[iterated.id])
        return tuple(sorted(fed))

    def _items_of(self, iterable: ast.expr) -> ast.expr | None:
        """What `enumerate(loader)` (the builtin) or a progress bar (`tqdm(loader)`) yields
        the items of; None for anything else."""
        counted = self.env.enumerated(iterable)
        if counted is not None:
            return counted
        if isinstance(iterable, ast.Call) and iterable.args and self.env.qualname(iterable.func) in PROGRESS_BARS:
            return iterable.args[0]
        return None

    def _probe(self, facts: FunctionFacts, site: dict[str, Ty | None] | None) -> Ty | None:
        self.inferred.clear()
        if facts.yields:
            return None
        return self._returned(self.env, facts, site)

    def visit_all(self, nodes: Iterable[ast.AST | None]) -> None:
        for node in nodes:
            if node is not None:
                self.visit(node)

    # -- scopes --------------------------------------------------------------------
    def _arguments(self, args: ast.arguments, annotations: bool) -> None:
        self.visit_all(args.defaults)
        self.visit_all(args.kw_defaults)
        if annotations:
            for arg in all_args(args):
                if arg.annotation is not None:
                    self.visit(arg.annotation)

    def _bind_arguments(
        self,
        args: ast.arguments,
        annotated: bool,
        facts: FunctionFacts | None = None,
        site: dict[str, Ty | None] | None = None,
    ) -> None:
        """Bind parameters: to their annotation's type, else (for a function of the file) to
        what its call sites pass (`site`: one call's arguments), else to what their use shows."""
        usage = self._usage()
        defaults = _defaults(args)
        hook = self._trainer_step_parameters(facts)
        for arg in all_args(args):
            ty = self.env.annotation_type(arg.annotation) if annotated else None
            if ty is None and site is not None:
                ty = site.get(arg.arg)
            elif ty is None and facts is not None:
                ty = facts.parameter_type(arg.arg) or hook.get(arg.arg)
            if ty is None and usage:
                ty = usage.get(arg.arg)
            default = defaults.get(arg.arg)
            if ty is None and default is not None and torch_api.is_dtype(default, self.env):
                ty = torch_api.dtype_symbol("dtype")  # `dtype=torch.float32`: a dtype, whatever is passed
            self.env.bind(arg.arg, ty)
        # `*args` is a tuple and `**kwargs` a dict, whatever the annotation says of their items.
        for packed in (args.vararg, args.kwarg):
            if packed is not None:
                self.env.bind(packed.arg, OTHER)

    def _trainer_step_parameters(self, facts: FunctionFacts | None) -> dict[str, Ty]:
        """For a step hook of a `Trainer`'s subclass (`compute_loss(self, model, inputs,
        ...)`), the model and the batch the trainer hands it, both on the device."""
        if facts is None or facts.owner is None or facts.node.name not in accelerate_api.TRAINER_STEPS:
            return {}
        if not self.ctx.derives_a_trainer(facts.owner):
            return {}
        return accelerate_api.trainer_step_parameters(facts.positional())

    def _in_new_scope(self, kind: str, node: ast.AST, bind: Callable[[], None], run: Callable[[], None]) -> None:
        ctx = self.ctx
        saved_loops = ctx.loops
        ctx.loops = []
        self.env.push(kind)
        self.ctx.scopes.append(node)
        try:
            bind()
            run()
        finally:
            self.ctx.scopes.pop()
            self.env.pop()
            ctx.loops = saved_loops

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A def binds its name now; its body is walked at the end of the enclosing function
        (or module), as Python runs it only when called: by then the call sites in that scope
        have been walked and give the parameters their types, and the module's names are
        bound. Nothing is walked while a loop is walked only to learn its bindings."""
        self.visit_all(node.decorator_list)
        self._arguments(node.args, annotations=True)
        if node.returns is not None:
            self.visit(node.returns)
        self.env.bind(node.name, None)
        facts = self.index.function(node)
        if facts is None:
            return
        ctx = self.ctx
        item = _Deferred(facts, self.env.scope, list(self.ctx.scopes), list(ctx.statements), list(ctx.blocks))
        if self.returns is not None:  # a body walked for its returns: a helper it calls may be this def
            self.nested_inferred.append(item)
        elif not self.muted:
            self.deferred[-1].append(item)

    def _run_deferred(self) -> None:
        """Walk the bodies of the defs deferred in the current scope, callers first."""
        waiting = self.deferred[-1]
        by_facts = {id(item.facts): item for item in waiting}
        for facts in self.index.order([item.facts for item in waiting]):
            item = by_facts[id(facts)]
            self._walk_function(item, self._walk_deferred_body)
        self.deferred.pop()

    def _walk_deferred_body(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.deferred.append([])
        self.body(node.body)
        self._run_deferred()

    def _walk_function(
        self,
        item: _Deferred,
        run: Callable[[ast.FunctionDef | ast.AsyncFunctionDef], None],
        site: dict[str, Ty | None] | None = None,
    ) -> None:
        """Walk a def's body where it was defined: in its scope, under its statements."""
        ctx, env, node = self.ctx, self.env, item.facts.node
        saved = env.scope, ctx.scopes, ctx.statements, ctx.blocks
        env.scope, ctx.scopes, ctx.statements, ctx.blocks = (
            item.scope,
            list(item.scopes),
            list(item.statements),
            list(item.blocks),
        )
        try:
            self._in_new_scope(
                "function", node, lambda: self._bind_arguments(node.args, True, item.facts, site), lambda: run(node)
            )
        finally:
            env.scope, ctx.scopes, ctx.statements, ctx.blocks = saved

    def _lambda(self, node: ast.Lambda) -> None:
        self._arguments(node.args, annotations=False)
        self._in_new_scope(
            "lambda", node, lambda: self._bind_arguments(node.args, False), lambda: self.visit(node.body)
        )

    def _class(self, node: ast.ClassDef) -> None:
        self.visit_all(node.decorator_list)
        self.visit_all(node.bases)
        self.visit_all(node.keywords)
        self._in_new_scope("class", node, lambda: None, lambda: self.body(node.body))
        self.env.bind(node.name, self.env.class_type(node))

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        ctx = self.ctx
        generators = node.generators
        # The first iterable is evaluated in the enclosing scope.
        self.visit(generators[0].iter)
        self.env.push("comprehension")
        pushed = 0
        try:
            for index, generator in enumerate(generators):
                if index:
                    self.visit(generator.iter)
                self.env.bind_loop_target(generator.target, generator.iter)
                ctx.loops.append(generator)
                pushed += 1
                self.visit_all(generator.ifs)
            if isinstance(node, ast.DictComp):
                self.visit(node.key)
                self.visit(node.value)
            else:
                self.visit(node.elt)
        finally:
            del ctx.loops[len(ctx.loops) - pushed :]
            self.env.pop()

    # -- bindings ------------------------------------------------------------------
    def _assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        ty = self.env.type_of(node.value)
        self._move_in_place(node.value, statement=False)
        for target in node.targets:
            self._visit_target(target)
        for target in node.targets:
            self._bind(target, ty, node.value)
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Name)
                and not isinstance(target.slice, ast.Slice)
            ):
                self._fill(target.value.id, node.value, "dict")

    def _fill(self, name: str, value: ast.expr, container: str) -> None:
        """`xs.append(v)` / `d[k] = v` on a list or dict the scope binds once, to an empty
        one (`ScopeFacts.filled_container`): while every value put in it is of one known
        type, it is a `Kind.SEQUENCE` of that type (iterating the list, or taking one of its
        elements or one of the dict's values, gives it); after one that differs, plainly a
        list or a dict for the rest of the scope."""
        scope = self.index.scope(self.ctx.scopes[-1]) if self.ctx.scopes else None
        if scope is None or scope.filled_container(name) != container or (scope.node, name) in self.mixed_fills:
            return
        current = self.env.lookup(name)
        if current is None or not self.env.is_builtin(container) and current.kind != "sequence":
            return
        element = self.env.type_of(value)
        if current.kind == "sequence":
            if same(current.items[0], element):
                return
        elif element is not None and element != OTHER:
            self.env.bind(name, sequence_of(element, container))
            return
        self.mixed_fills.add((scope.node, name))
        self.env.bind(name, LIST if container == "list" else OTHER)

    def _augassign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        self._visit_target(node.target)
        if isinstance(node.target, ast.Name):
            old = self.env.lookup(node.target.id)
            new = old if old == OTHER or old is None else None
            if old is not None and old.kind in ("frame", "series", "ndframe", "array", "tensor"):
                new = old
            added = self.env.type_of(node.value)
            if old is not None and old.lib == "torch" and old.kind == "output" and _a_tensor(added):
                new = torch_api.arith(old, added)  # `loss = criterion(out, y)`, then `loss += reg`
            if old == OTHER and not old.builtin and torch_api.is_torch_value(added):
                # `total = 0`, then `total += loss`: the number becomes the tensor's sum, where it
                # is, also where a path that added nothing meets this one (`values.join`)
                summed = torch_api.arith(old, added)
                new = summed and Ty(summed.kind, summed.lib, summed.place, summed.items, builtin=SUMMED)
            self.env.bind(node.target.id, new)

    def _annassign(self, node: ast.AnnAssign) -> None:
        self.visit(node.annotation)
        if node.value is not None:
            self.visit(node.value)
        self._visit_target(node.target)
        ty = self.env.annotation_type(node.annotation)
        if ty is None and node.value is not None:
            ty = self.env.type_of(node.value)
        if node.value is not None or ty is not None:
            self._bind(node.target, ty, node.value)

    def _bind(self, target: ast.expr, ty: Ty | None, value: ast.expr | None) -> None:
        """Bind an assignment target; a name the value leaves unknown takes the family its
        use in this scope shows, and an attribute of `self` is recorded for the class."""
        if isinstance(target, ast.Attribute):
            self._record_attribute(target, ty, value)
            return
        if (
            isinstance(target, ast.Name)
            and ty is not None
            and ty.lib == "torch"
            and not ty.place
            and ty.kind in ("tensor", "output", "placed")
            and self._backpropagated_on_the_device(target.id)
        ):
            ty = Ty(ty.kind, "torch", DEVICE, ty.items)  # `loss = torch.sum(...)` of an unknown place
        self.env.bind_target(target, ty)
        if isinstance(target, (ast.Tuple, ast.List)):  # `self.mask, self.size = get_mask(n)`
            for element, item in zip(target.elts, unpacked(ty, target), strict=False):
                if isinstance(element, ast.Attribute):
                    self._record_attribute(element, item, None)
        if ty is None or isinstance(target, (ast.Tuple, ast.List)):
            self._apply_usage(target, value)

    def _apply_usage(self, target: ast.expr, value: ast.expr | None = None) -> None:
        """Names of a target left unknown take the family their use in this scope shows. A
        torch value so known, that a call given a tensor on the device made (`loss =
        model.loss(scores, labels)`, then `loss.backward()`), is on the device too: torch
        computes where its inputs are. So is a tensor the scope backpropagates where the code
        places values on the device (`_backpropagated_on_the_device`), bound alone or as one
        element of a tuple (`loss, logs = step(batch)`)."""
        usage = self._usage()
        if not usage:
            return
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and node.id in usage and self.env.lookup(node.id) is None:
                ty = usage[node.id]
                if (
                    ty.lib == "torch"
                    and not ty.place
                    and (
                        node is target
                        and self._given_the_device(value, node.id)
                        or (node is target or _element_of(node, target))
                        and self._backpropagated_on_the_device(node.id)
                        and not self._numbers_only(value)
                    )
                ):
                    ty = Ty(ty.kind, "torch", DEVICE, ty.items)
                self.env.bind(node.id, ty)

    def _numbers_only(self, value: ast.expr | None) -> bool:
        """`value` is arithmetic over literals and names known to hold no data (`total / 4`
        with `total` a sum of `.item()` reads): a number, whatever is done with it later."""
        if isinstance(value, ast.BinOp):
            return self._numbers_only(value.left) and self._numbers_only(value.right)
        if isinstance(value, ast.UnaryOp):
            return self._numbers_only(value.operand)
        if isinstance(value, ast.Constant):
            return True
        return isinstance(value, ast.Name) and self.env.lookup(value.id) == OTHER

    def _backpropagated_on_the_device(self, name: str) -> bool:
        """A backward pass from `name` follows this binding in the loops around it (outside
        loops, in the function), and those loops read a torch value on the device: a
        backward pass runs where the parameters it reaches are, and a training step that
        uses its batch or model on the device runs there. A binding no backward pass
        follows (`loss = running_loss / n` after the loop) is left alone, and so is a `name`
        turned into NumPy with no copy (`_read_as_numpy`): it is on the host."""
        scope = self.index.scope(self.ctx.scopes[-1]) if self.ctx.scopes else None
        passes = scope.backpropagated.get(name) if scope is not None else None
        statement = self.ctx.statements[-1] if self.ctx.statements else None
        if not passes or statement is None or self._read_as_numpy(name):
            return False
        loops = [loop for loop in self.ctx.loops if isinstance(loop, STATEMENT_LOOPS)]
        around = loops[0] if loops else self.ctx.scopes[-1]
        start, end = statement.lineno, getattr(around, "end_lineno", None)  # a module has none
        if not any(start < call.lineno and (end is None or call.lineno <= end) for call in passes):
            return False
        lookup, type_of = self.env.lookup, self.env.type_of
        return any(
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and _on_device(lookup(node.id))
            or isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and _on_device(type_of(node))  # `self.model`, set where the class is set up
            for node in ast.walk(around)
        )

    def _given_the_device(self, value: ast.expr | None, name: str) -> bool:
        """`value` is a call one of whose arguments is a torch value on the device, of no
        function merely imported (a module's function may compute on the host), and `name`,
        bound to it, is never turned into NumPy without a copy (`feats.detach().numpy()`
        raises on a device tensor: the code shows it is on the host)."""
        if not isinstance(value, ast.Call):
            return False
        if isinstance(value.func, ast.Name) and self._only_imported(value.func.id):
            return False
        if self._read_as_numpy(name):
            return False
        return torch_api.given_the_device(value, self.env)

    def _usage(self) -> dict[str, Ty]:
        scope = self.index.scope(self.ctx.scopes[-1]) if self.ctx.scopes else None
        return scope.usage if scope is not None else {}

    def _record_attribute(self, target: ast.Attribute, ty: Ty | None, value: ast.expr | None) -> None:
        facts = self._method_of_self(target)
        if facts is None or self.muted or self.returns is not None:
            return
        if isinstance(value, ast.Constant) and value.value is None:
            return  # `self.model = None` until set up: says nothing of what it will hold
        own_body = (
            self.ctx.scopes[-1] is facts.node and bool(self.ctx.blocks) and self.ctx.blocks[-1] is facts.node.body
        )
        self.index.record_attribute(facts.owner, target.attr, ty, facts.node, own_body)  # type: ignore[arg-type]

    def _method_of_self(self, node: ast.Attribute) -> FunctionFacts | None:
        """The method whose instance parameter `node`'s receiver is (`self.x` in a method)."""
        if not isinstance(node.value, ast.Name):
            return None
        for scope in reversed(self.ctx.scopes):
            facts = self.index.function(scope)
            if facts is not None:
                if (
                    facts.owner is not None
                    and node.value.id == facts.self_name
                    and self.env.lookup(node.value.id) is None
                ):
                    return facts
                return None
            if not isinstance(scope, ast.Lambda):
                return None
        return None

    # -- the resolver ------------------------------------------------------------------
    def call(self, env: TypeEnv, node: ast.Call) -> Ty | None:
        """What a call of a function of the file returns: its `return` values' types, its
        body walked once (without reporting) with this call's arguments, `MAX_INFERRING` deep."""
        facts = self._callee(node)
        if facts is None:
            return self._attribute_call(env, node) or self._held_call(env, node) or self._any_module_method(env, node)
        if self.inferring >= MAX_INFERRING:
            self.cut_off = True  # what the caller being inferred returns is known only in part
            return None
        if facts.yields:
            return None
        if facts.node in self.inferred:
            returned = self.inferred[facts.node]
        else:
            returned = self._returned(env, facts, self._site(facts, node))
        if isinstance(node.func, ast.Attribute):  # `net.qvals(x)`, `self.both(x)`
            return _where_the_module_is(returned, env.type_of(node.func.value))
        return returned

    def _returned(self, env: TypeEnv, facts: FunctionFacts, site: dict[str, Ty | None] | None) -> Ty | None:
        """The function's `return` values' types, its body walked once (without reporting)
        with the arguments of one call (`site`); remembered per function."""
        if facts.node in self.inferred:
            return self.inferred[facts.node]
        item = self._deferred_item(facts)
        if item is None:
            return None
        self.inferred[facts.node] = None  # recursion
        saved_muted, saved_returns, saved_cut_off, mark = self.muted, self.returns, self.cut_off, env.mark()
        self.muted, self.returns, self.cut_off = True, [], False
        self.inferring += 1
        nested = len(self.nested_inferred)
        try:
            self._walk_function(item, lambda function: self.body(function.body), site)
            returns = self.returns
        finally:
            del self.nested_inferred[nested:]  # their scopes end with this walk
            env.rollback(mark)
            self.muted, self.returns = saved_muted, saved_returns
            self.inferring -= 1
            cut_off, self.cut_off = self.cut_off, saved_cut_off or self.cut_off
        result = returns[0] if returns else None
        for ty in returns[1:]:
            result = join(result, ty)
        if returns and _may_fall_through(facts.node):
            result = None
        if cut_off:
            del self.inferred[facts.node]  # asked again from nearer the top, it is followed further
        else:
            self.inferred[facts.node] = result
        return result

    def defines_method(self, name: str) -> bool:
        return name in self._methods_by_name()

    def returns_host_values(self, name: str) -> bool:
        """Some method `name` of the file's classes returns what it read to the host
        (`return q.max(1)[1].item()`, `return out.cpu().numpy()`): calling it gives no
        value on the device, whatever it is given."""
        return self.index.remember(
            "returns host values",
            name,
            lambda: any(
                isinstance(node, ast.Return) and node.value is not None and _reads_to_host(node.value)
                for facts in self._methods_by_name().get(name, ())
                for node in walk_local(facts.node.body)
            ),
        )

    def _methods_by_name(self) -> dict[str, list[FunctionFacts]]:
        """The methods of the file's classes, by name (worked out once per file)."""

        def grouped() -> dict[str, list[FunctionFacts]]:
            methods: dict[str, list[FunctionFacts]] = {}
            for facts in self.index.functions.values():
                if facts.owner is not None:
                    methods.setdefault(facts.node.name, []).append(facts)
            return methods

        return self.index.remember("methods by name", self.index.tree, grouped)

    def _attribute_call(self, env: TypeEnv, node: ast.Call) -> Ty | None:
        """`self.model(x)`: calling a module held in an attribute of `self`."""
        if not isinstance(node.func, ast.Attribute):
            return None
        held = self.attribute(env, node.func)
        if held is not None and held.lib == "torch" and held.kind in ("model", "placed"):
            return torch_api.call_type(held, node, env)
        return None

    def _held_call(self, env: TypeEnv, node: ast.Call) -> Ty | None:
        """`criterion(outputs, labels)`, `self.model(inputs)`: calling, with a tensor on the
        device, a value the file does not show gives an output on the device. Such a value is
        a parameter, a name bound to what an unknown call returned, or an attribute of `self`
        that no method of its class defines; not a loop's variable. Torch code hands its
        models and losses around this way, and they compute where their inputs are; a
        function that returns a Python number instead is never read with `.item()`."""
        func = node.func
        if isinstance(func, ast.Name):
            if env.lookup(func.id) is not None or env.is_builtin(func.id) or env.qualname(func) is not None:
                return None
            if self._loop_variable(func.id):
                return None  # `for layer in net.layers: x = layer(x)`: a model's parts, a few
            if self._only_imported(func.id):
                return None  # a function of a module, imported one way or another on each path
        elif isinstance(func, ast.Attribute):
            owner = self._method_of_self(func)
            if owner is None or self.index.method(owner.owner, func.attr) is not None:  # type: ignore[arg-type]
                return None
        else:
            return None
        return Ty(Kind.OUTPUT, "torch", DEVICE) if torch_api.given_the_device(node, env) else None

    def _read_as_numpy(self, name: str) -> bool:
        """The scope turns `name` into a NumPy array with no copy to the host on the way
        (`name.numpy()`, `name.detach().numpy()`, `name.data.numpy()`)."""
        scope = self.ctx.scopes[-1] if self.ctx.scopes else self.ctx.tree
        for node in walk_local(getattr(scope, "body", [])):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numpy":
                receiver: ast.expr = node.func.value
                while True:
                    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
                        if receiver.func.attr not in _NO_COPY_ON_THE_WAY:
                            break
                        receiver = receiver.func.value
                    elif isinstance(receiver, ast.Attribute) and receiver.attr == "data":
                        receiver = receiver.value
                    else:
                        break
                if isinstance(receiver, ast.Name) and receiver.id == name:
                    return True
        return False

    def _only_imported(self, name: str) -> bool:
        """`name` is bound, in the innermost scope that binds it, by imports only
        (`from train import train_dense as train_epoch` on one path, `... train_sparse as
        train_epoch` on the other): a module's function or class, not a model handed in."""
        for scope in [*reversed(self.ctx.scopes), self.ctx.tree]:
            bindings = self.index.bindings(scope, name)
            if bindings:
                return all(isinstance(b, (ast.Import, ast.ImportFrom)) for b in bindings)
        return False

    def _loop_variable(self, name: str) -> bool:
        """`name` is bound by a `for` loop (or a comprehension) of the scope being walked."""
        scope = self.ctx.scopes[-1] if self.ctx.scopes else None
        bindings = self.index.bindings(scope, name) if scope is not None else []
        return any(isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) for node in bindings)

    def attribute(self, env: TypeEnv, node: ast.Attribute) -> Ty | None:
        """An attribute of the instance in a method: what the class's own assignments hold,
        else, in a `Trainer`'s subclass, what the trainer sets up (its accelerator, the model)."""
        facts = self._method_of_self(node)
        if facts is None or facts.owner is None:
            return None
        if (facts.owner, node.attr) in self.index.attribute_types:
            return self.index.attribute_type(facts.owner, node.attr)
        if self.ctx.derives_a_trainer(facts.owner):
            return accelerate_api.trainer_attribute_type(node.attr)
        return None

    def _callee(self, node: ast.Call) -> FunctionFacts | None:
        """The def of the file a call reaches: a function called by name, or a method called
        on `self` (a class called by name makes an instance: no def is reached here)."""
        func = node.func
        if isinstance(func, ast.Name):
            found = self.index.resolve(self.ctx.scopes, func.id)
            if found is None or found[1] or len(found[0]) != 1:
                return None
            return found[0][0]
        if isinstance(func, ast.Attribute):
            method = self._method_of_self(func)
            if method is not None:
                called = self.index.method(method.owner, func.attr)  # type: ignore[arg-type]
                return called if called is not None and called.owner is not None else None
            defs = self._module_methods(func)
            return defs[0] if len(defs) == 1 else None
        return None

    def _module_methods(self, func: ast.Attribute) -> list[FunctionFacts]:
        """`model.act(state)` on a torch module: the methods of that name the file's classes
        define (which class `model` is an instance of is not known)."""
        receiver = self.env.type_of(func.value)
        if receiver is None or not torch_api.part_of_module_call(receiver, func.attr):
            return []
        return self._methods_by_name().get(func.attr, [])

    def _any_module_method(self, env: TypeEnv, node: ast.Call) -> Ty | None:
        """What `model.log_prob(x)` returns when several classes of the file define
        `log_prob`: what they all return, if they agree (`_where_the_module_is`)."""
        if not isinstance(node.func, ast.Attribute) or self.inferring >= MAX_INFERRING:
            return None
        result: Ty | None = None
        for number, facts in enumerate(self._module_methods(node.func)):
            if facts.yields:
                return None
            returned = self._returned(env, facts, self._site(facts, node))
            if returned is None:
                return None
            result = returned if number == 0 else join(result, returned)
        return _where_the_module_is(result, env.type_of(node.func.value))

    def _deferred_item(self, facts: FunctionFacts) -> _Deferred | None:
        for item in reversed(self.nested_inferred):
            if item.facts is facts:
                return item
        if self.waiting is not None:
            return self.waiting.get(facts)
        for waiting in reversed(self.deferred):
            for item in waiting:
                if item.facts is facts:
                    return item
        return None

    def _site(self, facts: FunctionFacts, node: ast.Call) -> dict[str, Ty | None] | None:
        """The argument types one call passes, by parameter name (a method's instance is not
        among its positional parameters); None when the call unpacks `*args`/`**kwargs`,
        which hides which parameter gets what."""
        return _mapped(facts, self._call_site(node))

    def _call(self, node: ast.Call) -> None:
        """Record the argument types a call of a function of the file passes, also where a
        groupby calls it with each group (`frame.groupby(k).apply(f)`)."""
        if not self.muted and self.returns is None:
            where = callers.place(node)
            if where in self.wanted_calls and where not in self.call_sites:
                self.call_sites[where] = self._call_site(node)
            facts = self._call_target(node)
            if facts is not None:
                facts.sites.append(self._site(facts, node))
            handed = self._handed_to_groups(node)
            if handed is not None:
                handed[0].sites.append(_group_site(*handed))
        self.children(node)

    def _call_site(self, node: ast.Call) -> callers.Site:
        """What a call passes, as a module it calls (in another file) will map it."""
        type_of = self.env.type_of
        return callers.Site(
            tuple(type_of(a) for a in node.args if not isinstance(a, ast.Starred)),
            tuple((k.arg, type_of(k.value)) for k in node.keywords if k.arg is not None),
            any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords),
        )

    def _handed_to_groups(self, node: ast.Call) -> tuple[FunctionFacts, Ty] | None:
        """`gb.apply(f)` or `gb.filter(f)` on a groupby whose groups are known and of its own
        library (not Dask's, whose groups are pandas frames), `f` a function of the file
        passed by name with a positional parameter: `f` and the group its first parameter receives."""
        func = node.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr in pandas_api.GROUP_CALLERS
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            return None
        receiver = self.env.type_of(func.value)
        group = pandas_api.group_type(receiver) if receiver is not None else None
        if group is None or group.lib == "dask":
            return None
        found = self.index.resolve(self.ctx.scopes, node.args[0].id)
        if found is None or found[1] or len(found[0]) != 1:
            return None
        facts = found[0][0]
        if facts.owner is not None or not facts.positional() or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        return facts, group

    def grouped_call(self, env: TypeEnv, node: ast.Call) -> Ty | None:
        """What `gb.apply(f)` gives where `f` is a function of the file: a frame when `f`
        returns a frame for each group, as pandas then concatenates them."""
        handed = self._handed_to_groups(node)
        if handed is None or self.returns is not None or handed[0].yields:
            return None
        facts, group = handed
        result = self._returned(env, facts, _group_site(facts, group))
        return Ty(Kind.FRAME, group.lib) if result is not None and result.kind == "frame" else None

    def _call_target(self, node: ast.Call) -> FunctionFacts | None:
        """The def whose parameters a call gives: what `_callee` finds, or the `__init__` of a
        class of the file called by name."""
        func = node.func
        if isinstance(func, ast.Name):
            bound = self.env.lookup(func.id)
            if bound is None:
                return self._callee(node)
            if bound.kind != "class":
                return None
            found = self.index.resolve(self.ctx.scopes, func.id)
            if found and len(found[1]) == 1:
                init = self.index.method(found[1][0], "__init__")
                return init if init is not None and init.owner is not None else None
            return None
        return self._callee(node) if isinstance(func, ast.Attribute) else None

    def _return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.visit(node.value)
        if self.returns is not None and self.index.function(self.ctx.scopes[-1]) is not None:
            self.returns.append(self.env.type_of(node.value) if node.value is not None else OTHER)

    def _expr(self, node: ast.Expr) -> None:
        """`model.to(device)` / `model.cuda()` / `model.cpu()` as a statement moves a module
        in place (`_move_in_place`); `xs.append(v)` fills a list."""
        self.visit(node.value)
        call = node.value
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name)
            and len(call.args) == 1
            and not call.keywords
            and not isinstance(call.args[0], ast.Starred)
        ):
            self._fill(call.func.value.id, call.args[0], "list")
            return
        self._move_in_place(call, statement=True)

    def _move_in_place(self, call: ast.expr, statement: bool) -> None:
        """`m.to(device)`, `m.cuda()`, `m.cpu()` move a torch module in place, whatever is
        done with what they return (`m_cpu = m.cpu()` moves `m` too). As a statement, the
        receiver may also be a value of unknown type: a module, or a batch that moves itself
        (transformers' `BatchEncoding.to`); a tensor's `.to` would be a no-op there."""
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.attr in ("to", "cuda", "cpu")
        ):
            return
        name = call.func.value.id
        current = self.env.lookup(name)
        if current is None and not statement:
            return
        kinds = ("model", "placed") if statement else ("model",)
        if current is not None and not (current.lib == "torch" and current.kind in kinds):
            return
        if call.func.attr == "cpu" and current is None:
            return  # `x.cpu()` of an unknown value says nothing of what it is
        place = {"cuda": DEVICE, "cpu": HOST}.get(call.func.attr) or move_target(call, self.env)
        if place in (DEVICE, HOST):
            self.env.bind(name, Ty(current.kind if current is not None else Kind.PLACED, "torch", place))

    def _visit_target(self, target: ast.expr) -> None:
        """Visit the expressions inside a target (`df.loc[len(df)]`), not the names it binds."""
        if isinstance(target, ast.Name):
            handlers = self.handlers.get(ast.Name)
            if handlers:
                self.visit(target)
            return
        self.visit(target)

    def _namedexpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        ty = self.env.type_of(node.value)
        env = self.env
        if env.scope.kind != "comprehension":
            env.bind(node.target.id, ty)
            return
        # PEP 572: inside a comprehension the target binds in the enclosing scope, and only
        # if the comprehension runs at least once, so the old binding may survive.
        current = env.scope
        while env.scope.kind == "comprehension" and env.scope.parent is not None:
            env.scope = env.scope.parent
        try:
            name = node.target.id
            env.bind(name, join(env.scope.names[name], ty) if name in env.scope.names else ty)
        finally:
            env.scope = current

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        self.env.bind_import(node)

    def _global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self.env.bind(name, None)

    def _delete(self, node: ast.Delete) -> None:
        self.visit_all(node.targets)
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.env.bind(target.id, None)

    def _with(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._visit_target(item.optional_vars)
                self.env.bind_target(item.optional_vars, None)
        self.body(node.body)

    # -- control flow ----------------------------------------------------------------
    def _branches(self, *runs: Callable[[], None]) -> list[dict[str, Any]]:
        """Walk alternative paths from the same bindings, then join what they bound; what
        each path bound, in order."""
        env = self.env
        start = env.mark()
        outcomes = []
        for run in runs:
            run()
            outcomes.append(env.changes(start))
            env.rollback(start)
        env.rejoin(outcomes)
        return outcomes

    def _for(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)

        def iteration() -> None:
            self._visit_target(node.target)
            self.env.bind_loop_target(node.target, node.iter)
            self._apply_usage(node.target)
            self._loop_body(node, node.body)

        self._loop(iteration)
        self.body(node.orelse)

    def _while(self, node: ast.While) -> None:
        def iteration() -> None:
            self.ctx.loops.append(node)
            self.visit(node.test)
            self.ctx.loops.pop()
            self._loop_body(node, node.body)

        self._loop(iteration)
        self.body(node.orelse)

    def _loop(self, iteration: Callable[[], None]) -> None:
        """A loop runs its body zero or more times. The bindings at the top of the body
        are those before the loop joined with those one iteration leaves for the next
        (`df` rebound to a list at the end of the body is no longer a frame at its start):
        a first pass, with rules muted, finds them; loops nested inside a muted pass are
        walked once. Then the real pass, joined with the path that skips the loop."""
        if not self.muted:
            self.muted = True
            try:
                self._branches(_nothing, iteration)
            finally:
                self.muted = False
        self._branches(_nothing, iteration)

    def _loop_body(self, loop: ast.AST, statements: list[ast.stmt]) -> None:
        self.ctx.loops.append(loop)
        try:
            self.body(statements)
        finally:
            self.ctx.loops.pop()

    def _if(self, node: ast.If) -> None:
        self.visit(node.test)
        if node.orelse:
            self._if_else(node)
            return
        env = self.env
        start = env.mark()
        self.body(node.body)
        outcome = env.changes(start)
        env.rollback(start)
        # `if on_gpu: p = p.cpu()`: a device value copied to the host in one branch is on the
        # host after it, as a value moved to the device in one is on the device (the path that
        # skips the branch is the program's CPU fallback, where it was on the host already)
        moved_back = {
            name: ty
            for name, ty in outcome.items()
            if isinstance(ty, Ty) and ty.lib == "torch" and ty.place == HOST and _on_device(env.lookup(name))
        }
        env.rejoin([outcome, {}])
        for name, ty in moved_back.items():
            env.bind(name, ty)

    def _if_else(self, node: ast.If) -> None:
        """Both branches joined; and `if cuda: x = batch.cuda()` / `else: x = batch`: a name one
        branch binds to a move to the device of what the other binds it to unmoved is on the
        device after them (the other branch is the program's CPU fallback) when the join
        leaves it unknown."""
        env = self.env
        outcomes = self._branches(lambda: self.body(node.body), lambda: self.body(node.orelse))
        for name, moved_in_body in _fallback_moves(node, env):
            moved, other = outcomes if moved_in_body else outcomes[::-1]
            ty = moved.get(name)
            if env.lookup(name) is None and other.get(name) is None and isinstance(ty, Ty) and _on_device(ty):
                env.bind(name, ty)

    def _try(self, node: ast.Try) -> None:
        env = self.env
        start = env.mark()
        self.body(node.body)
        after_body = env.changes(start)
        outcomes = []
        imported = {
            name
            for statement in node.body
            if isinstance(statement, (ast.Import, ast.ImportFrom))
            for name in _imported_names(statement)
        }
        for handler in node.handlers:
            # An exception can come anywhere in the body: before it, or after it all.
            env.rollback(start)
            env.rejoin([{}, after_body])
            if handler.type is not None:
                self.visit(handler.type)
            if handler.name:
                env.bind(handler.name, None)
            self.body(handler.body)
            outcome = env.changes(start)
            if imported and _catches_import_error(handler):
                # `try: import cupy as xp` / `except ImportError: xp = None` (or a fallback):
                # the code is written for the import that worked; the fallback says nothing.
                for name in imported:
                    if name in after_body:
                        outcome[name] = after_body[name]
            outcomes.append(outcome)
        env.rollback(start)
        env.apply(after_body)
        self.body(node.orelse)
        outcomes.append(env.changes(start))
        env.rollback(start)
        env.rejoin(outcomes)
        self.body(node.finalbody)

    def _match(self, node: ast.AST) -> None:
        self.visit(node.subject)  # type: ignore[attr-defined]

        def case_run(case: ast.AST) -> Callable[[], None]:
            def run() -> None:
                for sub in ast.walk(case.pattern):  # type: ignore[attr-defined]
                    for attribute in ("name", "rest"):
                        captured = getattr(sub, attribute, None)
                        if isinstance(captured, str):
                            self.env.bind(captured, None)
                if case.guard is not None:  # type: ignore[attr-defined]
                    self.visit(case.guard)  # type: ignore[attr-defined]
                self.body(case.body)  # type: ignore[attr-defined]

            return run

        self._branches(_nothing, *(case_run(case) for case in node.cases))  # type: ignore[attr-defined]


def _imported_names(statement: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(statement, ast.Import):
        return [alias.asname or alias.name.split(".", 1)[0] for alias in statement.names]
    return [alias.asname or alias.name for alias in statement.names if alias.name != "*"]


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return bool(kinds) and all(isinstance(k, ast.Name) and k.id in _IMPORT_ERRORS for k in kinds)


def _fallback_moves(node: ast.If, env: TypeEnv) -> list[tuple[str, bool]]:
    """The names an `if`/`else` binds, in statements of its own branches, to a move of a value
    (`x = batch.cuda()`, `x = Variable(batch.to(device))`) in one branch and to that value
    unmoved in the other (`x = batch`, `x = Variable(batch)`); True where the move is in the
    `if` branch."""
    body, orelse = _bound_values(node.body), _bound_values(node.orelse)
    found = []
    for name in body.keys() & orelse.keys():
        for moved_in_body, (moved, other) in ((True, (body[name], orelse[name])), (False, (orelse[name], body[name]))):
            source = _moved_value(moved, env)
            if source is not None and ast.dump(source) == ast.dump(_unwrapped(other, env)):
                found.append((name, moved_in_body))
                break
    return found


def _bound_values(statements: list[ast.stmt]) -> dict[str, ast.expr]:
    """Name -> the value the statements last bind it to: `x = v` and `x, y = v, w`."""
    values: dict[str, ast.expr] = {}
    for statement in statements:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target, value = statement.targets[0], statement.value
        if isinstance(target, ast.Name):
            values[target.id] = value
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            for part, part_value in zip(target.elts, value.elts, strict=True):
                if isinstance(part, ast.Name):
                    values[part.id] = part_value
    return values


def _moved_value(value: ast.expr, env: TypeEnv) -> ast.expr | None:
    """`v` of `v.cuda()`, or of `v.to(d)` / `v.type(cls)` where the file shows `d` is a device
    and `cls` a device class (`.to(dtype)` of an unknown name may be a dtype), also wrapped
    in the legacy `Variable`."""
    value = _unwrapped(value, env)
    if isinstance(value, ast.Call) and torch_api.moves_to_device(value, env, shown=True):
        return _unwrapped(value.func.value, env)  # type: ignore[attr-defined]
    return None


def _unwrapped(value: ast.expr, env: TypeEnv) -> ast.expr:
    """`v` of the legacy `Variable(v)`, `value` itself otherwise."""
    while isinstance(value, ast.Call):
        inner = torch_api.unwrapped(value, env.qualname(value.func))
        if inner is None:
            break
        value = inner
    return value


def _a_tensor(ty: Ty | None) -> bool:
    """A torch tensor: adding it to a module's output shows the output is one too (a tuple
    of outputs refuses it)."""
    return ty is not None and ty.lib == "torch" and ty.kind == "tensor"


def _on_device(ty: Ty | None) -> bool:
    return ty is not None and ty.lib == "torch" and ty.place == DEVICE


def _defaults(args: ast.arguments) -> dict[str, ast.expr]:
    """Each parameter's default value, by name."""
    positional = [*args.posonlyargs, *args.args]
    found = {
        arg.arg: value
        for arg, value in zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    }
    found.update(
        {arg.arg: value for arg, value in zip(args.kwonlyargs, args.kw_defaults, strict=True) if value is not None}
    )
    return found


def _reads_to_host(node: ast.expr) -> bool:
    """`node` reads a tensor's value to the host: `.item()`, `.cpu()`, `.numpy()`,
    `.tolist()`, or `float(...)`/`int(...)` of something (it is itself such a value)."""
    return any(
        isinstance(part, ast.Call)
        and (
            isinstance(part.func, ast.Attribute)
            and part.func.attr in torch_api.HOST_COPY_METHODS
            or isinstance(part.func, ast.Name)
            and part.func.id in ("float", "int")
            and part is node
        )
        for part in ast.walk(node)
    )


def _may_fall_through(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The body can end without a `return` (returning None): its last statement, and each
    branch of a final `if`, does not end in `return` or `raise`. A final `if`/`elif` chain
    whose every branch returns but that has no `else` (`if mode == "a": return f(x)`,
    `elif mode == "b": return g(x)`) is taken to cover the cases the caller passes: a value
    it then uses as the returned one would fail on None."""
    last = node.body[-1] if node.body else None
    if isinstance(last, ast.If) and len(last.orelse) == 1 and isinstance(last.orelse[0], ast.If):
        return not _chain_returns(last)
    return not _ends(node.body)


def _chain_returns(branch: ast.If) -> bool:
    """Every branch of an `if`/`elif` chain returns or raises, the last `elif` perhaps
    without an `else`."""
    if not _ends(branch.body):
        return False
    if not branch.orelse:
        return True
    if len(branch.orelse) == 1 and isinstance(branch.orelse[0], ast.If):
        return _chain_returns(branch.orelse[0])
    return _ends(branch.orelse)


def _ends(statements: list[ast.stmt]) -> bool:
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):  # `with torch.no_grad(): ... return res`
        return _ends(last.body)
    if isinstance(last, TRY_STATEMENTS):  # every way out of it returns or raises
        return _ends(last.finalbody) or (
            (_ends(last.body) or _ends(last.orelse)) and all(_ends(handler.body) for handler in last.handlers)
        )
    return False


def _nothing() -> None:
    """The path that skips a loop, or matches no case."""


_SCOPE_STATEMENT = re.compile(r"(?:^|[;:\r])[ \t\f]*(?:global|nonlocal)[ \t\f\\]", re.MULTILINE)


def rebound_from_inner_scopes(tree: ast.Module, text: str) -> frozenset[str]:
    """Names some function rebinds through `global`/`nonlocal`: any call can change them
    behind the walk's back, so they carry no type evidence anywhere in the file."""
    if ("global" not in text and "nonlocal" not in text) or _SCOPE_STATEMENT.search(text) is None:
        return frozenset()
    return frozenset(
        name for node in ast.walk(tree) if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names
    )


def mentions_libraries(text: str, triggers: Iterable[bytes] = ()) -> bool:
    """Cheap pre-filter: a file that names none of the libraries (nor a rule's own
    `triggers`) cannot hold a finding, so it is parsed but never walked."""
    data = text.encode("utf-8", "ignore") if not text.isascii() else text.encode("ascii")
    return any(trigger in data for trigger in (*LIBRARY_TRIGGERS, *triggers))


def parse(source: Source, filename: str) -> ast.Module:
    """The module's `ast` (syntax of a newer Python lowered in place: `newer_syntax`). A
    large one (over `_SLICE_LINES` lines, twice over) is parsed a slice of top-level
    statements at a time and made compact as it goes (`_compact`): the same tree, in about
    half the memory, without the parser's own peak for the whole file."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences etc. are not ours to report
        if source.text.count("\n") > 2 * _SLICE_LINES and "barry_as_FLUFL" not in source.text:
            tree = _parse_in_slices(source, filename)
            if tree is not None:
                return tree
        return newer_syntax.parse(source.text, filename)


#: Lines per slice when a large module is parsed in slices, and how many times a slice that
#: does not parse is extended before the whole text is parsed instead. Compacting costs
#: about as much again as parsing, so only modules over twice this many lines pay it: the
#: largest real data-science modules (about 5,000 lines) are parsed whole, their tree a few
#: tens of MB.
_SLICE_LINES = 5000
_SLICE_TRIES = 4
#: Where a top-level statement may start: a line that begins at column 0 with neither a
#: comment nor a closing bracket nor a clause that continues the statement before it. A
#: line that only looks so (inside a string) makes the slice fail to parse, and the slice
#: is extended to the next such line.
_TOP_LEVEL_LINE = re.compile(r"^(?![ \t\f\r\n#)\]}]|(?:else|elif|except|finally)\b)", re.MULTILINE)


def _parse_in_slices(source: Source, filename: str) -> ast.Module | None:
    """The module parsed a slice of whole top-level statements at a time (line numbers moved
    to those of the file); None when some slice does not parse, for the caller to parse the
    whole text and report its syntax error exactly."""
    text, starts = source.text, source.line_starts
    body: list[ast.stmt] = []
    shapes: dict[tuple, type] = {}
    shared: dict[object, object] = {}
    line = 1  # first line of the next slice
    while line <= len(starts):
        end_line = line + _SLICE_LINES
        for _ in range(_SLICE_TRIES):
            end = _TOP_LEVEL_LINE.search(text, starts[end_line - 1]) if end_line <= len(starts) else None
            stop = end.start() if end is not None else len(text)
            try:
                piece = ast.parse(text[starts[line - 1] : stop], filename=filename, type_comments=False)
            except SyntaxError:
                if end is None:
                    return None
                end_line = bisect.bisect_right(starts, stop) + _SLICE_LINES
                continue
            break
        else:
            return None  # a syntax error, most likely: not worth parsing ever longer slices
        _compact(piece, line - 1, shapes, shared)
        body.extend(piece.body)
        if end is None:
            break
        line = bisect.bisect_right(starts, stop)
    return ast.Module(body=body, type_ignores=[])


def _compact(tree: ast.AST, lines_before: int, shapes: dict[tuple, type], shared: dict[object, object]) -> None:
    """Shrink every node of `tree` in place, leaving its type and identity as they are, and
    move its line numbers down by `lines_before`. A node keeps its attributes in a
    dictionary of its own, with its own table of keys; it is swapped for one that shares its
    keys with every node of the same shape (the way instances of a Python class share
    theirs), and equal line numbers (and equal string constants) become one object. Nodes
    are most of the memory a large file costs."""
    done: set[int] = set()  # a node reached twice (should the parser share one) moves once
    for node in ast.walk(tree):
        attributes = node.__dict__
        if not attributes or id(node) in done:
            continue
        done.add(id(node))
        shape = (type(node), *attributes)
        holder_class = shapes.get(shape)
        if holder_class is None:
            holder_class = shapes[shape] = type("_Attributes", (), {})
        holder = holder_class()
        for name, value in attributes.items():
            if name in _LINE_ATTRIBUTES and value is not None:
                value += lines_before
            if type(value) is int and value > 256 or type(value) is str:
                value = shared.setdefault(value, value)
            setattr(holder, name, value)
        node.__dict__ = holder.__dict__


_LINE_ATTRIBUTES = frozenset({"lineno", "end_lineno"})


def syntax_error_diagnostic(source: Source, error: SyntaxError) -> Diagnostic:
    line = error.lineno or 1
    line_text = source.line(line)
    # SyntaxError offsets are 1-based character columns (byte-based for some tokenizer errors).
    col = max((error.offset or 1) - 1, 0)
    col = min(col, len(line_text))
    end = Position(line, col)
    if error.end_lineno and error.end_offset and (error.end_lineno, error.end_offset - 1) >= (line, col):
        end = Position(error.end_lineno, max(error.end_offset - 1, 0))
    return Diagnostic(
        code=SYNTAX_ERROR_CODE,
        name=SYNTAX_ERROR_NAME,
        message=f"SyntaxError: {error.msg}",
        start=Position(line, col),
        end=end,
    )


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """Python's cycle collector off while one file is analysed. Parsing and walking a file
    allocate hundreds of thousands of small objects (the tree, the evidence) that all stay
    alive until the file is done; the collector would pass over them again and again and
    find nothing to free (about a tenth of the analysis time). Cycles made meanwhile are
    collected after the file. Left as it is when something else turned the collector off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def analyze(
    source: Source,
    rules: Sequence[type[Rule]] | None = None,
    filename: str = "<string>",
    tree: ast.Module | None = None,
    path: Path | None = None,
) -> Analysis:
    """Lint decoded source with the given rules (default: all). `# noqa` comments are the
    pipeline's business (`gpulint.pipeline.check`): the engine reports what it finds.
    `tree`: the source as `parse` gives it, when the caller parsed it already. `path`: the
    file the source is, whose project modules its imports may name (`project`); None for
    a source that is no file."""
    with _cycle_collector_paused():
        return _analyze(source, rules, filename, tree, path)


#: Tensor methods that hand on the tensor where it is, on the way to a `.numpy()`.
_NO_COPY_ON_THE_WAY = frozenset(
    {"detach", "clone", "float", "double", "long", "int", "squeeze", "view", "reshape", "flatten", "contiguous"}
)


def _parsed(data: bytes, filename: str) -> tuple[Source, ast.Module] | None:
    """Another project file's bytes, decoded and parsed (the grammar of the running Python
    only); None for one that does not decode or parse, or is over gpulint's bounds."""
    try:
        source = Source.from_bytes(data)
        if refusal(source.text) is not None:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return source, ast.parse(source.text, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError, SourceError):
        return None


def module_facts(data: bytes, filename: str) -> project.ModuleFacts:
    """What a project module's own code shows of its top-level names (`project`); nothing
    for one that does not decode or parse, or that the walk cannot follow."""
    parsed = _parsed(data, filename)
    if parsed is None:
        return project.ModuleFacts({})
    source, tree = parsed
    handed_on, handed_on_whole = project.handed_on(tree)
    if not mentions_libraries(source.text, _FOLLOWED_WORDS):  # plain Python: its own names tell nothing
        return project.ModuleFacts({}, (), handed_on, handed_on_whole)
    ctx = RuleContext(source, tree, SemanticIndex(tree))
    ctx.env.volatile = rebound_from_inner_scopes(tree, source.text)
    walker = _Walker(ctx, [])
    ctx.env.resolver = walker
    try:
        with _cycle_collector_paused():
            names = walker.exports(tree)
        return project.ModuleFacts(names, _public(tree, names), handed_on, handed_on_whole)
    except Exception:  # a module the evidence cannot follow tells the importing file nothing
        return project.ModuleFacts({})
    finally:
        walker.special.clear()
        ctx.env.resolver = None


def _public(tree: ast.Module, names: dict[str, project.Exported]) -> tuple[str, ...]:
    """The names `from module import *` binds: the strings of a literal `__all__`, else the
    module's names without a leading underscore."""
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets)
            and isinstance(statement.value, (ast.List, ast.Tuple))
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in statement.value.elts)
        ):
            return tuple(e.value for e in statement.value.elts)  # type: ignore[attr-defined]
    return tuple(name for name in names if not name.startswith("_"))


def _analyze(
    source: Source, rules: Sequence[type[Rule]] | None, filename: str, tree: ast.Module | None, path: Path | None
) -> Analysis:
    rules = all_rules() if rules is None else rules
    refused = refusal(source.text) if tree is None else None
    if refused is not None:  # over gpulint's bounds: a warning, not a finding, and no parse
        return Analysis([], [refused])
    try:
        tree = parse(source, filename) if tree is None else tree
    except (SyntaxError, ValueError, RecursionError) as error:
        if not any(rule.code == SYNTAX_ERROR_CODE for rule in rules):
            return Analysis([])
        if isinstance(error, SyntaxError):
            diagnostic = syntax_error_diagnostic(source, error)
        elif isinstance(error, RecursionError):  # nested deeper than Python itself can compile
            diagnostic = Diagnostic(
                SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, f"RecursionError: {error}", Position(1, 0), Position(1, 0)
            )
        else:  # e.g. "source code string cannot contain null bytes"
            diagnostic = Diagnostic(
                SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, f"SyntaxError: {error}", Position(1, 0), Position(1, 0)
            )
        return Analysis([diagnostic])
    walked = bool(rules) and mentions_libraries(source.text, (word for rule in rules for word in rule.triggers))
    ctx = RuleContext(source, tree, SemanticIndex(tree) if walked else None)
    skipped: list[str] = []
    internal_error = None
    imports = project.NO_IMPORTS
    if walked:
        if path is not None:
            imports = project.imports_of(path, tree, module_facts)
            ctx.env.project = imports.names
            if path.suffix == ".py" and _defines_functions(tree):  # a module others may import
                ctx.callers = callers.callers_of(path, call_types)
                _give_sites(ctx.semantic, tree, ctx.callers)
                imports = imports._replace(
                    sources=(*imports.sources, project.ImportedFile(callers.CALLERS_SPEC, "", ctx.callers.state))
                )
        ctx.env.volatile = rebound_from_inner_scopes(tree, source.text)
        walker = _Walker(ctx, rules)
        ctx.env.resolver = walker
        try:
            walker.module(tree)
        except RecursionError:
            # Python parsed it, but an expression nests deeper than the walk can follow:
            # say so instead of crashing, and report nothing rather than a partial result.
            ctx.diagnostics.clear()
            ctx.records.clear()
            skipped.append("1: nested too deeply to analyse (RecursionError); file not checked")
        except Exception as exc:  # a rule's bug must cost this file, not the whole run
            culprit = f"rule {ctx._rule.code}" if ctx._rule is not None else "the engine"
            line = ctx.statement.lineno if ctx.statement is not None else 1
            internal_error = (
                f"internal error in {culprit} near line {line} ({type(exc).__name__}: {exc}); please report it"
            )
            if os.environ.get(DEBUG_VARIABLE):  # `--debug`: what a bug report needs
                internal_error += "\n" + traceback.format_exc().rstrip()
            ctx.diagnostics.clear()
            ctx.records.clear()
        finally:
            # The walker reaches itself through its bound methods: without this, it and all
            # the evidence it gathered would wait for the cycle collector.
            walker.special.clear()
            ctx.env.resolver = None
    diagnostics = sorted([*ctx.diagnostics, *_newer_than_target(source, tree, rules)], key=lambda d: (d.start, d.code))
    records = sorted(ctx.records, key=lambda r: r.start)
    return Analysis(diagnostics, skipped, tree, internal_error, ctx._semantic, records, imports.sources)


def call_types(path: Path, data: bytes, wanted: frozenset[callers.Place]) -> dict[callers.Place, callers.Site]:
    """What the file at `path` (its bytes `data`) passes to the calls at the places
    `wanted`, by its own evidence and what its imports show (`callers.CallTypes`); nothing
    for a file that does not decode or parse, or that the walk cannot follow."""
    parsed = _parsed(data, str(path))
    if parsed is None:
        return {}
    source, tree = parsed
    ctx = RuleContext(source, tree, SemanticIndex(tree))
    ctx.env.project = project.imports_of(path, tree, module_facts).names
    ctx.env.volatile = rebound_from_inner_scopes(tree, source.text)
    walker = _Walker(ctx, [])
    walker.wanted_calls = wanted
    ctx.env.resolver = walker
    try:
        with _cycle_collector_paused():
            walker.module(tree)
        return walker.call_sites
    except Exception:  # an importer the evidence cannot follow tells the module nothing
        return {}
    finally:
        walker.special.clear()
        ctx.env.resolver = None


def _give_sites(index: SemanticIndex | None, tree: ast.Module, found: callers.Callers) -> None:
    """Hand the module's top-level functions, and its classes' methods, the call sites its
    importers give them (`FunctionFacts.imported_sites`): a class built there gives its
    `__init__` the call's arguments."""
    if index is None or not found.sites:
        return
    for facts in index.functions.values():
        names = callers.names_for(facts, tree, index)
        if names:
            given = [site for name in names for site in found.sites.get(name, ())]
            facts.imported_sites = [_mapped(facts, site) for site in given]


def _mapped(facts: FunctionFacts, site: callers.Site) -> dict[str, Ty | None] | None:
    """What a call passes, by the def's parameter names (None: it unpacks, which hides
    which parameter gets what)."""
    if site.unpacks:
        return None
    mapped: dict[str, Ty | None] = dict(zip(facts.positional(), site.positional, strict=False))
    mapped.update(site.keywords)
    return mapped


def _defines_functions(tree: ast.Module) -> bool:
    """The module defines a function or class at its top level: one other files may call."""
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in tree.body)


def _newer_than_target(source: Source, tree: ast.Module, rules: Sequence[type[Rule]]) -> list[Diagnostic]:
    """GPU001 for each construct of a Python newer than the `target-version` the syntax
    error rule carries (none when it carries none)."""
    target = next((getattr(rule, "target_version", None) for rule in rules if rule.code == SYNTAX_ERROR_CODE), None)
    if target is None:
        return []
    found = []
    for feature in newer_syntax.features(tree, source.char_col):
        if feature.version > target:
            where = Position(feature.line, feature.column)
            found.append(
                Diagnostic(
                    SYNTAX_ERROR_CODE,
                    SYNTAX_ERROR_NAME,
                    f"{feature.what} needs Python {feature.version[0]}.{feature.version[1]}; "
                    f"`target-version` is py{target[0]}{target[1]}",
                    where,
                    where,
                )
            )
    return found


def _group_site(facts: FunctionFacts, group: Ty) -> dict[str, Ty | None]:
    """The call site a groupby's `apply(f)` makes: each group as `f`'s first parameter."""
    return {facts.positional()[0]: group}


def _element_of(node: ast.expr, target: ast.expr) -> bool:
    """`node` is one element of the tuple or list `target` unpacks into (`loss, logs = ...`)."""
    return isinstance(target, (ast.Tuple, ast.List)) and any(element is node for element in target.elts)


def _where_the_module_is(returned: Ty | None, module: Ty | None) -> Ty | None:
    """What a method of a module on the device returns: a torch value its body leaves
    unplaced is on the device too, as the method computes with the module's own
    parameters and buffers (`net.qvals(x)` weighting by a registered buffer)."""
    if (
        returned is not None
        and returned.lib == "torch"
        and returned.kind in ("tensor", "output", "placed")
        and not returned.place
        and module is not None
        and module.kind == "model"
        and module.place == DEVICE
    ):
        return Ty(returned.kind, "torch", DEVICE, returned.items)
    return returned
