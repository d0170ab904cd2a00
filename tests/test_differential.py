"""Differential fuzzing of every fix, as a standing test (the machinery: `tests/differential`).

For every rule whose fixer can edit code, programs built from the rule's idioms and from
data at the edges are fixed with the rule alone (unsafe fixes included), then run before
and after on deep copies of the same inputs: a safe fix must give identical results, an
unsafe one may differ only in the classes its "Fix safety" section names (`fuzz.ALLOWED`),
and raising, hanging, printing something else, a fix that does not parse or is not
idempotent always fail.

CI budget: the `gpulint-differential` hypothesis profile, derandomized (the same programs
on every run), no shrinking, `BUDGET` programs per rule: 12 for most rules, 3-5 for the
rules whose programs start worker processes (DataLoader workers, joblib) or fit models.
That is 180 programs: about 20 s on an idle 2-core machine, under 60 s with the machine
shared (most of it the first pool of joblib worker processes).

Long mode, on demand: `GPULINT_FUZZ=long pytest -s tests/test_differential.py` runs
`GPULINT_FUZZ_EXAMPLES` programs per rule (default 500, random seed `GPULINT_FUZZ_SEED`,
default 0) instead, prints programs run, fixes executed and the differences found by rule
and class, and writes failing programs under `GPULINT_FUZZ_FAILURES` (default
`fuzz-failures`); the same as `python -m tests.differential --examples 500`.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from gpulint import all_rules
from gpulint.registry import Applicability
from tests.differential import __main__ as long_mode
from tests.differential import fuzz, known
from tests.differential.compare import differences
from tests.differential.programs import PROGRAMS, Program

LONG = os.environ.get("GPULINT_FUZZ", "") == "long"

settings.register_profile(
    "gpulint-differential",
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
)
PROFILE = settings.get_profile("gpulint-differential")
#: Programs per rule in CI.
BUDGET = {code: 12 for code in PROGRAMS} | {"GPU305": 4, "GPU401": 5, "GPU403": 3}

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.mark.slow
@pytest.mark.skipif(LONG, reason="the long mode runs instead")
@pytest.mark.parametrize("code", sorted(PROGRAMS))
def test_fixes_keep_behaviour(code):
    @settings(PROFILE, max_examples=BUDGET[code])
    @given(st.data())
    def run(data):
        outcome = fuzz.check(data.draw(PROGRAMS[code](), label="program"))
        assert not outcome.failures(), outcome.describe()

    run()


@pytest.mark.skipif(not LONG, reason="set GPULINT_FUZZ=long to run the long mode")
def test_long_mode():
    examples = os.environ.get("GPULINT_FUZZ_EXAMPLES", "500")
    status = long_mode.main(
        [
            "--examples",
            examples,
            "--seed",
            os.environ.get("GPULINT_FUZZ_SEED", "0"),
            "--failures",
            os.environ.get("GPULINT_FUZZ_FAILURES", "fuzz-failures"),
        ]
    )
    assert status == 0, "differences found: see the report above and the failing programs written"


def test_every_rule_with_a_rewrite_has_programs():
    rewriting = {rule.code for rule in all_rules() if rule.fix in (Applicability.SAFE, Applicability.UNSAFE)}
    assert rewriting == set(PROGRAMS) == set(fuzz.ALLOWED)


@pytest.mark.parametrize(
    "code, difference", sorted((code, difference) for code, allowed in fuzz.ALLOWED.items() for difference in allowed)
)
def test_allowed_differences_are_named_in_fix_safety(code, difference):
    assert difference not in fuzz.NEVER_ALLOWED
    assert fuzz.documented(code, difference), f"{code}'s Fix safety section does not name {difference!r}"


@pytest.mark.parametrize(
    "before, after, expected",
    [
        (3, np.int64(3), {"dtype"}),
        ([1.0, float("nan")], [1.0, float("nan")], set()),
        (np.array([1.0, np.nan]), np.array([np.nan, 1.0]), {"nan"}),
        (np.float64(3.0), np.float64(np.nan), {"nan"}),
        (pd.Series([1, 2]), pd.Series([1.0, 2.0]), {"dtype"}),
        (pd.Series([1, 2]), pd.Series([1, 2], index=[5, 6]), {"index"}),
        (pd.Series([1, 2]), pd.Series([1, 2], name="v"), {"names"}),
        (pd.Series([1, 2]), pd.Series([1, 3]), {"value"}),
        (pd.Series([2, 0]), pd.Series([True, False]), {"dtype", "value"}),
        ([np.array([1, 2]), np.array([3, 4])], [[1, 2], [3, 4]], {"type", "dtype"}),
        (np.int8(-56), 200, {"dtype", "overflow"}),
        (10**27, np.int64(10**27 % 2**64 - 2**64), {"dtype", "overflow"}),
        (0.1 + 0.2, 0.3, {"rounding"}),
        (pd.DataFrame(), pd.Series(dtype="float64"), {"empty-shape"}),
        ("3.00", pd.Series(["3.00"]), {"type"}),
    ],
)
def test_differences_are_classified(before, after, expected):
    assert differences(before, after) == expected


def _judged(monkeypatch, original: str, fixed_safe: str, fixed_unsafe: str, setup: str = "s = pd.Series([1, 2])\n"):
    """The outcome of a check where the fixer is replaced by the given rewrites."""

    def fix_text(text, rules, unsafe_fixes):
        if text == original:
            return fixed_unsafe if unsafe_fixes else fixed_safe
        return text  # fixing a fixed version again changes nothing

    monkeypatch.setattr(fuzz, "fix_text", fix_text)
    return fuzz.check(Program("GPU105", "test", setup, original, "f(s)"))


def test_a_safe_fix_that_changes_a_dtype_fails(monkeypatch):
    original = "def f(s):\n    return s.map(lambda x: x + 1)\n"
    safe = "def f(s):\n    return (s + 1).astype(float)\n"
    outcome = _judged(monkeypatch, original, safe, safe)
    assert outcome.failures() == {"dtype"}


def test_an_unsafe_fix_may_change_what_its_rule_documents_only(monkeypatch):
    original = "def f(s):\n    return s.map(lambda x: x + 1)\n"
    dtype_only = "def f(s):\n    return (s + 1).astype(float)\n"
    assert _judged(monkeypatch, original, original, dtype_only).failures() == set()
    wrong = "def f(s):\n    return s + 2\n"
    assert _judged(monkeypatch, original, original, wrong).failures() == {"value"}


def test_raising_after_the_fix_fails(monkeypatch):
    original = "def f(s):\n    return s.map(lambda x: x / float(2))\n"
    raises = "def f(s):\n    return s / (2).astype(float)\n"
    outcome = _judged(monkeypatch, original, original, raises)
    assert outcome.failures() == {"raises"}
    assert "AttributeError" in outcome.variants[0].error


def test_a_fix_that_does_not_parse_fails(monkeypatch):
    original = "def f(s):\n    return s.map(abs)\n"
    assert "parse" in _judged(monkeypatch, original, original, "def f(s):\n    return s.abs(\n").failures()


def test_aliasing_the_input_is_told(monkeypatch):
    original = "def f(s):\n    return s.map(lambda x: x)\n"
    outcome = _judged(monkeypatch, original, original, "def f(s):\n    return s\n")
    assert outcome.failures() == {"alias"}


def test_known_failure_classes_are_recognised_in_the_log():
    record = {
        "rule": "GPU107",
        "idiom": 'df["c"][k] = v, k = slice',
        "setup": "k = slice(1, 3)\n",
        "source": 'df["c"][k] = 0\n',
        "fixed": 'df.loc[k, "c"] = 0\n',
        "skipped": None,
        "problems": [],
        "variants": [{"kind": "unsafe", "classes": ["value"], "error": None}],
        "failures": ["value"],
    }
    counted = {label: check(record) for label, check in known.KNOWN.items()}
    assert [label for label, hit in counted.items() if hit] == ["GPU107 slice held in a variable"]
    assert "    GPU107 slice held in a variable" in known.table([record])
