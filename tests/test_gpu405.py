"""GPU405 predict-in-loop: the one-row input shapes, the loops over existing rows, and
what stays silent."""

from __future__ import annotations

import pytest

from gpulint import Applicability, lint_source

HEADER = (
    "import numpy as np\nimport pandas as pd\n"
    "from sklearn.ensemble import HistGradientBoostingRegressor\n\n"
    "model = HistGradientBoostingRegressor().fit(X, y)\n"
    "table = pd.read_parquet('rows.parquet')\n"
    "matrix = table.to_numpy()\n"
)


def _findings(body: str):
    return [d for d in lint_source(HEADER + body) if d.code == "GPU405"]


@pytest.mark.parametrize(
    "body",
    [
        "for row in matrix:\n    print(model.predict([row]))\n",
        "for row in matrix:\n    print(model.predict(row.reshape(1, -1)))\n",
        "for row in matrix:\n    print(model.predict(np.array([row])))\n",
        "for row in matrix:\n    print(model.predict(np.atleast_2d(row)))\n",
        "for i in range(len(matrix)):\n    print(model.predict(matrix[i:i + 1]))\n",
        "for i in range(matrix.shape[0]):\n    print(model.predict(matrix[[i]]))\n",
        "for i in range(len(table)):\n    print(model.predict(table.iloc[[i]]))\n",
        "for i, row in enumerate(matrix):\n    print(i, model.predict([row]))\n",
        "for row in table.values:\n    features = row * 2\n    print(model.predict([features]))\n",
        "out = [model.predict([row])[0] for row in matrix]\n",
    ],
    ids=[
        "list",
        "reshape",
        "np-array",
        "atleast-2d",
        "slice",
        "fancy",
        "iloc",
        "enumerate",
        "assigned-in-loop",
        "comprehension",
    ],
)
def test_one_row_per_iteration_is_flagged(body):
    [finding] = _findings(body)
    assert finding.fix.applicability is Applicability.DISPLAY and "once" in finding.fix.message
    assert "`predict` called on one row" in finding.message


@pytest.mark.parametrize(
    "body",
    [
        # the whole matrix each time: a repeated batch (another problem), not one row
        "for _ in range(3):\n    print(model.predict(matrix))\n",
        # two rows at a time
        "for i in range(0, len(matrix), 2):\n    print(model.predict(matrix[i:i + 2]))\n",
        # the row does not change with the loop
        "first = matrix[0]\nfor _ in range(3):\n    print(model.predict([first]))\n",
        # not a known estimator
        "for row in matrix:\n    print(other.predict([row]))\n",
        # not known rows
        "for row in incoming():\n    print(model.predict([row]))\n",
    ],
)
def test_left_alone(body):
    assert _findings(body) == []
