"""Registry-wide guarantees: every rule is a complete unit, and the docs stay in sync."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from gpulint import Applicability, all_rules
from gpulint.docs import examples_output, marked_block, render_markdown, rule_json, rule_table
from gpulint.config import Config, Overrides
from gpulint.registry import CODE_PATTERN, DOC_SECTIONS, NAME_PATTERN, catalog_text, entries

pytestmark = pytest.mark.real_tiers

ROOT = Path(__file__).resolve().parent.parent
RULES = all_rules()
REAL_RULES = [rule for rule in RULES if rule.code != "GPU001"]


def test_codes_and_names_are_unique_and_well_formed():
    codes = [rule.code for rule in RULES]
    names = [rule.name for rule in RULES]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)
    assert all(CODE_PATTERN.match(code) for code in codes)
    assert all(NAME_PATTERN.match(name) for name in names)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_docstring_has_every_section(rule):
    sections = rule.doc_sections()
    for title in DOC_SECTIONS:
        assert sections.get(title), f"{rule.code} lacks a `## {title}` section"
    data = rule_json(rule)
    assert data["example"], f"{rule.code} has no example to document"
    if rule.fix is not None:
        assert data["use_instead"], f"{rule.code} has a fix but no `Use instead`"
    markdown = render_markdown(rule)
    for title in ("What it does", "Why is this bad?", "Example", "Fix safety"):
        assert f"## {title}" in markdown


@pytest.mark.parametrize("rule", REAL_RULES, ids=lambda r: r.code)
def test_rule_is_a_complete_unit(rule):
    assert rule.flagged, f"{rule.code} has no flagged example"
    assert rule.ok, f"{rule.code} has no near-miss example"
    fixture = ROOT / "tests" / "fixtures" / f"{rule.code}.py"
    assert fixture.is_file(), f"{rule.code} needs {fixture.relative_to(ROOT)}"
    if rule.fix is None:
        return
    fixer = rule.fixer()
    assert callable(fixer) or rule.suggestion, (
        f"{rule.code} promises a fix but has no suggestion and gpulint.fixers.{rule.stem()} has no `fix`"
    )
    if rule.fix in (Applicability.SAFE, Applicability.UNSAFE):
        assert any(ex.fixed is not None for ex in rule.flagged), f"{rule.code} shows no fixed example"


def test_readme_rule_table_is_generated_from_the_registry():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = marked_block(readme, "rules").strip()
    assert table == rule_table(), "README rule table is stale: run `python -m gpulint.docs README.md`"


def test_readme_shows_the_real_output_of_its_first_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = marked_block(readme, "output").strip()
    assert shown == f"```text\n{examples_output(str(ROOT))}\n```", (
        "README example output is stale: run `python -m gpulint.docs README.md`"
    )
    assert "Found " in shown and "GPU106" in shown and "GPU107" in shown and "GPU401" in shown


def test_front_ends_never_import_rules():
    """Front-ends use the engine's public API only; rule logic stays in rules/."""
    linter = ROOT / "linter"
    front_ends = [
        linter / "cli.py",
        linter / "hosted.py",
        linter / "flake8_plugin.py",
        linter / "pylint_plugin.py",
        linter / "notebook.py",
        *sorted((linter / "output").glob("*.py")),
        *sorted((linter / "lsp").glob("*.py")),
    ]
    for path in front_ends:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                assert "rules" not in module.split(".") and "fixers" not in module.split("."), (path, module)


@pytest.mark.slow
def test_engine_imports_no_data_library():
    """Detection and fixing reason about source only: no pandas, NumPy, torch... imported."""
    script = (
        "import sys, gpulint\n"
        "from gpulint import all_rules, lint_source, fix_text\n"
        "for rule in all_rules():\n"
        "    for ex in rule.flagged:\n"
        "        lint_source(ex.source); fix_text(ex.source, unsafe_fixes=True)\n"
        "heavy = {'pandas', 'numpy', 'sklearn', 'torch', 'cupy', 'cudf', 'dask', 'modin'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert output.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_project_lints_itself_clean():
    """gpulint's own code (fixtures excluded by its [tool.gpulint] config) has no findings."""
    run = subprocess.run(
        [sys.executable, "-m", "gpulint", "check", "linter", "rules", "fixers", "benchmarks", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


# -- the catalog: rules chosen without importing them --------------------------------------------


def test_the_catalog_is_written_from_the_rule_classes():
    written = (ROOT / "linter" / "rule_catalog.py").read_text(encoding="utf-8")
    assert written == catalog_text(), "the rule catalog is stale: run `python -m gpulint.docs README.md`"
    assert [entry.code for entry in entries()] == [rule.code for rule in RULES]
    for rule in RULES:
        entry = next(entry for entry in entries() if entry.code == rule.code)
        assert (entry.name, entry.tier, entry.libraries, entry.split_from) == (
            rule.name,
            rule.tier,
            rule.libraries,
            rule.split_from,
        )


@pytest.mark.parametrize("rule", REAL_RULES, ids=lambda r: r.code)
def test_every_flagged_example_keeps_its_rule_when_rules_are_chosen_by_the_source(rule):
    """A rule's `libraries` never leave it out of a file it flags: each flagged example
    names one of them (or is walked for any library when the rule states none)."""
    everything = Config().with_overrides(Overrides(select=("ALL",), preview=True))
    for example in rule.flagged:
        chosen = {chosen.code for chosen in everything.rules_for(None, example.source)}
        assert rule.code in chosen, example.source


def test_rules_are_chosen_by_the_libraries_a_source_names():
    everything = Config().with_overrides(Overrides(select=("ALL",), preview=True))
    codes = {rule.code for rule in everything.rules_for(None)}
    assert {rule.code for rule in everything.rules_for(None, "total = sum(range(3))\n")} == {"GPU001"}
    frames = {rule.code for rule in everything.rules_for(None, "import pandas as pd\n")}
    assert "GPU102" in frames and "GPU201" in frames, "frame and array rules run on any data library"
    assert not frames & {"GPU301", "GPU401", "GPU501", "GPU601"}, "device, estimator, Dask and graph rules need theirs"
    assert {"GPU301", "GPU401", "GPU501", "GPU601"} <= {
        rule.code for rule in everything.rules_for(None, "import torch, sklearn, dask, networkx\n")
    }
    # a rule's own trigger word makes a file worth walking for every rule stating no library
    assert "GPU104" in {rule.code for rule in everything.rules_for(None, "for i, row in rows.iterrows(): pass\n")}
    assert {
        rule.code for rule in everything.rules_for(None, "import pandas, torch, sklearn, dask, networkx\n")
    } == codes


def test_a_run_imports_only_the_rules_it_needs():
    """Checking a file imports the modules of the rules chosen for it, not every rule."""
    script = (
        "import sys\n"
        "from gpulint import lint_source\n"
        "from gpulint.config import Config\n"
        "lint_source('import pandas as pd\\n', 'a.py', config=Config())\n"
        "print(sorted(m for m in sys.modules if m.startswith('gpulint.rules.') and m.count('.') == 3))\n"
    )
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    imported = ast.literal_eval(output.stdout.strip())
    assert "gpulint.rules.dataframe.chained_assignment" in imported
    assert not [module for module in imported if module.split(".")[2] in ("transfers", "pipelines", "graphs")]
    assert "gpulint.rules.dataframe.iterrows_loop" not in imported, "a preview rule outside preview mode"
