"""What GPU107 chained-assignment hands its fixer: the plan it decided for one finding."""

from __future__ import annotations
import ast

from ..diagnostic import Applicability, Facts


class ChainedWrite(Facts):
    """A subscript assignment `target` that writes into a temporary taken from `frame`.

    Shapes: "column-item" (`df["c"][k]`), "column-indexer" (`df["c"].loc[k]`, also `.at`,
    `.iloc`, `.iat`), "row-column" (`df.loc[r]["c"]`, also `.iloc`), "mask-column"
    (`df[mask]["c"]`), "columns-copy" (`df[["a", "b"]][...]`), "slice-column" (`df[a:b]["c"]`). `indexer` is the named
    indexer of the chain ("" for none). `label`: the column's label where the chain reads it
    as an attribute (`df.price[k]`, `df[mask].price`; `column` is then that attribute).

    A slots class rather than a frozen dataclass (start-up: a default rule's facts)."""

    __slots__ = ("shape", "frame", "rows", "column", "indexer", "target", "label")

    shape: str
    frame: ast.expr
    rows: ast.expr | None
    column: ast.expr
    indexer: str
    target: ast.expr
    label: str

    def __init__(
        self,
        shape: str,
        frame: ast.expr,
        rows: ast.expr | None,
        column: ast.expr,
        indexer: str,
        target: ast.expr,
        *,
        applicability: Applicability,
        label: str = "",
    ) -> None:
        super().__init__(applicability=applicability)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "frame", frame)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "column", column)
        object.__setattr__(self, "indexer", indexer)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "label", label)
