"""The semantic index: file-wide facts the engine's source-order walk cannot see from where
it stands.

The walk knows the bindings in force at each point, but a function's parameters are
given at call sites that come later in the file, an attribute of `self` is assigned in
another method, and a value's family may only show in how it is used further down. One
pass over the tree before the walk gathers these facts (pyflakes and ruff keep a similar
model): the file's functions and classes, who calls whom, which attributes each method
assigns and reads, the names each scope binds, and the *usage* evidence of each scope (an
API only one family has, used on a name). The engine's walk then asks it, and fills in
what only the walk can compute (the types of call-site arguments and of assigned
attributes).

Evidence is never taken from a variable's name: every fact here is about what the code
does with the name.
"""

from __future__ import annotations

import ast
import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable
from typing import TypeVar

from . import networkx_api
from .astutil import (
    DYNAMIC_READERS,
    NESTED_SCOPES,
    all_args,
    assigned_value,
    bound_names,
    evaluated_outside,
    free_names,
    start_of,
)
from .loop_effects import LoopEffects, loop_effects
from .source import CODE_PLACEHOLDER_PREFIX
from .torch_api import BACKWARD_METHODS
from .values import DEVICE, Kind, Ty, argument, join

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
T = TypeVar("T")
#: AST nodes that open a scope of their own.
SCOPE_NODES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

#: Methods and attributes only a DataFrame (of any pandas-like library) has, and only a
#: frame or a series: a name they are used on is that, whatever library it comes from.
FRAME_ONLY_METHODS = frozenset({"iterrows", "itertuples"})
NDFRAME_ATTRIBUTES = frozenset({"loc", "iloc", "at", "iat"})
#: Tensor/module methods: a name they are called on is a torch value (a tensor, a module
#: or a batch of them). `.detach()` is a tensor's; so is `.backward()`, whose receiver
#: `_backpropagated` finds.
TORCH_METHODS = frozenset({"cuda", "cpu", "detach"})
#: What a backward pass shows of the names it starts from: each is a tensor.
TORCH_TENSOR = Ty(Kind.TENSOR, "torch")
#: Decorators under which a method's first parameter is not an instance.
_NOT_INSTANCE_METHODS = frozenset({"staticmethod", "classmethod"})


class FunctionFacts:
    """One `def` of the file. A slots class (start-up)."""

    __slots__ = (
        "node",
        "scope",
        "owner",
        "calls",
        "self_calls",
        "writes",
        "reads",
        "yields",
        "sites",
        "imported_sites",
        "self_name",
    )

    def __init__(self, node: FunctionNode, scope: ast.AST, owner: ast.ClassDef | None) -> None:
        self.node = node
        #: The scope node the def is in (module, function, or class for a method).
        self.scope = scope
        #: The class whose body holds the def, when it is a method that receives an instance.
        self.owner = owner
        #: Names of the file's functions called by name in the body, and methods called on `self`.
        self.calls: set[str] = set()
        self.self_calls: set[str] = set()
        #: Attributes of `self` the body assigns and reads.
        self.writes: set[str] = set()
        self.reads: set[str] = set()
        #: The body yields (a generator): calling it returns no value the walk can type.
        self.yields = False
        #: Argument types seen at the call sites the walk passed, one mapping per site
        #: (parameter name -> type); None marks a site that cannot be mapped (`*args`).
        self.sites: list[dict[str, Ty | None] | None] = []
        #: The same, from the project files importing the module (`callers`): asked only
        #: when the file itself calls the def nowhere.
        self.imported_sites: list[dict[str, Ty | None] | None] = []
        #: The name of the instance parameter of a method, if it is one.
        self.self_name: str | None = None
        if owner is not None:
            positional = [*node.args.posonlyargs, *node.args.args]
            self.self_name = positional[0].arg if positional else None

    def positional(self) -> list[str]:
        """Positional parameter names, without the instance parameter of a method."""
        names = [a.arg for a in (*self.node.args.posonlyargs, *self.node.args.args)]
        return names[1:] if self.owner is not None else names

    def parameter_type(self, name: str) -> Ty | None:
        """The type the call sites agree on for a parameter. Every site must pass a value
        of a known type and all the same: a site that passes an unknown value may pass
        anything (code written for several kinds checks with `isinstance`), and a site
        that cannot be mapped to parameters (`f(*args)`) hides them all. A site that leaves
        the parameter to its default says nothing about what callers pass. A def the file
        calls nowhere takes the sites of the files importing it."""
        result: Ty | None = None
        for site in self.sites or self.imported_sites:
            if site is None:
                return None
            if name not in site:
                continue
            ty = site[name]
            if ty is None:
                return None
            result = ty if result is None else join(result, ty)
            if result is None:
                return None
        return result


