"""The project's own modules, as a file that imports from them sees them.

Data-science code keeps its helpers in modules of its own: `from utils import to_cuda`,
`import models`, `from .data import make_device`. A file linted alone knows nothing of
them, so a model moved by `to_cuda(net)` or a device taken from `config.device` would
leave every value that depends on it unknown. This module finds the project modules a
file imports (`resolve`) and what their analysis knows of each name (`ModuleFacts`, made
by `engine.module_facts`): a module-level value's type (a device, a model, a class), what
a function returns, and whether it returns its argument on the device (`to_cuda(x)`).

One level deep: a module's facts are those its own code shows, not what it imports from
further modules, so every module is analysed once whoever imports it, and import cycles
cost nothing. A package's `__init__.py` that imports names to hand them on (`from .misc
import to_cuda`, `from .models import *`: `ModuleFacts.handed_on`) gives the facts of the
module they come from, one level further and no more. A file's findings then depend on the modules it imports: `Imports.sources`
lists them (each with its content's hash) for the result cache, which serves a file's
entry only while the same imports resolve to the same content.

An import resolves as Python would run the file as a script from its folder, or as part
of the package tree above it: a relative import from the importing file's package; an
absolute one from the file's folder, then each folder above it up to the repository's
root (the folder holding `.git`; without one, the file's folder only). Only files of the
project are read, never installed packages.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from .files import repository_root
from .values import DEVICE, Kind, Ty

#: The most bytes a project module may have to be analysed for the files importing it.
MAX_MODULE_BYTES = 1_000_000


class FitPredict(NamedTuple):
    """A function that fits an estimator it is handed on one parameter and predicts with
    it on another (`def train_predict(clf, X_train, y_train, X_test)`): the three
    parameters' names, and its positional parameters to match a call's arguments to them."""

    estimator: str
    fitted: str
    predicted: str
    parameters: tuple[str, ...]
    #: The estimator's constructor, when the function makes it itself (`model =
    #: RandomForestRegressor(...)` in a notebook's `score_dataset(X_train, X_valid, ...)`):
    #: `estimator` is then the local name. Only for a function of the file being linted.
    made: ast.Call | None = None

    def arguments(self, call: ast.Call) -> tuple[ast.expr, ast.expr, ast.expr] | None:
        """The estimator (or the constructor the function makes it with), training data and
        test data a call hands the function, when it hands all three (by position or by
        keyword)."""
        if any(isinstance(arg, ast.Starred) for arg in call.args):
            return None
        given = dict(zip(self.parameters, call.args, strict=False))
        given.update((keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg is not None)
        estimator = self.made if self.made is not None else given.get(self.estimator)
        fitted, predicted = given.get(self.fitted), given.get(self.predicted)
        if estimator is None or fitted is None or predicted is None:
            return None
        return estimator, fitted, predicted


class Exported(NamedTuple):
    """What one name of a project module is to a file importing it.

    ty: a module-level value's type (a device, a model, a class of its own), or, for a
    function, what calling it returns whatever it is given. function: the name is a
    function's. places: for a function that returns one of its arguments moved to the
    device (`def to_cuda(x): return x.cuda()`), that argument's position; None otherwise.
    destination: the position of the device it is moved to, when a parameter gives it
    (`def to_device(x, device): return x.to(device)`). feeds: the positions of the
    parameters it loops over moving each batch to a device (`def train(net, loader)` with
    `for x, y in loader: x = x.cuda()`). fits: for a function that fits an estimator
    parameter and predicts with it, which parameters (`FitPredict`)."""

    ty: Ty | None
    function: bool = False
    places: int | None = None
    destination: int | None = None
    feeds: tuple[int, ...] = ()
    fits: FitPredict | None = None

    def returned(self, arguments: Sequence[ast.expr], type_of: Callable[[ast.expr], Ty | None]) -> Ty | None:
        """What a call with these positional `arguments` gives: the placed argument, on the
        device (keeping what it is: a tensor, a module) unless the destination given is
        the host; else `ty`. `type_of` is asked only about the arguments that decide it."""
        if self.places is None:
            return self.ty
        if self.destination is not None:
            where = type_of(arguments[self.destination]) if self.destination < len(arguments) else None
            if where is None or where.kind != "device" or where.place != DEVICE:
                return None
        given = type_of(arguments[self.places]) if self.places < len(arguments) else None
        if given is not None and given.lib == "torch" and given.kind in ("tensor", "model", "output", "placed"):
            return Ty(given.kind, "torch", DEVICE, given.items)
        return Ty(Kind.PLACED, "torch", DEVICE)


class ModuleFacts(NamedTuple):
    """What a project module's analysis knows of its top-level names; `public`: the names
    `from module import *` binds (its `__all__` when it lists them, else those without a
    leading underscore). `handed_on`: the names it imports at its top level to hand on, as
    a package's `__init__.py` does (`from .models import Net`: `Net` -> (".models", "Net")),
    and `handed_on_whole`: the modules it imports every public name of (`from .models import
    *`); an importing file takes their facts from those modules (`imports_of`)."""

    names: dict[str, Exported]
    public: tuple[str, ...] = ()
    handed_on: dict[str, tuple[str, str]] = {}
    handed_on_whole: tuple[str, ...] = ()


class ImportedFile(NamedTuple):
    """An import of one file: the module as written (dots and name), the project file it
    resolved to and that file's state (`_state`: the SHA-256 of its bytes, `TOO_LARGE` or
    `UNREADABLE`); both empty when the project holds no such module (an installed library,
    or one the project does not have yet)."""

    spec: str
    path: str
    state: str


class Imports(NamedTuple):
    """What one file learns from the project modules it imports."""

    #: Per qualified name as the file spells it (`utils.to_cuda`, `.data.device`), what it is.
    names: dict[str, Exported]
    #: Each import the file makes, and the project file it resolved to (none: `path` and
    #: `state` empty), for the result cache.
    sources: tuple[ImportedFile, ...]


NO_IMPORTS = Imports({}, ())


def imports_of(importer: Path, tree: ast.Module, facts_of: Callable[[bytes, str], ModuleFacts]) -> Imports:
    """The names `tree` (the source of the file at `importer`) imports from modules of its
    project. `facts_of(data, filename)` analyses a module's bytes."""
    folder = importer.absolute().parent
    top = repository_root(folder) or folder
    names: dict[str, Exported] = {}
    sources: dict[str, ImportedFile] = {}
    for spec, imported in _imports(tree):
        found = _module(spec, folder, top, facts_of, sources)
        handing = Path(sources[spec].path)  # the file `_module` found (only read when it found one)
        if found is not None and (not imported or "*" in imported):
            # `import utils`, `import pkg.utils as u`, `from utils import *`
            given = found.names if not imported else {n: found.names[n] for n in found.public if n in found.names}
            names.update({joined(spec, n): e for n, e in given.items()})
            for name, exported in _all_handed_on(handing, top, found, facts_of, sources).items():
                if name not in given:
                    names[joined(spec, name)] = exported
        for name in imported:
            if name == "*":
                continue
            if found is not None and name in found.names:
                names[joined(spec, name)] = found.names[name]
                continue
            handed = _handed_on(name, handing, top, found, facts_of, sources) if found is not None else None
            if handed is not None:
                names[joined(spec, name)] = handed
            elif found is not None or _may_hold_modules(spec, folder, top):
                # `from pkg import utils`, `from . import utils`: a submodule
                inner = _module(joined(spec, name), folder, top, facts_of, sources)
                if inner is not None:
                    names.update({f"{joined(spec, name)}.{n}": e for n, e in inner.names.items()})
    return Imports(names, tuple(sources.values()))


