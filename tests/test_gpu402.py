"""GPU402 fit-before-split: a transformer fitted on the data that is split or
cross-validated afterwards, followed through names, aliases and blocks."""

from __future__ import annotations

import pytest

from gpulint import lint_source


def _findings(source: str) -> list[tuple[int, int]]:
    return [(d.start.line, d.start.col) for d in lint_source(source) if d.code == "GPU402"]


IMPORTS = (
    "from sklearn.model_selection import train_test_split as split, cross_val_predict\n"
    "from sklearn.preprocessing import RobustScaler\n"
    "from sklearn.linear_model import Ridge\n"
)


def test_reported_on_the_fitting_call():
    source = IMPORTS + "scaled = RobustScaler().fit_transform(X)\nparts = split(scaled, y)\n"
    assert _findings(source) == [(4, 9)]
    assert "leak" in [d for d in lint_source(source) if d.code == "GPU402"][0].message


def test_followed_out_of_nested_blocks_within_the_function():
    source = IMPORTS + (
        "def evaluate(X, y):\n"
        "    scaler = RobustScaler()\n"
        "    scaled = scaler.fit_transform(X)\n"
        "    with open('log.txt', 'w') as log:\n"
        "        for fold in range(3):\n"
        "            log.write(str(cross_val_predict(Ridge(), scaled, y, n_jobs=-1)))\n"
    )
    assert _findings(source) == [(6, 13)]


@pytest.mark.parametrize("body", [
    # the name is rebound in between: what is split is not the transformer's output
    "scaled = RobustScaler().fit_transform(X)\nscaled = X\nparts = split(scaled, y)\n",
    # fitted on one thing, applied to another
    "scaler = RobustScaler()\nscaler.fit(X_train)\nscaled = scaler.transform(X)\nparts = split(scaled, y)\n",
    # the loop may rebind it before the split runs again
    "scaled = RobustScaler().fit_transform(X)\nfor i in range(2):\n    parts = split(scaled, y)\n"
    "    scaled = parts[0]\n",
    # a parameter: where it came from is unknown
    "def f(scaled, y):\n    return split(scaled, y)\n",
    # split first, then fitted on the training part only
    "X_train, X_test = split(X)\nscaled = RobustScaler().fit_transform(X_train)\n",
])
def test_not_reported_without_the_flow(body):
    assert _findings(IMPORTS + body) == []


def test_one_finding_for_a_fit_used_by_two_splits():
    source = IMPORTS + "scaled = RobustScaler().fit_transform(X)\na = split(scaled, y)\nb = split(scaled, y)\n"
    assert _findings(source) == [(4, 9)]
