"""Writing a report script's results: one way for every script under `benchmarks/` that
prints a report and may also write it (and other files) to disk."""

from __future__ import annotations

import sys
from pathlib import Path


def write_files(*files: tuple[Path | None, str]) -> bool:
    """Write each `(path, text)` whose path is given, making its folder; on a refusal say so
    on stderr and stop: False (the script then exits 2)."""
    for path, text in files:
        if path is None:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            print(f"error: cannot write {path}: {error}", file=sys.stderr)
            return False
    return True
