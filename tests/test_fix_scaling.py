"""Fixing a large file: a fix pass lets go of its tree before the next pass parses, and the
facts the loop rules gather about a scope are gathered once per scope, not once per loop,
with the same answers for every loop."""

from __future__ import annotations

import gc
import weakref

import pytest

import gpulint.pipeline
from gpulint import fix_text, lint_source, semantic

#: A module-level frame grown in a loop: the finding's facts hold the module itself.
GROWN = """\
import pandas as pd

df = pd.read_csv("customers.csv")
plan_stats = pd.DataFrame()
for plan, group in df.groupby("plan"):
    stats = {"plan": plan, "plan_size": len(group)}
    plan_stats = pd.concat([plan_stats, pd.DataFrame([stats])], ignore_index=True)
print(plan_stats)
"""


def test_a_fix_pass_lets_go_of_its_tree_before_the_next_pass(monkeypatch):
    trees: list[weakref.ref] = []
    alive_at_start: list[int] = []
    analyze = gpulint.pipeline.analyze

    def recording(*args, **kwargs):
        gc.collect()
        alive_at_start.append(sum(ref() is not None for ref in trees))
        analysis = analyze(*args, **kwargs)
        trees.append(weakref.ref(analysis.tree))
        return analysis

    monkeypatch.setattr(gpulint.pipeline, "analyze", recording)
    fixed = fix_text(GROWN, unsafe_fixes=True)
    assert fixed != GROWN
    assert len(alive_at_start) >= 2
    assert alive_at_start == [0] * len(alive_at_start)


def _module_script(loops: int, seen_elsewhere: str) -> str:
    """A module-level script growing one array per loop; `seen_elsewhere` is read by a lambda."""
    lines = [
        "import os",
        "import numpy as np",
        "",
        f"show = lambda: {seen_elsewhere}",
        "steps = int(os.environ.get('STEPS', '5'))",
    ]  # a count the code does not show
    for index in range(loops):
        lines += [
            f"acc{index} = np.zeros(0)",
            f"for x in range(steps + {index}):",
            f"    acc{index} = np.append(acc{index}, x)",
            f"print(acc{index})",
        ]
    return "\n".join(lines) + "\n"


def test_array_growth_scope_facts_are_gathered_once_per_file(monkeypatch):
    # the names seen from nested code come from the semantic index, built once per file
    # (and shared with the fixers), not gathered again for every loop
    calls: list[object] = []
    run = semantic._Collector.run
    monkeypatch.setattr(semantic._Collector, "run", lambda self, tree: calls.append(tree) or run(self, tree))
    source = _module_script(6, "acc3")
    diagnostics = [d for d in lint_source(source) if d.code == "GPU202"]
    assert len(diagnostics) == 6
    assert len(calls) == 1
    fixable = {d.start.line for d in diagnostics if d.fixable(True)}
    # every loop is rewritten but the one whose array a lambda reads
    assert len(fixable) == 5
    assert not any(d.fixable(True) for d in diagnostics if "acc3" in source.splitlines()[d.start.line - 1])


@pytest.mark.parametrize("reader", ["acc0", "acc5"])
def test_array_growth_per_name_answer_does_not_leak_between_loops(reader):
    source = _module_script(6, reader)
    fixed = fix_text(source, unsafe_fixes=True)
    assert f"{reader} = np.append({reader}, x)" in fixed
    others = [f"acc{i}" for i in range(6) if f"acc{i}" != reader]
    assert all(f"{name} = np.append({name}, x)" not in fixed for name in others)


TRANSFERS = """\
import numpy as np
import torch

device = "cuda"
w = torch.as_tensor(np.ones(3))
g = torch.ones(3)
g.requires_grad_(True)
for batch in range(3):
    w_device = w.to(device)
    print(w_device.sum() + batch)
for batch in range(3):
    g_device = g.to(device)
    print(g_device.sum() + batch)
for batch in range(3):
    v_device = w.to(device)
    print(v_device.sum() + batch)
"""


def test_device_copy_bindings_come_from_the_one_semantic_pass(monkeypatch):
    """How each name is bound comes from the file's semantic index, gathered in one pass
    however many loops and copies ask."""
    calls: list[object] = []
    run = semantic._Collector.run
    monkeypatch.setattr(semantic._Collector, "run", lambda self, tree: calls.append(tree) or run(self, tree))
    diagnostics = [d for d in lint_source(TRANSFERS, fixes=False) if d.code == "GPU302"]
    assert len(diagnostics) == 3
    assert len(calls) == 1
    diagnostics = [d for d in lint_source(TRANSFERS) if d.code == "GPU302"]
    # `g` may require grad: its copy stays in the loop; `w`'s copies are hoisted
    fixable = sorted(d.start.line for d in diagnostics if d.fixable(True))
    assert fixable == [9, 15]


def _module_level_chains(count: int) -> str:
    head = (
        "import numpy as np\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.linear_model import LogisticRegression\nX_train = np.zeros((4, 2))\n"
        "y_train = [0, 1, 0, 1]\nX_test = X_train\n"
    )
    chain = (
        "scaler{i} = StandardScaler()\nXt{i} = scaler{i}.fit_transform(X_train)\n"
        "model{i} = LogisticRegression()\nmodel{i}.fit(Xt{i}, y_train)\n"
        "Xs{i} = scaler{i}.transform(X_test)\nprint(model{i}.predict(Xs{i}))\n"
    )
    return head + "".join(chain.format(i=i) for i in range(count))


@pytest.mark.parametrize("count", [3, 30])
def test_gpu401_fix_planning_walks_a_module_level_script_once_however_many_chains(monkeypatch, count):
    import ast

    walks_of_modules = []
    real_walk = ast.walk

    def counting(node):
        if isinstance(node, ast.Module):
            walks_of_modules.append(node)
        return real_walk(node)

    source = _module_level_chains(count)
    monkeypatch.setattr(ast, "walk", counting)
    findings = [d for d in lint_source(source) if d.code == "GPU401"]
    assert len(findings) == count and all(d.fix is not None for d in findings)
    # the engine's own walks of the module, plus one to count the names of its scope
    assert len(walks_of_modules) <= 3, len(walks_of_modules)


def test_each_fix_pass_parses_its_source_once(monkeypatch):
    import gpulint.pipeline as pipeline

    parses = []
    real = pipeline.parse
    monkeypatch.setattr(pipeline, "parse", lambda source, filename: parses.append(1) or real(source, filename))
    analyses = []
    real_analyze = pipeline.analyze

    def counting(source, rules, filename, tree=None, path=None):
        analyses.append(tree is None)
        return real_analyze(source, rules, filename, tree, path)

    monkeypatch.setattr(pipeline, "analyze", counting)
    fixed = fix_text(GROWN, unsafe_fixes=True)
    assert fixed != GROWN
    # the first pass parses the file; every later pass gets the tree `accepts` parsed
    assert analyses[0] is True and not any(analyses[1:]) and len(analyses) >= 2
    assert len(parses) == len(analyses) - 1
