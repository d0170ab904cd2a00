"""Rule documentation, generated from each rule's docstring and its own examples: the
text `gpulint rule CODE` prints, the README's tables, and the pages of the docs site
(`mkdocs.yml`, whose hook adds the pages made here to the hand-written ones in `docs/`).

Speed figures in a rule's prose are never typed by hand: the docstring says
`{speedup:10000}` (or `{before:N}`, `{after:N}`, optionally `{speedup:N:backend}`) and the
figure measured at that size in the committed benchmark results is put in its place.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any
from collections.abc import Callable
from urllib.parse import urlsplit

from .registry import DOC_SECTIONS, DOCS_HOME, Applicability, Rule, Tier, all_rules
from .rule_base import NOT_FLAGGED


def plain_summary(rule: type[Rule]) -> str:
    return doc_sections(rule).get("What it does", rule.message).replace("\n", " ")


#: `{speedup:10000}`, `{before:1_000}`, `{after:100000:numpy}`: a figure from the committed results.
FIGURE = re.compile(r"\{(speedup|before|after):(\d[\d_]*)(?::([a-z][a-z-]*))?\}")


def measured_figure(code: str, kind: str, n: int, backend: str | None = None) -> str | None:
    """What the committed results measured for rule `code` at size `n`: its speedup
    ("600x", or "over 1,300x" when the flagged code was interrupted), or the time `before`
    or `after` the rewrite. The first committed run and backend that measured it (the CPU
    run first) unless `backend` names one; None when nothing was measured there."""
    from .benchmarks.results import format_seconds, format_speedup, measured

    for _, sweep in measured(code):
        if backend is not None and sweep.backend != backend:
            continue
        for point in sweep.points:
            if point.n != n:
                continue
            if kind == "speedup" and point.speedup is not None:
                return format_speedup(point.speedup)
            if kind == "speedup" and point.speedup_at_least is not None:
                return f"over {format_speedup(point.speedup_at_least)}"
            seconds = point.before if kind == "before" else point.after if kind == "after" else None
            if seconds is not None:
                return format_seconds(seconds)
    return None


def fill_figures(text: str, code: str) -> str:
    """`text` with each figure placeholder replaced by the measured figure (a placeholder
    the results do not cover is left as it is; the tests require that none is)."""

    def figure(match: re.Match[str]) -> str:
        kind, n, backend = match.groups()
        return measured_figure(code, kind, int(n.replace("_", "")), backend) or match.group(0)

    return FIGURE.sub(figure, text)


def doc_sections(rule: type[Rule]) -> dict[str, str]:
    """The rule docstring's sections, with the measured figures filled in."""
    return {title: fill_figures(body, rule.code) for title, body in rule.doc_sections().items()}


def _code_block(code: str) -> str:
    return f"```python\n{code.strip(chr(10))}\n```"


def example_sections(rule: type[Rule]) -> tuple[str, str]:
    """The "Example" and "Use instead" sections: the rule's first flagged example and
    its fixed form (or documented idiom), unless the docstring gives its own."""
    sections = doc_sections(rule)
    first = rule.flagged[0] if rule.flagged else None
    example = sections.get("Example") or (_code_block(first.source) if first else "")
    use_instead = sections.get("Use instead") or (
        _code_block(first.rewrite) if first is not None and first.rewrite is not None else ""
    )
    return example, use_instead


def render_markdown(rule: type[Rule]) -> str:
    """The rule's documentation as `gpulint rule CODE` prints it."""
    head = [
        f"# {rule.name} ({rule.code})",
        f"Fix: {rule.fix_label()} · Family: {rule.family() or 'file'} · Docs: {rule.url()}",
        f"Message: {rule.message}",
        f"Tier: {tier_text(rule)}.\nWhy this tier: {tier_reason_text(rule)}",
    ]
    return "\n\n".join(head + _body_parts(rule)) + "\n"


def tier_reason_text(rule: type[Rule]) -> str:
    """Why the rule is in its tier, as one sentence."""
    reason = rule.tier_reason.strip()
    return reason if reason.endswith(".") else f"{reason}."


