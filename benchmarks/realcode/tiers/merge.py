"""Join the checked random draw and the checked per-rule draw of the tier sample into the one
sample file that `usefulness.py report` reads.

    python -m benchmarks.realcode.tiers.merge [--output benchmarks/realcode/tiers/usefulness.csv]

`random.csv` (from `usefulness.py random`) and `per_rule.csv` (from `usefulness.py draw`)
share their format; a finding drawn by both must have the same verdict and reason in
both. The places of the random draw stay in `usefulness_random_seed*.csv` beside the
sample, where `report` finds them. Exit codes: 0 written, 2 a file is malformed or the
two files disagree.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.realcode.usefulness import UsefulnessError, read_sample, row_key, write_sample

HERE = Path(__file__).resolve().parent
INPUTS = (HERE / "random.csv", HERE / "per_rule.csv")
DEFAULT_OUTPUT = HERE / "usefulness.csv"


def merge(paths: tuple[Path, ...]) -> list[dict[str, str]]:
    """The rows of every file, one per finding; UsefulnessError where two verdicts differ."""
    rows: dict[object, dict[str, str]] = {}
    for path in paths:
        for record in read_sample(path):
            key = row_key(record)
            known = rows.setdefault(key, record)
            if (known["verdict"], known["why"]) != (record["verdict"], record["why"]):
                raise UsefulnessError(f"{path}: {key} has another verdict or reason than before")
    return list(rows.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    try:
        rows = merge(INPUTS)
    except UsefulnessError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    write_sample(args.output, rows)
    print(f"{len(rows)} checked findings written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
