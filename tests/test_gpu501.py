"""GPU501 compute-in-loop: Dask evidence, and which loops can be batched."""

from __future__ import annotations

import pytest

from gpulint import Applicability, lint_source

HEADER = (
    "import dask\nimport dask.array as da\nimport dask.dataframe as dd\nfrom dask import delayed\n\n"
    "grid = da.zeros((100, 100), chunks=10)\n"
    "frame = dd.read_parquet('data/')\n"
)


def _lines(body: str, code: str) -> list[int]:
    return [d.start.line - HEADER.count("\n") for d in lint_source(HEADER + body) if d.code == code]


@pytest.mark.parametrize(
    "body",
    [
        "for i in range(10):\n    print(grid[i].sum().compute())\n",
        "for name in names:\n    print(frame[frame['name'] == name].amount.mean().compute())\n",
        "for name in names:\n    print(frame.groupby('k')[name].sum().compute())\n",
        "for i in range(10):\n    print((grid[i] * 2 + grid[i + 1]).compute())\n",
        "for i in range(10):\n    value, = dask.compute(grid[i].max())\n",
        "lazy = delayed(load)('a')\nfor i in range(3):\n    print(lazy[i].compute())\n",
    ],
    ids=["array", "frame-column", "groupby", "arithmetic", "dask-compute", "delayed-value"],
)
def test_compute_per_item_is_flagged(body):
    lines = _lines(body, "GPU501")
    assert len(lines) == 1
    [finding] = [d for d in lint_source(HEADER + body) if d.code == "GPU501"]
    assert finding.fix.applicability is Applicability.DISPLAY and "dask.compute(*" in finding.fix.message


@pytest.mark.parametrize(
    "body",
    [
        # computed once, used in the loop
        "total = grid.sum().compute()\nfor i in range(10):\n    print(total + i)\n",
        # the frame was computed before: pandas from here on
        "local = frame.compute()\nfor name in names:\n    print(local[local['name'] == name].amount.mean())\n",
        # an iteration needs the previous one's value, assigned later in the body
        "factor = 1.0\nfor i in range(5):\n    value = (grid * factor).sum().compute()\n    factor = value / 2\n",
        # a return ends the loop at the first match
        "def find():\n    for i in range(10):\n        if grid[i].sum().compute() > 3:\n            return i\n",
    ],
)
def test_not_flagged(body):
    assert _lines(body, "GPU501") == []


def test_a_break_of_an_inner_loop_does_not_excuse_the_outer_one():
    body = "for i in range(10):\n    print(grid[i].sum().compute())\n    for j in range(3):\n        break\n"
    assert _lines(body, "GPU501") == [2]


def test_a_test_asserting_on_each_item_is_left_alone():
    body = "for i in range(3):\n    assert grid[i].sum().compute() == 0\n"
    assert _lines(body, "GPU501") == []