class ScopeFacts:
    """Names one scope binds, and the usage evidence for them. A slots class (start-up)."""

    __slots__ = (
        "node",
        "parent",
        "bindings",
        "functions",
        "classes",
        "other_bindings",
        "declared",
        "nested_names",
        "reads",
        "attributes",
        "usage",
        "mixed_usage",
        "backpropagated",
    )

    def __init__(self, node: ast.AST, parent: ScopeFacts | None) -> None:
        self.node = node
        self.parent = parent
        #: name -> every node that binds it here, in source order: the statement (an
        #: assignment, a loop, a `with`, an import, a def, a class), an `ast.arg` for a
        #: parameter, the `NamedExpr`, `ExceptHandler` or match case.
        self.bindings: dict[str, list[ast.AST]] = {}
        #: name -> the defs that bind it here, and names something else binds too.
        self.functions: dict[str, list[FunctionFacts]] = {}
        self.classes: dict[str, list[ast.ClassDef]] = {}
        self.other_bindings: set[str] = set()
        #: Names declared `global` or `nonlocal` here.
        self.declared: set[str] = set()
        #: Names mentioned by the functions, lambdas and classes nested in this scope (at any
        #: depth): code that may read or rebind them at times the walk does not see.
        self.nested_names: set[str] = set()
        #: Names read in this scope's own code (nested scopes' reads are in `nested_names`).
        self.reads: set[str] = set()
        #: name -> the attributes its own code reads or sets on it (`w.requires_grad = True`).
        self.attributes: dict[str, set[str]] = {}
        #: name -> the family its use shows; names used with APIs of two families.
        self.usage: dict[str, Ty] = {}
        self.mixed_usage: set[str] = set()
        #: name -> the backward passes this scope runs from it (`_backpropagated`).
        self.backpropagated: dict[str, list[ast.Call]] = {}

    def bind(self, name: str, node: ast.AST, other: bool = True) -> None:
        self.bindings.setdefault(name, []).append(node)
        if other:
            self.other_bindings.add(name)

    def filled_container(self, name: str) -> str | None:
        """ "list" or "dict" when `name` is bound here once, to an empty list or dict (`[]`,
        `{}`, `list()`, `dict()`: the caller checks those are the builtins), and no nested
        scope or declaration may touch it: what it holds is then what this scope's own
        `name.append(v)` and `name[k] = v` put in it."""
        nodes = self.bindings.get(name)
        if not nodes or len(nodes) != 1 or name in self.nested_names or name in self.declared:
            return None
        node = nodes[0]
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            or isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.value is not None
        ):
            value = node.value
        else:
            return None
        if isinstance(value, ast.List) and not value.elts:
            return "list"
        if isinstance(value, ast.Dict) and not value.keys:
            return "dict"
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in ("list", "dict")
            and not value.args
            and not value.keywords
        ):
            return value.func.id
        return None