#: How the sources of a cache entry spell a module a project module hands a name on from:
#: this prefix, the handing module's path, a line break, its import's spec.
HANDED_ON = "<handed on by> "


def _handed_on(
    name: str,
    handing: Path,
    top: Path,
    found: ModuleFacts,
    facts_of: Callable[[bytes, str], ModuleFacts],
    sources: dict[str, ImportedFile],
) -> Exported | None:
    """What `name`, which the module at `handing` imports to hand on (a package's
    `__init__.py`), is in the project module it takes it from: one level further, no more."""
    wanted = [found.handed_on[name]] if name in found.handed_on else []
    wanted += [(whole, name) for whole in found.handed_on_whole]
    for inner, original in wanted:
        facts = _handed_from(handing, inner, top, facts_of, sources)
        if facts is not None and original in facts.names:
            return facts.names[original]
    return None


def _all_handed_on(
    handing: Path,
    top: Path,
    found: ModuleFacts,
    facts_of: Callable[[bytes, str], ModuleFacts],
    sources: dict[str, ImportedFile],
) -> dict[str, Exported]:
    """Every public name the module at `handing` hands on, with what it is in the module it
    comes from (for `import pkg` and `from pkg import *`)."""
    given: dict[str, Exported] = {}
    for whole in found.handed_on_whole:
        facts = _handed_from(handing, whole, top, facts_of, sources)
        if facts is not None:
            given.update((n, facts.names[n]) for n in facts.public if n in facts.names)
    for name, (inner, original) in found.handed_on.items():
        if name.startswith("_"):
            continue
        facts = _handed_from(handing, inner, top, facts_of, sources)
        if facts is not None and original in facts.names:
            given[name] = facts.names[original]
    return given


