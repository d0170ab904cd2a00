"""Match the hand-found fallbacks of `fallbacks.csv` with `gpulint readiness` verdicts (see README.md).

    gpulint readiness CHECKOUTS --output-format json > readiness.json
    python -m benchmarks.realcode.readiness.targeted readiness.json [fallbacks.csv]

Each row of the CSV is one place (repository, path, notebook cell, line) where an operation falls
back, raises or runs on the CPU under cudf.pandas; `why` starts with its cause, up to the first
": ". A row is *named* where gpulint reports the same operation at that place as fallback,
cpu_in_cudf, breaks_pandas3 or cpu_by_design; gpu and undecided are misses, and so is an
operation gpulint does not count. Prints the counts (all, per cause) and every miss, as Markdown.
"""

from __future__ import annotations

import csv
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMED = frozenset({"fallback", "cpu_in_cudf", "breaks_pandas3", "cpu_by_design"})
NOT_COUNTED = "not counted"
# gpulint's name for an operation where it differs from the row's.
ALIASES = {"transpose": frozenset({"transpose", "T"})}


@dataclass(frozen=True)
class Row:
    repo: str
    path: str
    cell: int | None
    line: int
    operation: str
    cause: str
    why: str
    source: str

    @property
    def method(self) -> str:
        return self.operation.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Match:
    row: Row
    verdict: str
    what: str
    reason: str

    @property
    def named(self) -> bool:
        return self.verdict in NAMED


def load_rows(path: Path) -> list[Row]:
    rows = []
    with path.open(encoding="utf-8", newline="") as handle:
        for record in csv.DictReader(handle):
            cause, _, why = record["why"].partition(": ")
            rows.append(
                Row(
                    record["repo"],
                    record["path"],
                    int(record["cell"]) if record["cell"] else None,
                    int(record["line"]),
                    record["operation"],
                    cause,
                    why,
                    record["cudf_source"],
                )
            )
    return rows


def index_operations(report: dict) -> dict[tuple[str, int | None, int], list[dict]]:
    """Operations by (`owner+name/path`, cell, line); absolute paths are cut to that form."""
    places: dict[tuple[str, int | None, int], list[dict]] = {}
    for item in report["files"]:
        parts = Path(item["path"]).parts
        owner = next((i for i, part in enumerate(parts) if "+" in part), 0)
        relative = "/".join(parts[owner:])
        for op in item["operations"]:
            if op["library"] == "cudf":
                places.setdefault((relative, op["cell"], op["line"]), []).append(op)
    return places


def match(row: Row, places: dict[tuple[str, int | None, int], list[dict]]) -> Match:
    key = (row.repo.replace("/", "+") + "/" + row.path, row.cell, row.line)
    names = ALIASES.get(row.method, frozenset({row.method}))
    for op in places.get(key, []):
        if op["what"].rsplit(".", 1)[-1] in names:
            reason = "; ".join(r["text"] for r in op["reasons"])
            return Match(row, op["verdict"], op["what"], reason)
    return Match(row, NOT_COUNTED, "", "")


def report_markdown(matches: list[Match]) -> str:
    named = sum(m.named for m in matches)
    lines = [f"Named: **{named} of {len(matches)}** ({100 * named / len(matches):.1f}%).", ""]
    lines += ["| Cause | Rows | Named | Missed |", "|---|---|---|---|"]
    totals = Counter(m.row.cause for m in matches)
    hits = Counter(m.row.cause for m in matches if m.named)
    for cause, total in totals.most_common():
        lines.append(f"| {cause} | {total} | {hits[cause]} | {total - hits[cause]} |")
    verdicts = Counter(m.verdict for m in matches)
    lines += ["", "Verdicts given: " + ", ".join(f"{v} {n}" for v, n in verdicts.most_common()) + "."]
    misses = [m for m in matches if not m.named]
    if misses:
        lines += ["", "| Place | Operation | gpulint | Cause | Why it falls back |", "|---|---|---|---|---|"]
        for m in misses:
            place = f"{m.row.repo}: {m.row.path}" + (f" cell {m.row.cell}" if m.row.cell else "")
            lines.append(f"| {place}:{m.row.line} | `{m.row.operation}` | {m.verdict} | {m.row.cause} | {m.row.why} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    report = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    rows = load_rows(Path(argv[1]) if len(argv) == 2 else HERE / "fallbacks.csv")
    places = index_operations(report)
    print(report_markdown([match(row, places) for row in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
