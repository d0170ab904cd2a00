"""The GPU-readiness tables: what they claim about cuDF and cuML (checked on the shipped data,
against facts read by hand from the sources they record), the loader's lookups, and the
extractor run end to end on small cuDF- and cuML-shaped source trees."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from benchmarks import readiness_tables as extractor
from gpulint import readiness_tables as tables
from gpulint.docs import marked_block
from gpulint.readiness_tables import NOT_LITERAL, Condition, Predicate

ROOT = Path(__file__).resolve().parents[1]


def _verdicts(found: list[tuple[Condition, bool | None]]) -> dict[str, bool | None]:
    return {condition.text: verdict for condition, verdict in found}


# -- provenance ----------------------------------------------------------------------------------


def test_provenance_names_version_commit_date_and_command():
    found = tables.provenance()
    assert set(found) == {"cudf", "cuml", "nx-cugraph"}
    for item in found.values():
        assert re.fullmatch(r"\d+\.\d+\.\d+", item.version or ""), item
        assert re.fullmatch(r"[0-9a-f]{40}", item.commit or ""), item
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT.*", item.commit_date or ""), item
        assert item.source == f"https://github.com/rapidsai/{item.library}"
    assert found["cudf"].command.startswith("python -m benchmarks.readiness_tables --cudf ")
    assert found["nx-cugraph"].command.startswith("python -m benchmarks.readiness_tables_nx --nx-cugraph ")


def test_docs_page_shows_the_tables_provenance():
    page = (ROOT / "docs" / "readiness.md").read_text(encoding="utf-8")
    shown = marked_block(page, tables.PROVENANCE_MARKER).strip()
    assert shown == tables.provenance_markdown().strip(), (
        "docs/readiness.md is stale: run the command in its provenance block"
    )
    for item in tables.provenance().values():
        assert item.commit in shown


def test_tables_ship_as_package_data():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["gpulint"]
    assert f"{tables.DATA_FOLDER}/*.json" in patterns
    shipped = sorted(p.name for p in (ROOT / "linter" / tables.DATA_FOLDER).iterdir())
    assert shipped == sorted([tables.CUDF_TABLE, tables.CUML_TABLE, tables.NX_TABLE])


# -- cuDF ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pandas_class, method",
    [
        ("DataFrame", "merge"),
        ("DataFrame", "groupby"),
        ("DataFrame", "sort_values"),
        ("Series", "str"),
        ("StringMethods", "contains"),
        ("DatetimeProperties", "year"),
        ("DataFrameGroupBy", "agg"),
        ("SeriesGroupBy", "sum"),
        ("Index", "unique"),
        ("Rolling", "mean"),
    ],
)
def test_common_methods_are_implemented(pandas_class, method):
    found = tables.cudf_method(pandas_class, method)
    assert found is not None and found.implemented, (pandas_class, method)
    assert found.path.startswith("python/cudf/cudf/core/") and found.line > 0


def test_members_inherited_from_a_base_class_say_where_they_are_defined():
    sort_values = tables.cudf_method("DataFrame", "sort_values")
    assert sort_values.defined_in == "cudf.core.indexed_frame.IndexedFrame"
    assert "by" in {p.name for p in sort_values.parameters}
    # a reduction the operation mixin adds from `_VALID_REDUCTIONS`
    assert tables.cudf_method("DataFrameGroupBy", "median").kind in ("method", "operation")


def test_methods_cudf_lacks_are_absent():
    for pandas_class, method in [
        ("DataFrame", "to_clipboard"),
        ("DataFrame", "style"),
        ("Series", "plot"),
        ("DataFrame", "not_a_method"),
    ]:
        assert tables.cudf_method(pandas_class, method) is None, method
        assert method not in tables.cudf_members(pandas_class)


def test_methods_that_refuse_every_call_are_not_implemented():
    # DataFrame.iterrows raises TypeError before doing anything: cudf.pandas runs pandas
    iterrows = tables.cudf_method("DataFrame", "iterrows")
    assert iterrows is not None and not iterrows.implemented and iterrows.refused_by == "TypeError"
    # Series.items is an alias of the non-iterable frame's __iter__
    items = tables.cudf_method("Series", "items")
    assert items is not None and not items.implemented


def test_pivot_table_margins_falls_back_on_the_function_and_the_method():
    for found in (tables.cudf_function("pivot_table"), tables.cudf_method("DataFrame", "pivot_table")):
        assert found is not None
        assert _verdicts(found.fallbacks_for(keywords={"margins": True})).get("margins is not False") is True
        assert "margins is not False" not in _verdicts(found.fallbacks_for(keywords={"margins": False}))
        assert found.fallbacks_for() == []  # every default is supported
        [margins] = [c for c in found.fallbacks if c.params == ("margins",)]
        assert margins.path == "python/cudf/cudf/core/reshape.py"
    assert tables.cudf_method("DataFrame", "pivot_table").fallbacks[0].path.endswith("reshape.py")


def test_dataframe_apply_compiles_row_functions_and_refuses_raw_and_columns():
    apply = tables.cudf_method("DataFrame", "apply")
    assert apply.compiles_udf
    # what the call leaves out takes cuDF's defaults (axis=1, raw=False, result_type=None, ...)
    assert apply.fallbacks_for(positional=(NOT_LITERAL,)) == []
    assert _verdicts(apply.fallbacks_for(keywords={"axis": 1, "raw": NOT_LITERAL})) == {"raw": None}
    assert _verdicts(apply.fallbacks_for(keywords={"axis": 0}))["axis != 1"] is True
    assert _verdicts(apply.fallbacks_for(keywords={"axis": 1, "raw": True}))["raw"] is True
    assert (
        _verdicts(apply.fallbacks_for(keywords={"axis": 1, "result_type": "expand"}))["result_type is not None"] is True
    )
    # positional arguments bind by cuDF's parameter order (func, axis, raw, ...)
    assert _verdicts(apply.fallbacks_for(positional=(NOT_LITERAL, 1, True)))["raw"] is True
    assert tables.cudf_method("Series", "apply").compiles_udf
    assert not tables.cudf_method("DataFrame", "merge").compiles_udf


def test_module_functions_are_listed():
    for name in ("merge", "concat", "pivot_table", "get_dummies", "to_datetime", "read_csv", "read_parquet"):
        found = tables.cudf_function(name)
        assert found is not None and found.kind == "function", name
    assert tables.cudf_function("DataFrame") is None  # a class, not a function
    assert tables.cudf_function("read_clipboard") is None


def test_accepts_reads_cudfs_signature():
    merge = tables.cudf_method("DataFrame", "merge")
    assert merge.accepts("on") and merge.accepts("how")
    assert not merge.accepts("not_a_parameter") or any(p.kind == "var_keyword" for p in merge.parameters)


# -- cuML ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cpu_class",
    [
        "sklearn.ensemble.RandomForestClassifier",
        "sklearn.linear_model.LogisticRegression",
        "sklearn.cluster.KMeans",
        "umap.UMAP",
        "hdbscan.HDBSCAN",
    ],
)
def test_estimators_are_accelerated(cpu_class):
    found = tables.cuml_estimator(cpu_class)
    assert found is not None and found.cuml_class.startswith("cuml.")
    assert found.runs_on_gpu("fit") and found.documented_at is not None
    assert cpu_class in tables.cuml_estimators()


def test_random_forest_criterion_and_warm_start_fall_back():
    forest = tables.cuml_estimator("sklearn.ensemble.RandomForestClassifier")
    criterion = "(split_criterion := _criterion_to_split_criterion.get(model.criterion)) is None"
    assert _verdicts(forest.hyperparameter_fallbacks({"criterion": "log_loss"}))[criterion] is True
    assert criterion not in _verdicts(forest.hyperparameter_fallbacks({"criterion": "gini"}))
    assert _verdicts(forest.hyperparameter_fallbacks({"warm_start": True}))["model.warm_start"] is True
    assert "model.warm_start" not in _verdicts(forest.hyperparameter_fallbacks({"warm_start": False}))
    assert (
        _verdicts(forest.hyperparameter_fallbacks({"max_samples": 100}))["isinstance(model.max_samples, int)"] is True
    )
    assert "isinstance(model.max_samples, int)" not in _verdicts(forest.hyperparameter_fallbacks({"max_samples": 0.5}))
    # a value that is not a literal decides nothing
    assert _verdicts(forest.hyperparameter_fallbacks({"criterion": NOT_LITERAL}))[criterion] is None
    for condition in forest.fallbacks:
        assert condition.path.startswith("python/cuml/cuml/") and condition.line > 0
    # multi-output targets are checked by the accelerator's fit
    assert any("y.shape[1] > 1" in (c.text or "") for c, _ in forest.method_fallbacks("fit"))
    assert not forest.sparse_on_gpu


def test_logistic_regression_kmeans_umap_fallbacks():
    logistic = tables.cuml_estimator("sklearn.linear_model.LogisticRegression")
    assert _verdicts(logistic.hyperparameter_fallbacks({"warm_start": True}))["model.warm_start"] is True
    assert (
        _verdicts(logistic.hyperparameter_fallbacks({"intercept_scaling": 2}))["model.intercept_scaling != 1"] is True
    )
    kmeans = tables.cuml_estimator("sklearn.cluster.KMeans")
    assert _verdicts(kmeans.hyperparameter_fallbacks({"init": len}))["callable(model.init)"] is True
    assert _verdicts(kmeans.hyperparameter_fallbacks({"init": "k-means++"})).get("callable(model.init)") is None
    umap = tables.cuml_estimator("umap.UMAP")
    assert _verdicts(umap.hyperparameter_fallbacks({"densmap": True}))["model.densmap"] is True
    assert umap.sparse_on_gpu


def test_unknown_names_are_none():
    assert tables.cudf_method("NoSuchClass", "merge") is None
    assert tables.cudf_members("NoSuchClass") == frozenset()
    assert tables.cudf_function("no_such_function") is None
    assert tables.cuml_estimator("sklearn.ensemble.GradientBoostingClassifier") is None
    assert tables.cuml_estimator("RandomForestClassifier") is None  # import paths only


# -- predicates ----------------------------------------------------------------------------------


def test_predicates_use_three_valued_logic():
    leaf = {"param": "a", "source": "argument", "op": "truthy"}
    both = Predicate.from_json({"all": [leaf, {"param": "b", "source": "argument", "op": "==", "value": 1}]})
    assert both.holds({"a": True, "b": 1}, {}) is True
    assert both.holds({"a": False}, {}) is False  # decided without b
    assert both.holds({"a": True}, {}) is None
    either = Predicate.from_json({"any": [leaf, {"not": leaf}]})
    assert either.holds({}, {}) is None and either.holds({"a": 0}, {}) is True
    identity = Predicate.from_json({"param": "a", "source": "argument", "op": "is not", "value": False})
    assert identity.holds({"a": 0}, {}) is True and identity.holds({"a": False}, {}) is False
    hyper = Predicate.from_json({"param": "a", "source": "hyperparameter", "op": "in", "value": ["x", "y"]})
    assert hyper.holds({"a": "x"}, {}) is None and hyper.holds({}, {"a": "x"}) is True
    assert hyper.holds({}, {"a": NOT_LITERAL}) is None
    order = Predicate.from_json({"param": "a", "source": "argument", "op": "<", "value": 2})
    assert order.holds({"a": "text"}, {}) is None  # a comparison Python refuses is undecided
    assert Condition("x", ("x",), "f.py", 1, None).holds({"x": 1}) is None


# -- the extractor on small source trees ---------------------------------------------------------

CUDF_FILES = {
    "VERSION": "1.2.3\n",
    "python/cudf/cudf/__init__.py": (
        "from cudf.core.dataframe import DataFrame, interpolate, merge\n"
        "from cudf.core.reshape import pivot_table\n"
        "__all__ = ['DataFrame', 'merge', 'pivot_table', 'interpolate']\n"
    ),
    "python/cudf/cudf/core/__init__.py": "",
    "python/cudf/cudf/core/mixins.py": ("class NotIterable:\n    def __iter__(self):\n        raise TypeError('no')\n"),
    "python/cudf/cudf/core/frame.py": (
        "from typing import overload\n"
        "from cudf.core.mixins import NotIterable\n"
        "class Frame(NotIterable):\n"
        "    _VALID_REDUCTIONS = {'sum', 'max'}\n"
        "    def head(self, n=5):\n"
        "        return self\n"
        "    @overload\n"
        "    def tail(self, n: int) -> Frame: ...\n"
        "    def tail(self, n=5):\n"
        "        if n < 0:\n"
        "            raise NotImplementedError('negative')\n"
        "        return self\n"
        "    def max(self, skipna=True):\n"
        "        if not skipna:\n"
        "            raise NotImplementedError('skipna')\n"
        "        return self\n"
        "    def fillna(self, value=None, method=None, **kwargs):\n"
        "        if method is not None:\n"
        "            raise NotImplementedError('method')\n"
        "        if kwargs:\n"
        "            raise NotImplementedError('kwargs')\n"
        "        return self\n"
    ),
    "python/cudf/cudf/core/reshape.py": (
        "def pivot_table(data, values=None, margins=False, sort=True):\n"
        "    '''Pivot.'''\n"
        "    if margins is not False:\n"
        "        raise NotImplementedError('margins')\n"
        "    return data\n"
    ),
    "python/cudf/cudf/core/udf.py": "class RowKernel:\n    pass\n",
    "python/cudf/cudf/core/dataframe.py": (
        "from cudf.core import reshape\n"
        "from cudf.core.frame import Frame\n"
        "from cudf.core.udf import RowKernel\n"
        "class DataFrame(Frame):\n"
        "    def apply(self, func, axis=1, raw=False):\n"
        "        if axis != 1:\n"
        "            raise NotImplementedError('rows only')\n"
        "        elif raw:\n"
        "            raise NotImplementedError('raw')\n"
        "        return self._apply(func, RowKernel)\n"
        "    def _apply(self, func, kernel):\n"
        "        return kernel\n"
        "    def pivot_table(self, values=None, margins=False):\n"
        "        return reshape.pivot_table(self, values=values, margins=margins)\n"
        "    def fillna(self, value=None, **kwargs):\n"
        "        return super().fillna(value=value, **kwargs)\n"
        "    def iterrows(self):\n"
        "        '''Not on the GPU.'''\n"
        "        raise TypeError('iterate on the host')\n"
        "    def interpolate(self, method='linear'):\n"
        "        if method == 'linear':\n"
        "            return self\n"
        "        raise NotImplementedError(method)\n"
        "    items = Frame.__iter__\n"
        "    def query(self, expr, local_dict=None, **kwargs):\n"
        "        if kwargs:\n"
        "            raise ValueError('keywords')\n"
        "        if local_dict is None:\n"
        "            raise ValueError('a user error, not a keyword cuDF lacks')\n"
        "        return self\n"
        "    def to_json(self, path_or_buf=None, *args, **kwargs):\n"
        "        return cudf.io.json.to_json(self, path_or_buf=path_or_buf, *args, **kwargs)\n"
        "def merge(left, right, how='inner'):\n"
        "    return left\n"
        "def interpolate(obj, *args, **kwargs):\n"
        "    if isinstance(obj, list):\n"
        "        obj = DataFrame(obj)\n"
        "    return obj.interpolate(*args, **kwargs)\n"
    ),
    "python/cudf/cudf/io/__init__.py": "",
    "python/cudf/cudf/io/json.py": (
        "import pandas as pd\n"
        "def to_json(cudf_val, path_or_buf=None, engine='auto', orient=None, **kwargs):\n"
        "    if engine == 'auto':\n"
        "        engine = 'pandas'\n"
        "    if engine == 'cudf':\n"
        "        return None\n"
        "    elif engine == 'pandas':\n"
        "        pd_value = pd.DataFrame(cudf_val)\n"
        "        return pd_value.to_json(path_or_buf, orient=orient, **kwargs)\n"
    ),
    "python/cudf/cudf/core/_internals/__init__.py": "",
    "python/cudf/cudf/core/_internals/aggregation.py": (
        "class Aggregation:\n"
        "    @classmethod\n"
        "    def sum(cls):\n"
        "        return cls()\n"
        "    @classmethod\n"
        "    def quantile(cls, q=0.5):\n"
        "        return cls()\n"
        "    def kind(self):\n"
        "        return 'x'\n"
        "def make_aggregation(op, kwargs=None):\n"
        "    if isinstance(op, str):\n"
        "        return getattr(Aggregation, op)(**(kwargs or {}))\n"
        "    elif callable(op):\n"
        "        return op(Aggregation)\n"
        "    raise TypeError(op)\n"
    ),
}

CUML_FILES = {
    "VERSION": "4.5.6\n",
    "python/cuml/cuml/__init__.py": "",
    "python/cuml/cuml/accel/__init__.py": "",
    "python/cuml/cuml/accel/estimator_proxy.py": "class ProxyBase:\n    pass\n",
    "python/cuml/cuml/accel/_overrides/__init__.py": "",
    "python/cuml/cuml/accel/_overrides/sklearn/__init__.py": "",
    "python/cuml/cuml/accel/_overrides/sklearn/ensemble.py": (
        "import cuml.ensemble\n"
        "from cuml.accel.estimator_proxy import ProxyBase\n"
        "__all__ = ('RandomForestClassifier',)\n"
        "class RandomForestClassifier(ProxyBase):\n"
        "    _gpu_class = cuml.ensemble.RandomForestClassifier\n"
        "    _not_implemented_attributes = frozenset(('oob_score_',))\n"
        "    def _gpu_fit(self, X, y, sample_weight=None):\n"
        "        _check(y)\n"
        "        return self._gpu.fit(X, y)\n"
        "    def _gpu_predict(self, X, mode='fast'):\n"
        "        if mode != 'fast':\n"
        "            raise UnsupportedOnGPU('mode')\n"
        "        return self._gpu.predict(X)\n"
        "def _check(y):\n"
        "    if len(y.shape) > 1:\n"
        "        raise UnsupportedOnGPU('multi-output')\n"
    ),
    "python/cuml/cuml/ensemble/__init__.py": "from cuml.ensemble.forest import RandomForestClassifier\n",
    "python/cuml/cuml/ensemble/forest.pyx": (
        "# cython: language_level=3\n"
        "cimport numpy as np\n"
        "from cuml.internals.base import Base\n"
        "cdef extern from 'forest.h':\n"
        "    int train(int n)\n"
        "_criteria = {\n"
        "    'gini': CRITERION.GINI,\n"
        "    'entropy': CRITERION.ENTROPY,\n"
        "}\n"
        "class _ForestBase(Base):\n"
        "    @classmethod\n"
        "    def _params_from_cpu(cls, model):\n"
        "        if model.warm_start:\n"
        "            raise UnsupportedOnGPU('warm_start')\n"
        "        if (c := _criteria.get(model.criterion)) is None:\n"
        "            raise UnsupportedOnGPU('criterion')\n"
        "        return {'criterion': c}\n"
        "class RandomForestClassifier(_ForestBase,\n"
        "                             Base):\n"
        "    '''A forest.'''\n"
        "    _cpu_class_path = 'sklearn.ensemble.RandomForestClassifier'\n"
        "    @classmethod\n"
        "    def _params_from_cpu(cls, model):\n"
        "        if model.class_weight == 'balanced_subsample':\n"
        "            raise UnsupportedOnGPU('class_weight')\n"
        "        return super()._params_from_cpu(model)\n"
        "    def fit(self, X, y):\n"
        "        cdef int n = 0\n"
        "        return self\n"
        "    def predict(self, X):\n"
        "        return X\n"
    ),
    "python/cuml/cuml/internals/__init__.py": "",
    "python/cuml/cuml/internals/base.py": (
        "class Base:\n"
        "    def get_params(self):\n"
        "        return {}\n"
        "    def __sklearn_tags__(self):\n"
        "        tags.X_types_gpu = ['2darray']\n"
    ),
    "docs/source/cuml-accel/compatibility.rst": (
        "sklearn.ensemble\n"
        "~~~~~~~~~~~~~~~~\n"
        "\n"
        ".. dropdown:: ``RandomForestClassifier``\n"
        "   :name: rfc\n"
        "\n"
        "   ``RandomForestClassifier`` will fall back to CPU in the following cases:\n"
        "\n"
        '   - If ``criterion`` is ``"log_loss"``.\n'
        "   - If ``warm_start=True``.\n"
    ),
}


def _tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _git(*args: str, cwd: Path) -> None:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(cwd),
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, int]:
    """Tables generated from a bare git repository of a cuDF-shaped tree (as a fetched mirror
    is) and a plain folder of a cuML-shaped one, with the docs page's block rewritten."""
    work = tmp_path_factory.mktemp("readiness")
    cudf = _tree(work / "cudf", CUDF_FILES)
    cuml = _tree(work / "cuml", CUML_FILES)
    cudf_source = str(cudf)
    if shutil.which("git"):
        _git("init", "-q", cwd=cudf)
        _git("add", ".", cwd=cudf)
        _git("commit", "-q", "-m", "cudf", cwd=cudf)
        _git("clone", "-q", "--bare", str(cudf), str(work / "cudf.git"), cwd=work)
        cudf_source = str(work / "cudf.git")
    page = work / "readiness.md"
    page.write_text(
        "# Tables\n\n<!-- readiness-provenance:start -->\nold\n<!-- readiness-provenance:end -->\n", encoding="utf-8"
    )
    output = work / "out"
    code = extractor.main(["--cudf", cudf_source, "--cuml", str(cuml), "--output", str(output), "--docs", str(page)])
    return output, code


