"""Draw the seeded sample of readiness verdicts checked by hand (see README.md).

    gpulint readiness CHECKOUTS --output-format json > readiness.json
    python -m benchmarks.realcode.readiness.sample readiness.json > drawn.csv

Each folder under CHECKOUTS is named `owner+name` (the repository) and holds its Python files
and notebooks at the commit the README names.
"""

from __future__ import annotations

import csv
import json
import random
import sys
from pathlib import Path

SEED = 32
WANTED = (("gpu", 30), ("fallback", 20), ("undecided", 10))


def main(argv: list[str]) -> int:
    data = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    pools: dict[str, list[tuple[str, dict]]] = {verdict: [] for verdict, _ in WANTED}
    for item in data["files"]:
        for op in item["operations"]:
            if op["verdict"] in pools:
                pools[op["verdict"]].append((item["path"], op))
    rng = random.Random(SEED)
    out = csv.writer(sys.stdout)
    out.writerow(["repo", "path", "cell", "line", "col", "what", "code", "verdict", "reasons", "sources"])
    for verdict, count in WANTED:
        pool = sorted(pools[verdict], key=lambda x: (x[0], x[1]["cell"] or 0, x[1]["line"], x[1]["col"]))
        for path, op in rng.sample(pool, min(count, len(pool))):
            repo, relative = path.split("/", 1)
            out.writerow(
                [
                    repo.replace("+", "/"),
                    relative,
                    op["cell"] or "",
                    op["line"],
                    op["col"],
                    op["what"],
                    op["code"],
                    verdict,
                    "; ".join(r["text"] for r in op["reasons"]),
                    "; ".join(r["source"] or "" for r in op["reasons"]),
                ]
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