def _handed_from(
    handing: Path,
    inner: str,
    top: Path,
    facts_of: Callable[[bytes, str], ModuleFacts],
    sources: dict[str, ImportedFile],
) -> ModuleFacts | None:
    """The facts of the module spelled `inner` in the module at `handing`, recorded for the
    cache as resolved from there (`HANDED_ON`)."""
    return _module(inner, handing.parent, top, facts_of, sources, f"{HANDED_ON}{handing}\n{inner}")


def handed_on(tree: ast.Module) -> tuple[dict[str, tuple[str, str]], tuple[str, ...]]:
    """The names a module imports at its top level (in `try` and `if` blocks too, not in
    defs or classes), each to the module spelled as written and its name there; and the
    modules it imports every public name of (`ModuleFacts.handed_on`)."""
    names: dict[str, tuple[str, str]] = {}
    whole: list[str] = []
    for statement in statements(tree, in_defs=False):
        if isinstance(statement, ast.ImportFrom):
            spec = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                if alias.name == "*":
                    whole.append(spec)
                else:
                    names[alias.asname or alias.name] = (spec, alias.name)
    return names, tuple(whole)


def still_current(importer: Path, sources: list[list[str]], known: dict[tuple[str, Path], Path | None]) -> bool:
    """Whether each import a cache entry recorded (`ImportedFile` as a list) still resolves
    as it did: to no project file, or to one in the same state (content hash, or too large
    or unreadable). `known`: resolutions already made in this run, by (spec, folder): files
    are neither made nor removed while a run goes on, so each is looked up once."""
    folder = importer.absolute().parent
    top: Path | None = None
    for spec, path, state in sources:
        where, inner = folder, spec
        if spec.startswith(HANDED_ON):  # resolved from the module that hands a name on
            handing, inner = spec[len(HANDED_ON) :].split("\n", 1)
            where = Path(handing).parent
        key = (inner, where)
        if key not in known:
            top = top or repository_root(folder) or folder
            known[key] = resolve(inner, where, top)
        found = known[key]
        if found is None and not path:
            continue
        if found is None or str(found) != path or _state(found)[0] != state:
            return False
    return True


def resolve(spec: str, folder: Path, top: Path) -> Path | None:
    """The project file a module spelled `spec` (`utils`, `pkg.utils`, `..data`) names for a
    file in `folder` (below `top`, the project's root), or None when the project holds no
    such module. A relative import never reaches above `top`. (Paths as strings inside:
    this runs for every import of every file.)"""
    level = len(spec) - len(spec.lstrip("."))
    parts = [p for p in spec[level:].split(".") if p]
    if level:
        base = str(folder)
        for _ in range(level - 1):
            if base == str(top):
                return None
            base = os.path.dirname(base)
        found = _module_file(base, parts)
        return Path(found) if found is not None else None
    if not parts:
        return None
    for base in _search_folders(folder, top):
        found = _module_file(base, parts)
        if found is not None:
            return Path(found)
    return None


def _may_hold_modules(spec: str, folder: Path, top: Path) -> bool:
    """Whether a module spelled `spec`, which no file or package `__init__` gives, may still
    be a folder of modules (a namespace package such as `src/`, or the file's own folder for
    `from . import utils`): an installed library's name (`transformers`) is no folder of the
    project, and its names are not looked for as submodules."""
    level = len(spec) - len(spec.lstrip("."))
    if level:
        return True
    first = spec.split(".", 1)[0]
    return any(os.path.isdir(os.path.join(base, first)) for base in _search_folders(folder, top))