def test_extractor_writes_both_tables_with_provenance(generated):
    output, code = generated
    assert code == 0
    found = tables.provenance(str(output))
    assert found["cudf"].version == "1.2.3" and found["cuml"].version == "4.5.6"
    if shutil.which("git"):
        assert re.fullmatch(r"[0-9a-f]{40}", found["cudf"].commit)
    assert found["cuml"].commit is None  # a plain folder has no commit
    page = (output.parent / "readiness.md").read_text(encoding="utf-8")
    assert marked_block(page, tables.PROVENANCE_MARKER).strip() == tables.provenance_markdown(output).strip()


def test_extractor_reads_cudf_classes_functions_and_conditions(generated):
    output, _ = generated
    folder = str(output)
    assert tables.cudf_classes(folder) == {"DataFrame"}
    members = tables.cudf_members("DataFrame", folder)
    assert {"apply", "pivot_table", "fillna", "head", "iterrows", "sum", "max", "items"} <= members
    assert "_apply" not in members
    head = tables.cudf_method("DataFrame", "head", folder)
    assert head.defined_in == "cudf.core.frame.Frame" and head.implemented
    # the definition that runs, not its `typing.overload` signature
    assert [c.text for c in tables.cudf_method("DataFrame", "tail", folder).fallbacks] == ["n < 0"]
    # a `def` wins over the operation set of its class, whatever their order
    assert tables.cudf_method("DataFrame", "sum", folder).kind == "operation"
    maximum = tables.cudf_method("DataFrame", "max", folder)
    assert maximum.kind == "method" and [c.text for c in maximum.fallbacks] == ["not skipna"]
    apply = tables.cudf_method("DataFrame", "apply", folder)
    assert apply.compiles_udf and [c.text for c in apply.fallbacks] == ["axis != 1", "axis == 1 and raw"]
    assert _verdicts(apply.fallbacks_for(keywords={"axis": 1, "raw": True}))["axis == 1 and raw"] is True
    assert not apply.fallbacks_for(keywords={"axis": 1, "raw": False})
    pivot = tables.cudf_method("DataFrame", "pivot_table", folder)
    assert [(c.text, c.path) for c in pivot.fallbacks] == [("margins is not False", "python/cudf/cudf/core/reshape.py")]
    fillna = tables.cudf_method("DataFrame", "fillna", folder)
    assert {c.text for c in fillna.fallbacks} == {"method is not None", "kwargs"}
    # the base's conditions through `super().fillna(value=value, **kwargs)`: `method` arrives by
    # name through **kwargs; what the base's own **kwargs receives is not decidable
    assert _verdicts(fillna.fallbacks_for(keywords={"method": "ffill"})) == {"method is not None": True, "kwargs": None}
    assert "method is not None" not in _verdicts(fillna.fallbacks_for(keywords={"method": None}))
    assert not tables.cudf_method("DataFrame", "iterrows", folder).implemented
    assert not tables.cudf_method("DataFrame", "items", folder).implemented
    interpolate = tables.cudf_method("DataFrame", "interpolate", folder)
    assert [c.text for c in interpolate.fallbacks] == ["method != 'linear'"]
    assert tables.cudf_function("pivot_table", folder).fallbacks[0].line == 4
    assert tables.cudf_function("merge", folder).kind == "function"
    # a function returning its first argument's method call falls back where that method does,
    # a parameter it passes on through **kwargs taking the method's default
    function = tables.cudf_function("interpolate", folder)
    assert [c.text for c in function.fallbacks] == ["method != 'linear'"]
    assert function.fallbacks_for(["frame"]) == []
    assert _verdicts(function.fallbacks_for(["frame"], {"method": "cubic"})) == {"method != 'linear'": True}
    assert _verdicts(function.fallbacks_for(["frame", "cubic"])) == {"method != 'linear'": None}
    assert tables.cudf_function("DataFrame", folder) is None


