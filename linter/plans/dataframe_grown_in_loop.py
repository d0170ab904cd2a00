"""What GPU101 dataframe-grown-in-loop hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast
from dataclasses import dataclass, field

from ..diagnostic import Applicability, Facts
from .frame_growth import Growth


@dataclass(frozen=True)
class LoopSite:
    """One loop enclosing a growth statement (outermost first), with what precedes it."""

    loop: ast.stmt
    #: The statement before the loop, in the same block, that last binds the grown name
    #: (with nothing in between mentioning it), if there is one.
    init: ast.Assign | None = None
    #: `init` is `<frame library>.DataFrame(...)`/`.Series(...)` with no data: empty, RangeIndex.
    init_fresh: bool = False
    #: "DataFrame" or "Series" when `init_fresh`.
    init_kind: str = ""
    #: The start's column labels, in order, where `init` spells them out as string constants
    #: (`pd.DataFrame()`, `pd.DataFrame(columns=["a", "b"])`, `pd.DataFrame({"a": [...]})`).
    init_columns: tuple[str, ...] | None = None
    #: The loop runs its body at least once (`range(3)`, a non-empty literal, `while True`).
    runs_once: bool = False


@dataclass(frozen=True)
class RowPiece:
    """A new piece of a pandas `concat` growth that is a one-row frame literal built in the
    loop: `pd.DataFrame({"a": [x], "b": [y]})`, `pd.DataFrame([{"a": x, "b": y}])` or
    `pd.DataFrame([[x, y]], columns=["a", "b"])` (string-constant labels, each once), as it
    is in the `concat` or through a name bound to it earlier in the same block."""

    literal: ast.Call  # the `DataFrame(...)` call
    columns: tuple[ast.expr, ...]  # the label constants, in order
    values: tuple[ast.expr, ...]  # the value of each column in the row
    #: `name = DataFrame(...)` when the concat names the piece (a statement of the growth
    #: statement's block, before it); None when the literal is in the concat itself.
    binding: ast.Assign | None = None
    #: The statements between `binding` and the growth statement.
    between: tuple[ast.stmt, ...] = ()


@dataclass(frozen=True)
class CollectPlan:
    """How the growth becomes list building: a list created just before `site.loop` (the
    outermost enclosing loop of the function in which the grown name is used by nothing but
    the growth statement, so nested loops are collected into one list), the growth statement
    replaced by an append to it, and the frame built once after that loop."""

    #: "parts" (concat of the pieces), "rows" (DataFrame of dict rows), "loc" (DataFrame of
    #: the `.loc` rows) or "records" (one-row frame literals collected as dict rows; where
    #: they cannot be written out, "parts" applies instead, with the same applicability)
    mode: str
    name: str  # the grown name
    pieces: tuple[ast.expr, ...]  # what the loop appends ("parts": frames; else rows)
    site: LoopSite
    ignore_index: bool = False  # the call renumbers the rows
    prepend: bool = False  # `concat([piece, frame])`: the list is reversed at the end
    keywords: tuple[ast.keyword, ...] = ()  # kept for the call after the loop
    #: "records": the one-row literals (`RowPiece`), in order.
    rows: tuple[RowPiece, ...] = ()


@dataclass(frozen=True, kw_only=True)
class GrowthFacts(Facts):
    """What the rule decided about one growth statement, the fixer's input: `applicability`
    is SAFE or UNSAFE where `plan` applies, DISPLAY where no rewrite does."""

    applicability: Applicability = field(kw_only=True)
    growth: Growth
    plan: CollectPlan | None
    #: The advice shown where no rewrite is applied.
    suggestion: str
