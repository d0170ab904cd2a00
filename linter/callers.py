"""What the project's other files do with a module's functions: which they run over and over.

A module of helpers shows nothing of how often its functions run: `def coral(source,
target)` in `losses.py` runs once per batch because `train.py` imports it and calls it in
its batch loop, or because a model's `forward` in `models.py` calls it. The module alone
would call such a function one-off setup code. This module finds the project files that
import a module (`importers`, by their import statements) and the names of that module
they call where the call runs repeatedly (`Callers.repeated`): in a loop, a comprehension
or a lambda, in a function the importer itself runs repeatedly (a torch module's
`forward`, a dataset's `__getitem__`, a function that backpropagates, one it calls in a
loop), or handed on as a callback. A class built there (`mask = CausalMask(n, device)`)
runs its `__init__`, and an instance held in a name (`agent = Agent(...)`, also `self.agent`)
runs the methods called on it (`agent.act(state)`).

One level, as the imports are (`project`): an importer's own code, not its importers'. The
files searched are the Python files of the project tree (`project.project_root`): the
repository holding the module, else the module's folder. A tree of more than `MAX_FILES`
Python files is not searched. A module's findings then depend on the files importing it:
`Callers.state` (a hash of their paths and contents) goes in the result cache's entry, which
is served only while the importers found are the same files with the same content.
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

from .files import repository_root
from .project import MAX_MODULE_BYTES, joined, resolve, statement_blocks
from .repetition import repeated_functions
from .semantic import FunctionFacts, SemanticIndex
from .torch_api import BACKWARD_METHODS, PER_BATCH_METHODS, PER_ITEM_METHODS
from .values import Ty

#: The most Python files a project tree may hold to be searched for importers.
MAX_FILES = 5_000

#: Folders never searched: caches, environments and installed packages.
_SKIPPED = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages"})

#: The spec of the result cache's record of a module's importers (`project.ImportedFile`).
CALLERS_SPEC = "<importers>"

#: Libraries whose classes make a class with `forward` a module run per batch.
_MODULE_LIBRARIES = ("torch", "lightning", "pytorch_lightning")

#: Methods that hand back the instance they are called on (`Net().to(device)`).
_RETURNING_SELF = frozenset({"to", "cuda", "cpu", "eval", "train", "float", "half", "double", "requires_grad_"})


class Site(NamedTuple):
    """What one call passes: its positional arguments' types, its keywords' (None where the
    importer's evidence does not know), and whether it unpacks `*args` or `**kwargs`, which
    hides which parameter gets what."""

    positional: tuple[Ty | None, ...]
    keywords: tuple[tuple[str, Ty | None], ...]
    unpacks: bool = False


#: What an importer's evidence makes of the calls at some places of its code (line and
#: column of each call): `engine.call_types`.
CallTypes = Callable[[Path, bytes, frozenset[tuple[int, int]]], dict[tuple[int, int], Site]]


class Callers(NamedTuple):
    """What the files importing a module do with its names."""

    #: The module's names called where the call runs repeatedly: `f` for a function or a
    #: class built there (its `__init__` runs), `C.m` for a method called on an instance.
    repeated: frozenset[str]
    #: A hash of the importers' paths and contents, for the result cache.
    state: str
    #: Per name (as in `repeated`), what each call of it in the importers passes.
    sites: dict[str, tuple[Site, ...]] = {}


NO_CALLERS = Callers(frozenset(), "")


def callers_of(module: Path, call_types: CallTypes | None = None) -> Callers:
    """What the project files importing the file at `module` do with its names; with
    `call_types`, also what their calls of them pass."""
    module = module.absolute()
    top = project_root(module.parent)
    found = importers(module, top)
    repeated: set[str] = set()
    sites: dict[str, list[Site]] = {}
    for importer, data in found:
        calls = _repeated_calls(importer, data, top)
        repeated |= calls.repeated.get(str(module), frozenset())
        named = calls.named.get(str(module), {})
        if call_types is None or not named:
            continue
        types = _types(importer, data, frozenset(calls.positions), call_types)
        for where, name in named.items():
            sites.setdefault(name, []).append(types.get(where, Site((), (), unpacks=True)))
    return Callers(frozenset(repeated), _state(found), {name: tuple(listed) for name, listed in sites.items()})


_TYPES: dict[tuple[str, str], dict[tuple[int, int], Site]] = {}


def _types(
    importer: Path, data: bytes, positions: frozenset[tuple[int, int]], call_types: CallTypes
) -> dict[tuple[int, int], Site]:
    """What `call_types` makes of the importer's calls of project modules' names, worked out
    once per content for all of them (an importer of several modules is analysed once)."""
    key = (hashlib.sha256(data).hexdigest(), str(importer))
    known = _TYPES.get(key)
    if known is None:
        if len(_TYPES) >= _KEPT:
            _TYPES.pop(next(iter(_TYPES)))
        known = _TYPES[key] = call_types(importer, data, positions)
    return known


def current_state(module: Path) -> str:
    """The `Callers.state` the module's importers have now (what a cache entry compares)."""
    module = module.absolute()
    return _state(importers(module, project_root(module.parent)))


def project_root(folder: Path) -> Path:
    """The tree whose files may import a module in `folder`: its repository, else the folder."""
    return repository_root(folder) or folder


def importers(module: Path, top: Path) -> list[tuple[Path, bytes]]:
    """The Python files under `top` with an import that resolves to `module`, and their bytes."""
    found = []
    target = str(module)
    for path in _python_files(top):
        if path == target:
            continue
        listed = _imports_of(path, top)
        if listed is not None and target in listed[1]:
            found.append((Path(path), listed[0]))
    return found


def _state(found: list[tuple[Path, bytes]]) -> str:
    if not found:
        return ""
    digest = hashlib.sha256()
    for path, data in found:
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


# -- the project's files and their imports ---------------------------------------------

#: The Python files of each tree searched in this run (`forget` starts a new run).
_SCANS: dict[str, tuple[str, ...]] = {}


def forget() -> None:
    """Start a new run: files made or removed since the last one are found (each file's
    imports are read again only when its stat changed)."""
    _SCANS.clear()


def _python_files(top: Path) -> tuple[str, ...]:
    """The `.py` files of the tree, searched once per run; none when it holds more than
    `MAX_FILES`."""
    key = str(top)
    known = _SCANS.get(key)
    if known is not None:
        return known
    files: list[str] = []
    for folder, folders, names in os.walk(key):
        if "pyvenv.cfg" in names and folder != key:
            folders[:] = []  # a virtual environment
            continue
        folders[:] = [f for f in folders if not f.startswith(".") and f not in _SKIPPED]
        files.extend(os.path.join(folder, name) for name in names if name.endswith(".py"))
        if len(files) > MAX_FILES:
            files = []
            break
    _SCANS[key] = tuple(sorted(files))
    return _SCANS[key]


#: Per file: its stat, its bytes, and the project files its imports resolve to.
_IMPORTS: dict[str, tuple[tuple[int, int], bytes, frozenset[str]]] = {}

#: An import statement: `from spec import names` (parenthesised names may span lines) or
#: `import specs`. A search of the text, not a parse: it runs over every file of the tree.
_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]+))", re.MULTILINE
)


