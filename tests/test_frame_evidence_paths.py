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


# -- groups handed to a function of the file: `frame.groupby(k).apply(f)` ---------------------

GROUPS_HEAD = "import pandas as pd\n\ngames = pd.read_csv('games.csv')\n\n\n"


def _chained_writes(source: str) -> list[int]:
    return [d.start.line for d in findings(source, "GPU107")]


@pytest.mark.parametrize(
    ("body", "line"),
    [
        # each group is a frame inside the function
        (
            "def history(team):\n    team = team.sort_values('date')\n"
            "    team['gap'][team['gap'] > 3] = 3\n    return team\n\n\n"
            "games = games.groupby('team').apply(history)\n",
            8,
        ),
        # and a function that returns its group gives back a frame
        (
            "def add_target(team):\n    team['target'] = team['won'].shift(-1)\n    return team\n\n\n"
            "games = games.groupby('team', group_keys=False).apply(add_target)\n"
            "games['target'][games['target'].isna()] = 2\n",
            12,
        ),
        # the groups of a list of columns are frames still
        (
            "def clip(team):\n    team['gap'][team['gap'] > 3] = 3\n    return team\n\n\n"
            "out = games.groupby('team')[['gap', 'won']].apply(clip)\n",
            7,
        ),
    ],
    ids=["group-parameter", "groups-concatenated", "column-list"],
)
def test_groups_handed_to_a_function_are_frames(body, line):
    assert _chained_writes(GROUPS_HEAD + body) == [line]


@pytest.mark.parametrize(
    "body",
    [
        # the groups of one column are series
        "def clip(team):\n    team['gap'][team['gap'] > 3] = 3\n    return team\n\n\n"
        "out = games.groupby('team')['gap'].apply(clip)\n",
        # a groupby of something unknown
        "def clip(team):\n    team['gap'][team['gap'] > 3] = 3\n    return team\n\n\n"
        "out = records.groupby('team').apply(clip)\n",
        # the function is also called with something else
        "def clip(team):\n    team['gap'][team['gap'] > 3] = 3\n    return team\n\n\n"
        "out = games.groupby('team').apply(clip)\nclip(records)\n",
        # a function that returns a number per group gives no frame
        "def size(team):\n    return len(team)\n\n\n"
        "sizes = games.groupby('team').apply(size)\nsizes['a'][sizes['a'] > 3] = 3\n",
    ],
    ids=["series-groups", "unknown-groupby", "other-call-site", "scalar-per-group"],
)
def test_groups_not_known_to_be_frames(body):
    assert _chained_writes(GROUPS_HEAD + "import records\n" + body) == []


def test_dask_groups_are_pandas_frames_not_dask_ones():
    """Dask hands each group to the function as a pandas frame: the parameter is not typed as
    a Dask frame, and the result is not typed from what the function returns."""
    source = (
        "import dask.dataframe as dd\nimport pandas as pd\n\nevents = dd.read_csv('e-*.csv')\n\n\n"
        "def summarise(team):\n    return pd.DataFrame({'n': [len(team)]})\n\n\n"
        "out = events.groupby('a').apply(summarise, meta={'n': int})\n"
        "out['n'][out['n'] > 3] = 3\n"
    )
    assert _chained_writes(source) == []
