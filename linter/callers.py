"""What the project's other files do with a module's functions: how often they run them,
and what they pass.

A module of helpers shows nothing of how often its functions run: `def coral(source,
target)` in `losses.py` runs once per batch because `train.py` imports it and calls it in
its batch loop, or because a model's `forward` in `models.py` calls it. The module alone
would call such a function one-off setup code. This module finds the project files that
import a module (`importers`, by their import statements) and the names of that module
they call where the call runs repeatedly (`Callers.repeated`): in a loop, a comprehension
or a lambda, or in a function the importer itself runs repeatedly (a torch module's
`forward`, a dataset's `__getitem__`, a function that backpropagates, one it calls in a
loop); a class built there (`mask = CausalMask(n, device)`) runs its `__init__`, and an
instance held in a name bound to nothing else (`agent = Agent(...)`, also `self.agent`)
runs the methods called on it (`agent.act(state)`). A function handed on to another call
is a callback (`Callers.handed`). With the engine's help (`CallTypes`), it also gives
what the importers' calls pass (`Callers.sites`).

A name counts only where the importer binds it by that import alone: a parameter, a
local `def` or an assignment of the same name anywhere in the file makes it the
importer's own. One level, as the imports are (`project`): an importer's own code, not
its importers'. The files searched are the Python files of the module's repository
(`project_root`), nested repositories, hidden folders, virtual environments and pytest's
test files (`test_*.py`, `*_test.py`, `conftest.py`: their loops are no production's)
left out; without a repository, the module's own folder only. A tree of more than
`MAX_FILES` Python files, or `MAX_ENTRIES` folder entries, is not searched. A module's
findings then depend on the files importing it: `Callers.state` (a hash of their paths
and contents, and of the project files they import in turn) goes in the result cache's
entry, which is served only while it is the same. Each run searches the tree once
(`forget` starts a new run).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import stat
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from .astutil import TRY_STATEMENTS, range_arguments
from .files import repository_root
from .loop_effects import reference
from .project import MAX_MODULE_BYTES, joined, resolve, statements
from .repetition import FEW_RUNS, LOOP_NODES, SCOPE_NODES, literal_iterations, repeated_functions
from .semantic import FunctionFacts, SemanticIndex
from .torch_api import BACKWARD_METHODS, PER_BATCH_METHODS, PER_ITEM_METHODS
from .values import Ty

#: The most Python files, and folder entries of any kind, a project tree may hold to be
#: searched for importers.
MAX_FILES = 5_000
MAX_ENTRIES = 100_000

#: Folders never searched: caches, environments and installed packages.
_SKIPPED = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages"})

#: The files pytest collects as tests (its default `python_files`, and `conftest.py`).
_TEST_FILE = re.compile(r"(test_.*|.*_test|conftest)\.py")

#: The spec of the result cache's record of a module's importers (`project.ImportedFile`).
CALLERS_SPEC = "<importers>"

#: Libraries whose classes make a class with `forward` a module run per batch.
_MODULE_LIBRARIES = ("torch", "lightning", "pytorch_lightning")

#: Methods that hand back the instance they are called on (`Net().to(device)`).
_RETURNING_SELF = frozenset({"to", "cuda", "cpu", "eval", "train", "float", "half", "double", "requires_grad_"})

#: A call's place in its file: line, column, end line, end column (a chained call shares
#: its start with the call it is made on).
Place = tuple[int, int, int, int]


class Site(NamedTuple):
    """What one call passes: its positional arguments' types, its keywords' (None where the
    importer's evidence does not know), and whether it unpacks `*args` or `**kwargs`, which
    hides which parameter gets what."""

    positional: tuple[Ty | None, ...]
    keywords: tuple[tuple[str, Ty | None], ...]
    unpacks: bool = False


#: What an importer's evidence makes of its calls at some places (`engine.call_types`).
CallTypes = Callable[[Path, bytes, frozenset[Place]], dict[Place, Site]]


class Callers(NamedTuple):
    """What the files importing a module do with its names."""

    #: The module's names called where the call runs repeatedly: `f` for a function or a
    #: class built there (its `__init__` runs), `C.m` for a method called on an instance.
    repeated: frozenset[str]
    #: Of `repeated`, the names whose call runs on every run of what repeats it: not under
    #: an `if`, an `except` or one side of a conditional (`if step % 100 == 0: agent.update()`
    #: runs `update` repeatedly, not on every iteration).
    steady: frozenset[str]
    #: The module's names handed on to another call (`DataLoader(ds, collate_fn=collate)`):
    #: a function so handed is a callback, run repeatedly.
    handed: frozenset[str]
    #: Per name (as in `repeated`), what each call of it in the importers passes.
    sites: dict[str, tuple[Site, ...]]
    #: A hash of the importers' paths and contents (and of what they import), for the cache.
    state: str


NO_CALLERS = Callers(frozenset(), frozenset(), frozenset(), {}, "")


def names_for(facts: FunctionFacts, tree: ast.Module, index: SemanticIndex) -> tuple[str, ...]:
    """The names a def of the module goes by in its importers' calls (`Callers`): a
    top-level function its own, a method of a top-level class `C.m`, and its `__init__` the
    class's name too (the class built); none for a def nested deeper."""
    owner = facts.owner
    if owner is None:
        return (facts.node.name,) if facts.scope is tree else ()
    if index.parent(owner) is not tree:
        return ()
    method = f"{owner.name}.{facts.node.name}"
    return (method, owner.name) if facts.node.name == "__init__" else (method,)


def callers_of(module: Path, call_types: CallTypes | None = None) -> Callers:
    """What the project files importing the file at `module` do with its names; with
    `call_types`, also what their calls of them pass."""
    module = module.absolute()
    top, deep = project_root(module.parent)
    tree = _tree(top, deep)
    found = tree.importers.get(str(module), [])
    repeated: set[str] = set()
    steady: set[str] = set()
    handed: set[str] = set()
    sites: dict[str, list[Site]] = {}
    for importer in found:
        calls = _calls_of(importer, tree)
        repeated |= calls.repeated.get(str(module), frozenset())
        steady |= calls.steady.get(str(module), frozenset())
        handed |= calls.handed.get(str(module), frozenset())
        named = calls.named.get(str(module), {})
        if call_types is None or not named:
            continue
        types = _types(importer, tree, calls, call_types)
        for where, name in named.items():
            sites.setdefault(name, []).append(types.get(where, Site((), (), unpacks=True)))
    listed = {name: tuple(given) for name, given in sites.items()}
    return Callers(frozenset(repeated), frozenset(steady), frozenset(handed), listed, tree.state(found))


def current_state(module: Path) -> str:
    """The `Callers.state` the module's importers have now (what a cache entry compares)."""
    module = module.absolute()
    tree = _tree(*project_root(module.parent))
    return tree.state(tree.importers.get(str(module), []))


def project_root(folder: Path) -> tuple[Path, bool]:
    """The tree whose files may import a module in `folder`, and whether its subfolders are
    searched: the repository, else the folder alone (as imports resolve: `project`)."""
    top = repository_root(folder)
    return (top, True) if top is not None else (folder, False)


def forget() -> None:
    """Start a new run: every tree is searched again when next asked about."""
    _TREES.clear()
    _CALLS.clear()
    _TYPES.clear()


# -- the project's files and their imports ---------------------------------------------


class _File(NamedTuple):
    """One Python file of the tree: its content's hash and the project files its imports
    resolve to."""

    digest: str
    imports: frozenset[str]


class _Tree:
    """One project tree as this run found it: its Python files and who imports whom."""

    def __init__(self, top: Path, files: dict[str, _File]) -> None:
        self.top = top
        self.files = files
        self.importers: dict[str, list[str]] = {}
        for path, file in files.items():
            for module in file.imports:
                if module != path:
                    self.importers.setdefault(module, []).append(path)

    def state(self, importers: list[str]) -> str:
        """A hash of the importers' paths and contents and of the project files each
        imports (what their evidence shows depends on them too); empty for none."""
        if not importers:
            return ""
        digest = hashlib.sha256()
        for path in sorted(importers):
            file = self.files[path]
            digest.update(f"{path}\0{file.digest}\0".encode("utf-8", "surrogateescape"))
            for module in sorted(file.imports):
                known = self.files.get(module)
                digest.update(f"{module}\0{known.digest if known else ''}\0".encode("utf-8", "surrogateescape"))
        return digest.hexdigest()


_TREES: dict[tuple[str, bool], _Tree] = {}


def _tree(top: Path, deep: bool) -> _Tree:
    key = (str(top), deep)
    known = _TREES.get(key)
    if known is None:
        known = _TREES[key] = _Tree(top, _read_files(top, deep))
    return known


def _read_files(top: Path, deep: bool) -> dict[str, _File]:
    """The tree's Python files with their imports; none when it is too large to search."""
    files: dict[str, _File] = {}
    for path in _python_files(str(top), deep):
        found = _read_file(path, top)
        if found is not None:
            files[path] = found
    return files


def _python_files(top: str, deep: bool) -> list[str]:
    """The `.py` files of the tree (of the folder alone unless `deep`); none when the tree
    holds more than `MAX_FILES` of them or `MAX_ENTRIES` entries."""
    files: list[str] = []
    entries = 0
    for folder, folders, names in os.walk(top):
        entries += len(folders) + len(names)
        if folder != top and (".git" in folders or ".git" in names or "pyvenv.cfg" in names):
            folders[:] = []  # a repository of its own, or a virtual environment
            continue
        folders[:] = [f for f in folders if deep and not f.startswith(".") and f not in _SKIPPED]
        files.extend(
            os.path.join(folder, name) for name in names if name.endswith(".py") and not _TEST_FILE.fullmatch(name)
        )
        if len(files) > MAX_FILES or entries > MAX_ENTRIES:
            return []
    return files


def _read_file(path: str, top: Path) -> _File | None:
    """A file's hash and the project files its imports resolve to; None for one that
    cannot be read, is no regular file (a named pipe would block) or is too large."""
    try:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_MODULE_BYTES:
            return None
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError:
        return None
    folder = Path(path).parent
    resolved: set[str] = set()
    for spec, names in _import_specs(data):
        found = resolve(spec, folder, top)
        if found is not None:
            resolved.add(str(found))
        for name in names:  # `from pkg import module`
            inner = resolve(joined(spec, name), folder, top)
            if inner is not None:
                resolved.add(str(inner))
    return _File(hashlib.sha256(data).hexdigest(), frozenset(resolved))


#: An import statement: `from spec import names` (parenthesised names may span lines) or
#: `import specs`. A search of the text, not a parse: it runs over every file of the tree.
_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]+))", re.MULTILINE
)