def test_extractor_reads_cuml_overrides_cython_and_docs(generated):
    output, _ = generated
    folder = str(output)
    assert tables.cuml_estimators(folder) == {"sklearn.ensemble.RandomForestClassifier"}
    forest = tables.cuml_estimator("sklearn.ensemble.RandomForestClassifier", folder)
    assert forest.cuml_class == "cuml.ensemble.forest.RandomForestClassifier"
    assert forest.path == "python/cuml/cuml/ensemble/forest.pyx" and forest.line == 18
    assert {"fit", "predict", "get_params"} <= forest.gpu_methods
    assert forest.unavailable_attributes == {"oob_score_"} and not forest.sparse_on_gpu
    hyper = {c.text: c for c in forest.fallbacks if c.kind == "hyperparameter"}
    assert set(hyper) == {
        "model.class_weight == 'balanced_subsample'",
        "model.warm_start",
        "(c := _criteria.get(model.criterion)) is None",
    }
    assert hyper["model.warm_start"].line == 14  # the raise, in the base class the override calls
    assert (
        _verdicts(forest.hyperparameter_fallbacks({"criterion": "log_loss"})).get(
            "(c := _criteria.get(model.criterion)) is None"
        )
        is True
    )
    assert "(c := _criteria.get(model.criterion)) is None" not in _verdicts(
        forest.hyperparameter_fallbacks({"criterion": "entropy"})
    )
    assert [c.text for c, _ in forest.method_fallbacks("fit")] == ["len(y.shape) > 1"]
    assert _verdicts(forest.method_fallbacks("predict", {"mode": "slow"})) == {"mode != 'fast'": True}
    assert forest.method_fallbacks("predict", {"mode": "fast"}) == []
    assert forest.documented_at == ("docs/source/cuml-accel/compatibility.rst", 4)
    data = json.loads((output / tables.CUML_TABLE).read_text(encoding="utf-8"))
    documented = data["estimators"]["sklearn.ensemble.RandomForestClassifier"]["documented"]
    assert [item["names"] for item in documented["fallbacks"]] == [["criterion", "log_loss"], ["warm_start=True"]]


