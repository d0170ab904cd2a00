"""Print a family's candidates: `python -m benchmarks.realcode.miners transfers`.

Options: `--corpus DIR` (default benchmarks/.corpus/realcode), `--rules GPU301,...`,
`--sample N --seed S` (a fixed-seed sample of N candidates per rule, spread over
repositories), `--csv` (rows in the label CSV's columns, verdict left empty).
"""

from __future__ import annotations

import argparse
import csv
import importlib
import random
import sys
from collections import defaultdict
from pathlib import Path

from benchmarks.realcode.miners import Candidate, mine

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / ".corpus" / "realcode"


def spread_sample(candidates: list[Candidate], size: int, seed: int) -> list[Candidate]:
    """Up to `size` candidates, taken round-robin over repositories (shuffled with `seed`),
    so that one large repository does not fill the sample."""
    rng = random.Random(seed)
    by_repo: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        by_repo[candidate.repo].append(candidate)
    pools = [rng.sample(group, len(group)) for _, group in sorted(by_repo.items())]
    rng.shuffle(pools)
    chosen: list[Candidate] = []
    while len(chosen) < size and any(pools):
        for pool in pools:
            if pool and len(chosen) < size:
                chosen.append(pool.pop())
    return sorted(chosen, key=lambda c: (c.repo, c.path, c.cell or 0, c.line))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.realcode.miners")
    parser.add_argument("family", help="miner module under benchmarks/realcode/miners (e.g. transfers)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rules", default="", help="comma-separated rule codes (default: all the family's)")
    parser.add_argument("--sample", type=int, default=0, help="candidates per rule (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", action="store_true", help="print label-CSV rows")
    args = parser.parse_args(argv)
    try:
        if not args.family.isidentifier():
            raise ImportError(args.family)
        module = importlib.import_module(f"benchmarks.realcode.miners.{args.family}")
        module.MINERS  # noqa: B018 - a family module must define MINERS
    except (ImportError, AttributeError):
        print(f"error: no miner module {args.family!r}", file=sys.stderr)
        return 2
    miners = dict(module.MINERS)
    if args.rules:
        wanted = [code.strip().upper() for code in args.rules.split(",") if code.strip()]
        unknown = [code for code in wanted if code not in miners]
        if unknown:
            print(f"error: {args.family} has no miner for {', '.join(unknown)}", file=sys.stderr)
            return 2
        miners = {code: miners[code] for code in wanted}
    if not args.corpus.is_dir():
        print(f"error: no corpus at {args.corpus} (run benchmarks/realcode/extract.py)", file=sys.stderr)
        return 2
    candidates = mine(args.corpus, miners)
    writer = csv.writer(sys.stdout) if args.csv else None
    if writer:
        writer.writerow(["repo", "path", "cell", "line", "code", "verdict", "source", "why", "snippet"])
    for code in miners:
        rows = [c for c in candidates if c.code == code]
        if args.sample:
            rows = spread_sample(rows, args.sample, args.seed)
        if not writer:
            print(f"# {code}: {sum(c.code == code for c in candidates)} candidates, {len(rows)} shown")
        for c in rows:
            if writer:
                writer.writerow([c.repo, c.path, c.cell or "", c.line, c.code, "", "miner", c.note, c.snippet])
            else:
                where = f"{c.path}:cell {c.cell}:{c.line}" if c.cell else f"{c.path}:{c.line}"
                print(f"{c.repo} {where}  [{c.note}]  {c.snippet}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
