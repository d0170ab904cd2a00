"""Start-up: the CPU time of `gpulint check` of one small file, against a bare interpreter.

Pre-commit runs gpulint on a few files at a time, so the interpreter's start and gpulint's
imports are most of what a user waits for. For each interpreter given (a virtual
environment's `python` with gpulint installed), the runs alternate between
`python -c "import ast"` and `python -m gpulint check --no-cache FILE`, and the medians of
the CPU time (user and system) are compared: alternating spreads a busy machine's noise over
both.

    python -m benchmarks.startup --python /tmp/before/bin/python --python /tmp/after/bin/python
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path

#: A small file that names a data library, so that it is walked by the rules it selects.
SMALL_FILE = 'import pandas as pd\n\n\ndef total(frame):\n    return frame["a"].sum()\n'


def cpu_seconds(argv: list[str], cwd: Path) -> float:
    """The CPU time of one run of `argv`, with the interpreter writing and reading bytecode."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(pythons: list[str], runs: int, source: str) -> list[tuple[str, float, float]]:
    """(interpreter, median seconds of `import ast`, median seconds of the check) for each."""
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        (cwd / "small.py").write_text(source, encoding="utf-8")
        commands = {
            python: ([python, "-c", "import ast"], [python, "-m", "gpulint", "check", "--no-cache", "small.py"])
            for python in pythons
        }
        times: dict[str, tuple[list[float], list[float]]] = {python: ([], []) for python in pythons}
        for bare, check in commands.values():  # bytecode written, caches warm
            cpu_seconds(bare, cwd)
            cpu_seconds(check, cwd)
        for _ in range(runs):
            for python, (bare, check) in commands.items():
                times[python][0].append(cpu_seconds(bare, cwd))
                times[python][1].append(cpu_seconds(check, cwd))
    return [(python, statistics.median(bare), statistics.median(check)) for python, (bare, check) in times.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", action="append", required=True, help="an interpreter with gpulint installed")
    parser.add_argument("--runs", type=int, default=31, help="runs of each command (default 31)")
    options = parser.parse_args()
    print("| Interpreter | `import ast` | `gpulint check` of a small file | Ratio |")
    print("|---|---:|---:|---:|")
    for python, bare, check in measure(options.python, options.runs, SMALL_FILE):
        print(f"| `{python}` | {bare * 1000:.0f} ms | {check * 1000:.0f} ms | {check / bare:.1f}x |")


if __name__ == "__main__":
    main()