def test_extractor_refuses_a_folder_that_is_not_a_checkout(tmp_path, capsys):
    code = extractor.main(["--cudf", str(tmp_path), "--cuml", str(tmp_path), "--output", str(tmp_path / "out")])
    assert code == 2
    error = capsys.readouterr().err
    assert "not a cuDF checkout" in error and "Traceback" not in error
    assert (
        extractor.main(
            ["--cudf", str(tmp_path / "missing"), "--cuml", str(tmp_path), "--output", str(tmp_path / "out")]
        )
        == 2
    )


def test_the_cpu_estimators_defaults_are_recorded_with_their_source():
    forest = tables.cuml_estimator("sklearn.ensemble.RandomForestClassifier")
    assert forest is not None and forest.cpu_defaults["criterion"] == "gini"
    assert "scikit-learn" in tables.load_table(tables.CUML_TABLE)["provenance"]["cpu_defaults_from"]


def test_cpu_defaults_are_read_from_the_installed_estimators():
    pytest.importorskip("sklearn")
    from benchmarks.readiness_tables import add_cpu_defaults

    table = {"provenance": {}, "estimators": {"sklearn.linear_model.LogisticRegression": {}, "nowhere.Missing": {}}}
    add_cpu_defaults(table)
    assert table["estimators"]["sklearn.linear_model.LogisticRegression"]["cpu_defaults"]["C"] == 1.0
    assert "cpu_defaults" not in table["estimators"]["nowhere.Missing"]
    assert set(table["provenance"]["cpu_defaults_from"]) == {"scikit-learn"}


