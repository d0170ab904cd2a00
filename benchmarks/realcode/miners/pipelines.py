"""Candidate miners for the pipelines family (GPU401-GPU404), stdlib `ast` only.

Each miner finds, syntactically and generously, the places where a rule's idiom may be:
it knows no types, so it over-reports on purpose, and the candidates are then labelled by
hand (`benchmarks/realcode/labels/pipelines.csv`). A miner takes a parsed module and
yields `(line, note)` pairs, the line being where the rule would report.

GPU401 and GPU402 follow data from statement to statement, and in a notebook that chain
usually spans cells (the transformer fitted in one, the estimator in the next), so their
candidates come from `mine_joined`, which hands them each notebook's code cells as one
program; GPU403 and GPU404 look at one call or one loop and run per cell with the shared
driver (`python -m benchmarks.realcode.miners pipelines --rules GPU403,GPU404`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from benchmarks.realcode.miners import Candidate, mask_ipython, notebook_cells, parse
from benchmarks.realcode.miners.dataframe import call_name

#: Classes and functions that take `n_jobs` in scikit-learn's API (every one, whether or not
#: it parallelises its default configuration: deciding that is the labeller's job).
N_JOBS_CALLABLES = frozenset(
    {
        "BaggingClassifier",
        "BaggingRegressor",
        "CalibratedClassifierCV",
        "ColumnTransformer",
        "DBSCAN",
        "DictionaryLearning",
        "ElasticNetCV",
        "ExtraTreesClassifier",
        "ExtraTreesRegressor",
        "FeatureUnion",
        "GaussianProcessClassifier",
        "GraphicalLassoCV",
        "GridSearchCV",
        "HDBSCAN",
        "HalvingGridSearchCV",
        "HalvingRandomSearchCV",
        "IsolationForest",
        "Isomap",
        "KNeighborsClassifier",
        "KNeighborsRegressor",
        "KNeighborsTransformer",
        "KernelPCA",
        "LabelPropagation",
        "LabelSpreading",
        "LarsCV",
        "LassoCV",
        "LassoLarsCV",
        "LatentDirichletAllocation",
        "LinearRegression",
        "LocalOutlierFactor",
        "LocallyLinearEmbedding",
        "LogisticRegression",
        "LogisticRegressionCV",
        "MDS",
        "MeanShift",
        "MiniBatchDictionaryLearning",
        "MiniBatchSparsePCA",
        "MultiOutputClassifier",
        "MultiOutputRegressor",
        "MultiTaskElasticNetCV",
        "MultiTaskLassoCV",
        "NearestNeighbors",
        "Nystroem",
        "OPTICS",
        "OneVsOneClassifier",
        "OneVsRestClassifier",
        "OrthogonalMatchingPursuitCV",
        "OutputCodeClassifier",
        "PassiveAggressiveClassifier",
        "Perceptron",
        "RFECV",
        "RadiusNeighborsClassifier",
        "RadiusNeighborsRegressor",
        "RadiusNeighborsTransformer",
        "RandomForestClassifier",
        "RandomForestRegressor",
        "RandomTreesEmbedding",
        "RandomizedSearchCV",
        "SGDClassifier",
        "SequentialFeatureSelector",
        "SparseCoder",
        "SparsePCA",
        "SpectralClustering",
        "SpectralEmbedding",
        "StackingClassifier",
        "StackingRegressor",
        "TSNE",
        "TheilSenRegressor",
        "TunedThresholdClassifierCV",
        "VotingClassifier",
        "VotingRegressor",
        # functions
        "compute_optics_graph",
        "cross_val_predict",
        "cross_val_score",
        "cross_validate",
        "dbscan",
        "estimate_bandwidth",
        "kneighbors_graph",
        "learning_curve",
        "locally_linear_embedding",
        "mean_shift",
        "mutual_info_classif",
        "mutual_info_regression",
        "pairwise_distances",
        "pairwise_distances_chunked",
        "pairwise_kernels",
        "permutation_importance",
        "permutation_test_score",
        "radius_neighbors_graph",
        "smacof",
        "validation_curve",
    }
)

#: Calls that split or cross-validate the data they are given.
SPLITTERS = frozenset(
    {
        "train_test_split",
        "cross_val_score",
        "cross_validate",
        "cross_val_predict",
        "learning_curve",
        "validation_curve",
        "permutation_test_score",
    }
)
SEARCHES = frozenset(
    {
        "GridSearchCV",
        "RandomizedSearchCV",
        "HalvingGridSearchCV",
        "HalvingRandomSearchCV",
    }
)
PREDICTS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "score"})


def names_in(node: ast.AST | None) -> set[str]:
    """Every plain name read in `node`."""
    if node is None:
        return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def target_names(target: ast.AST) -> set[str]:
    """Names an assignment target binds or writes into (`x`, `a, b`, `x[:, k]`, `x.col`)."""
    while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        target = target.value
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(target_names(t) for t in target.elts)) if target.elts else set()
    return set()


def receiver(call: ast.Call) -> str:
    """`t` in `t.method(...)`, else ""."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id
    return ""


