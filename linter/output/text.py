"""Human-readable output: one line per finding, then a summary with fix hints."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from ..diagnostic import Applicability
from ..runner import FileResult


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def findings(results: Sequence[FileResult], unsafe_fixes: bool) -> list[str]:
    lines = []
    for result in results:
        for d in result.diagnostics:
            marker = " [*]" if d.fixable(unsafe_fixes) else ""
            lines.append(f"{result.display}:{d.start.line}:{d.start.col + 1}: {d.code}{marker} {d.message}")
    return lines


def summary(results: Sequence[FileResult], unsafe_fixes: bool, fixing: bool) -> list[str]:
    diagnostics = [d for r in results for d in r.diagnostics]
    applied = sum(len(r.applied) for r in results)
    lines = []
    if fixing and applied:
        files = sum(1 for r in results if r.applied)
        lines.append(f"Fixed {_plural(applied, 'finding')} in {_plural(files, 'file')}.")
    if not diagnostics:
        if not fixing or not applied:
            lines.append("All checks passed.")
        return lines
    files = sum(1 for r in results if r.diagnostics)
    lines.append(f"Found {_plural(len(diagnostics), 'finding')} in {_plural(files, 'file')}"
                 + (" (remaining)." if fixing and applied else "."))
    fixable = sum(1 for d in diagnostics if d.fixable(unsafe_fixes))
    hidden = sum(1 for d in diagnostics if not unsafe_fixes and d.fix is not None and d.fix.edits
                 and d.fix.applicability is Applicability.UNSAFE)
    if fixable and not fixing:
        lines.append(f"[*] {fixable} fixable with `gpulint check --fix`.")
    if hidden:
        lines.append(f"{_plural(hidden, 'more fix')} available with `--unsafe-fixes` "
                     "(they rewrite code whose result may differ in dtype or index; review them).")
    return lines


def statistics(results: Sequence[FileResult], unsafe_fixes: bool) -> list[str]:
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
    fixable: Counter[str] = Counter()
    for result in results:
        for d in result.diagnostics:
            counts[d.code] += 1
            names[d.code] = d.name
            fixable[d.code] += d.fixable(unsafe_fixes)
    width = max((len(str(c)) for c in counts.values()), default=1)
    return [
        f"{count:>{width}}  {code}  {'[*]' if fixable[code] else '   '}  {names[code]}"
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