def test_array_api_estimators_list_the_wrappers_methods_their_cpu_class_has():
    scaler = tables.cuml_estimator("sklearn.preprocessing.StandardScaler")
    assert scaler.cuml_class.endswith("._ArrayAPIWrapper")
    assert {"fit", "transform", "fit_transform", "inverse_transform", "partial_fit"} <= scaler.gpu_methods
    assert not {"predict", "score", "get_feature_names_out"} & scaler.gpu_methods  # StandardScaler has no predict
    polynomial = tables.cuml_estimator("sklearn.preprocessing.PolynomialFeatures")
    assert {"fit", "transform"} <= polynomial.gpu_methods and "inverse_transform" not in polynomial.gpu_methods


def test_the_wrappers_forwarded_methods_are_read_from_its_init_subclass():
    text = (
        "class _ArrayAPIWrapper(Base):\n"
        "    def __init_subclass__(cls, **kwargs):\n"
        "        for name in ['fit', 'transform', 'score']:\n"
        "            if hasattr(cls._internal_class, name):\n"
        "                setattr(cls, name, _make_method(name))\n"
        "        for attr in ['unrelated']:\n"
        "            print(attr)\n"
    )
    block = extractor._split_classes(text, "p.py", "m")["_ArrayAPIWrapper"]
    assert extractor._forwarded_methods(block) == ["fit", "score", "transform"]


