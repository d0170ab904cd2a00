"""Fixer for GPU108 read-in-loop: a display-only suggestion, worded for the frame library."""

from __future__ import annotations

from gpulint.diagnostic import Diagnostic
from gpulint.fixing import FixContext, Plan, suggestion
from gpulint.plans.read_in_loop import ReadGrowth

SUGGESTION = (
    "append each frame read to a list in the loop and `concat` the list once after it "
    "(`pd.concat([pd.read_csv(p) for p in paths])`); `dask.dataframe.read_csv(paths)` reads the files in parallel"
)
SUGGESTIONS = {
    "cudf": (
        "read every file in one call (`cudf.read_parquet(paths)` / `cudf.read_csv` per file into a list, "
        "then one `cudf.concat`): one device allocation instead of one per file"
    ),
    "dask": (
        "give the reader every path at once (`dd.read_csv(paths)` or a glob): one partition per file, "
        "read in parallel, no `concat` needed"
    ),
}


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan:
    facts = diagnostic.context
    lib = facts.lib if isinstance(facts, ReadGrowth) else ""
    return suggestion(SUGGESTIONS.get(lib, SUGGESTION))