def _import_specs(data: bytes) -> Iterator[tuple[str, list[str]]]:
    for match in _IMPORT.finditer(data):
        spec, names, modules = match.groups()
        if spec is not None:
            listed = names.decode("utf-8", "replace").strip("()\\ \t\r\n")
            yield spec.decode("ascii", "replace"), [_first_word(part) for part in listed.split(",") if part.strip()]
        else:
            for part in modules.decode("utf-8", "replace").split(","):
                word = _first_word(part)
                if word:
                    yield word, []


def _first_word(part: str) -> str:
    words = part.replace("\\", " ").split()
    return words[0] if words else ""


# -- what an importer does with a module's names -------------------------------------------

#: A name of a project module: the module's file and the name (`C.m` for a method).
_Named = tuple[str, str]


class _Calls(NamedTuple):
    """An importer's calls of project modules' names, per module: the names it calls where
    the call runs repeatedly, those it hands on to other calls, and every call of one by
    its place."""

    repeated: dict[str, frozenset[str]]
    steady: dict[str, frozenset[str]]
    handed: dict[str, frozenset[str]]
    named: dict[str, dict[Place, str]]


_NO_CALLS = _Calls({}, {}, {}, {})
_CALLS: dict[tuple[str, str], _Calls] = {}


def _calls_of(importer: str, tree: _Tree) -> _Calls:
    """What the file `importer` does with the project modules' names; worked out once per
    run and content."""
    key = (importer, tree.files[importer].digest)
    known = _CALLS.get(key)
    if known is None:
        try:
            with open(importer, "rb") as stream:
                data = stream.read()
            known = _find_calls(Path(importer), data, tree.top)
        except (OSError, RecursionError):  # gone since the search, or nested too deeply
            known = _NO_CALLS
        _CALLS[key] = known
    return known