class SemanticIndex:
    """What one pass over the whole module learns; see the module docstring."""

    def __init__(self, tree: ast.Module) -> None:
        self.scopes: dict[ast.AST, ScopeFacts] = {}
        self.functions: dict[FunctionNode, FunctionFacts] = {}
        self.classes: dict[ast.ClassDef, ScopeFacts] = {}
        #: (class, attribute) -> the join of the types assigned to it so far (None:
        #: some assignment is unknown), filled in by the walk.
        self.attribute_types: dict[tuple[ast.ClassDef, str], Ty | None] = {}
        #: (class, attribute) -> the methods whose assignments `attribute_types` holds.
        self.attribute_setters: dict[tuple[ast.ClassDef, str], set[ast.AST]] = {}
        #: The module the index describes.
        self.tree = tree
        self._parents: dict[ast.AST, ast.AST] | None = None
        self._file_names: tuple[set[str], dict[str, list[tuple[str, ...]]]] | None = None
        #: (scope, name) -> the starts of its bindings there, sorted, and the binding nodes
        #: in the same order (built on the first question about the name).
        self._binding_starts: dict[tuple[ast.AST, str], tuple[list[tuple[int, int]], list[ast.AST]]] = {}
        self._uses: dict[ast.AST, LocalUses] = {}
        self._call_sites: tuple[dict[str, list[tuple[ast.Call, ast.AST]]], set[str]] | None = None
        self._method_calls: dict[str, list[ast.Call]] | None = None
        #: Answers other modules work out once per file (`remember`), by question.
        self._answers: dict[str, dict[Hashable, object]] = {}
        _Collector(self).run(tree)

    def remember(self, question: str, key: Hashable, answer: Callable[[], T]) -> T:
        """The answer to `question` about `key` (a node, or a tuple of nodes and names),
        worked out by `answer()` the first time it is asked in this file. The one per-file
        cache of rules, fixers and evidence: rules ask the same of a loop once per copy
        inside it, and a file's index lives exactly as long as its check."""
        answers = self._answers.setdefault(question, {})
        if key not in answers:
            answers[key] = answer()
        return answers[key]  # type: ignore[return-value]  # one question, one answer type

    def file_names(self) -> tuple[set[str], dict[str, list[tuple[str, ...]]]]:
        """Every name the file uses, in any scope, and what binds each of them: an import
        records the module (`("module", "numpy")`) or the imported name (`("from",
        "sklearn.pipeline", "make_pipeline")`), anything else `("other",)`. What a fix
        needs to pick a fresh name or reuse an import (built on the first question)."""
        if self._file_names is None:
            self._file_names = self._scan_file_names()
        return self._file_names

    def _scan_file_names(self) -> tuple[set[str], dict[str, list[tuple[str, ...]]]]:
        """One walk of the file for the names it uses and what binds each of them: an
        import records the module (`("module", "numpy")`) or imported name
        (`("from", "sklearn.pipeline", "make_pipeline")`), anything else `("other",)`."""
        used: set[str] = set()
        bindings: dict[str, list[tuple[str, ...]]] = {}

        def bind(name: str, what: tuple[str, ...] = ("other",)) -> None:
            used.add(name)
            bindings.setdefault(name, []).append(what)

        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name):
                used.add(node.id)
                if not isinstance(node.ctx, ast.Load):
                    bind(node.id)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        bind(alias.asname, ("module", alias.name))
                    else:
                        top = alias.name.split(".")[0]
                        bind(top, ("module", top))
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                for alias in node.names:
                    bind(alias.asname or alias.name, ("from", module, alias.name))  # "*" for a star import
            elif isinstance(node, ast.arg):
                bind(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bind(node.name)
            else:
                for attribute in ("name", "rest"):  # except ... as e, match patterns, type parameters
                    value = getattr(node, attribute, None)
                    if isinstance(value, str) and not isinstance(node, ast.alias):
                        bind(value)
        return used, bindings

    def parent(self, node: ast.AST) -> ast.AST | None:
        """The node `node` is a child of (the parent map is built on the first question)."""
        if self._parents is None:
            self._parents = {child: parent for parent in ast.walk(self.tree) for child in ast.iter_child_nodes(parent)}
        return self._parents.get(node)

    # -- where a scope binds a name, by position ----------------------------------------
    def _binding_positions(self, scope: ast.AST, name: str) -> tuple[list[tuple[int, int]], list[ast.AST]]:
        key = (scope, name)
        found = self._binding_starts.get(key)
        if found is None:
            facts = self.scopes.get(scope)
            nodes = sorted(facts.bindings.get(name, ()) if facts is not None else (), key=start_of)
            found = self._binding_starts[key] = ([start_of(node) for node in nodes], nodes)
        return found

    def bindings(self, scope: ast.AST, name: str) -> list[ast.AST]:
        """The nodes that bind `name` in `scope`'s own code, in source order."""
        return self._binding_positions(scope, name)[1]

    def call_sites(self, name: str) -> list[tuple[ast.Call, ast.AST]] | None:
        """Every call of `name` by name in the file, each with the scope whose code makes it
        (the innermost function, lambda, class body or the module); None when the file also
        reads `name` some other way (handed on as a value, its callers are out of view)."""
        calls, read_otherwise = self._all_calls()
        return None if name in read_otherwise else calls.get(name, [])

    def calls_by_name(self, name: str) -> list[tuple[ast.Call, ast.AST]]:
        """Every call of `name` by name in the file, with its scope, whatever else reads it."""
        return self._all_calls()[0].get(name, [])

    def method_calls(self, name: str) -> list[ast.Call]:
        """Every call of a method or attribute `name` in the file (`x.cuda()`, `a.b.cuda()`),
        in source order."""
        if self._method_calls is None:
            self._method_calls = {}
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    self._method_calls.setdefault(node.func.attr, []).append(node)
            for calls in self._method_calls.values():
                calls.sort(key=lambda call: (call.lineno, call.col_offset))
        return self._method_calls.get(name, [])

    def _all_calls(self) -> tuple[dict[str, list[tuple[ast.Call, ast.AST]]], set[str]]:
        if self._call_sites is None:
            self._call_sites = _call_sites(self.tree)
        return self._call_sites

    def binds(self, scope: ast.AST, name: str, node: ast.AST) -> bool:
        """`node` (a statement or an expression of `scope`'s own code) binds `name` in
        `scope`: one of the name's bindings there lies within it. What a nested function,
        lambda, class body or comprehension binds is its own."""
        starts, _ = self._binding_positions(scope, name)
        if not starts:
            return False
        index = bisect_left(starts, (node.lineno, node.col_offset))  # type: ignore[attr-defined]
        return index < len(starts) and starts[index] < (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def last_binding(self, scope: ast.AST, name: str, block: list[ast.stmt], before: int) -> tuple[int, ast.AST] | None:
        """The last binding of `name` in `scope` made by one of the first `before` statements
        of `block` (a statement list of `scope`): the index of that statement in `block` and
        the binding node, which is the statement itself when it binds the name directly (an
        assignment, a `for`, an import, a def) and a node inside it otherwise (a branch's
        assignment, a walrus, an `except ... as`). None when none of them binds it."""
        starts, nodes = self._binding_positions(scope, name)
        if not starts or not block or before <= 0:
            return None
        end = start_of(block[before]) if before < len(block) else (block[-1].end_lineno, block[-1].end_col_offset)
        index = bisect_left(starts, end) - 1
        if index < 0 or starts[index] < start_of(block[0]):
            return None
        return bisect_right(block, starts[index], hi=min(before, len(block)), key=start_of) - 1, nodes[index]

    def uses(self, scope: ast.AST) -> LocalUses:
        """Node by node, what `scope`'s own code reads and what its nested functions, lambdas
        and classes may reach (worked out on the first question about the scope: rules rarely
        need it, so the walk does not pay for it)."""
        found = self._uses.get(scope)
        if found is None:
            found = self._uses[scope] = _local_uses(scope)
        return found

    def loop_effects(self, loop: ast.stmt) -> LoopEffects:
        """What a `for`/`while` loop of the file reads, binds, carries and grows (one per loop)."""
        return self.remember("loop effects", loop, lambda: loop_effects(loop))

    def local(self, scope: ast.AST) -> LocalScope:
        """`scope` with its typed bindings and uses (built on the first question about it)."""
        return self.remember("local scope", scope, lambda: self._local(scope))

    def _local(self, scope: ast.AST) -> LocalScope:
        facts = self.scopes.get(scope)
        bindings: dict[str, list[Binding]] = {}
        for name, nodes in (facts.bindings if facts is not None else {}).items():
            found = [_binding(name, node) for node in nodes if not isinstance(node, ast.arg)]
            if found:
                bindings[name] = found
        params = (
            frozenset(arg.arg for arg in all_args(scope.args))
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
            else frozenset()
        )
        return LocalScope(scope, bindings, params, self.uses(scope))

    # -- queries ------------------------------------------------------------------------
    def scope(self, node: ast.AST) -> ScopeFacts | None:
        return self.scopes.get(node)

    def function(self, node: ast.AST) -> FunctionFacts | None:
        return self.functions.get(node) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None

    def resolve(self, scopes: list[ast.AST], name: str) -> tuple[list[FunctionFacts], list[ast.ClassDef]] | None:
        """The defs (functions or classes) `name` refers to, looking from the innermost of
        `scopes` outwards as Python does (class bodies are seen only from themselves); None
        when the scope that binds it also binds it some other way (an assignment, an import):
        then which value a call meets depends on the path."""
        for index in range(len(scopes) - 1, -1, -1):
            facts = self.scopes.get(scopes[index])
            if facts is None or isinstance(facts.node, ast.ClassDef) and index != len(scopes) - 1:
                continue
            functions = facts.functions.get(name)
            classes = facts.classes.get(name)
            if functions or classes or name in facts.other_bindings:
                if name in facts.other_bindings or functions and classes:
                    return None
                return functions or [], classes or []
        return None

    def method(self, owner: ast.ClassDef, name: str) -> FunctionFacts | None:
        facts = self.classes.get(owner)
        if facts is None or name in facts.other_bindings or name in facts.classes:
            return None
        methods = facts.functions.get(name)
        return methods[-1] if methods and len(methods) == 1 else None

    def record_attribute(
        self, owner: ast.ClassDef, attribute: str, ty: Ty | None, method: ast.AST, replaces: bool = False
    ) -> None:
        """What an assignment of `self.<attribute>` in `method` holds, joined with what the
        class's other assignments hold. `replaces`: the assignment is a statement of the
        method's own body, not under a branch or a loop, so it replaces what earlier ones of
        the same method set (`self.model = Net()`, then `self.model = prepare(self.model)`)."""
        key = (owner, attribute)
        setters = self.attribute_setters.setdefault(key, set())
        if key in self.attribute_types and not (replaces and setters == {method}):
            old = self.attribute_types[key]
            self.attribute_types[key] = join(old, ty) if old is not None else None
        else:
            self.attribute_types[key] = ty
        setters.add(method)

    def attribute_type(self, owner: ast.ClassDef, attribute: str) -> Ty | None:
        return self.attribute_types.get((owner, attribute))

    def order(self, functions: list[FunctionFacts]) -> list[FunctionFacts]:
        """The order to walk deferred function bodies in: a function after the functions of
        the list that call it (so their call sites are known), and a method after the
        methods of its class that assign attributes it reads; among those free to go, the
        first in source order, and where a cycle leaves no choice, the first left. Linear
        in the functions and the calls between them (a topological sort)."""
        waits_for = _dependencies(functions)
        waited_by: dict[int, list[int]] = {}
        blocking = [len(before) for before in waits_for]
        for index, before in enumerate(waits_for):
            for other in before:
                waited_by.setdefault(other, []).append(index)
        ready = [index for index, count in enumerate(blocking) if not count]
        heapq.heapify(ready)
        done = [False] * len(functions)
        result: list[FunctionFacts] = []
        oldest = 0  # the first function not yet walked, for a cycle
        while len(result) < len(functions):
            if ready:
                index = heapq.heappop(ready)
                if done[index]:
                    continue
            else:
                while done[oldest]:
                    oldest += 1
                index = oldest
            done[index] = True
            result.append(functions[index])
            for waiting in waited_by.get(index, ()):
                blocking[waiting] -= 1
                if not blocking[waiting] and not done[waiting]:
                    heapq.heappush(ready, waiting)
        return result


#: How a binding node binds its name, by the node's type (see `Binding.kind`).
_BINDING_KINDS: dict[type, str] = {
    ast.Assign: "assignment",
    ast.AnnAssign: "assignment",
    ast.AugAssign: "augmented",
    ast.For: "loop",
    ast.AsyncFor: "loop",
    ast.With: "with",
    ast.AsyncWith: "with",
    ast.Import: "import",
    ast.ImportFrom: "import",
    ast.FunctionDef: "def",
    ast.AsyncFunctionDef: "def",
    ast.ClassDef: "class",
    ast.NamedExpr: "walrus",
    ast.ExceptHandler: "except",
    ast.match_case: "match",
}


class Binding:
    """One binding of a name in a scope's own code. A slots class (start-up), not a NamedTuple:
    bindings compare by identity. Never changed once made."""

    __slots__ = ("name", "node", "kind", "value")

    def __init__(self, name: str, node: ast.AST, kind: str, value: ast.expr | None) -> None:
        self.name = name
        #: The node that binds it: the statement (an assignment, a loop, a `with`, an import,
        #: a def, a class), the `ast.arg` of a parameter, the walrus, the `except` handler, or
        #: a match case's pattern.
        self.node = node
        #: "assignment", "augmented" (`name += ...`), "loop", "with", "import",
        #: "def", "class", "walrus", "except", "match" or "other" (a `del`, a type parameter).
        self.kind = kind
        #: What a plain `name = value` (or `name: T = value`, `(name := value)`) binds; None
        #: for any other binding, a multiple or unpacking target included.
        self.value = value

    @property
    def position(self) -> tuple[int, int]:
        return start_of(self.node)


def _binding(name: str, node: ast.AST) -> Binding:
    kind = _BINDING_KINDS.get(type(node), "other")
    if isinstance(node, ast.NamedExpr):
        value = node.value if node.target.id == name else None
    else:
        value = assigned_value(node, name) if isinstance(node, ast.stmt) else None
    return Binding(name, node.pattern if isinstance(node, ast.match_case) else node, kind, value)


class LocalScope:
    """One scope as a rule asks about it: its typed bindings, and what its own code and its
    nested scopes do with its names (`LocalUses`). A slots class (start-up)."""

    __slots__ = ("node", "bindings", "params", "uses")

    def __init__(
        self, node: ast.AST, bindings: dict[str, list[Binding]], params: frozenset[str], uses: LocalUses
    ) -> None:
        self.node = node
        #: name -> its bindings here other than as a parameter, in source order.
        self.bindings = bindings
        #: The names of its parameters (a function's; empty otherwise).
        self.params = params
        self.uses = uses

    def only_bound(self, name: str, accepts: Callable[[Binding], bool]) -> bool:
        """`name` is one of this scope's plain locals (no parameter, `global`, `nonlocal` or
        nested scope reaching it), bound at least once, and every binding passes `accepts`."""
        bindings = self.bindings.get(name)
        return (
            bool(bindings)
            and name not in self.params
            and name not in self.uses.declared
            and name not in self.uses.free_in
            and all(accepts(binding) for binding in bindings)  # type: ignore[union-attr]
        )

    def reads_reached(self, name: str, statement: ast.stmt) -> tuple[list[ast.Name] | None, bool]:
        """The reads of `name` that its binding by `statement` reaches: those after it in this
        scope, up to the next binding of the name (in source order, as a script or a
        notebook's cells run), None when a nested function or a star import may read it too;
        and whether a notebook line with IPython syntax stands in that stretch (`%time
        train(loader)`), whose reads are out of view."""
        uses = self.uses
        if name in uses.free_in or uses.star_import:
            return None, False  # read elsewhere, perhaps: a nested function, a star import
        start = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
        end = min((_bound_from(b) for b in self.bindings.get(name, ()) if b.position >= start), default=None)

        def reached(place: tuple[int, int]) -> bool:
            return start <= place and (end is None or place < end)

        reads = [load for load in uses.loads.get(name, []) if reached((load.lineno, load.col_offset))]
        return reads, any(reached(place) for place in uses.masked)


_ASSIGNMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)


def _bound_from(binding: Binding) -> tuple[int, int]:
    """Where a binding takes effect: after the value it assigns is computed (`x = f(x)`
    reads the old `x`), else where it starts."""
    value = binding.node.value if isinstance(binding.node, _ASSIGNMENTS) else None
    if value is not None and value.end_lineno is not None and value.end_col_offset is not None:
        return value.end_lineno, value.end_col_offset
    return binding.position


class LocalUses:
    """What one scope's own code does with its names, node by node: the code outside its
    nested functions, lambdas and classes, plus their decorators, defaults and annotations,
    which run in it. A comprehension's variables are the comprehension's own: reading them
    is not reading the scope's names. A slots class (start-up)."""

    __slots__ = ("loads", "reads", "jumps", "free_in", "declared", "star_import", "dynamic", "masked")

    def __init__(self) -> None:
        #: name -> every read of it (`ast.Name` in a load context), in source order.
        self.loads: dict[str, list[ast.Name]] = {}
        #: name -> where the code reads it, sorted: its loads, and the `del name` and
        #: `name += ...` that need a value bound already.
        self.reads: dict[str, list[tuple[int, int]]] = {}
        #: Where `break` and `continue` statements start, sorted.
        self.jumps: list[tuple[int, int]] = []
        #: name -> the nested functions, lambdas and classes that may read or rebind it (its
        #: free names; nested scopes see nothing of a class body, so empty for a class).
        self.free_in: dict[str, list[ast.AST]] = {}
        #: Names declared `global` or `nonlocal` here.
        self.declared: set[str] = set()
        #: The scope runs `from m import *`, which may bind any name.
        self.star_import = False
        #: The scope calls one of `DYNAMIC_READERS` (`locals()`, `eval(...)`), which read names
        #: without naming them.
        self.dynamic = False
        #: Where the scope's masked notebook lines that run Python code stand (`%time f(x)`),
        #: sorted: what they read is out of view.
        self.masked: list[tuple[int, int]] = []


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _local_uses(scope: ast.AST) -> LocalUses:
    uses = LocalUses()
    visible = not isinstance(scope, ast.ClassDef)
    body = scope.body if isinstance(scope.body, list) else [scope.body]  # type: ignore[attr-defined]
    # (node, the names the comprehensions around it bind for themselves)
    stack: list[tuple[ast.AST, frozenset[str]]] = [(node, frozenset()) for node in body]
    while stack:
        node, own = stack.pop()
        if isinstance(node, NESTED_SCOPES):
            if visible:
                for name in free_names(node):
                    uses.free_in.setdefault(name, []).append(node)
            stack.extend((part, own) for part in evaluated_outside(node))
            continue
        if isinstance(node, _COMPREHENSIONS):
            first, *rest = node.generators
            stack.append((first.iter, own))  # evaluated in the enclosing scope
            inner = own | bound_names(generator.target for generator in node.generators)
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            stack.extend((part, inner) for part in [*elements, first.target, *first.ifs, *rest])
            continue
        if isinstance(node, ast.Name):
            if node.id.startswith(CODE_PLACEHOLDER_PREFIX):
                uses.masked.append((node.lineno, node.col_offset))
            if node.id not in own and not isinstance(node.ctx, ast.Store):
                uses.reads.setdefault(node.id, []).append((node.lineno, node.col_offset))
                if isinstance(node.ctx, ast.Load):
                    uses.loads.setdefault(node.id, []).append(node)
            continue
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id not in own:
            uses.reads.setdefault(node.target.id, []).append((node.lineno, node.col_offset))
        elif isinstance(node, (ast.Break, ast.Continue)):
            uses.jumps.append((node.lineno, node.col_offset))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            uses.declared.update(node.names)
        elif isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            uses.star_import = True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in DYNAMIC_READERS:
            uses.dynamic = True
        stack.extend((child, own) for child in ast.iter_child_nodes(node))
    for nodes in uses.loads.values():
        nodes.sort(key=start_of)
    for positions in uses.reads.values():
        positions.sort()
    uses.jumps.sort()
    uses.masked.sort()
    return uses


def _call_sites(tree: ast.Module) -> tuple[dict[str, list[tuple[ast.Call, ast.AST]]], set[str]]:
    """Name -> the calls of it by name and their scopes; and the names also read otherwise."""
    found: dict[str, list[tuple[ast.Call, ast.AST]]] = {}
    read_otherwise: set[str] = set()
    callees: set[int] = set()
    stack: list[tuple[ast.AST, ast.AST]] = [(tree, tree)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            callees.add(id(node.func))
            found.setdefault(node.func.id, []).append((node, scope))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in callees:
            read_otherwise.add(node.id)
        inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) else scope
        stack.extend((child, inner) for child in reversed(list(ast.iter_child_nodes(node))))
    return found, read_otherwise


def _dependencies(functions: list[FunctionFacts]) -> list[set[int]]:
    """For each function of the list, the others of the list that must be walked before it:
    its callers; for a method, the methods of its class that call it on `self` or assign an
    attribute it reads; for an `__init__`, the functions that call its class."""
    callers: dict[str, set[int]] = {}
    self_callers: dict[tuple[int, str], set[int]] = {}
    writers: dict[tuple[int, str], set[int]] = {}
    for index, function in enumerate(functions):
        for name in function.calls:
            callers.setdefault(name, set()).add(index)
        if function.owner is not None:
            owner = id(function.owner)
            for name in function.self_calls:
                self_callers.setdefault((owner, name), set()).add(index)
            for attribute in function.writes:
                writers.setdefault((owner, attribute), set()).add(index)
    before: list[set[int]] = []
    for index, function in enumerate(functions):
        name = function.node.name
        if function.owner is None:
            found = set(callers.get(name, ()))
        else:
            owner = id(function.owner)
            found = set(self_callers.get((owner, name), ()))
            for attribute in function.reads:
                found |= writers.get((owner, attribute), set())
            if name == "__init__":
                found |= callers.get(function.owner.name, set())
        found.discard(index)
        before.append(found)
    return before


class _Collector:
    """The pass that fills a `SemanticIndex`."""

    def __init__(self, index: SemanticIndex) -> None:
        self.index = index
        self.scope: ScopeFacts | None = None
        self.function: FunctionFacts | None = None
        #: The statement whose targets are being recorded.
        self.statement: ast.AST | None = None

    def run(self, tree: ast.Module) -> None:
        self._enter(tree)
        self._statements(tree.body)
        self._backpropagated_through_calls()

    def _backpropagated_through_calls(self) -> None:
        """A function that runs a backward pass from one of its parameters runs it from what
        each call of it passes (`_backward(loss)` with `def _backward(l): l.backward()`):
        the caller's name is backpropagated there, at the call. Helpers calling helpers are
        followed a few calls deep; a call whose name may reach another def is not."""
        for _ in range(_HELPER_DEPTH):
            changed = False
            for facts in self.index.functions.values():
                scope = self.index.scopes.get(facts.node)
                parameters = _backpropagated_parameters(facts, scope)
                for call, caller in self.index.calls_by_name(facts.node.name) if parameters else ():
                    caller_facts = self.index.scopes.get(caller)
                    if caller_facts is None or self.index.resolve(_chain(caller_facts), facts.node.name) != (
                        [facts],
                        [],
                    ):
                        continue
                    for parameter in parameters:
                        argument = _argument_for(facts, call, parameter)
                        name = _pass_start(argument) if argument is not None else None
                        passes = caller_facts.backpropagated.setdefault(name, []) if name else None
                        if passes is not None and call not in passes:
                            passes.append(call)
                            _note(caller_facts, name, TORCH_TENSOR)  # type: ignore[arg-type]
                            changed = True
            if not changed:
                return

    def _graph_methods(self) -> frozenset[str]:
        """Methods whose call shows a NetworkX graph in this file (`networkx_api.usage_methods`),
        worked out when a call of one of them is first met."""
        tree = self.index.tree
        return self.index.remember("graph usage methods", tree, lambda: networkx_api.usage_methods(tree))

    def _slices_show_arrays(self) -> bool:
        """Whether `x[i, :]` shows a NumPy array in this file (`slices_show_arrays`)."""
        tree = self.index.tree
        return self.index.remember("slices show arrays", tree, lambda: slices_show_arrays(tree))

    def _enter(self, node: ast.AST) -> ScopeFacts:
        facts = ScopeFacts(node, self.scope)
        self.index.scopes[node] = facts
        self.scope = facts
        return facts

    def _leave(self, inner: ScopeFacts, outer: ScopeFacts | None) -> None:
        """Back from a nested def or class: what it mentions is seen from every scope
        around it, as is what it declares `global`/`nonlocal`."""
        mentioned = set(inner.nested_names)
        mentioned.update(inner.bindings)
        mentioned.update(inner.declared)
        mentioned.update(inner.reads)
        scope = outer
        while scope is not None:
            scope.nested_names.update(mentioned)
            scope = scope.parent
        self.scope = outer

    # -- statements ----------------------------------------------------------------------
    def _statements(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self._statement(statement)

    def _statement(self, node: ast.stmt) -> None:  # noqa: C901
        scope = self.scope
        assert scope is not None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._expressions([*node.decorator_list, *_defaults(node.args), node.returns])
            owner = scope.node if isinstance(scope.node, ast.ClassDef) and _receives_instance(node) else None
            facts = FunctionFacts(node, scope.node, owner)
            self.index.functions[node] = facts
            scope.functions.setdefault(node.name, []).append(facts)
            scope.bind(node.name, node, other=False)
            saved_scope, saved_function = self.scope, self.function
            inner = self._enter(node)
            self.function = facts
            for arg in all_args(node.args):
                inner.bind(arg.arg, arg)
            self._statements(node.body)
            self._leave(inner, saved_scope)
            self.function = saved_function
            return
        if isinstance(node, ast.ClassDef):
            self._expressions([*node.decorator_list, *node.bases, *(k.value for k in node.keywords)])
            scope.classes.setdefault(node.name, []).append(node)
            scope.bind(node.name, node, other=False)
            saved = self.scope
            inner = self.index.classes[node] = self._enter(node)
            self._statements(node.body)
            self._leave(inner, saved)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    scope.bind(alias.asname or alias.name.split(".", 1)[0], node)
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            scope.other_bindings.update(node.names)
            scope.declared.update(node.names)
            return
        self.statement = node
        for name in _fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self._statements(value)
                elif value and isinstance(value[0], ast.excepthandler):
                    for handler in value:
                        if handler.name:
                            scope.bind(handler.name, handler)
                        self._expression(handler.type)
                        self._statements(handler.body)
                elif value and isinstance(value[0], ast.withitem):
                    for item in value:
                        self._expression(item.context_expr)
                        self._target(item.optional_vars)
                elif name == "targets":
                    for target in value:
                        self._target(target)
                elif value and isinstance(value[0], ast.AST) and hasattr(value[0], "pattern"):
                    for case in value:  # match cases
                        for sub in ast.walk(case.pattern):
                            for attribute in ("name", "rest"):
                                captured = getattr(sub, attribute, None)
                                if isinstance(captured, str):
                                    scope.bind(captured, case)
                        self._expression(case.guard)
                        self._statements(case.body)
                else:
                    self._expressions(value)
            elif name == "target":
                self._target(value)
            elif isinstance(value, ast.AST):
                self._expression(value)

    def _target(self, target: ast.AST | None) -> None:
        if target is None:
            return
        if isinstance(target, ast.Name):
            assert self.scope is not None and self.statement is not None  # targets are inside statements
            self.scope.bind(target.id, self.statement)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element)
            return
        if isinstance(target, ast.Starred):
            self._target(target.value)
            return
        function = self.function
        if (
            function is not None
            and isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == function.self_name
        ):
            function.writes.add(target.attr)
            self._expression(target.value)
            return
        self._expression(target)

    # -- expressions ---------------------------------------------------------------------
    def _expressions(self, nodes) -> None:
        for node in nodes:
            self._expression(node)

    def _expression(self, root: ast.AST | None) -> None:  # noqa: C901
        if root is None:
            return
        function = self.function
        self_name = function.self_name if function is not None else None
        scope = self.scope
        assert scope is not None
        reads = scope.reads
        stack = [root]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            node = pop()
            kind = type(node)
            if kind is ast.Name:
                reads.add(node.id)  # type: ignore[attr-defined]
                continue
            if kind is ast.Constant or node is None:  # (`{**a}` has None among its keys)
                continue
            if kind is ast.Attribute:
                value = node.value  # type: ignore[attr-defined]
                if type(value) is ast.Name:
                    attributes = scope.attributes.get(value.id)
                    if attributes is None:
                        attributes = scope.attributes[value.id] = set()
                    attributes.add(node.attr)  # type: ignore[attr-defined]
                    if value.id == self_name:
                        function.reads.add(node.attr)  # type: ignore[union-attr, attr-defined]
                    if node.attr in NDFRAME_ATTRIBUTES:  # type: ignore[attr-defined]
                        _note(scope, value.id, Ty(Kind.NDFRAME))
            elif kind is ast.Call:
                func = node.func  # type: ignore[attr-defined]
                if type(func) is ast.Name:
                    if function is not None:
                        function.calls.add(func.id)
                elif type(func) is ast.Attribute and type(func.value) is ast.Name:
                    receiver = func.value.id
                    if receiver == self_name:
                        function.self_calls.add(func.attr)  # type: ignore[union-attr]
                    usage = _usage(func.attr, node)  # type: ignore[arg-type]
                    if usage is None and func.attr in networkx_api.USAGE_METHODS:
                        usage = networkx_api.usage_type(func.attr, node, self._graph_methods())  # type: ignore[arg-type]
                    if usage is not None:
                        _note(scope, receiver, usage)
                if type(func) is ast.Attribute and func.attr in BACKWARD_METHODS:
                    for name in _backpropagated(node):  # type: ignore[arg-type]
                        _note(scope, name, TORCH_TENSOR)
                        scope.backpropagated.setdefault(name, []).append(node)  # type: ignore[arg-type]
                for device in _devices_given(node):  # type: ignore[arg-type]
                    _note(scope, device, ACCELERATOR)
            elif kind is ast.Subscript:
                value = node.value  # type: ignore[attr-defined]
                index = node.slice  # type: ignore[attr-defined]
                if (
                    type(value) is ast.Name
                    and type(index) is ast.Tuple
                    and any(type(part) is ast.Slice for part in index.elts)
                    and self._slices_show_arrays()
                ):
                    _note(scope, value.id, NUMPY_ARRAY)
            elif kind is ast.Yield or kind is ast.YieldFrom:
                if function is not None:
                    function.yields = True
            elif kind is ast.NamedExpr:
                scope.bind(node.target.id, node)  # type: ignore[attr-defined]
            elif kind is ast.Lambda:
                names = {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}
                outer: ScopeFacts | None = scope
                while outer is not None:
                    outer.nested_names.update(names)
                    outer = outer.parent
            for name in _fields(kind):
                child = getattr(node, name)
                if type(child) is list:
                    extend(child)
                elif child is not None:
                    push(child)


#: Per node type, the fields that may hold child nodes (not contexts or operators).
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_LEAF_FIELDS = frozenset(
    {
        "ctx",
        "op",
        "ops",
        "type_comment",
        "kind",
        "conversion",
        "is_async",
        "level",
        "id",
        "attr",
        "arg",
        "value_str",
        "n",
        "s",
    }
)


def _fields(kind: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)  # type: ignore[attr-defined]
    return fields


#: `reset_index`'s keywords in pandas-like libraries (xarray's takes its levels positionally
#: and `drop=` only): called with these alone, or with nothing, the receiver is a frame or a
#: series.
_RESET_INDEX_KEYWORDS = frozenset({"level", "drop", "inplace", "col_level", "col_fill", "allow_duplicates", "names"})


def _usage(method: str, call: ast.Call) -> Ty | None:
    """The family a method call shows its receiver is of, if only one family has it."""
    if method in FRAME_ONLY_METHODS:
        return Ty(Kind.FRAME)
    if method == "pivot_table" or method == "set_index" and _column_labels(call.args[:1]):
        return Ty(Kind.FRAME)
    if method == "reset_index" and not call.args and all(k.arg in _RESET_INDEX_KEYWORDS for k in call.keywords):
        return Ty(Kind.NDFRAME)
    if method == "apply" and _axis_is_columns(call):
        return Ty(Kind.FRAME)
    if method in TORCH_METHODS:
        return Ty(Kind.PLACED, "torch")
    return None


def _backpropagated(call: ast.Call) -> list[str]:
    """The names a backward pass starts from: `loss.backward()`, `(loss / k).backward()`,
    `scaler.scale(loss).backward()`, and what one lone argument passes
    (`accelerator.backward(loss)`, `self.manual_backward(loss)`; a tensor's own
    `out.backward(gradient)` passes a tensor too). Through arithmetic, only the operand
    beside a number or a name is followed (`loss / accumulate`, `0.5 * loss`): a name beside
    a tensor may be a number (`loss / accumulate` with `accumulate` a parameter)."""
    func = call.func
    assert isinstance(func, ast.Attribute)
    start: ast.expr | None = func.value
    if len(call.args) == 1 and not call.keywords:
        start = call.args[0]
    elif func.attr != "backward" or call.args:
        start = None
    name = _pass_start(start) if start is not None else None
    return [name] if name is not None else []


def _pass_start(start: ast.expr | None) -> str | None:
    """The name a backward pass from `start` starts from (`_backpropagated`)."""
    while start is not None and not isinstance(start, ast.Name):
        if isinstance(start, ast.BinOp):
            left, right = start.left, start.right
            if isinstance(right, (ast.Constant, ast.Name)) and not isinstance(left, ast.Constant):
                start = left
            elif isinstance(left, ast.Constant):
                start = right
            else:
                start = None
        elif (
            isinstance(start, ast.Call)
            and isinstance(start.func, ast.Attribute)
            and start.func.attr == "scale"
            and len(start.args) == 1
        ):
            start = start.args[0]
        else:
            start = None
    return start.id if start is not None else None


#: How many calls deep a backward pass is followed from a helper to its callers.
_HELPER_DEPTH = 3


def _backpropagated_parameters(facts: FunctionFacts, scope: ScopeFacts | None) -> list[str]:
    """The parameters a function runs a backward pass from, bound nowhere else in it."""
    if scope is None or not scope.backpropagated:
        return []
    arguments = facts.node.args
    parameters = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    return [
        name
        for name in scope.backpropagated
        if name in parameters
        and name != facts.self_name
        and name not in scope.nested_names
        and name not in scope.declared
        and all(isinstance(node, ast.arg) for node in scope.bindings.get(name, ()))
    ]


def _argument_for(facts: FunctionFacts, call: ast.Call, parameter: str) -> ast.expr | None:
    """What `call` passes for `parameter` of the def `facts` describes: a keyword of its
    name, or the argument at its position (none after a `*args` that may shift them; none
    by position for a method, which a call by its bare name does not call on an instance)."""
    positional = facts.positional() if facts.owner is None else []
    return argument(call, parameter, positional.index(parameter) if parameter in positional else None)


def _chain(facts: ScopeFacts) -> list[ast.AST]:
    """The scope nodes from the module down to `facts`' own."""
    chain: list[ast.AST] = []
    current: ScopeFacts | None = facts
    while current is not None:
        chain.append(current.node)
        current = current.parent
    return chain[::-1]


def _column_labels(arguments: list[ast.expr]) -> bool:
    """One column label or a list of them, as literals (`set_index("day")`, `(["a", "b"])`)."""
    if len(arguments) != 1:
        return False
    labels = arguments[0].elts if isinstance(arguments[0], ast.List) else arguments
    return bool(labels) and all(isinstance(label, ast.Constant) and isinstance(label.value, str) for label in labels)


#: A device that is not the host (an accelerator index or specification).
ACCELERATOR = Ty(Kind.DEVICE, "torch", DEVICE)
#: What `x[i, :]` shows `x` is where NumPy is the file's only array library.
NUMPY_ARRAY = Ty(Kind.ARRAY, "numpy")
#: Libraries whose values take a slice in a tuple index too (`t[i, :]` on a tensor).
_OTHER_ARRAY_LIBRARIES = frozenset(
    {"torch", "cupy", "cudf", "tensorflow", "jax", "mxnet", "dask", "xarray", "scipy.sparse"}
)


def slices_show_arrays(tree: ast.Module) -> bool:
    """A name indexed with a slice in a tuple (`X[i, :]`, `W[:, j]`) is a NumPy array where
    the file imports NumPy and no other library whose values take such an index (a tensor,
    a sparse matrix): lists, dicts and frames refuse it. Only the file's top-level imports
    are read."""
    modules: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            names = [alias.name for alias in statement.names]
        elif isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
            names = [statement.module, *(f"{statement.module}.{alias.name}" for alias in statement.names)]
        else:
            continue
        for name in names:
            parts = name.split(".")
            modules.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return "numpy" in modules and not modules & _OTHER_ARRAY_LIBRARIES


def _devices_given(call: ast.Call) -> list[str]:
    """Names a call uses as accelerators: `torch.cuda.set_device(rank)`, and the device
    lists of data-parallel wrappers (`DDP(model, device_ids=[rank], output_device=rank)`),
    which take accelerator indices only."""
    names = []
    func = call.func
    if type(func) is ast.Attribute and func.attr == "set_device" and len(call.args) == 1:
        first = call.args[0]
        if type(first) is ast.Name:
            names.append(first.id)
    for keyword in call.keywords:
        if keyword.arg == "device_ids" and type(keyword.value) is ast.List:
            names.extend(e.id for e in keyword.value.elts if type(e) is ast.Name)
        elif keyword.arg == "output_device" and type(keyword.value) is ast.Name:
            names.append(keyword.value.id)
    return names


def _axis_is_columns(call: ast.Call) -> bool:
    for keyword in call.keywords:
        if keyword.arg == "axis":
            value = keyword.value
            return isinstance(value, ast.Constant) and value.value in (1, "columns")
    return False


def _note(scope: ScopeFacts, name: str, ty: Ty) -> None:
    """Record usage evidence; frame-only evidence is stronger than frame-or-series, and
    two families' APIs used on one name are no evidence at all."""
    if name in scope.mixed_usage:
        return
    old = scope.usage.get(name)
    if old is None or old.kind == "ndframe" and ty.kind == "frame" or old.kind == "placed" and ty == TORCH_TENSOR:
        scope.usage[name] = ty
    elif old != ty and not (
        old.kind == "frame" and ty.kind == "ndframe" or old == TORCH_TENSOR and ty.kind == "placed"
    ):
        del scope.usage[name]
        scope.mixed_usage.add(name)


def _receives_instance(node: FunctionNode) -> bool:
    for decorator in node.decorator_list:
        name = decorator.id if isinstance(decorator, ast.Name) else getattr(decorator, "attr", None)
        if name in _NOT_INSTANCE_METHODS:
            return False
    return bool(node.args.posonlyargs or node.args.args)


def _defaults(args: ast.arguments) -> list[ast.expr]:
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