def joined(spec: str, name: str) -> str:
    """The qualified name of `name` taken from the module spelled `spec` (`utils.to_cuda`,
    `.data.device`, `..models` from `..`)."""
    return spec + name if spec.endswith(".") else f"{spec}.{name}"


def _search_folders(folder: Path, top: Path) -> list[str]:
    """The file's folder, then each folder above it up to `top` (when `top` is above it)."""
    current, last = str(folder), str(top)
    found = [current]
    if last == current or not current.startswith(last.rstrip(os.sep) + os.sep):
        return found
    while current != last:
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
        found.append(current)
    return found


def _module_file(base: str, parts: list[str]) -> str | None:
    stem = os.path.join(base, *parts)
    for candidate in (
        (os.path.join(stem, "__init__.py"),) if not parts else (stem + ".py", os.path.join(stem, "__init__.py"))
    ):
        try:
            if os.path.isfile(candidate):
                return candidate
        except (OSError, ValueError):
            continue
    return None


def _imports(tree: ast.Module) -> Iterator[tuple[str, list[str]]]:
    """Each import of the file as (module spec, names taken from it; none for `import m`).
    Imports are statements: only statement lists are searched, not the expressions in them."""
    for node in statements(tree):
        if isinstance(node, ast.ImportFrom):
            yield "." * node.level + (node.module or ""), [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []


def statements(tree: ast.Module, *, in_defs: bool = True) -> Iterator[ast.stmt]:
    """Every statement of the file at any depth (not those of defs and classes unless
    `in_defs`): imports and bindings are statements, the expressions in them need no visit."""
    blocks: list[list[ast.stmt]] = [tree.body]
    while blocks:
        for statement in blocks.pop():
            yield statement
            if in_defs or not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                blocks.extend(_statement_blocks(statement))


def _statement_blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists a statement holds (bodies, `else`, `finally`, handlers, cases)."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(statement, field, None)
        if isinstance(block, list):
            yield block
    for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
        yield part.body


def _module(
    spec: str,
    folder: Path,
    top: Path,
    facts_of: Callable[[bytes, str], ModuleFacts],
    sources: dict[str, ImportedFile],
    key: str | None = None,
) -> ModuleFacts | None:
    """The facts of the project module `spec` names from `folder`, recorded in `sources`
    under `key` (the spec itself, unless given)."""
    key = key or spec
    path = resolve(spec, folder, top)
    if path is None:  # none now; one made later would change what the file imports
        sources.setdefault(key, ImportedFile(key, "", ""))
        return None
    state, data = _state(path)
    sources[key] = ImportedFile(key, str(path), state)
    return _facts(state, data, str(path), facts_of) if data is not None else None


#: What `_state` records for a module too large to analyse, and one that cannot be read.
TOO_LARGE = "too large"
UNREADABLE = "unreadable"


def _state(path: Path) -> tuple[str, bytes | None]:
    """A module's state as a cache entry records it (its content's SHA-256, `TOO_LARGE` or
    `UNREADABLE`), and its bytes when they are analysed."""
    try:
        if path.stat().st_size > MAX_MODULE_BYTES:
            return TOO_LARGE, None
        data = path.read_bytes()
    except OSError:
        return UNREADABLE, None
    return _sha256(data), data


#: Facts by module content, at most `_KEPT` of them (a language server lives long).
_FACTS: dict[str, ModuleFacts] = {}
_KEPT = 512


def _facts(digest: str, data: bytes, filename: str, facts_of: Callable[[bytes, str], ModuleFacts]) -> ModuleFacts:
    """A module's facts, analysed once per content in a process (a run imports the same
    helpers from many files)."""
    known = _FACTS.get(digest)
    if known is None:
        if len(_FACTS) >= _KEPT:
            _FACTS.pop(next(iter(_FACTS)))  # the oldest
        known = _FACTS[digest] = facts_of(data, filename)
    return known


def _sha256(data: bytes) -> str:
    import hashlib  # on the first project module only: most runs never need it

    return hashlib.sha256(data).hexdigest()