def _find_calls(importer: Path, data: bytes, top: Path) -> _Calls:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data, str(importer))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _NO_CALLS
    indexed: list[SemanticIndex] = []

    def index() -> SemanticIndex:
        if not indexed:
            indexed.append(SemanticIndex(tree))
        return indexed[0]

    def few_runs(loop: ast.AST) -> bool:
        iterable = loop.iter if isinstance(loop, (ast.For, ast.AsyncFor)) else None
        if not isinstance(iterable, (ast.Tuple, ast.List)) and range_arguments(iterable) is None:
            return False  # no literals to count (and no index to build)
        runs = literal_iterations(loop, index())
        return runs is not None and runs <= FEW_RUNS

    walked = list(_nodes(tree, few_runs))  # one walk, for the bindings and the calls
    functions, modules, libraries, instances = _names_taken(tree, [node for node, *_ in walked], importer.parent, top)
    if not functions and not modules:
        return _NO_CALLS
    calls: list[tuple[_Named, bool, ast.AST | None]] = []
    unbranched: list[bool] = []
    handed: dict[str, set[str]] = {}
    named: dict[str, dict[Place, str]] = {}
    for node, looping, steady, function in walked:
        if not isinstance(node, ast.Call):
            continue
        called = _called_name(node, functions, modules, instances)
        if called is not None:
            calls.append((called, looping, function))
            unbranched.append(steady)
            named.setdefault(called[0], {})[place(node)] = called[1]
        for argument in (*node.args, *(keyword.value for keyword in node.keywords)):
            given = _module_name(argument, functions, modules)
            if given is not None:
                handed.setdefault(given[0], set()).add(given[1])
    repeated = _repeated_defs(tree, index, calls, libraries, b"backward" in data)
    found: dict[str, set[str]] = {}
    every: dict[str, set[str]] = {}
    for ((module, name), looping, function), steady in zip(calls, unbranched, strict=True):
        if looping or function in repeated:
            found.setdefault(module, set()).add(name)
            if steady:
                every.setdefault(module, set()).add(name)
    return _Calls(
        {module: frozenset(names) for module, names in found.items()},
        {module: frozenset(names) for module, names in every.items()},
        {module: frozenset(names) for module, names in handed.items()},
        named,
    )