def _imports_of(path: str, top: Path) -> tuple[bytes, frozenset[str]] | None:
    """A file's bytes and the project files its imports resolve to; None for a file that
    cannot be read or is too large to analyse."""
    try:
        status = os.stat(path)
        stamp = (status.st_mtime_ns, status.st_size)
        known = _IMPORTS.get(path)
        if known is not None and known[0] == stamp:
            return known[1], known[2]
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_MODULE_BYTES:
            return None  # a named pipe would block the read
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
    _IMPORTS[path] = (stamp, data, frozenset(resolved))
    return data, frozenset(resolved)


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


# -- what an importer runs repeatedly ----------------------------------------------------

#: A name of a project module: the module's file and the name (`C.m` for a method).
_Named = tuple[str, str]


class _Calls(NamedTuple):
    """An importer's calls of project modules' names: per module, the names it calls where
    the call runs repeatedly, and every call of one by its place (line, column)."""

    repeated: dict[str, frozenset[str]]
    named: dict[str, dict[tuple[int, int], str]]

    @property
    def positions(self) -> set[tuple[int, int]]:
        return {where for calls in self.named.values() for where in calls}


_NO_CALLS = _Calls({}, {})
_REPEATED: dict[tuple[str, str], _Calls] = {}
#: The most importers' facts kept (a language server lives long).
_KEPT = 512


def _repeated_calls(importer: Path, data: bytes, top: Path) -> _Calls:
    """The project modules' names the file `importer` (its bytes `data`) calls; worked out
    once per content."""
    key = (hashlib.sha256(data).hexdigest(), str(importer))
    known = _REPEATED.get(key)
    if known is None:
        if len(_REPEATED) >= _KEPT:
            _REPEATED.pop(next(iter(_REPEATED)))
        known = _REPEATED[key] = _find_repeated_calls(importer, data, top)
    return known


