"""The test suite's two tiers: `pytest -m "not slow"` is the fast inner loop, plain `pytest`
(what CI runs) runs everything. The `slow` marker is registered, the slow tests are marked
(read from the test sources, without collecting them), and the tests of every rule's own
examples, near-misses and fixes stay in the fast tier."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
#: At least this many tests carry the marker (82 when the tiers were measured).
AT_LEAST_SLOW = 75
#: Every rule's flagged examples, near-misses and fixes: never in the slow tier.
FAST_ONLY = ("test_rule_examples.py", "test_near_misses.py")


def _is_slow(node: ast.expr) -> bool:
    """`pytest.mark.slow`, alone or in the list a module's `pytestmark` holds."""
    if isinstance(node, ast.List | ast.Tuple):
        return any(_is_slow(item) for item in node.elts)
    return ast.unparse(node) == "pytest.mark.slow"


def _tests(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")
    ]


def _slow_tests(path: Path) -> list[str]:
    """The test functions of one module the `slow` marker applies to."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tests = _tests(tree)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            if _is_slow(node.value):
                return [test.name for test in tests]
    return [test.name for test in tests if any(_is_slow(decorator) for decorator in test.decorator_list)]


def test_the_slow_marker_is_registered(pytestconfig):
    assert any(line.split(":")[0].strip() == "slow" for line in pytestconfig.getini("markers"))


def test_the_full_suite_deselects_nothing_by_default(pytestconfig):
    addopts = pytestconfig.getini("addopts")
    assert "slow" not in " ".join(addopts)


def test_the_slowest_tests_are_marked():
    slow = {path.name: _slow_tests(path) for path in sorted(TESTS.glob("test_*.py"))}
    assert sum(len(names) for names in slow.values()) >= AT_LEAST_SLOW
    # the wheel build, the differential fuzzer, the real pre-commit, pylint and language
    # server runs
    for module, test in [
        ("test_packaging.py", "test_wheel_installs_and_runs_on_its_own"),
        ("test_differential.py", "test_fixes_keep_behaviour"),
        ("test_pre_commit.py", "test_check_hook_reports_what_gpulint_check_reports"),
        ("test_pylint_plugin.py", "test_disable_by_checker_name_silences_every_rule"),
        ("test_bench.py", "test_quick_sweep_before_and_after_agree"),
    ]:
        assert test in slow[module], (module, test)


@pytest.mark.parametrize("module", FAST_ONLY)
def test_rule_examples_stay_in_the_fast_tier(module):
    assert _tests(ast.parse((TESTS / module).read_text(encoding="utf-8")))
    assert _slow_tests(TESTS / module) == []