def place(node: ast.AST) -> Place:
    """Where a call is in its file (`Place`)."""
    return (node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)  # type: ignore[attr-defined]


def _repeated_defs(
    tree: ast.Module,
    indexed: Callable[[], SemanticIndex],
    calls: list[tuple[_Named, bool, ast.AST | None]],
    libraries: set[str],
    backward: bool,
) -> set[ast.AST]:
    """Of the defs holding calls outside a loop of their own, those the importer runs
    repeatedly (`repetition.repeated_functions`), asked only when there are such defs."""
    asked = {
        function
        for _, looping, function in calls
        # an `__init__` runs where its class is built, which the file's repetition does not
        # follow (the layers a model's `__init__` makes are made once)
        if not looping and function is not None and getattr(function, "name", "") != "__init__"
    }
    if not asked:
        return set()
    index = indexed()

    def seeds(facts: FunctionFacts) -> bool:
        return _runs_per_batch(facts, libraries, backward)

    repeated = {function for function in asked if (facts := index.function(function)) and seeds(facts)}
    if asked - repeated:  # the file's calls between its defs decide: follow them
        repeated = set(repeated_functions(tree, index, seeds))
    return repeated


def _names_taken(
    tree: ast.Module, nodes: list[ast.AST], folder: Path, top: Path
) -> tuple[dict[str, _Named], dict[str, str], set[str], dict[str, _Named]]:
    """What the importer binds from the project's modules, by names it binds to nothing
    else anywhere in the file: the modules' names (local name -> the module and its name)
    and the modules themselves (local name, dotted for `import pkg.mod` -> the module); the
    libraries it imports (their first part); and the names (or `self.` attributes, spelled
    so) bound only to instances one module name makes (`agent = Agent(...)`). `nodes`: all
    of the file's nodes."""
    imported: dict[str, set[tuple[str, ...]]] = {}
    libraries: set[str] = set()
    for statement in statements(tree):
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                libraries.add(alias.name.split(".")[0])
                found = resolve(alias.name, folder, top)
                imported.setdefault(alias.asname or alias.name, set()).add(
                    ("module", str(found)) if found is not None else ("other",)
                )
        elif isinstance(statement, ast.ImportFrom):
            spec = "." * statement.level + (statement.module or "")
            if not statement.level and statement.module:
                libraries.add(statement.module.split(".")[0])
            whole = resolve(spec, folder, top)
            for alias in statement.names:
                inner = resolve(joined(spec, alias.name), folder, top) if alias.name != "*" else None
                if inner is not None:  # `from pkg import module`
                    target: tuple[str, ...] = ("module", str(inner))
                elif whole is not None and alias.name != "*":
                    target = ("name", str(whole), alias.name)
                else:
                    target = ("other",)
                imported.setdefault(alias.asname or alias.name, set()).add(target)
    if all(target == ("other",) for targets in imported.values() for target in targets):
        return {}, {}, libraries, {}  # nothing from the project
    made, bound = _bindings(tree, nodes)
    functions: dict[str, _Named] = {}
    modules: dict[str, str] = {}
    for local, targets in imported.items():
        if len(targets) != 1 or local.split(".")[0] in bound:
            continue  # bound to something else too: which one a use means is not known
        kind, *where = next(iter(targets))
        if kind == "name":
            functions[local] = (where[0], where[1])
        elif kind == "module":
            modules[local] = where[0]
    instances: dict[str, _Named] = {}
    for spelled, values in made.items():
        kinds = {_built(value, functions, modules) if value is not None else None for value in values}
        if len(kinds) == 1 and None not in kinds:
            instances[spelled] = kinds.pop()  # type: ignore[assignment]
    return functions, modules, libraries, instances