def scopes(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    """Each scope's statements in source order, nested blocks (if/for/with/try) flattened:
    the module's and every function's. Statements of nested functions belong to those."""
    yield list(_flat(tree.body))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield list(_flat(node.body))


def _flat(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield statement
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _flat(inner)
        for handler in getattr(statement, "handlers", []):
            yield from _flat(handler.body)
        for case in getattr(statement, "cases", []):
            yield from _flat(case.body)


def calls(node: ast.AST) -> Iterator[ast.Call]:
    """Calls in `node`, not descending into nested functions or classes."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Call):
            yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def _head(statement: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that run when it does (not its nested block)."""
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        return [statement.target, statement.iter]
    if isinstance(statement, (ast.If, ast.While)):
        return [statement.test]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return list(statement.items)
    if isinstance(statement, ast.Try) or hasattr(statement, "cases"):
        return []
    return [statement]


# -- GPU401: transformer fitted and applied by hand before an estimator ----------------------


def mine_manual_pipeline(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """In one scope: `t.fit_transform(...)` (or `t.fit(...)`) then `t.transform(...)`, and
    later some other object's `.fit(...)` and `.predict`/`.score`-like call."""
    for statements in scopes(tree):
        events = [(call, s) for s in statements for part in _head(s) for call in calls(part)]
        events.sort(key=lambda e: (e[0].lineno, e[0].col_offset))
        reported: set[int] = set()
        for index, (call, _) in enumerate(events):
            name = receiver(call)
            if not name or call_name(call) not in ("fit_transform", "fit"):
                continue
            later = [c for c, _ in events[index + 1 :]]
            if not any(receiver(c) == name and call_name(c) == "transform" for c in later):
                continue
            fitted = [c for c in later if call_name(c) == "fit" and receiver(c) != name]
            if not fitted:
                continue
            models = {receiver(c) or ast.unparse(c.func.value) for c in fitted if isinstance(c.func, ast.Attribute)}
            if not any(call_name(c) in PREDICTS and (receiver(c) in models or not receiver(c)) for c in later):
                continue
            if call.lineno not in reported:
                reported.add(call.lineno)
                yield call.lineno, f"{name}.{call_name(call)} then {name}.transform, then fit/predict"


# -- GPU402: transformer fitted on all the data before it is split ---------------------------


def _fit_source(value: ast.AST, fitted: set[str]) -> ast.Call | None:
    """The fitting call that makes `value` a transformer's output: `.fit_transform(...)`,
    `.fit(...).transform(...)`, or `t.transform(...)` of a `t` fitted earlier."""
    for call in calls(value):
        name = call_name(call)
        if name == "fit_transform":
            return call
        if name == "transform" and isinstance(call.func, ast.Attribute):
            inner = call.func.value
            if isinstance(inner, ast.Call) and call_name(inner) == "fit":
                return inner
            if receiver(call) in fitted:
                return call
    return None


def mine_fit_before_split(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """A fitted transformer's output flows (through assignments, write-backs, `.astype`,
    slices, stacking...) into a split, a cross-validation helper or a search's `fit`."""
    for statements in scopes(tree):
        fitted_at: dict[str, int] = {}  # transformer name -> line of its .fit(...)
        tainted: dict[str, int] = {}  # data name -> line of the fit it carries
        searches: set[str] = set()
        reported: set[int] = set()
        for statement in statements:
            for part in _head(statement):
                for call in sorted(calls(part), key=lambda c: (c.lineno, c.col_offset)):
                    name = call_name(call)
                    args = [*call.args, *(k.value for k in call.keywords)]
                    sink = name in SPLITTERS or (name == "fit" and receiver(call) in searches)
                    if sink:
                        for argument in args:
                            for read in names_in(argument) & tainted.keys():
                                line = tainted[read]
                                if line not in reported:
                                    reported.add(line)
                                    yield line, f"{read} (fitted at {line}) reaches {name} at {call.lineno}"
                    if name == "fit" and receiver(call):
                        fitted_at[receiver(call)] = call.lineno
                if isinstance(part, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and part.value is not None:
                    targets = part.targets if isinstance(part, ast.Assign) else [part.target]
                    bound = set().union(*(target_names(t) for t in targets))
                    source = _fit_source(part.value, set(fitted_at))
                    if isinstance(part.value, ast.Call) and call_name(part.value) in SEARCHES:
                        searches |= bound
                    if isinstance(part.value, ast.Call) and call_name(part.value) == "fit":
                        for name in bound:  # `t = Scaler().fit(X)`
                            fitted_at[name] = part.value.lineno
                    if source is not None:
                        line = source.lineno if call_name(source) != "transform" else fitted_at[receiver(source)]
                        for name in bound:
                            tainted[name] = line
                    else:
                        carried = names_in(part.value) & tainted.keys()
                        for name in bound:
                            if carried:
                                tainted[name] = tainted[min(carried)]
                            elif isinstance(part, ast.Assign) and all(isinstance(t, ast.Name) for t in targets):
                                tainted.pop(name, None)


# -- GPU403: parallelisable estimator or helper without n_jobs -------------------------------


def mine_estimator_without_n_jobs(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """A call of anything in scikit-learn's API that takes `n_jobs`, without `n_jobs=` or
    `**options`."""
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or call_name(call) not in N_JOBS_CALLABLES:
            continue
        if any(k.arg in (None, "n_jobs") for k in call.keywords):
            continue
        yield call.lineno, f"{call_name(call)} without n_jobs"


# -- GPU404: hyper-parameter loop ------------------------------------------------------------

_METRIC_SUFFIXES = ("_score", "_error", "_loss")
_METRIC_CALLS = frozenset({"score", "cross_val_score", "cross_validate", "accuracy", "r2", "f1"})


def _loop_parts(node: ast.AST) -> tuple[set[str], list[ast.AST]] | None:
    """(loop variable names, body nodes) of a `for` loop or a comprehension."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return target_names(node.target), list(node.body)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        variables = set().union(*(target_names(g.target) for g in node.generators))
        body = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return variables, body + [c for g in node.generators for c in g.ifs]
    return None


def mine_manual_hyperparameter_loop(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """A loop (or comprehension) whose body builds something from the loop variable (a
    capitalised constructor, `set_params`, `**params`), fits, and scores or predicts."""
    for loop in ast.walk(tree):
        parts = _loop_parts(loop)
        if parts is None:
            continue
        variables, body = parts
        if not variables:
            continue
        found = [c for part in body for c in calls(part)]
        # names assigned in the body from the loop variable also count (`c = 10 ** k`)
        derived = set(variables)
        for part in body:
            for node in ast.walk(part):
                if isinstance(node, ast.Assign) and names_in(node.value) & derived:
                    derived |= set().union(*(target_names(t) for t in node.targets))
        built = any(
            (call_name(c)[:1].isupper() or call_name(c) == "set_params")
            and any(names_in(a) & derived for a in [*c.args, *(k.value for k in c.keywords)])
            for c in found
        )
        fits = any(call_name(c) == "fit" for c in found) or any(
            call_name(c) in ("cross_val_score", "cross_validate") for c in found
        )
        # scored with a metric, or predicted on (a score computed by hand counts too)
        scores = any(
            call_name(c) in _METRIC_CALLS or call_name(c) in PREDICTS or call_name(c).endswith(_METRIC_SUFFIXES)
            for c in found
        )
        if built and fits and scores:
            yield (
                loop.iter.lineno if isinstance(loop, (ast.For, ast.AsyncFor)) else loop.generators[0].iter.lineno,
                "loop variable builds an estimator that is fitted and scored",
            )


MINERS: dict[str, Callable[[ast.Module], Iterable[tuple[int, str]]]] = {
    "GPU401": mine_manual_pipeline,
    "GPU402": mine_fit_before_split,
    "GPU403": mine_estimator_without_n_jobs,
    "GPU404": mine_manual_hyperparameter_loop,
}


#: The miners whose idiom spans statements, run over whole notebooks.
JOINED = ("GPU401", "GPU402")


def joined_notebook(data: bytes) -> tuple[ast.Module, list[tuple[int, int]]] | None:
    """A notebook's code cells as one module, and for each of its lines the (cell, line in
    the cell) it came from. A cell that does not parse is left out (its lines kept blank);
    None when the file is not a notebook."""
    try:
        cells = notebook_cells(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    lines: list[str] = []
    where: list[tuple[int, int]] = []
    for number, source in cells:
        masked = mask_ipython(source)
        cell_lines = source.split("\n")
        if masked is None or parse(masked) is None:
            masked = "\n" * (len(cell_lines) - 1)
        for index, text in enumerate(masked.split("\n"), 1):
            lines.append(text)
            where.append((number, index))
    tree = parse("\n".join(lines))
    return (tree, where) if tree is not None else None


def mine_joined(
    corpus: Path | str, miners: Mapping[str, Callable[[ast.Module], Iterable[tuple[int, str]]]]
) -> list[Candidate]:
    """Like the shared driver's `mine`, but each notebook is one module (see the module
    docstring); .py files are mined whole as there."""
    found: set[Candidate] = set()
    for repo_dir in sorted(p for p in Path(corpus).iterdir() if p.is_dir()):
        repo = repo_dir.name.replace("+", "/", 1)
        for file in sorted(repo_dir.rglob("*")):
            if not file.is_file() or file.suffix not in (".py", ".ipynb"):
                continue
            data = file.read_bytes()
            if file.suffix == ".py":
                text = data.decode("utf-8", "replace")
                tree, where = parse(text), None
            else:
                joined = joined_notebook(data)
                if joined is None:
                    continue
                (tree, where), text = joined, ""
                cells = dict(notebook_cells(data))
            if tree is None:
                continue
            for code, miner in miners.items():
                for line, note in miner(tree):
                    cell, local = (None, line) if where is None else where[line - 1]
                    source = text if cell is None else cells[cell]
                    source_lines = source.split("\n")
                    snippet = source_lines[local - 1].strip()[:100] if local <= len(source_lines) else ""
                    found.add(Candidate(repo, file.relative_to(repo_dir).as_posix(), cell, local, code, note, snippet))
    return sorted(found, key=lambda c: (c.code, c.repo, c.path, c.cell or 0, c.line, c.note))
