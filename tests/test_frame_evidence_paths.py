"""Frame evidence that code moves the way any code does: rows sliced off a frame or a
Series, and `to_pandas()` of a value from another library. Each source has a flagged example
and a near-miss (GPU105 and GPU102 stand for every rule that asks for a frame)."""

from __future__ import annotations

import pytest

from .rule_helpers import findings


def _codes(source: str) -> list[str]:
    return [d.code for d in findings(source, "GPU105")] + [d.code for d in findings(source, "GPU102")]


HEAD = "import pandas as pd\n\nframe = pd.read_csv('data.csv')\n"


@pytest.mark.parametrize(
    "body",
    [
        "rows = frame[start:stop]\nout = rows['a'].apply(lambda x: x * 2)\n",
        "column = frame['a'][start:]\nout = column.apply(lambda x: x * 2)\n",
        "for _, row in frame[:stop].iterrows():\n    print(row)\n",
        "table = dataset['train'].to_pandas()\nout = table['a'].apply(lambda x: x * 2)\n",
        "if local:\n    table = pd.read_csv(path)\nelse:\n    table = hub.load(path).to_pandas()\n"
        "out = table['a'].apply(lambda x: x * 2)\n",
    ],
    ids=["frame-rows", "series-rows", "iterrows-of-rows", "to-pandas", "to-pandas-in-one-branch"],
)
def test_flagged(body):
    assert len(_codes(HEAD + body)) == 1


@pytest.mark.parametrize(
    "body",
    [
        "rows = frame[0:5]\nout = rows['a'].apply(lambda x: x * 2)\n",  # five rows: nothing to gain
        "rows = items[start:stop]\nout = rows.apply(lambda x: x * 2)\n",  # a slice of something unknown
        "chunks = dataset.to_pandas(batched=True)\nout = chunks.apply(lambda x: x * 2)\n",  # an iterator
        "table = dataset.to_pandas\nout = table.apply(lambda x: x * 2)\n",  # the method, not its result
        "table = convert.to_pandas(dataset)\nout = table['a'].apply(lambda x: x * 2)\n",  # a function of a module
    ],
    ids=["few-rows", "unknown-sliced", "batched", "not-called", "module-function"],
)
def test_not_flagged(body):
    source = HEAD + "import convert\n" + body
    assert _codes(source) == []


# -- usage: methods only pandas-like frames have, on a value from an unknown library ----------

USAGE_HEAD = "import numpy as np\nimport quandl\n\nstock = quandl.get('WIKI/X')\n"


@pytest.mark.parametrize(
    "body",
    [
        "stock = stock.reset_index(level=0)\nfirst = min(stock['Date'])\n",
        "table = stock.reset_index()\nfirst = min(table['Date'])\n",
        "stock.set_index('Date')\nfirst = min(stock['Close'])\n",
        "stock.pivot_table(index='a', values='b')\nfirst = min(stock['Close'])\n",
    ],
    ids=["reset-index-level", "reset-index-result", "set-index-label", "pivot-table"],
)
def test_pandas_only_methods_show_a_frame(body):
    assert [d.code for d in findings(USAGE_HEAD + body, "GPU204")] == ["GPU204"]


@pytest.mark.parametrize(
    "body",
    [
        "stock = stock.reset_index('time')\nfirst = min(stock['Date'])\n",  # xarray's: levels by position
        "stock.set_index(time='t')\nfirst = min(stock['Close'])\n",  # xarray's: a mapping
        "stock.set_index(keys)\nfirst = min(stock['Close'])\n",  # nothing shows what the keys are
        "other = stock.reset_index\nfirst = min(stock['Date'])\n",  # not called
    ],
    ids=["xarray-reset-index", "xarray-set-index", "unknown-keys", "not-called"],
)
def test_methods_other_libraries_share_show_nothing(body):
    assert findings(USAGE_HEAD + "keys = load()\n" + body, "GPU204") == []