def _find_repeated_calls(importer: Path, data: bytes, top: Path) -> _Calls:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data, str(importer))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _NO_CALLS
    functions, modules, libraries = _names_taken(tree, importer.parent, top)
    if not functions and not modules:
        return _NO_CALLS
    instances = _instances(tree, functions, modules)
    calls: list[tuple[_Named, bool, ast.AST | None]] = []
    named: dict[str, dict[tuple[int, int], str]] = {}
    for node, looping, function in _nodes(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _called_name(node, functions, modules, instances)
        if called is not None:
            calls.append((called, looping, function))
            named.setdefault(called[0], {})[(node.lineno, node.col_offset)] = called[1]
        # a function of the module handed on to another call: a callback
        for argument in _arguments(node):
            handed = _module_name(argument, functions, modules)
            if handed is not None:
                calls.append((handed, True, None))
    asked = {function for _, looping, function in calls if not looping and function is not None}
    repeated: set[ast.AST] = set()
    if asked:
        index = SemanticIndex(tree)
        backward = b"backward" in data

        def seeds(facts: FunctionFacts) -> bool:
            return _runs_per_batch(facts, libraries, backward)

        repeated = {function for function in asked if (facts := index.function(function)) and seeds(facts)}
        if asked - repeated:  # the file's calls between its defs decide: follow them
            repeated = set(repeated_functions(tree, index, seeds))
    found: dict[str, set[str]] = {}
    for (module, name), looping, function in calls:
        if looping or function in repeated:
            found.setdefault(module, set()).add(name)
    return _Calls({module: frozenset(names) for module, names in found.items()}, named)


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def _names_taken(tree: ast.Module, folder: Path, top: Path) -> tuple[dict[str, _Named], dict[str, str], set[str]]:
    """What the importer binds from the project's modules: their names (local name -> the
    module and its name), the modules themselves (local name, dotted for `import pkg.mod`
    -> the module); and the libraries it imports (their first part)."""
    functions: dict[str, _Named] = {}
    modules: dict[str, str] = {}
    libraries: set[str] = set()
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                libraries.add(alias.name.split(".")[0])
                found = resolve(alias.name, folder, top)
                if found is not None:
                    modules[alias.asname or alias.name] = str(found)
        elif isinstance(node, ast.ImportFrom):
            spec = "." * node.level + (node.module or "")
            if not node.level and node.module:
                libraries.add(node.module.split(".")[0])
            whole = resolve(spec, folder, top)
            for alias in node.names:
                local = alias.asname or alias.name
                inner = resolve(joined(spec, alias.name), folder, top) if alias.name != "*" else None
                if inner is not None:  # `from pkg import module`
                    modules[local] = str(inner)
                elif whole is not None and alias.name != "*":
                    functions[local] = (str(whole), alias.name)
    return functions, modules, libraries


def _statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement of the file, at any depth (imports and bindings are statements: the
    expressions in them need no visit)."""
    blocks: list[list[ast.stmt]] = [tree.body]
    while blocks:
        for statement in blocks.pop():
            yield statement
            blocks.extend(statement_blocks(statement))


def _runs_per_batch(facts: FunctionFacts, libraries: set[str], backward: bool) -> bool:
    """A def a library runs per batch or item (a torch module's `forward`, a dataset's
    `__getitem__`), or one that backpropagates outside a loop of its own (a training step;
    looked for only when the file says `backward`)."""
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


_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _outside_loops(body: list[ast.stmt]) -> Iterator[ast.AST]:
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, _LOOPS + _SCOPES):
            continue
        yield node
        pending.extend(ast.iter_child_nodes(node))


def _nodes(tree: ast.Module) -> Iterator[tuple[ast.AST, bool, ast.AST | None]]:
    """Every node of the file, whether its own scope runs it repeatedly (in a loop's body,
    not its iterable, a comprehension or a lambda), and the def whose body holds it."""
    pending: list[tuple[ast.AST, bool, ast.AST | None]] = [(tree, False, None)]
    while pending:
        node, looping, function = pending.pop()
        yield node, looping, function
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            pending.extend((child, False, node) for child in node.body)
            pending.extend((child, looping, function) for child in (*node.decorator_list, node.args))
            continue
        repeats = isinstance(node, (*_LOOPS, ast.Lambda))
        iterable = node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else None
        for child in ast.iter_child_nodes(node):
            pending.append((child, looping or repeats and child is not iterable, function))


def _module_name(node: ast.expr, functions: dict[str, _Named], modules: dict[str, str]) -> _Named | None:
    """The project module's name `node` refers to: a name taken from it, or an attribute of it."""
    if isinstance(node, ast.Name):
        return functions.get(node.id)
    if isinstance(node, ast.Attribute):
        module = modules.get(_dotted(node.value) or "")
        return (module, node.attr) if module is not None else None
    return None


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
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


def _instances(tree: ast.Module, functions: dict[str, _Named], modules: dict[str, str]) -> dict[str, _Named]:
    """Names (and `self.` attributes, spelled so) bound to what a project module's name
    makes (an instance of its class), when every binding of the name in the file makes the same."""
    found: dict[str, _Named | None] = {}
    for node in _statements(tree):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        made = _built(node.value, functions, modules)
        for target in targets:
            spelled = _dotted(target)
            if spelled is None:
                continue
            found[spelled] = None if spelled in found and found[spelled] != made else made
    return {name: made for name, made in found.items() if made is not None}


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
        made = instances.get(_dotted(call.func.value) or "")
        if made is not None:
            return made[0], f"{made[1]}.{call.func.attr}"
    return None
