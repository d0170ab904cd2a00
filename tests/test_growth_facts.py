"""GPU101 and GPU108: the rule decides, the fixer renders.

Recognising a growth statement is shared by both rules (`rules/dataframe/_growth.py`); GPU101
decides whether and how safely a rewrite applies and hands its fixer frozen facts; the
reasoning behind its fix safety lives in the docs, without hand-typed counts.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import re
import textwrap
from pathlib import Path

import pytest

from gpulint import Applicability, lint_source
from gpulint.registry import all_rules
from gpulint.plans.dataframe_grown_in_loop import CollectPlan, GrowthFacts
from gpulint.plans.read_in_loop import ReadGrowth

ROOT = Path(__file__).resolve().parent.parent


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _only(source: str, code: str):
    found = [d for d in lint_source(source) if d.code == code]
    assert len(found) == 1, found
    return found[0]


GROUPS = _src("""
    import pandas as pd


    def top(sales: pd.DataFrame) -> pd.DataFrame:
        best = pd.DataFrame()
        for _, group in sales.groupby("region"):
            best = pd.concat([best, group.nlargest(2, "amount")])
        return best
""")
ONE_ROW = _src("""
    import pandas as pd


    def daily(days: list) -> pd.DataFrame:
        totals = pd.DataFrame()
        for day in days:
            totals = pd.concat([totals, pd.DataFrame({"day": [day]})], ignore_index=True)
        return totals
""")
PIECES = _src("""
    import pandas as pd


    def collect(batches: dict) -> pd.DataFrame:
        result = pd.DataFrame(columns=["key", "value"])
        for key, values in batches.items():
            result = pd.concat([result, pd.DataFrame({"key": key, "value": values})])
        return result
""")
COLUMNS = _src("""
    import pandas as pd


    def summarize(groups: dict) -> pd.DataFrame:
        summary = pd.DataFrame()
        for name, frame in groups.items():
            summary = pd.concat([summary, frame.describe()], axis=1)
        return summary
""")
IN_TRY = _src("""
    import pandas as pd


    def collect(batches: dict) -> pd.DataFrame:
        result = pd.DataFrame()
        try:
            for key, values in batches.items():
                result = pd.concat([result, pd.DataFrame({"value": values})])
        except ValueError:
            pass
        return result
""")


@pytest.mark.parametrize(
    "source, applicability, mode",
    [
        (GROUPS, Applicability.SAFE, "parts"),
        (ONE_ROW, Applicability.UNSAFE, "records"),
        (PIECES, Applicability.UNSAFE, "parts"),
        (COLUMNS, Applicability.DISPLAY, None),  # joins columns: no rewrite
        (IN_TRY, Applicability.DISPLAY, None),  # in a `try`: no rewrite
    ],
)
def test_gpu101_hands_its_fixer_frozen_facts_with_the_applicability_it_decided(source, applicability, mode):
    finding = _only(source, "GPU101")
    facts = finding.context
    assert isinstance(facts, GrowthFacts)
    assert facts.applicability is applicability
    assert (facts.plan.mode if facts.plan is not None else None) == mode
    assert facts.plan is None or isinstance(facts.plan, CollectPlan)
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.applicability = Applicability.SAFE  # type: ignore[misc]
    # The fixer renders exactly what the rule decided.
    assert finding.fix is not None and finding.fix.applicability is applicability
    if applicability is Applicability.DISPLAY:
        assert finding.fix.message == facts.suggestion and not finding.fix.edits


def test_safety_is_decided_with_every_growth_of_the_file_known():
    """Two frames grown in one loop from row selections of one private frame: each loop's
    other `concat` runs no program code only because it is a vetted growth too, which is
    known only once the whole file has been walked. Both rewrites are safe."""
    source = _src("""
        import pandas as pd


        def split(path):
            sales = pd.read_parquet(path)
            high = pd.DataFrame()
            low = pd.DataFrame()
            for limit in range(0, 100, 10):
                high = pd.concat([high, sales.loc[sales["amount"] > limit]])
                low = pd.concat([low, sales.loc[sales["amount"] <= limit]])
            return high, low
    """)
    found = [d for d in lint_source(source) if d.code == "GPU101"]
    assert [d.start.line for d in found] == [9, 10]
    assert [d.context.applicability for d in found] == [Applicability.SAFE] * 2
    assert [d.fix.applicability for d in found] == [Applicability.SAFE] * 2


def test_safety_near_miss_a_call_in_the_loop_makes_it_unsafe():
    """The same loop calling a function of the program: that code could change the frame."""
    source = _src("""
        import pandas as pd


        def split(path, log):
            sales = pd.read_parquet(path)
            high = pd.DataFrame()
            for limit in range(0, 100, 10):
                high = pd.concat([high, sales.loc[sales["amount"] > limit]])
                log(limit)
            return high
    """)
    finding = _only(source, "GPU101")
    assert finding.context.applicability is Applicability.UNSAFE
    assert finding.fix.applicability is Applicability.UNSAFE


@pytest.mark.parametrize("lib, words", [("cudf", "one device allocation"), ("pandas", "reads the files in parallel")])
def test_gpu108_hands_its_fixer_the_frame_library(lib, words):
    source = _src(f"""
        import {lib}

        events = {lib}.DataFrame()
        for day in ["mon", "tue"]:
            events = {lib}.concat([events, {lib}.read_parquet(f"events-{{day}}.parquet")])
    """)
    finding = _only(source, "GPU108")
    assert isinstance(finding.context, ReadGrowth) and finding.context.lib == lib
    assert finding.context.applicability is Applicability.DISPLAY
    assert finding.fix is not None and finding.fix.applicability is Applicability.DISPLAY
    assert words in finding.fix.message


def _imports(path: Path) -> set[str]:
    """The modules a file imports (relative imports spelled with their dots)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


