"""Fixers that ask the semantic index which statements bind a name (GPU101's scope facts,
GPU401's straight-line check): a comprehension's variable is the comprehension's own, so
reusing a name there is no rebinding, while a loop target, a walrus or an assignment is."""

from __future__ import annotations

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .test_gpu101 import SAFE_SETUP
from .test_gpu401 import HEADER, STRAIGHT, _same_predictions

# -- GPU401: nothing between the estimator's fit and its use may rebind the estimator -------


def _gpu401(body: str):
    source = HEADER + body
    [found] = [d for d in lint_source(source) if d.code == "GPU401"]
    return source, found


def test_gpu401_a_comprehension_variable_named_like_the_estimator_is_no_rebinding():
    body = STRAIGHT.replace("    return", "    sizes = [model for model in (1, 2)]\n    return")
    source, diagnostic = _gpu401(body)
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    fixed = fix_text(source, unsafe_fixes=True)
    assert "pipeline = make_pipeline(scaler, model)" in fixed and "return pipeline.predict_proba(X_test)" in fixed
    _same_predictions(source, fixed)


@pytest.mark.parametrize(
    "rebinding",
    [
        "    for model in (1, 2):\n        pass\n",
        "    sizes = [(model := size) for size in (1, 2)]\n",
        "    model = model\n",
    ],
    ids=["loop-target", "walrus-in-comprehension", "assignment"],
)
def test_gpu401_near_miss_the_estimator_rebound_before_its_use(rebinding):
    source, diagnostic = _gpu401(STRAIGHT.replace("    return", rebinding + "    return"))
    assert diagnostic.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


# -- GPU101: a private frame is bound only to calls -----------------------------------------


def _gpu101(after_loop: str) -> str:
    return (
        "import pandas as pd\n\n\n"
        "def build(given: pd.DataFrame) -> pd.DataFrame:\n"
        "    sales = given.copy()\n"
        "    out = pd.DataFrame()\n"
        "    for size in [1, 3]:\n"
        "        out = pd.concat([out, sales.head(size)])\n"
        f"{after_loop}"
        "    return out\n"
    )


def _only_gpu101(source: str):
    [found] = [d for d in lint_source(source) if d.code == "GPU101"]
    return found


def test_gpu101_a_comprehension_variable_named_like_the_frame_leaves_it_private():
    source = _gpu101('    labels = [sales for sales in ("a", "b")]\n')
    assert _only_gpu101(source).fix.applicability is Applicability.SAFE
    fixed = fix_text(source, unsafe_fixes=False)
    assert fixed != source and fix_text(fixed, unsafe_fixes=False) == fixed
    for n in (0, 1, 5, 40):
        assert_same_result(
            run_example(SAFE_SETUP, source, "build(sales)", n=n),
            run_example(SAFE_SETUP, fixed, "build(sales)", n=n),
            strict=True,
        )


@pytest.mark.parametrize(
    "after_loop",
    [
        '    for sales in ("a", "b"):\n        pass\n',
        '    labels = [(sales := label) for label in ("a", "b")]\n',
        '    sales = "a"\n',
    ],
    ids=["loop-target", "walrus-in-comprehension", "assignment"],
)
def test_gpu101_near_miss_the_frame_name_rebound_to_something_else(after_loop):
    source = _gpu101(after_loop)
    assert _only_gpu101(source).fix.applicability is Applicability.UNSAFE
    assert fix_text(source, unsafe_fixes=False) == source