def not_flagged_text(rule: type[Rule]) -> str:
    """The "Not flagged" section: what the rule leaves alone, one bullet a near-miss reason."""
    return "\n".join(f"- {reason}" for reason in rule.not_flagged())


def _body_parts(rule: type[Rule]) -> list[str]:
    """The documentation's sections, from "What it does" to "Measured speedup"."""
    sections = doc_sections(rule)
    example, use_instead = example_sections(rule)
    parts = []
    if sections.get(""):
        parts.append(sections[""])
    parts.append(f"## What it does\n{sections.get('What it does', '')}")
    if sections.get("Evidence"):
        parts.append(f"## Evidence\n{sections['Evidence']}")
    parts.append(f"## Why is this bad?\n{sections.get('Why is this bad?', '')}")
    if example:
        parts.append(f"## Example\n{example}")
    if use_instead:
        parts.append(f"## Use instead\n{use_instead}")
    not_flagged = not_flagged_text(rule)
    if not_flagged:
        parts.append(f"## {NOT_FLAGGED}\n{not_flagged}")
    parts.append(f"## Fix safety\n{sections.get('Fix safety', '')}")
    for title, body in sections.items():
        if title and title not in (*DOC_SECTIONS, "Evidence", "Example", "Use instead", NOT_FLAGGED):
            parts.append(f"## {title}\n{body}")
    measured = measured_speedup(rule)
    if measured:
        parts.append(f"## Measured speedup\n{measured}")
    return parts


def measured_speedup(rule: type[Rule]) -> str:
    """The rule's speedups as measured by `gpulint bench` (the committed results), as
    Markdown; empty when the rule has not been measured."""
    from .benchmarks.results import rule_section

    # a rule whose cost is a device's wait says so in "On a CPU": no CPU figure as its headline
    return rule_section(rule.code, cpu_headline="On a CPU" not in rule.doc_sections())


def rule_json(rule: type[Rule]) -> dict[str, Any]:
    example, use_instead = example_sections(rule)
    sections = doc_sections(rule)
    return {
        "code": rule.code,
        "name": rule.name,
        "family": rule.family() or "file",
        "message": rule.message,
        "fix": rule.fix_label(),
        "tier": rule.tier.value,
        "tier_reason": rule.tier_reason,
        "preview_behaviour": rule.preview_behaviour,
        "url": rule.url(),
        "what_it_does": sections.get("What it does", ""),
        "evidence": sections.get("Evidence", ""),
        "not_flagged": rule.not_flagged(),
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


def rule_table(link: Callable[[type[Rule]], str] | None = None) -> str:
    """The Markdown rule table the README carries (kept in sync by a test); with `link`,
    each rule's name links to what `link(rule)` returns."""
    lines = ["| Code | Name | What it flags | Fix | Tier |", "|---|---|---|---|---|"]
    for rule in all_rules():
        name = f"[`{rule.name}`]({link(rule)})" if link else f"`{rule.name}`"
        lines.append(f"| {rule.code} | {name} | {rule.message} | {rule.fix_label()} | {rule.tier.value} |")
    return "\n".join(lines)


#: The commands whose output the README shows: one example in the default (`full`) format,
#: then every example one line a finding, preview rules included (the whole of
#: `gpulint check examples/` in full would be some 400 lines).
EXAMPLES_COMMANDS = (
    ("gpulint", "check", "examples/train_loop.py"),
    ("gpulint", "check", "--preview", "--output-format", "concise", "examples/"),
)


def examples_output(root: str) -> str:
    """What the `EXAMPLES_COMMANDS` print in the project folder `root`, as a reader's
    terminal shows it: no format or colour chosen by the environment."""
    import os
    import subprocess
    import sys

    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("GPULINT_OUTPUT_FORMAT", "FORCE_COLOR", "NO_COLOR")
    }
    parts = []
    for command in EXAMPLES_COMMANDS:
        run = subprocess.run(
            [sys.executable, "-m", "gpulint", *command[1:]], cwd=root, capture_output=True, text=True, env=env
        )
        parts.append(f"$ {' '.join(command)}\n{run.stdout}".rstrip("\n"))
    return "\n\n".join(parts)


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