def _bindings(tree: ast.Module, nodes: list[ast.AST]) -> tuple[dict[str, list[ast.expr | None]], set[str]]:
    """Every binding of the file other than an import: per name (and `self.` attribute,
    spelled so), the values plain assignments give it (None for any other binding: a loop
    target, a parameter, an unpacking); and the names so bound, defs and classes included."""
    assigned: dict[int, ast.expr] = {}
    for statement in statements(tree):
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
                assigned[id(target)] = statement.value
    made: dict[str, list[ast.expr | None]] = {}
    bound: set[str] = set()
    for node in nodes:
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            spelled = reference(node)
            if spelled is not None:
                made.setdefault(spelled, []).append(assigned.get(id(node)))
                bound.add(spelled)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
            made.setdefault(node.arg, []).append(None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return made, bound


def _runs_per_batch(facts: FunctionFacts, libraries: set[str], backward: bool) -> bool:
    """A def a library runs per batch or item (a torch module's `forward` in a file that
    imports torch, a dataset's `__getitem__`), or one that backpropagates outside a loop of
    its own (a training step; looked for only when the file says `backward`). The file's
    own lint asks the same with what its evidence knows of the class
    (`rules.transfers._common.runs_repeatedly`); here the importer's syntax must do."""
    name = facts.node.name
    if facts.owner is not None and name in PER_ITEM_METHODS:
        return True
    if (
        facts.owner is not None
        and name in PER_BATCH_METHODS
        and facts.owner.bases
        and not libraries.isdisjoint(_MODULE_LIBRARIES)
    ):
        return True
    return backward and any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in BACKWARD_METHODS
        for node in _outside_loops(facts.node.body)
    )


def _outside_loops(body: list[ast.stmt]) -> Iterator[ast.AST]:
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, LOOP_NODES + SCOPE_NODES):
            continue
        yield node
        pending.extend(ast.iter_child_nodes(node))


