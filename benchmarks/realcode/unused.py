"""Whether candidate repositories for a new blind set are new to gpulint's evidence.

    python -m benchmarks.realcode.unused OWNER/NAME [OWNER/NAME ...]

A repository is used when any list under `benchmarks/realcode/` names it (`repos.toml`, the
blind sets', the tier samples', the graph sets') or any text there or under
`benchmarks/results/` mentions it: a tier report's "looked at and left out" counts, since
gpulint's findings on it were seen. Prints one line per candidate (`used` with where, or
`new`); exit code 0 when all are new, 1 when some are used, 2 on bad input.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Where gpulint's evidence and its measurements are kept.
ROOTS = (HERE, HERE.parent / "results")
SUFFIXES = (".toml", ".md", ".csv", ".json")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")


def mentions(repository: str, roots: tuple[Path, ...] = ROOTS) -> list[Path]:
    """The files under `roots` that name `repository` (case-insensitive: GitHub's names are)."""
    wanted = repository.lower()
    found = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and wanted in path.read_text("utf-8", "replace").lower():
                found.append(path)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repositories", nargs="+", metavar="OWNER/NAME")
    options = parser.parse_args(argv)
    bad = [name for name in options.repositories if not NAME.match(name)]
    if bad:
        print(f"not an owner/name: {', '.join(bad)}", file=sys.stderr)
        return 2
    used = False
    for name in options.repositories:
        where = mentions(name)
        used = used or bool(where)
        if where:
            shown = ", ".join(str(path.relative_to(HERE.parent)) for path in where[:3])
            more = f" and {len(where) - 3} more" if len(where) > 3 else ""
            print(f"used  {name}: {shown}{more}")
        else:
            print(f"new   {name}")
    return 1 if used else 0


if __name__ == "__main__":
    sys.exit(main())
