"""Peak memory of `gpulint check` on one large, realistic data-science file.

The file is built by repeating the bodies of the bundled `examples/*.py` until it has
`--lines` lines: each copy becomes one function (`sales_report_12`), with the functions it
defines renamed likewise, the way a large analysis module is a long list of functions. gpulint runs in a
subprocess; its peak resident set size is read with `resource.getrusage(RUSAGE_CHILDREN)`.

Usage:
    python benchmarks/memory_large_file.py [--lines 200000] [--fix] [--unsafe-fixes] [--keep DIR]

Nothing is asserted: the script prints the file's size, the exit code, the wall time and
the peak RSS, so runs before and after a change can be compared.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)", re.MULTILINE)


def large_source(lines: int) -> str:
    """Copies of the example scripts, each wrapped in a function; names get the copy's number."""
    bodies = [(path.stem, path.read_text(encoding="utf-8")) for path in sorted(EXAMPLES.glob("*.py"))]
    if not bodies:
        raise SystemExit(f"no examples found under {EXAMPLES}")
    chunks: list[str] = []
    count = 0
    copy = 0
    while count < lines:
        for stem, body in bodies:
            names = set(_DEF.findall(body))
            if names:
                pattern = re.compile(r"\b(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b")
                body = pattern.sub(lambda match, copy=copy: f"{match.group(1)}_{copy}", body)
            body = f"def {stem}_{copy}():\n" + textwrap.indent(body, "    ")
            chunks.append(body if body.endswith("\n") else body + "\n")
            count += body.count("\n") + 1
            if count >= lines:
                break
        copy += 1
    return "\n".join(chunks)


def measure(path: Path, extra: list[str]) -> tuple[int, float, int]:
    """Exit code, wall seconds and peak RSS (bytes) of one `gpulint check` run."""
    command = [sys.executable, "-m", "gpulint", "check", "--quiet", "--exit-zero", *extra, str(path)]
    start = time.perf_counter()
    process = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if process.returncode not in (0, 1):
        sys.stderr.write(process.stderr.decode(errors="replace"))
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    return process.returncode, elapsed, peak_kib * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--fix", action="store_true", help="run with --fix (the file is a scratch copy)")
    parser.add_argument("--unsafe-fixes", action="store_true")
    parser.add_argument("--keep", type=Path, help="write the generated file into this folder and keep it")
    options = parser.parse_args()
    extra = (["--fix"] if options.fix else []) + (["--unsafe-fixes"] if options.unsafe_fixes else [])
    with tempfile.TemporaryDirectory() as scratch:
        folder = options.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "large_analysis.py"
        text = large_source(options.lines)
        path.write_text(text, encoding="utf-8")
        code, elapsed, peak = measure(path, extra)
    print(f"file: {text.count(chr(10))} lines, {len(text.encode()) / 1e6:.1f} MB")
    print(f"command: gpulint check --quiet --exit-zero {' '.join(extra)} FILE".replace("  ", " "))
    print(f"exit code: {code}, wall: {elapsed:.1f} s")
    print(f"peak RSS: {peak / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