def _nodes(
    tree: ast.Module, few_runs: Callable[[ast.AST], bool]
) -> Iterator[tuple[ast.AST, bool, bool, ast.AST | None]]:
    """Every node of the file, whether its own scope runs it repeatedly (in a loop's body,
    not its iterable, a comprehension or a lambda; not a loop `few_runs` says runs a few
    times), whether it runs on every run of the innermost loop or def around it (no branch
    between them: `_branches`), and the def whose body holds it."""
    pending: list[tuple[ast.AST, bool, bool, ast.AST | None]] = [(tree, False, True, None)]
    while pending:
        node, looping, steady, function = pending.pop()
        yield node, looping, steady, function
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            pending.extend((child, False, True, node) for child in node.body)
            pending.extend((child, looping, steady, function) for child in (*node.decorator_list, node.args))
            continue
        repeats = isinstance(node, (*LOOP_NODES, ast.Lambda)) and not few_runs(node)
        iterable = node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else None
        branches = _branches(node)
        for child in ast.iter_child_nodes(node):
            inside = repeats and child is not iterable
            pending.append((child, looping or inside, inside or steady and child not in branches, function))


def _branches(node: ast.AST) -> list[ast.AST]:
    """The children of `node` that run only on some of its runs: an `if`'s or a conditional
    expression's sides, an `except` or `else` of a `try`, the cases of a `match`, the operands
    of `and`/`or` after the first."""
    if isinstance(node, ast.If):
        return [*node.body, *node.orelse]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, TRY_STATEMENTS):
        return [*node.handlers, *node.orelse]
    if isinstance(node, ast.Match):
        return list(node.cases)
    if isinstance(node, ast.BoolOp):
        return list(node.values[1:])
    return []


def _module_name(node: ast.expr, functions: dict[str, _Named], modules: dict[str, str]) -> _Named | None:
    """The project module's name `node` refers to: a name taken from it, or an attribute of it."""
    if isinstance(node, ast.Name):
        return functions.get(node.id)
    if isinstance(node, ast.Attribute):
        module = modules.get(reference(node.value) or "")
        return (module, node.attr) if module is not None else None
    return None


def _built(value: ast.expr, functions: dict[str, _Named], modules: dict[str, str]) -> _Named | None:
    """The project module's name called to make `value` (`Net(...)`, `models.Net(...).to(device)`)."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _RETURNING_SELF
        and isinstance(value.func.value, ast.Call)
    ):
        value = value.func.value
    return _module_name(value.func, functions, modules) if isinstance(value, ast.Call) else None


def _called_name(
    call: ast.Call, functions: dict[str, _Named], modules: dict[str, str], instances: dict[str, _Named]
) -> _Named | None:
    """The project module's function or method `call` runs: `f(...)`, `mod.f(...)`, `C(...)`
    (a function, or a class whose `__init__` runs: the module knows which), `obj.m(...)` on
    an instance of the module's class held in a name (`C.m`)."""
    named = _module_name(call.func, functions, modules)
    if named is not None:
        return named
    if isinstance(call.func, ast.Attribute):
        made = instances.get(reference(call.func.value) or "")
        if made is not None:
            return made[0], f"{made[1]}.{call.func.attr}"
    return None


# -- what an importer's calls pass -------------------------------------------------------

#: Per importer (its path and the tree's state of it), what `CallTypes` made of its calls.
_TYPES: dict[tuple[str, str], dict[Place, Site]] = {}


def _types(importer: str, tree: _Tree, calls: _Calls, call_types: CallTypes) -> dict[Place, Site]:
    """What `call_types` makes of the importer's calls of project modules' names, worked
    out once per run for all of them (an importer of several modules is analysed once)."""
    key = (importer, tree.state([importer]))
    known = _TYPES.get(key)
    if known is None:
        places = frozenset(where for named in calls.named.values() for where in named)
        try:
            with open(importer, "rb") as stream:
                known = call_types(Path(importer), stream.read(), places)
        except OSError:
            known = {}
        _TYPES[key] = known
    return known
