"""GPU306 implicit-sync-in-condition."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import lint_source

HEAD = 'import torch\nimport cupy as cp\n\nd = "cuda"\nt = torch.ones(3, device=d)\na = cp.arange(3)\n'


def _lines(source: str) -> list[int]:
    return [diag.start.line for diag in lint_source(textwrap.dedent(source)) if diag.code == "GPU306"]


@pytest.mark.parametrize(
    "condition",
    [
        "t.any()",
        "t.sum() > 0",
        "not (t == 0).all()",
        "flag and t.max() > 1",
        "a.sum() > 0",
        "cp.allclose(a, a)",
        "torch.isnan(t).any()",
    ],
)
def test_device_conditions_in_a_loop(condition):
    source = HEAD + f"for batch in batches:\n    if {condition}:\n        pass\n"
    assert _lines(source) == [8]


@pytest.mark.parametrize(
    "condition",
    [
        "t is None",
        "t.shape[0] > 1",
        "t.sum().item() > 0",
        "t.cpu().sum() > 0",
        "torch.ones(2).sum() > 0",
        "len(t) > 1",
    ],
)
def test_host_conditions_are_silent(condition):
    source = HEAD + f"for batch in batches:\n    if {condition}:\n        pass\n"
    assert _lines(source) == []


def test_while_condition_counts_without_an_enclosing_loop():
    assert _lines(HEAD + "while t.sum() > 0:\n    t = t - 1\n") == [7]
    assert _lines(HEAD + "if t.sum() > 0:\n    t = t - 1\n") == []


def test_one_finding_per_condition():
    assert _lines(HEAD + "for batch in batches:\n    if t.any() or a.any():\n        pass\n") == [8]