def test_growth_recognition_is_one_module_both_rules_use():
    growth = {"._growth"}
    gpu101 = _imports(ROOT / "rules/dataframe/dataframe_grown_in_loop.py")
    gpu108 = _imports(ROOT / "rules/dataframe/read_in_loop.py")
    assert growth <= gpu101 and growth <= gpu108
    assert ".dataframe_grown_in_loop" not in gpu108  # GPU108 needs nothing of GPU101's
    assert "._row_selection" in gpu101


@pytest.mark.parametrize("module", ["dataframe_grown_in_loop", "read_in_loop", "_growth", "_row_selection"])
def test_the_rule_side_imports_no_fixer_and_no_rewriting_library(module):
    imported = _imports(ROOT / "rules/dataframe" / f"{module}.py")
    assert not any(name.startswith(("gpulint.fixers", "libcst")) for name in imported), imported


def test_the_fixer_decides_nothing():
    """The fixer reads the rule's facts; the scope, loop and selection analyses are not its."""
    imported = _imports(ROOT / "fixers/dataframe_grown_in_loop.py")
    assert not any("loop_effects" in name or "semantic" in name or "_row_selection" in name for name in imported)


#: A measured count typed into prose: 100 or more, or digits grouped by commas.
COUNT = re.compile(r"(?<![\w.])(\d{1,3}(,\d{3})+|\d{3,})(?![\w.])")


def test_fix_safety_prose_keeps_rules_of_thumb_and_no_hand_typed_counts():
    rule = next(rule for rule in all_rules() if rule.code == "GPU101")
    section = rule.doc_sections()["Fix safety"]
    page = (ROOT / "docs/fix-safety.md").read_text(encoding="utf-8")
    for text in (section, page):
        assert COUNT.search(text) is None, COUNT.search(text)
    assert "dtype" in section and "index" in section  # what its unsafe fix may change
    assert len(section) < len(page)
    assert "fix-safety.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_counts_are_recognised():
    assert COUNT.search("191,808 cases") and COUNT.search("of 11664 combinations")
    assert not COUNT.search("`pd.DataFrame(columns=[...])`, three or more dtypes, float64, pandas 3.1")


def _grid() -> list[str]:
    """Growth programs over a grid of starts, loops, pieces, options, orders, extra
    statements in the loop and wrappers (every `step`-th combination)."""
    starts = ["pd.DataFrame()", 'pd.DataFrame(columns=["a", "b"])', "pd.read_parquet(path)", "None"]
    loops = ["for x in range(3):", "for x in xs:", 'for x, g in frame.groupby("a"):', "while len(out) < 10:"]
    pieces = [
        "g.head(2)",
        'frame.loc[frame["a"] > 1]',
        'pd.DataFrame({"a": [1], "b": [2.0]})',
        "NAMED",
        'frame.query("a > 1")',
        "pd.Series([1.0])",
    ]
    options = ["", ", ignore_index=True", ", sort=True", ", axis=1"]
    orders = ["append", "prepend", "two"]
    extras = ["", "log(1)", 'frame["a"] = 1', "print(len(frame))", "total += 1"]
    wrappers = ["function", "try", "nested"]
    programs = []
    grid = itertools.product(starts, loops, pieces, options, orders, extras, wrappers)
    for start, loop, piece, option, order, extra, wrapper in itertools.islice(grid, 0, None, 37):
        body = []
        if piece == "NAMED":
            body.append('piece = pd.DataFrame({"a": [1], "b": [2.0]})')
            piece = "piece"
        entries = {"append": f"[out, {piece}]", "prepend": f"[{piece}, out]", "two": f"[out, {piece}, {piece}]"}[order]
        body += [f"out = pd.concat({entries}{option})", *([extra] if extra else [])]
        inner = [loop, *("    " + line for line in body)]
        if wrapper == "nested":
            inner = ["for y in range(2):", *("    " + line for line in inner)]
        if wrapper == "try":
            inner = ["try:", *("    " + line for line in inner), "except ValueError:", "    pass"]
        lines = ["frame = pd.read_parquet(path)", "total = 0", f"out = {start}", *inner, "return out"]
        programs.append(
            "import pandas as pd\n\n\ndef log(v):\n    pass\n\n\ndef f(path, xs):\n"
            + "".join(f"    {line}\n" for line in lines)
        )
    return programs


@pytest.mark.slow
def test_on_a_grid_of_growths_the_fixer_renders_what_the_rule_decided():
    decided = []
    for source in _grid():
        for finding in lint_source(source):
            if finding.code != "GPU101":
                continue
            facts = finding.context
            assert isinstance(facts, GrowthFacts), source
            assert (facts.plan is None) == (facts.applicability is Applicability.DISPLAY), source
            assert finding.fix is not None, source
            # exactly the rule's decision, or the suggestion where the rewrite cannot be written out
            assert finding.fix.applicability in (facts.applicability, Applicability.DISPLAY), source
            if finding.fix.applicability is Applicability.DISPLAY:
                assert finding.fix.message == facts.suggestion and not finding.fix.edits, source
            decided.append(facts.applicability)
    # the grid reaches every decision
    assert set(decided) == set(Applicability), set(decided)