def bench_block(root: str, plot: str = BENCH_PLOT) -> str | None:
    """The README's benchmark table, from the committed results under the project folder
    `root` (None when there are none), showing the committed plot as `plot`."""
    from pathlib import Path

    from .benchmarks.report import readme_block
    from .benchmarks.results import ResultsError, load

    try:
        run = load(Path(root) / BENCH_RESULTS)
    except ResultsError:
        return None
    return readme_block(run, plot if (Path(root) / BENCH_PLOT).is_file() else None)


#: The committed run of the real-code speed benchmark the README's speed table shows.
SPEED_RESULTS = "benchmarks/results/engine_speed_realcode.json"


def speed_block(root: str) -> str | None:
    """The README's linting-speed table, from the committed real-code results under the
    project folder `root` (None when there are none)."""
    import json
    from pathlib import Path

    from .benchmarks.engine_speed import speed_markdown

    try:
        payload = json.loads((Path(root) / SPEED_RESULTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return speed_markdown(payload)


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
    speed = speed_block(str(readme.resolve().parent))
    if speed is not None and "<!-- speed:start -->" in new:
        new = _replace_block(new, "speed", speed)
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


# -- the docs site ---------------------------------------------------------------------------

#: What each fix tier means for the user, as a rule's page says it.
FIX_TIERS = {
    Applicability.SAFE: "safe: `gpulint check --fix` applies it",
    Applicability.UNSAFE: (
        'unsafe: `gpulint check --fix --unsafe-fixes` applies it; the result may differ only as "Fix safety" says'
    ),
    Applicability.DISPLAY: "display-only: the rewrite is shown as a suggestion, never applied",
    None: "none: gpulint explains the finding but offers no rewrite",
}

#: Which selections run a rule of each tier, as its page and `gpulint rule` say it.
RULE_TIERS = {
    Tier.DEFAULT: "default: runs unless deselected",
    Tier.PREVIEW: (
        "preview: still being tuned; runs only in preview mode (`--preview`, `preview = true`), "
        "when the selection picks it"
    ),
    Tier.OPT_IN: "opt-in: runs only when selected by its exact code or name, or by `ALL`",
}


def tier_text(rule: type[Rule]) -> str:
    """Which selections run `rule`, and what its preview behaviour adds in preview mode."""
    text = RULE_TIERS[rule.tier]
    if rule.preview_behaviour:
        text += f"; in preview mode it also {rule.preview_behaviour}"
    return text


#: The docs site's page with the rule table (its sources' path; the rule pages sit beside it).
RULES_INDEX = "rules/index.md"
#: Where the committed benchmark plot is copied in the site, beside `benchmarks.md`, which shows it.
SITE_BENCH_PLOT = "cpu.png"


def site_path(url: str) -> str:
    """The source page of the docs site that a docs URL is built from: the URL's path under
    `DOCS_HOME` (`https://gpulint.dev/rules/iterrows-loop/` -> `rules/iterrows-loop.md`)."""
    home, path = urlsplit(DOCS_HOME).path, urlsplit(url).path
    if not url.startswith(DOCS_HOME) or not path.endswith("/"):
        raise ValueError(f"{url} is not a page under {DOCS_HOME}")
    page = path[len(home) :].rstrip("/")
    return f"{page}.md" if page else "index.md"


def _link(target: str, source: str) -> str:
    """The relative link from one source page to another (MkDocs resolves and checks it)."""
    return posixpath.relpath(target, posixpath.dirname(source) or ".")


def rule_page(rule: type[Rule], plot: str | None = None) -> str:
    """A rule's page of the docs site: its documentation, fix tier and measured speedups
    (with `plot`, the speedup plot's path relative to the page, when there is one)."""
    index = _link(RULES_INDEX, site_path(rule.url()))
    head = [
        f"# {rule.name} ({rule.code})",
        f"**Fix**: {FIX_TIERS[rule.fix]}.  \n**Tier**: {tier_text(rule)}.  \n"
        f"**Why this tier**: {tier_reason_text(rule)}  \n"
        f"**Family**: {rule.family() or 'file'} "
        f"([all rules]({index}))  \n**Message**: {rule.message}",
    ]
    parts = head + _body_parts(rule)
    if plot:
        parts.append(f"![{rule.code}: speedup of the rewrite against N]({plot})")
    return "\n\n".join(parts) + "\n"


def rule_pages() -> list[tuple[str, str, str]]:
    """Each rule's code, name and page (source path) in the docs site."""
    return [(rule.code, rule.name, site_path(rule.url())) for rule in all_rules()]


def rules_index() -> str:
    """The docs site's rule table, each rule linking to its page."""
    lines = [
        "# Rules",
        "",
        "Every rule gpulint has, with the best fix it can offer: *safe* fixes are applied by "
        "`--fix`, *unsafe* ones by `--fix --unsafe-fixes`, *display-only* ones are shown, never "
        "applied. Each page shows the measured speedup of the rewrite. The tier says which "
        "selections run a rule: *default* rules run unless deselected, *preview* rules only with "
        "`--preview`, *opt-in* rules only when selected by code or name (see the configuration "
        'page\'s "Rule tiers").',
        "",
        rule_table(lambda rule: _link(site_path(rule.url()), RULES_INDEX)),
    ]
    return "\n".join(lines) + "\n"


def rule_plot(code: str) -> bytes | None:
    """The speedup plot of one rule from the committed results (PNG), drawn by the same code
    as `gpulint bench`'s plot; None when it was not measured or matplotlib is missing."""
    import tempfile
    from dataclasses import replace
    from pathlib import Path

    from .benchmarks.report import plot
    from .benchmarks.results import committed

    for _, run in committed():
        sweeps = [s for s in run.sweeps if s.code == code and s.status == "ok" and s.points]
        if not sweeps:
            continue
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"{code}.png"
            return path.read_bytes() if plot(replace(run, sweeps=sweeps), path) else None
    return None


def site_files() -> dict[str, str | bytes]:
    """The generated part of the docs site, by source path: the rule table, one page per
    rule (at the path of its URL) with its plot, and the committed benchmark plot."""
    from .benchmarks.results import COMMITTED

    files: dict[str, str | bytes] = {RULES_INDEX: rules_index()}
    committed_plot = COMMITTED.parent.parent / BENCH_PLOT
    if committed_plot.is_file():
        files[SITE_BENCH_PLOT] = committed_plot.read_bytes()
    for rule in all_rules():
        page = site_path(rule.url())
        image = rule_plot(rule.code)
        plot = None
        if image is not None:
            plot_path = page[: -len(".md")] + ".png"
            files[plot_path] = image
            plot = _link(plot_path, page)
        files[page] = rule_page(rule, plot)
    return files


def site_bench_block() -> str:
    """The committed benchmark table for the docs site's benchmark page (the README's)."""
    from .benchmarks.results import COMMITTED

    # COMMITTED is <root>/benchmarks/results, in a checkout and in an installed package alike
    return bench_block(str(COMMITTED.parent.parent), SITE_BENCH_PLOT) or "No committed benchmark results."


if __name__ == "__main__":  # `python -m gpulint.docs [README.md]`: print or update the rule table
    import sys
    from pathlib import Path

    from .registry import catalog_text

    if len(sys.argv) > 1:
        print("updated" if update_readme(sys.argv[1]) else "up to date")
        catalog = Path(__file__).with_name("rule_catalog.py")
        if catalog.read_text(encoding="utf-8") != catalog_text():
            catalog.write_text(catalog_text(), encoding="utf-8")
            print(f"updated {catalog.name}")
    else:
        print(rule_table())
