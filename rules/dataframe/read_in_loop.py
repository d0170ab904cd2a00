"""GPU108 read-in-loop."""

from __future__ import annotations

import ast

from gpulint.rule_api import Applicability, Example, Rule, RuleContext, Tier

from ._growth import file_read_growth
from gpulint.plans.read_in_loop import ReadGrowth

#: Writes three small CSV files into a fresh temporary folder for the examples to read.
_CSV_SETUP = """\
import os
import tempfile

folder = tempfile.mkdtemp(prefix="gpulint-example-")
paths = []
for part in range(3):
    path = os.path.join(folder, f"sales-{part}.csv")
    pd.DataFrame({"store": rng.integers(0, 5, N), "amount": rng.uniform(1, 100, N).round(2)}).to_csv(
        path, index=False)
    paths.append(path)
"""


class ReadInLoop(Rule):
    """
    ## What it does
    Flags a DataFrame grown, inside a loop, with files read one by one:
    `df = pd.concat([df, pd.read_csv(path)])`, the same with a name bound to the read
    earlier in the iteration (`part = pd.read_parquet(path)`), or
    `df = df.append(pd.read_csv(path))`. This is the most specific form of GPU101
    (dataframe-grown-in-loop) and wins over it: such a statement is reported here only.

    ## Evidence
    Any reader of a whole file counts (`read_csv`, `read_parquet`, `read_json`,
    `read_excel`, `read_feather`, ...), followed or not by methods and selections
    (`pd.read_csv(path).dropna()`), in pandas, cuDF, Modin or Dask. The chunks of one
    `read_csv(..., chunksize=n)` reader grown into a frame stay GPU101 (that file is read
    once), and collecting the frames in a list and concatenating once after the loop is not
    flagged.

    ## Why is this bad?
    Each `concat` copies every row read so far, so the loop costs quadratic time and memory
    traffic on top of the reads (GPU101). The reads themselves are serial: one file at a time,
    parsed on one core. Reading every file into a list and concatenating once makes the copy
    linear; a multi-file reader goes further: `dask.dataframe.read_csv(paths)` (or a glob)
    reads the files in parallel as partitions, and `cudf.read_parquet(paths)` reads them
    straight into GPU memory in one call.

    ## Fix safety
    Display-only: the suggestion (a list of frames and one `concat`, or one multi-file
    reader) is shown, never applied. The right form depends on the reader and its options
    (`ignore_index`, a column recording the file, what a multi-file reader accepts), which
    only the author can check.
    """

    code = "GPU108"
    name = "read-in-loop"
    tier = Tier.PREVIEW
    tier_reason = "Never-used code: 8 of 19 checked findings useful (a handful of files, or `nrows=` reads)"
    message = (
        "files are read one by one and concatenated in a loop: read them into a list and `concat` once, "
        "or use one multi-file reader"
    )
    nodes = (ast.Assign, ast.AnnAssign)
    fix = Applicability.DISPLAY

    flagged = (
        Example(
            source="""\
import pandas as pd


def load_sales(paths: list) -> pd.DataFrame:
    sales = pd.DataFrame()
    for path in paths:
        sales = pd.concat([sales, pd.read_csv(path)], ignore_index=True)
    return sales
""",
            idiom="""\
import pandas as pd


def load_sales(paths: list) -> pd.DataFrame:
    return pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)
""",
            setup=_CSV_SETUP,
            call="load_sales(paths)",
        ),
        Example(
            source="""\
import pandas as pd


def load_tagged(paths: list) -> pd.DataFrame:
    combined = pd.DataFrame()
    for number, path in enumerate(paths):
        part = pd.read_csv(path)
        part["part"] = number  # remember which file a row came from
        combined = pd.concat([combined, part])
    return combined
""",
            idiom="""\
import pandas as pd


def load_tagged(paths: list) -> pd.DataFrame:
    parts = []
    for number, path in enumerate(paths):
        part = pd.read_csv(path)
        part["part"] = number  # remember which file a row came from
        parts.append(part)
    return pd.concat(parts)
""",
            setup=_CSV_SETUP,
            call="load_tagged(paths)",
        ),
        Example(
            source="""\
import cudf

events = cudf.DataFrame()
for day in ["mon", "tue", "wed"]:
    events = cudf.concat([events, cudf.read_parquet(f"events-{day}.parquet").dropna()])
""",
        ),
    )
    ok = (
        Example(
            """\
import pandas as pd


def load(paths):
    frames = []
    for path in paths:
        frames.append(pd.read_csv(path))
    return pd.concat(frames, ignore_index=True)
""",
            reason="Frames read in the loop are collected in a list and concatenated once.",
        ),
        Example(
            """\
import pandas as pd

totals = pd.DataFrame()
for chunk in pd.read_csv("big.csv", chunksize=10_000):
    totals = pd.concat([totals, chunk.groupby("store").sum()])
""",
            reason="Chunks of one file (`chunksize=`): one read, not one per iteration.",
        ),
        Example(
            """\
import pandas as pd

base = pd.read_csv("base.csv")
for path in ["q1.csv", "q2.csv"]:
    report = pd.concat([base, pd.read_csv(path)])
    report.to_csv("out-" + path)
""",
            reason="A concat whose result the loop does not carry to its next iteration.",
        ),
        Example(
            """\
import pandas as pd

sheets = {}
for path in ["a.xlsx", "b.xlsx"]:
    sheets[path] = pd.read_excel(path)
everything = pd.concat(sheets.values())
""",
            reason="Frames stored in a dict and concatenated once after the loop.",
        ),
        Example(
            """\
import pandas as pd

names = []
for path in ["a.csv", "b.csv"]:
    names = names + [path]
frame = pd.concat([pd.read_csv(path) for path in names])
""",
            reason="The loop grows a list of paths; the reads happen once, after it.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        growth = file_read_growth(node, ctx)  # type: ignore[arg-type]
        if growth is None:
            return
        name = ctx.segment(growth.target)
        ctx.report(
            node,
            (
                f"`{name}` is grown with files read one by one in a loop: read them into a list and `concat` "
                "once, or use one multi-file reader"
            ),
            context=ReadGrowth(lib=growth.lib, applicability=Applicability.DISPLAY),
        )
