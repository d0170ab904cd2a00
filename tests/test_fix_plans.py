"""Fix planning: a fixer decides on `ast` (a `Plan`, or a `Decline` with its reason) and
writes its edits only when the run applies or shows them; planning alone says exactly what
planning and rendering say, and never loads libcst."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpulint import all_rules, fixers
from gpulint.engine import analyze
from gpulint.fixing import attach_fixes
from gpulint.source import Source

from benchmarks.realcode.fix_audit import declined_rewrites

ROOT = Path(__file__).resolve().parent.parent
FIXABLE = [rule for rule in all_rules() if rule.fix is not None and rule.fixer() is not None]
PLANNERS = sorted(
    f"{fixers.__name__}.{info.name}"
    for info in pkgutil.iter_modules(fixers.__path__)
    if not info.ispkg  # `render`: the renderers
)


def _fixes(text: str, rules, render: bool):
    source = Source.from_text(text)
    analysis = analyze(source, rules, "example.py", None)
    found, warnings = attach_fixes(source, analysis.tree, analysis.diagnostics, rules, True, analysis.semantic, render)
    assert warnings == []
    return [(d.code, d.start, d.fix) for d in found]


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda rule: rule.code)
def test_planning_alone_says_what_rendering_says(rule):
    """Applicability, message and decline, for every example the rule flags: a check that
    prints findings shows what `--fix` would do."""
    for example in rule.flagged:
        planned = _fixes(example.source, [rule], render=False)
        rendered = _fixes(example.source, [rule], render=True)
        assert len(planned) == len(rendered)
        for (code, start, plan), (_, _, fix) in zip(planned, rendered, strict=True):
            assert (plan is None) == (fix is None), (code, start)
            if plan is not None:
                assert (plan.applicability, plan.message, plan.declined) == (
                    fix.applicability,
                    fix.message,
                    fix.declined,
                ), (code, start, example.source)
                assert not plan.rendered or not plan.edits


def test_planners_load_no_libcst():
    program = (
        "import importlib, json, sys\n"
        f"for name in {PLANNERS!r}: importlib.import_module(name)\n"
        "print(json.dumps([m for m in sys.modules if m == 'libcst' or m.startswith('gpulint.fixers.render')]))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_only_renderers_import_libcst_or_other_renderers_at_module_level():
    found = []
    for path in sorted((ROOT / "fixers").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            found += [f"{path.name}: {name}" for name in names if name.startswith(("libcst", ".render"))]
    assert found == []


CHAINED = 'import pandas as pd\n\ndf = pd.DataFrame({"c#": [1]})\ndf["c#"][0] = 2\n'


def test_show_fixes_lists_a_declined_rewrite_with_its_reason(tmp_path):
    (tmp_path / "write.py").write_text(CHAINED)
    done = subprocess.run(
        [sys.executable, "-m", "gpulint", "check", "write.py", "--no-cache", "--show-fixes"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "No rewrite for 1 finding (each keeps its suggestion):" in done.stdout
    assert declined_rewrites(done.stdout) == [
        ("GPU107", "the assignment's target holds a comment (or a `#` in a string)")
    ]
    assert (
        "No rewrite"
        not in subprocess.run(
            [sys.executable, "-m", "gpulint", "check", "write.py", "--no-cache"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        ).stdout
    )


def test_each_planner_is_a_fixer_of_a_rule():
    stems = {rule.stem() for rule in all_rules() if rule.fix is not None}
    assert {name.rsplit(".", 1)[1] for name in PLANNERS if not name.rsplit(".", 1)[1].startswith("_")} <= stems
    assert all(callable(getattr(importlib.import_module(name), "plan", None)) for name in PLANNERS if "._" not in name)


R_TUPLE = """import numpy as np

def found_all(xs):
    found = np.array([])
    for x in xs:
        found = np.r_[(found, x)]
    return found
"""


def test_an_index_tuple_in_parentheses_that_reads_the_grown_array_is_declined():
    """`np.r_[(found, x)]` indexes with one tuple: appending it whole to the list of pieces
    would concatenate the first array again with each new piece."""
    [rule] = [rule for rule in all_rules() if rule.code == "GPU202"]
    [(_, _, fix)] = _fixes(R_TUPLE, [rule], render=True)
    assert fix.edits == () and fix.declined == (
        "a new piece reads the grown array itself (`np.r_[(found, x)]` indexes with one tuple)"
    )
