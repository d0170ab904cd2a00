"""One shared corpus of near-misses that no rule may flag.

Each snippet is realistic data-science code that looks like a hardware-hostile idiom but is
not one: lists and dicts where a rule wants frames, classes of the file with pandas-like
method names, forms pandas already runs on whole columns, readers that are not frames.
Every rule runs on every snippet (each one imports a library the rules are about, so the
engine does not skip it), and the whole file must come back clean: no finding of any code,
GPU001 included.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gpulint import lint_source

NEAR_MISSES = {
    "list-append-in-loop": """
        import pandas as pd

        def load_labels(paths):
            labels = []
            for path in paths:
                with open(path) as handle:
                    labels.append(handle.read().strip())
            return pd.Series(labels, name="label")
        """,
    "list-named-like-a-frame": """
        import pandas as pd

        df = []
        for value in range(10):
            df.append(value * 2)
        frame = pd.DataFrame({"doubled": df})
        """,
    "custom-class-with-append-apply-iterrows": """
        import pandas as pd


        class Ledger:
            def __init__(self):
                self.entries = []

            def append(self, entry):
                self.entries.append(entry)
                return self

            def apply(self, function, axis=0):
                return [function(entry) for entry in self.entries]

            def iterrows(self):
                return enumerate(self.entries)


        ledger = Ledger()
        for amount in (10, 20, 30):
            ledger.append({"amount": amount})
        taxed = ledger.apply(lambda entry: entry["amount"] * 1.2, axis=1)
        for _, entry in ledger.iterrows():
            print(entry["amount"])
        summary = pd.DataFrame(ledger.entries)
        """,
    "concat-once-after-the-loop": """
        import pandas as pd

        def load_month(paths):
            frames = []
            for path in paths:
                frame = pd.read_csv(path, parse_dates=["day"])
                frames.append(frame[frame["amount"] > 0])
            return pd.concat(frames, ignore_index=True)
        """,
    "concat-in-a-loop-into-another-name": """
        import pandas as pd

        base = pd.read_csv("base.csv")
        extras = {"q1": pd.read_csv("q1.csv"), "q2": pd.read_csv("q2.csv")}
        for quarter, extra in extras.items():
            report = pd.concat([base, extra], ignore_index=True)
            report.to_csv(f"report-{quarter}.csv", index=False)
        """,
    "append-a-row-once-outside-a-loop": """
        import pandas as pd

        totals = pd.DataFrame({"region": ["north", "south"], "sales": [10.0, 12.5]})
        totals.loc[len(totals)] = ["all", totals["sales"].sum()]
        """,
    "column-wise-apply": """
        import pandas as pd

        scores = pd.read_csv("scores.csv")
        normalised = scores.apply(lambda column: (column - column.mean()) / column.std())
        spread = scores.apply(lambda column: column.max() - column.min(), axis=0)
        per_index = scores.apply(lambda column: column.median(), axis="index")
        """,
    "apply-with-a-method-name": """
        import pandas as pd

        sales = pd.read_csv("sales.csv", index_col="store")
        sales["total"] = sales[["jan", "feb", "mar"]].apply("sum", axis=1)
        sales["best"] = sales[["jan", "feb", "mar"]].apply(func="max", axis="columns")
        """,
    "apply-with-a-numpy-ufunc": """
        import numpy as np
        import pandas as pd
        from numpy import log1p

        counts = pd.read_parquet("counts.parquet")
        roots = counts.apply(np.sqrt, axis=1)
        logged = counts.apply(log1p, axis=1)
        """,
    "apply-with-a-dict-of-rows": """
        import numpy as np
        import pandas as pd

        table = pd.DataFrame({"a": [1.0, -2.0], "b": [3.0, -4.0]}, index=["x", "y"])
        picked = table.apply({"x": "max", "y": np.abs}, axis=1)
        """,
    "dict-values-and-items-loops": """
        import pandas as pd

        thresholds = {"temp": 80.0, "humidity": 0.9}
        for limit in thresholds.values():
            print(limit)
        for name, limit in thresholds.items():
            print(f"{name} <= {limit}")
        limits = pd.Series(thresholds)
        """,
    "range-len-over-a-list": """
        import numpy as np

        weights = [0.2, 0.3, 0.5]
        for i in range(len(weights)):
            weights[i] = weights[i] / sum(weights)
        vector = np.array(weights)
        """,
    "loop-over-frame-columns": """
        import pandas as pd

        survey = pd.read_csv("survey.csv")
        for column in survey.columns:
            survey[column] = survey[column].fillna(survey[column].median())
        for name in survey.select_dtypes("number").columns:
            survey[name] = survey[name].clip(lower=0)
        """,
    "itertuples-loop": """
        import pandas as pd

        orders = pd.read_csv("orders.csv")
        for order in orders.itertuples(index=False):
            print(order.customer, order.amount)
        """,
    "series-items-loop": """
        import pandas as pd

        prices = pd.Series({"apple": 1.2, "pear": 0.8})
        for fruit, price in prices.items():
            print(fruit, price)
        """,
    "read-excel-every-sheet-is-a-dict": """
        import pandas as pd

        sheets = pd.read_excel("budget.xlsx", sheet_name=None)
        for name, sheet in sheets.items():
            print(name, sheet.shape)
        firsts = pd.read_excel("budget.xlsx", sheet_name=["2023", "2024"])
        combined = pd.concat(firsts.values(), keys=firsts.keys())
        """,
    "read-excel-sheets-dict-apply": """
        import pandas as pd

        sheets = pd.read_excel("budget.xlsx", sheet_name=None)
        shapes = sheets.apply(lambda sheet: sheet.shape, axis=1)
        """,
    "chunked-reader-loop-with-column-expressions": """
        import pandas as pd

        totals = []
        for chunk in pd.read_csv("events.csv", chunksize=100_000):
            chunk["revenue"] = chunk["price"] * chunk["quantity"]
            totals.append(chunk.groupby("country")["revenue"].sum())
        revenue = pd.concat(totals).groupby(level=0).sum()
        """,
    "chunked-reader-object-is-no-frame": """
        import pandas as pd

        reader = pd.read_csv("events.csv", iterator=True)
        head = reader.get_chunk(1000)
        parts = []
        for number, chunk in enumerate(reader):
            parts.append(chunk[chunk["country"] == "NL"])
        dutch = pd.concat(parts, ignore_index=True)
        """,
    "sql-chunks-collected-once": """
        import pandas as pd

        def daily_counts(connection):
            pieces = []
            for chunk in pd.read_sql("select day, user_id from visits", connection, chunksize=50_000):
                pieces.append(chunk.groupby("day")["user_id"].nunique())
            return pd.concat(pieces).groupby(level=0).sum()
        """,
    "vectorized-np-where": """
        import numpy as np
        import pandas as pd

        readings = pd.read_csv("readings.csv")
        readings["status"] = np.where(readings["temp"] > 80, "hot", "ok")
        readings["delta"] = readings["temp"] - readings["temp"].shift(1)
        """,
    "cudf-row-apply-is-compiled": """
        import cudf

        trips = cudf.read_parquet("trips.parquet")
        trips["fare_per_km"] = trips.apply(lambda row: row["fare"] / row["km"], axis=1)
        """,
    "numba-engine-row-apply": """
        import pandas as pd

        ticks = pd.read_parquet("ticks.parquet")
        mid = ticks.apply(lambda row: (row["bid"] + row["ask"]) / 2, axis=1, engine="numba", raw=True)
        """,
    "parameter-given-a-cudf-frame-apply": """
        import cudf

        def spread(table):
            return table.apply(lambda row: row["ask"] - row["bid"], axis=1)

        spread(cudf.read_csv("quotes.csv"))
        """,
    "groupby-aggregation": """
        import pandas as pd

        visits = pd.read_csv("visits.csv")
        per_user = visits.groupby("user_id").agg(first_seen=("day", "min"), visits=("day", "count"))
        """,
    "builtins-on-lists-and-scalars": """
        import numpy as np

        latencies = [12.5, 8.0, 30.1]
        worst, total, ordered = max(latencies), sum(latencies), sorted(latencies)
        capped = min(np.float64(0.5), 1.0)
        summary = np.array([worst, total])
        doubled = [value * 2 for value in latencies]
        """,
    "arrays-collected-once-after-the-loop": """
        import numpy as np

        pieces = []
        for seed in range(4):
            pieces.append(np.random.default_rng(seed).normal(size=10))
        samples = np.concatenate(pieces)
        means = np.array([piece.mean() for piece in pieces])
        """,
    "one-indexer-writes-for-a-list-of-labels": """
        import pandas as pd

        stock = pd.read_csv("stock.csv", index_col="sku")
        recalled = ["A-17", "B-02"]
        for sku in recalled:
            stock.loc[sku, "status"] = "recalled"
        stock.loc[stock["qty"] < 0, "qty"] = 0
        """,
    "string-functions-on-plain-lists": """
        import pandas as pd

        names = [" Ada ", "ALAN"]
        cleaned = list(map(str.lower, map(str.strip, names)))
        widths = {name: len(name) for name in cleaned}
        table = {"name": cleaned}
        table["name"][0] = "ada"
        frame = pd.DataFrame(table)
        """,
    "per-batch-copies-in-a-training-loop": """
        import numpy as np
        import torch
        from torch.utils.data import DataLoader, TensorDataset

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        data = TensorDataset(torch.from_numpy(np.ones((64, 4), dtype=np.float32)))
        loader = DataLoader(data, batch_size=8, num_workers=2, pin_memory=True)
        model = torch.nn.Linear(4, 1).to(device)
        total = torch.zeros((), device=device)
        for (x,) in loader:
            x = x.to(device, non_blocking=True)
            total += model(x).sum().detach()
        print(total.item())
        """,
}


@pytest.mark.parametrize("source", list(NEAR_MISSES.values()), ids=list(NEAR_MISSES))
def test_no_rule_flags_a_near_miss(source):
    text = textwrap.dedent(source)
    ast.parse(text)  # the snippet itself is valid Python: a clean result is not a GPU001 artefact
    assert any(f"import {lib}" in text for lib in ("pandas", "numpy", "cudf", "cupy", "torch", "sklearn", "dask")), (
        "the engine would skip it"
    )
    found = lint_source(text)
    assert found == [], [(d.code, d.start.line, d.message) for d in found]


def test_the_corpus_is_large_enough():
    assert len(NEAR_MISSES) >= 10
