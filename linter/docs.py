"""Rule documentation, generated from each rule's docstring and its own examples."""

from __future__ import annotations

from typing import Any

from .registry import DOC_SECTIONS, Rule, all_rules


def plain_summary(rule: type[Rule]) -> str:
    return rule.doc_sections().get("What it does", rule.message).replace("\n", " ")


def _code_block(code: str) -> str:
    return f"```python\n{code.strip(chr(10))}\n```"


def example_sections(rule: type[Rule]) -> tuple[str, str]:
    """The "Example" and "Use instead" sections: the rule's first flagged example and
    its fixed form (or documented idiom), unless the docstring gives its own."""
    sections = rule.doc_sections()
    first = rule.flagged[0] if rule.flagged else None
    example = sections.get("Example") or (_code_block(first.source) if first else "")
    use_instead = sections.get("Use instead") or (
        _code_block(first.rewrite) if first is not None and first.rewrite is not None else "")
    return example, use_instead


def render_markdown(rule: type[Rule]) -> str:
    sections = rule.doc_sections()
    example, use_instead = example_sections(rule)
    parts = [
        f"# {rule.name} ({rule.code})",
        f"Fix: {rule.fix.value} · Family: {rule.family() or 'file'} · Docs: {rule.url()}",
        f"Message: {rule.message}",
    ]
    if sections.get(""):
        parts.append(sections[""])
    for title in ("What it does", "Why is this bad?"):
        parts.append(f"## {title}\n{sections.get(title, '')}")
    if example:
        parts.append(f"## Example\n{example}")
    if use_instead:
        parts.append(f"## Use instead\n{use_instead}")
    parts.append(f"## Fix safety\n{sections.get('Fix safety', '')}")
    for title, body in sections.items():
        if title and title not in (*DOC_SECTIONS, "Example", "Use instead"):
            parts.append(f"## {title}\n{body}")
    measured = measured_speedup(rule)
    if measured:
        parts.append(f"## Measured speedup\n{measured}")
    return "\n\n".join(parts) + "\n"


def measured_speedup(rule: type[Rule]) -> str:
    """The rule's speedups as measured by `gpulint bench` (the committed results), as
    Markdown; empty when the rule has not been measured."""
    from .benchmarks.results import rule_section

    return rule_section(rule.code)


def rule_json(rule: type[Rule]) -> dict[str, Any]:
    example, use_instead = example_sections(rule)
    sections = rule.doc_sections()
    return {
        "code": rule.code,
        "name": rule.name,
        "family": rule.family() or "file",
        "message": rule.message,
        "fix": rule.fix.value,
        "url": rule.url(),
        "what_it_does": sections.get("What it does", ""),
        "why_is_this_bad": sections.get("Why is this bad?", ""),
        "example": example,
        "use_instead": use_instead,
        "fix_safety": sections.get("Fix safety", ""),
        "explanation": render_markdown(rule),
        "measured": _measurements(rule),
    }


def _measurements(rule: type[Rule]) -> list[dict[str, Any]]:
    from .benchmarks.results import rule_measurements

    return rule_measurements(rule.code)


def rule_table() -> str:
    """The Markdown rule table the README carries (kept in sync by a test)."""
    lines = ["| Code | Name | What it flags | Fix |", "|---|---|---|---|"]
    for rule in all_rules():
        lines.append(f"| {rule.code} | `{rule.name}` | {rule.message} | {rule.fix.value} |")
    return "\n".join(lines)


EXAMPLES_COMMAND = ("gpulint", "check", "examples/")


def examples_output(root: str) -> str:
    """What `gpulint check examples/` prints in the project folder `root`."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "gpulint", *EXAMPLES_COMMAND[1:]]
    run = subprocess.run(command, cwd=root, capture_output=True, text=True)
    return f"$ {' '.join(EXAMPLES_COMMAND)}\n{run.stdout}".rstrip("\n")


def marked_block(text: str, marker: str) -> str:
    """The text between `<!-- marker:start -->` and `<!-- marker:end -->`."""
    return text.split(f"<!-- {marker}:start -->", 1)[1].split(f"<!-- {marker}:end -->", 1)[0]


def _replace_block(text: str, marker: str, body: str) -> str:
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}\n{end}{tail}"


#: The committed CPU benchmark run the README's "Why these rules matter" table shows.
BENCH_RESULTS, BENCH_PLOT = "benchmarks/results/cpu.json", "benchmarks/results/cpu.png"


def bench_block(root: str) -> str | None:
    """The README's benchmark table, from the committed results under the project folder
    `root` (None when there are none)."""
    from pathlib import Path

    from .benchmarks.report import readme_block
    from .benchmarks.results import ResultsError, load

    try:
        run = load(Path(root) / BENCH_RESULTS)
    except ResultsError:
        return None
    return readme_block(run, BENCH_PLOT if (Path(root) / BENCH_PLOT).is_file() else None)


def update_readme(path: str) -> bool:
    """Regenerate the README's rule table and example output; True if it changed."""
    from pathlib import Path

    readme = Path(path)
    text = readme.read_text(encoding="utf-8")
    new = _replace_block(text, "rules", rule_table())
    new = _replace_block(new, "output", f"```text\n{examples_output(str(readme.resolve().parent))}\n```")
    bench = bench_block(str(readme.resolve().parent))
    if bench is not None and "<!-- bench:start -->" in new:
        new = _replace_block(new, "bench", bench)
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":  # `python -m gpulint.docs [README.md]`: print or update the rule table
    import sys

    if len(sys.argv) > 1:
        print("updated" if update_readme(sys.argv[1]) else "up to date")
    else:
        print(rule_table())
