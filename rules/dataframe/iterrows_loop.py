"""GPU102 iterrows-loop."""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    Applicability,
    Example,
    few_iterations,
    iterates_rows,
    known_small,
    Rule,
    RuleContext,
    Tier,
    walk_local,
)
from gpulint.datasets_api import SLOW_READERS
from gpulint.plans.iterrows_loop import RowIteration

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
#: Libraries on which the rewrite (`.tolist()`, a column assignment) means what the loop meant.
_REWRITABLE = frozenset({"pandas", "modin"})


def _applicability(lib: str) -> Applicability:
    return Applicability.UNSAFE if lib in _REWRITABLE else Applicability.DISPLAY


class IterrowsLoop(Rule):
    """
    ## What it does
    Flags loops (and comprehensions) over `DataFrame.iterrows()`, numbered ones
    (`for i, (_, row) in enumerate(df.iterrows())`) included.

    ## Evidence
    A frame known to hold only a few rows is left alone, where the loop costs microseconds:
    one built from literals (`pd.DataFrame({"a": [1, 2, 3]})`), a few rows taken
    (`df.head()`, `df.nlargest(5, c)`, `df.iloc[:10]`), the examples of a nearest-neighbour
    lookup (`dataset.get_nearest_examples(..., k=5)`), followed through the assignments that
    reach the loop. So is a loop that reads a file for each row
    (`torchvision.io.read_image`, `PIL.Image.open`, `cv2.imread`, `np.load`,
    `pd.read_csv`...): the read takes milliseconds, the row Series microseconds.

    ## Why is this bad?
    `iterrows()` builds a new pandas Series for every row: each step allocates, boxes every
    value into a Python object and upcasts the row to one dtype. A column expression does the
    same work in one call in compiled code, about {speedup:10000} faster at 10k rows and
    {speedup:100000} at 100k on a CPU (`gpulint bench --rule GPU102`), and it
    is the form cuDF can run on a GPU at all (cuDF does not iterate rows).

    When the loop does more than compute a value per row, `itertuples()` is the usual
    fallback: it builds a plain tuple per row instead of a Series, which is much faster, and
    keeps each column's dtype.

    ## Fix safety
    The fix is unsafe. It applies when the loop body only computes a value from row fields
    (`row["price"] - row["cost"]`, comparisons, `and`/`or`/`not`, `x if c else y`) and
    appends it to a list that starts empty just before the loop, or stores it in a column of
    the same frame, and when no code after the loop reads the names it binds (`idx`, `row`:
    read later, in a nested function, or by the next pass of an enclosing loop, they keep
    the loop). The vectorized result has the same values, but they keep their column
    dtypes (an int column is no longer upcast to float by the row Series) and a list holds
    Python scalars instead of NumPy scalars. On a frame with no rows the loop never creates
    the column it assigns; the rewrite creates it, empty, and an expression that fails on
    every row (`-` between two bool columns) fails in the rewrite even with no rows, where
    the loop never ran it. The rows of a frame with mixed dtypes hold Python ints, which
    never overflow, where an int64 column (or a smaller int dtype) wraps: the values differ
    where the row's integer arithmetic would overflow the column's dtype, and a constant
    beyond a small int dtype's range raises `OverflowError` on the column. Where the loop
    raises on a row (`None` added to a number in an `object` column), the rewrite raises
    another error or returns a missing value there. Other loops,
    numbered ones among them, get a display-only suggestion.

    The rewrite is only offered where the frame is known to be a pandas or Modin frame. On
    a Dask frame it would not run (a Dask Series has no `tolist()`, and `.loc[...] =` does
    not assign). On a cuDF frame the loop itself raises (cuDF does not iterate rows) and so
    would `tolist()` (cuDF refuses the implicit copy to the host); what is right there is
    to keep the column expression on the GPU, which only the author can decide. Those, and
    frames of unknown library (`iterrows()` being the only evidence), get a display-only
    suggestion.
    """

    code = "GPU102"
    name = "iterrows-loop"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code, the tier samples pooled: 4 of 25 findings useful, below the bar (a few rows, or "
        "per-row work no column expression replaces: sentiment scoring, OCR, a plot per row)"
    )
    message = "`iterrows()` builds a Series per row; use a vectorized column expression (or `itertuples()`)"
    nodes = (ast.For, ast.AsyncFor, *_COMPREHENSIONS)
    fix = Applicability.UNSAFE
    suggestion = (
        'compute the result with column expressions (`frame["a"] - frame["b"]`); '
        "if the body must run per row, iterate `frame.itertuples()` instead"
    )
    triggers = (b"iterrows",)

    flagged = (
        Example(
            source="""\
import pandas as pd


def margins(sales: pd.DataFrame) -> list:
    result = []
    for _, row in sales.iterrows():
        result.append(row["price"] - row["cost"])
    return result
""",
            fixed="""\
import pandas as pd


def margins(sales: pd.DataFrame) -> list:
    result = (sales["price"] - sales["cost"]).tolist()
    return result
""",
            setup='sales = pd.DataFrame({"price": rng.uniform(1, 100, N), "cost": rng.uniform(1, 50, N)})',
            call="margins(sales)",
        ),
        Example(
            source="""\
import pandas as pd


def flag_hot(readings: pd.DataFrame) -> pd.DataFrame:
    for idx, row in readings.iterrows():
        # a reading above 80 degrees is an alert
        readings.loc[idx, "alert"] = row["temp"] > 80 and row["ok"] == 1
    return readings
""",
            fixed="""\
import pandas as pd


def flag_hot(readings: pd.DataFrame) -> pd.DataFrame:
    # a reading above 80 degrees is an alert
    readings["alert"] = (readings["temp"] > 80) & (readings["ok"] == 1)
    return readings
""",
            setup='readings = pd.DataFrame({"temp": rng.uniform(50, 100, N), "ok": rng.integers(0, 2, N)})',
            call="flag_hot(readings)",
            new_columns_when_empty=True,
        ),
        Example(
            source="""\
import pandas as pd


def size_labels(orders: pd.DataFrame) -> list:
    return [("big" if row["qty"] * row["price"] > 100 else "small") for _, row in orders.iterrows()]
""",
            fixed="""\
import pandas as pd
import numpy as np


def size_labels(orders: pd.DataFrame) -> list:
    return (np.where(orders["qty"] * orders["price"] > 100, "big", "small")).tolist()
""",
            setup='orders = pd.DataFrame({"qty": rng.integers(1, 20, N), "price": rng.uniform(1, 20, N)})',
            call="size_labels(orders)",
        ),
        Example(
            source="""\
def notify(frame):
    for _, row in frame.iterrows():
        send_invoice(row["email"], row["amount"])
""",
        ),
        Example(
            # numbered rows: the same loop, counted (the suggestion is shown, not applied)
            source="""\
import pandas as pd

orders = pd.read_csv("orders.csv")
for position, (_, row) in enumerate(orders.iterrows()):
    print(position, row["qty"] * row["price"])
""",
        ),
        Example(
            # a file name per row, but nothing read in the loop
            source="""\
import pandas as pd

labels = pd.read_csv("label.csv")
paths = []
for name, row in labels.iterrows():
    paths.append(f"images/{name}")
""",
        ),
        Example(
            # the neighbours of a lookup whose size the code does not show
            source="""\
import pandas as pd

scores, samples = dataset.get_nearest_examples("embeddings", query, k=top_k)
neighbours = pd.DataFrame.from_dict(samples)
for _, row in neighbours.iterrows():
    print(row["title"], row["url"])
""",
        ),
    )
    ok = (
        # each row reads an image: the read dominates
        Example(
            """\
import pandas as pd
import torchvision

labels = pd.read_csv("label.csv")
images, boxes = [], []
for name, row in labels.iterrows():
    images.append(torchvision.io.read_image(f"images/{name}"))
    boxes.append(row["x"])
""",
            reason="Each row loads a file (an image read): the loop's cost is the I/O, not the iteration.",
        ),
        # a few rows: the five nearest neighbours of a lookup, a literal frame
        Example(
            """\
import pandas as pd

scores, samples = dataset.get_nearest_examples("embeddings", query, k=5)
neighbours = pd.DataFrame.from_dict(samples)
neighbours["scores"] = scores
for _, row in neighbours.iterrows():
    print(row["title"], row["scores"])
colors = pd.DataFrame({"name": ["red", "green"], "hex": ["#f00", "#0f0"]})
legend = [row["name"] + " " + row["hex"] for _, row in colors.iterrows()]
""",
            reason="Frames known to hold a few rows: a nearest-neighbour lookup's k examples, a table built from literals.",
        ),
        Example(
            """\
settings = {"a": 1}
for key, value in settings.items():
    print(key, value)
""",
            reason="A dict's `.items()`, not a DataFrame.",
        ),
        Example(
            """\
import pandas as pd

frame = pd.read_csv("data.csv")
for row in frame.itertuples():
    print(row.price)
""",
            reason="`itertuples()`, the fast row iterator: GPU102 flags `iterrows` only.",
        ),
        Example(
            """\
class Table:
    def iterrows(self):
        return iter([(0, {"a": 1})])


table = Table()
for _, row in table.iterrows():
    print(row["a"])
""",
            reason="An `iterrows` method of a class of the file's own, not a DataFrame's.",
        ),
        Example(
            """\
import pandas as pd

prices = pd.Series([1.0, 2.0])
for label, value in prices.items():
    print(label, value)
""",
            reason="A Series' `.items()`, not a DataFrame's `iterrows`.",
        ),
        Example(
            """\
rows = [[1, 2], [3, 4]]
for row in rows:
    rows.append(row)
    break
""",
            reason="A loop over a plain list.",
        ),
        Example(
            """\
import pandas as pd

orders = pd.read_csv("orders.csv")
for position, (_, row) in enumerate(orders.itertuples()):
    print(position, row)
""",
            reason="`itertuples()` inside `enumerate`, not `iterrows`.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, _COMPREHENSIONS):
            for generator in node.generators:
                lib = iterates_rows(generator.iter, ctx.env)
                if lib is not None and not few_iterations(generator, ctx):
                    ctx.report(
                        generator.iter,
                        context=RowIteration(
                            applicability=_applicability(lib),
                            lib=lib,
                            comprehension=node,
                            collections=ctx.env.data_names(node.elt if hasattr(node, "elt") else node),
                        ),
                    )
            return
        assert isinstance(node, (ast.For, ast.AsyncFor))
        lib = iterates_rows(node.iter, ctx.env)
        counted = ctx.env.enumerated(node.iter)
        if lib is None and counted is not None:
            lib = iterates_rows(counted, ctx.env)
            if lib is not None and not known_small(counted, ctx):  # `enumerate(df.iterrows())`: shown, not rewritten
                ctx.report(counted, context=RowIteration(applicability=Applicability.DISPLAY, lib=lib))
            return
        if lib is not None and not few_iterations(node, ctx) and not _reads_a_file_per_row(node.body, ctx):
            ctx.report(
                node.iter,
                context=RowIteration(
                    applicability=_applicability(lib),
                    lib=lib,
                    loop=node,
                    block=ctx.blocks[-1] if ctx.blocks else [],
                    site=tuple(zip(ctx.statements, ctx.blocks, strict=False)),
                    collections=ctx.env.data_names(ast.Module(body=node.body, type_ignores=[])),
                ),
            )


def _reads_a_file_per_row(body: list[ast.stmt], ctx: RuleContext) -> bool:
    """The loop's body reads a file or an image (a known reader, or the builtin `open`)."""
    for node in walk_local(body):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id == "open" and ctx.env.is_builtin("open"):
            return True
        if ctx.qualname(node.func) in SLOW_READERS:
            return True
    return False