def test_the_merge_function_falls_back_where_the_dataframe_method_does():
    merge = tables.cudf_function("merge")
    method = tables.cudf_method("DataFrame", "merge")
    assert {c.text for c in method.fallbacks} <= {c.text for c in merge.fallbacks}
    assert _verdicts(merge.fallbacks_for(["left", "right"], {"indicator": True})).get("indicator") is True
    assert merge.fallbacks_for(["left", "right"], {"on": "k"}) == []  # cuDF's defaults hold


def _line(path: str, text: str) -> int:
    """The line of the small cuDF tree's file that holds `text`."""
    lines = CUDF_FILES[f"python/cudf/cudf/{path}"].splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def test_extractor_reads_keyword_raises_pandas_paths_of_helpers_and_the_callable_aggregation(generated):
    output, _ = generated
    folder = str(output)
    query = tables.cudf_method("DataFrame", "query", folder)
    # a ValueError on the keywords cuDF has no name for; not the one on a named parameter
    assert [(c.line, c.described) for c in query.fallbacks] == [(_line("core/dataframe.py", "('keywords')"), True)]
    assert "raises ValueError" in (query.fallbacks[0].text or "")
    assert _verdicts(query.fallbacks_for(["a > 1"], {"engine": "python"})) == {query.fallbacks[0].text: True}
    assert query.fallbacks_for(["a > 1"]) == []
    to_json = tables.cudf_method("DataFrame", "to_json", folder)
    assert to_json.defined_in == "cudf.core.dataframe.DataFrame"
    assert [p.name for p in to_json.forwarded] == ["engine", "orient"]  # `cudf_val` is `self`
    (path,) = to_json.cpu_paths
    assert (path.path, path.line) == ("python/cudf/cudf/io/json.py", _line("io/json.py", "pd_value.to_json"))
    assert path.holds(to_json.bind(["a.json"])) is True
    assert path.holds(to_json.bind(["a.json"], {"engine": "cudf"})) is False
    found = tables.callable_aggregation(folder)
    aggregation = "core/_internals/aggregation.py"
    assert found is not None and (found.path, found.line) == (
        f"python/cudf/cudf/{aggregation}",
        _line(aggregation, "op(A"),
    )
    assert found.methods == {"sum", "quantile"}
    assert tables.pandas_names(folder) is not None and "read_html" in (tables.pandas_names(folder) or ())
