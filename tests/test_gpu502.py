"""GPU502 delayed-called-eagerly: eager `delayed`, `delayed` fed computed values, and
GPU502 winning over GPU501 (compute-in-loop)."""

from __future__ import annotations

import pytest

from gpulint import all_rules, lint_source

from .test_gpu501 import HEADER, _lines


def test_gpu502_wins_over_gpu501():
    body = (
        "for i in range(10):\n"
        "    a = delayed(f)(i).compute()\n"
        "    b = dask.compute(delayed(f)(i))\n"
        "    c = delayed(f)(grid[i].sum().compute())\n"
        "    block = grid[i].compute()\n"
        "    d = delayed(f)(x=block)\n"
    )
    assert _lines(body, "GPU502") == [2, 3, 4, 6]
    assert _lines(body, "GPU501") == []


def test_every_gpu502_example_is_free_of_gpu501():
    [rule] = [r for r in all_rules() if r.code == "GPU502"]
    for example in rule.flagged:
        assert "GPU501" not in [d.code for d in lint_source(example.source)], example.source


def test_eager_delayed_outside_a_loop_is_gpu502_only():
    body = "value = delayed(sum)([1, 2]).compute()\n"
    assert _lines(body, "GPU502") == [1]
    assert "call the function directly" in [d for d in lint_source(HEADER + body) if d.code == "GPU502"][0].message


def test_delayed_fed_with_lazy_values_is_fine():
    body = "tasks = []\nfor i in range(10):\n    tasks.append(delayed(f)(grid[i], i))\ndask.compute(*tasks)\n"
    assert _lines(body, "GPU502") == [] and _lines(body, "GPU501") == []


def test_delayed_over_a_dask_argument_is_another_idiom():
    """`delayed(f)(lazy).compute()` computes `lazy` first, then calls `f`: not `f(lazy)`."""
    body = "value = delayed(describe)(grid.sum()).compute()\nother = delayed(describe)(grid).compute()\n"
    assert _lines(body, "GPU502") == []


@pytest.mark.parametrize(
    "body",
    [
        "checks = [delayed(f)(i) for i in range(10)]\nok = delayed(all)(checks).compute()\n",
        "checks = []\nfor i in range(10):\n    checks.append(delayed(f)(i))\nok = delayed(all)(checks).compute()\n",
        "total = delayed(sum)([delayed(f)(1), delayed(f)(2)]).compute()\n",
        "total = dask.compute(delayed(sum)(delayed(f)(i) for i in range(3)))\n",
    ],
)
def test_delayed_over_a_collection_of_delayed_values_is_one_graph(body):
    assert _lines(body, "GPU502") == []


@pytest.mark.parametrize(
    "body",
    [
        "values = [f(i) for i in range(10)]\nok = delayed(all)(values).compute()\n",
        "values = []\nfor i in range(10):\n    values.append(f(i))\nok = delayed(all)(values).compute()\n",
        "total = delayed(sum)([1, 2, 3]).compute()\n",
    ],
)
def test_delayed_over_a_collection_of_plain_values_is_still_eager(body):
    assert _lines(body, "GPU502") != []
